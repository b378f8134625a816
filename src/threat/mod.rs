//! Threat-space search: can a side force a win with threats (VCF: fours only; VCT: fours
//! and threes), and which moves defend when the opponent can.
//!
//! Files, one concern each:
//! - `threats`: threats read from the pattern tables (categories, reply squares);
//! - `search`: the AND/OR proof search over threat sequences (with its refutation check);
//! - `defence`: the moves that stop every opponent win;
//! - `verify`: an independent brute-force checker of claimed wins (tests and CLI);
//! - `corpus`: seeded random-but-sensible games, for tests and the bench;
//! - `cli`: the `solve` command; `bench`: calls per second over fixed positions.
//!
//! Every entry point leaves the board exactly as it found it.

pub mod bench;
pub mod cli;
pub mod corpus;
pub mod defence;
pub mod search;
pub mod threats;
pub mod verify;

use crate::board::{Board, Pos};
use crate::types::Color;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

pub use bench::{bench_corpus, BenchReport};
pub use cli::solve_cli;
pub use defence::{defences, defences_counted};
pub use threats::{Category, ThreatKind};

/// Which threats the attacker may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// Victory by continuous fours: only category-1 threats. Very fast.
    Vcf,
    /// Victory by continuous threats: fours and threes.
    Vct,
}

/// Bounds on one search. The search gives up (returns "no win found") when any is hit.
#[derive(Clone, Copy, Debug)]
pub struct Limits<'a> {
    pub level: Level,
    /// Nodes (attacker and defender positions) searched at most.
    pub max_nodes: u64,
    /// Attacker moves in one line at most; at VCT also the most threes in one line.
    pub max_depth: u32,
    /// Wall-clock limit, read every few hundred nodes.
    pub deadline: Option<Instant>,
    /// Set by another thread to stop the search early.
    pub stop: Option<&'a AtomicBool>,
}

impl Limits<'static> {
    /// Defaults for a VCF call inside the main search: tiny and fast.
    pub fn vcf() -> Self {
        Limits {
            level: Level::Vcf,
            max_nodes: 20_000,
            max_depth: 30,
            deadline: None,
            stop: None,
        }
    }

    /// Defaults for a VCT call inside the main search: bounded so that one call stays
    /// around a millisecond even when it fails (failing calls are the expensive ones).
    pub fn vct() -> Self {
        Limits {
            level: Level::Vct,
            max_nodes: 2_000,
            max_depth: 8,
            deadline: None,
            stop: None,
        }
    }
}

/// One attacker threat of a winning line and the defender's answers to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreatStep {
    /// The attacker's move (the gain square).
    pub attack: Pos,
    pub kind: ThreatKind,
    /// Every defender reply that had to be refuted (reply squares and counter-fours).
    /// The line continues after the first of them; the others were refuted as well.
    pub replies: Vec<Pos>,
}

/// A proven win: the main line, ending in a five.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WinningSequence {
    pub steps: Vec<ThreatStep>,
    /// Nodes the search used.
    pub nodes: u64,
}

impl WinningSequence {
    /// The move to play now.
    pub fn first_move(&self) -> Option<Pos> {
        self.steps.first().map(|s| s.attack)
    }

    /// The main line as moves: attacker, first reply, attacker, ...
    pub fn main_line(&self) -> Vec<Pos> {
        let mut line = Vec::new();
        for s in &self.steps {
            line.push(s.attack);
            if let Some(&r) = s.replies.first() {
                line.push(r);
            }
        }
        line
    }
}

/// Searches for a forced win of `attacker`, who is to move (whatever the board's side to
/// move says: this lets the main search ask "what if the opponent moved now?").
/// Returns `None` when no win was found within the limits. Every returned win is proven
/// against all defences (see `search`), under the board's rule.
pub fn find_win(board: &mut Board, attacker: Color, limits: &Limits) -> Option<WinningSequence> {
    find_win_counted(board, attacker, limits).0
}

/// [`find_win`], also returning the nodes used (whether or not a win was found).
pub fn find_win_counted(
    board: &mut Board,
    attacker: Color,
    limits: &Limits,
) -> (Option<WinningSequence>, u64) {
    if !has_any_threat(board, attacker, limits.level) {
        return (None, 1);
    }
    let mut searcher = search::Searcher::new(board, attacker, limits);
    let result = searcher.run();
    (result, searcher.nodes)
}

/// The fast exit taken by most calls from the main search: without a five point, a four
/// or (at VCT) an open three, the attacker has no threat to start a sequence with.
fn has_any_threat(board: &Board, attacker: Color, level: Level) -> bool {
    use crate::pattern::Pattern;
    let count = |class| board.pattern_count(attacker, class);
    count(Pattern::Five)
        + count(Pattern::Four)
        + count(Pattern::OpenFour)
        + count(Pattern::DoubleFour)
        > 0
        || (level == Level::Vct && count(Pattern::OpenThree) > 0)
}
