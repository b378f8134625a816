//! Threat-search speed over a fixed corpus, for `pbrain-wuzi bench`: calls per second
//! and the mean and worst time of one call, for VCF and VCT, both sides of every
//! position (the side not to move searched as if it moved, as the main search asks).

use super::{corpus, find_win_counted, Level, Limits};
use crate::board::Board;
use crate::types::{Color, Rule};
use std::fmt;
use std::time::{Duration, Instant};

/// The shared middle-game bench positions (shared/positions/bench-positions.txt):
/// rule, size, moves.
const BENCH_POSITIONS: [(i64, usize, &str); 10] = [
    (0, 15, "h8g7f6g8g9"),
    (0, 15, "h2h5h4f6"),
    (0, 20, "e2f2h3g3g6h5f9"),
    (0, 20, "f5e3b7h5g3g4i6e4h4d4f2i5f4f6e5d6d7e7f8"),
    (1, 15, "h8h7j6i7f7"),
    (1, 15, "f6i9h8"),
    (1, 15, "b3k10g2f6"),
    (4, 15, "h8i9j10i8i7g9"),
    (4, 15, "h8h9j9j8f8i7g7i9h6e9f6k7l6i10i6f9g9g11h10i11i8"),
    (4, 15, "h8h9h6i10i6i9g9g8j11i7"),
];
/// Generated positions added per rule (fixed seed), so the bench also sees positions
/// that are rich in threats.
const GENERATED_PER_RULE: usize = 10;
const GENERATED_SEED: u64 = 4242;

/// Timing of one level over the corpus.
#[derive(Clone, Copy, Debug, Default)]
pub struct LevelTiming {
    pub calls: u64,
    pub wins: u64,
    pub nodes: u64,
    pub total: Duration,
    pub worst: Duration,
}

impl LevelTiming {
    pub fn calls_per_second(&self) -> f64 {
        self.calls as f64 / self.total.as_secs_f64().max(1e-9)
    }
    pub fn mean(&self) -> Duration {
        self.total / self.calls.max(1) as u32
    }
}

/// What `bench_corpus` measured.
#[derive(Clone, Debug, Default)]
pub struct BenchReport {
    pub positions: usize,
    pub vcf: LevelTiming,
    pub vct: LevelTiming,
}

impl fmt::Display for BenchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (name, t) in [("vcf", &self.vcf), ("vct", &self.vct)] {
            writeln!(
                f,
                "threat {name}: {} positions, {} calls, {} wins, {} nodes, {:.0} calls/s, mean {:.1} us, worst {:.1} us",
                self.positions,
                t.calls,
                t.wins,
                t.nodes,
                t.calls_per_second(),
                t.mean().as_secs_f64() * 1e6,
                t.worst.as_secs_f64() * 1e6
            )?;
        }
        Ok(())
    }
}

/// The fixed corpus: the shared bench positions and some generated ones.
pub fn bench_positions() -> Vec<Board> {
    let mut boards = Vec::new();
    for (rule, size, moves) in BENCH_POSITIONS {
        if let Ok(board) = Board::from_moves(size, Rule::from_info(rule), moves) {
            boards.push(board);
        }
    }
    boards.extend(corpus::generate(GENERATED_PER_RULE, GENERATED_SEED));
    boards
}

/// Times `rounds` passes of VCF and VCT calls (default limits) over the corpus.
pub fn bench_corpus(rounds: u32) -> BenchReport {
    let mut boards = bench_positions();
    let mut report = BenchReport {
        positions: boards.len(),
        ..BenchReport::default()
    };
    for _ in 0..rounds.max(1) {
        for board in &mut boards {
            for attacker in Color::BOTH {
                for (limits, timing) in [
                    (Limits::vcf(), &mut report.vcf),
                    (Limits::vct(), &mut report.vct),
                ] {
                    let start = Instant::now();
                    let (win, nodes) = find_win_counted(board, attacker, &limits);
                    let took = start.elapsed();
                    timing.calls += 1;
                    timing.wins += win.is_some() as u64;
                    timing.nodes += nodes;
                    timing.total += took;
                    timing.worst = timing.worst.max(took);
                    debug_assert!(limits.level == Level::Vcf || limits.level == Level::Vct);
                }
            }
        }
    }
    report
}
