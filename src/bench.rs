//! The workload of `pbrain-wuzi bench` (which prints it): fixed and deterministic.
//!
//! Fixed positions of every rule, a fixed depth, one thread and a fixed hash size: the
//! total node count and the signature (a hash of every chosen move and node count) are
//! the same for the same binary on every machine, so commits that change play quote
//! them (`Bench: <nodes>`). Speeds (make+undo per second, nodes per second) are
//! measurements and vary with the machine.

use crate::board::Board;
use crate::params::plan::CLOCKLESS_MOVE_NODES;
use crate::search::{SearchLimits, SearchState};
use crate::types::Rule;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// Middle-game positions (rule, size, moves in "pos" notation). The first ten are the
/// common benchmark positions of `shared/positions/bench-positions.txt`; the caro ones
/// reuse freestyle openings under the caro rule.
pub const POSITIONS: &[(Rule, usize, &str)] = &[
    (Rule::Freestyle, 15, "h8g7f6g8g9"),
    (Rule::Freestyle, 15, "h2h5h4f6"),
    (Rule::Freestyle, 20, "e2f2h3g3g6h5f9"),
    (
        Rule::Freestyle,
        20,
        "f5e3b7h5g3g4i6e4h4d4f2i5f4f6e5d6d7e7f8",
    ),
    (Rule::Standard, 15, "h8h7j6i7f7"),
    (Rule::Standard, 15, "f6i9h8"),
    (Rule::Standard, 15, "b3k10g2f6"),
    (Rule::Renju, 15, "h8i9j10i8i7g9"),
    (
        Rule::Renju,
        15,
        "h8h9j9j8f8i7g7i9h6e9f6k7l6i10i6f9g9g11h10i11i8",
    ),
    (Rule::Renju, 15, "h8h9h6i10i6i9g9g8j11i7"),
    (Rule::Caro, 15, "h8g7f6g8g9"),
    (Rule::Caro, 15, "h8i9j10i8i7g9"),
];

/// Search depth of the bench.
pub const DEPTH: i32 = 5;
/// Transposition table of the bench (fixed so node counts do not depend on settings).
const TT_BYTES: usize = 16 << 20;

/// The deterministic part of a bench run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BenchResult {
    pub nodes: u64,
    pub signature: u64,
}

/// Searches every bench position to `depth` with a fresh table; returns nodes and
/// signature, and the time spent searching.
pub fn search_positions(depth: i32) -> (BenchResult, std::time::Duration) {
    let mut nodes = 0u64;
    let mut signature = 0xcbf2_9ce4_8422_2325u64; // FNV-1a offset basis
    let mut mix = |v: u64| {
        for byte in v.to_le_bytes() {
            signature = (signature ^ byte as u64).wrapping_mul(0x0100_0000_01b3);
        }
    };
    let started = Instant::now();
    for &(rule, size, moves) in POSITIONS {
        let mut board = bench_board(rule, size, moves);
        let mut state = SearchState::new();
        state.set_tt_bytes(TT_BYTES);
        let stop = AtomicBool::new(false);
        // The search as it plays: the threat searches around the iterations run in their
        // slices of a nominal move counted in nodes, and their nodes count. Step 0
        // (`threat_search`, off in play) stays off: it has no deadline at a fixed depth.
        let mut limits = SearchLimits::depth(depth);
        limits.options.threat_search = false;
        limits.clockless_threat_nodes = Some(CLOCKLESS_MOVE_NODES);
        let outcome = state.evaluate(&mut board, limits, &stop);
        nodes += outcome.nodes + outcome.threat_nodes;
        mix(outcome.nodes);
        mix(outcome.threat_nodes);
        mix(outcome.best.0 as u64);
        mix(outcome.value as u64);
    }
    (BenchResult { nodes, signature }, started.elapsed())
}

fn bench_board(rule: Rule, size: usize, moves: &str) -> Board {
    match Board::from_moves(size, rule, moves) {
        Ok(board) => board,
        Err(e) => unreachable_bench(&format!("bench position {moves}: {e}")),
    }
}

fn unreachable_bench(why: &str) -> ! {
    // The positions are constants of this file; a failure here is a bug in the file.
    panic!("bench data is broken: {why}")
}

/// make+undo pairs per second on a middle-game position (one core).
pub fn make_undo_rate() -> f64 {
    let mut board = bench_board(Rule::Freestyle, 15, POSITIONS[0].2);
    let empties: Vec<_> = board.positions().filter(|&p| board.is_empty(p)).collect();
    let rounds = 2_000_000usize;
    let started = Instant::now();
    let mut sink = 0u64;
    for i in 0..rounds {
        board.make(empties[(i * 7) % empties.len()]);
        sink ^= board.hash();
        board.undo();
    }
    std::hint::black_box(sink);
    rounds as f64 / started.elapsed().as_secs_f64()
}
