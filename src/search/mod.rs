//! Iterative-deepening principal variation search.
//!
//! Each node, in order (each step notes what it is for):
//! 1. the side to move has a five point: won in one ply;
//! 2. the opponent has five points: only the cells that stop them are searched (and two
//!    separate five points are a loss where blocking one cannot stop the other);
//! 3. the side to move has an open four / double four point: won in three plies (not at
//!    caro, where a four can be answered at its extension square);
//! 4. transposition table probe;
//! 5. when the opponent threatens an open four (an open three), only our own fours and
//!    the cells that break their lines are searched;
//! 6. PVS over the ordered moves (TT move, then pattern score; killers reduce less).
//!
//! Forcing answers (step 2) do not use up depth, so four-chains are read to the end.
//!
//! Around the iterations the threat-space search looks past their horizon
//! (`check_threats`): a quick look for our own forced win first, and after them our win
//! again and the opponent's win against the move chosen (which, if found, drops that
//! move and searches the defences again). Each look gets a slice of the move plan: of
//! the move's time under a time manager, of a nominal move's nodes without one. On a
//! move whose turn limit binds, the time the check leaves goes back to the iterations,
//! one ply deeper, and a new choice of theirs is checked the same way in the rest.
//!
//! Files, one capability each:
//! - this one: the public API (options, limits, events, the state kept across moves);
//! - `threads`: Lazy SMP, the helper threads around the main search;
//! - `driver`: iterative deepening, the root move loop, multi-PV;
//! - `node`: the node search (negamax and its steps, quiescence, forced moves);
//! - `tactics`: the threat-space searches at the root and the refutation loop.

mod driver;
mod node;
mod tactics;
mod threads;
pub mod vcf;

use crate::board::{Board, Pos};
use crate::eval::{Evaluator, Value};
use crate::params::search::DEFAULT_INTERIOR_MOVES;
use crate::threat;
use crate::time::TimeManager;
use crate::tt::TableSlot;
use crate::types::Coord;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// Deepest ply a search reaches (forcing extensions included).
pub const MAX_PLY: usize = 128;
/// Most search threads (`thread_num`, `engine.threads`); more would only contend.
pub const MAX_THREADS: usize = 64;

/// Search features that can be switched off (config keys `search.*`), so each can be
/// judged by a match against the same engine without it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchOptions {
    /// The threat-space search at the root (wins and forced defences).
    pub threat_search: bool,
    /// The threat-space search after the iterations: checks the chosen move (step 7).
    pub threat_check: bool,
    /// A small VCF search at interior nodes for both sides (step 4c).
    pub interior_vcf: bool,
    pub null_move: bool,
    pub late_move_reductions: bool,
    pub late_move_pruning: bool,
    /// A shallow node whose static value beats beta by a margin fails high unsearched.
    pub reverse_futility: bool,
    /// Moves searched at an interior node that no threat forces: the pattern-score
    /// ordering puts the moves that matter first, the rest are pruned.
    pub interior_moves: usize,
}

/// Defaults decided by matches (`docs/experiments.md` has the figures).
impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            threat_search: false,
            threat_check: true,
            interior_vcf: false,
            null_move: false,
            late_move_reductions: true,
            late_move_pruning: true,
            reverse_futility: true,
            interior_moves: DEFAULT_INTERIOR_MOVES,
        }
    }
}

impl SearchOptions {
    pub fn from_config(config: &crate::config::Config) -> SearchOptions {
        let d = SearchOptions::default();
        SearchOptions {
            threat_search: config.get_bool("search.threat_search", d.threat_search),
            threat_check: config.get_bool("search.threat_check", d.threat_check),
            interior_vcf: config.get_bool("search.interior_vcf", d.interior_vcf),
            null_move: config.get_bool("search.null_move", d.null_move),
            late_move_reductions: config.get_bool("search.lmr", d.late_move_reductions),
            late_move_pruning: config.get_bool("search.lmp", d.late_move_pruning),
            reverse_futility: config.get_bool("search.reverse_futility", d.reverse_futility),
            interior_moves: config.get_u32_in(
                "search.interior_moves",
                4..=64,
                d.interior_moves as u32,
            ) as usize,
        }
    }
}

/// When and how deep to stop.
pub struct SearchLimits {
    /// When the move command was read (for reported times).
    pub started: Instant,
    /// The time manager of this move; `None` for searches bounded only by depth/nodes.
    pub time: Option<TimeManager>,
    pub max_depth: i32,
    pub max_nodes: u64,
    pub options: SearchOptions,
    pub eval: Evaluator,
    /// Search threads (Lazy SMP): one is deterministic, more share the table.
    pub threads: usize,
    /// Best root moves searched and reported with their own lines (`YXNBEST n`).
    pub multi_pv: usize,
    /// Without a clock: the threat-search nodes of a nominal move, which the threat
    /// searches around the iterations share out as the move plan shares out a move's
    /// time (see `time::plan`), so that the search runs as it plays and stays
    /// deterministic (the bench). `None`: they do not run, and a search without a clock
    /// is the main search alone (as the book and the opening lists measure positions).
    pub clockless_threat_nodes: Option<u64>,
}

impl SearchLimits {
    /// A search bounded only by depth (the bench, tests).
    pub fn depth(depth: i32) -> SearchLimits {
        SearchLimits {
            started: Instant::now(),
            time: None,
            max_depth: depth,
            max_nodes: u64::MAX,
            options: SearchOptions::default(),
            eval: Evaluator::default(),
            threads: 1,
            multi_pv: 1,
            clockless_threat_nodes: None,
        }
    }
}

/// What the search tells its caller while it runs.
#[derive(Clone, Debug)]
pub enum SearchEvent {
    /// An iteration finished.
    Iteration(SearchReport),
    /// Something worth a `MESSAGE` (panic mode started, …).
    Note(String),
    /// A root move is about to be searched (analysis GUIs show it live).
    RootMoveStarted(Coord),
    /// A root move was searched; `value` is exact or a bound, so only a proven loss says
    /// something on its own.
    RootMoveDone { coord: Coord, value: Value },
    /// The iteration in progress has a new best move.
    NewBest(Coord),
}

/// What one finished iteration found, for `MESSAGE` lines and analysis GUIs.
#[derive(Clone, Debug)]
pub struct SearchReport {
    pub depth: i32,
    pub seldepth: i32,
    pub value: Value,
    pub nodes: u64,
    pub elapsed: Duration,
    pub best: Coord,
    pub pv: Vec<Coord>,
    /// With `multi_pv` > 1: the best root moves' lines, best first (the first is `pv`).
    pub lines: Vec<PvLine>,
}

/// One root move's line of a multi-PV search.
#[derive(Clone, Debug)]
pub struct PvLine {
    pub value: Value,
    pub pv: Vec<Coord>,
}

/// The result of a search.
#[derive(Clone, Copy, Debug)]
pub struct Outcome {
    pub best: Pos,
    pub value: Value,
    pub depth: i32,
    /// Nodes of the main search (all threads).
    pub nodes: u64,
    /// Nodes of the main thread's threat-space searches around the iterations.
    pub threat_nodes: u64,
}

/// Search state that lives across moves: the transposition table and its size, and
/// the threat search's memo of our own forced wins (a win claimed on one move is
/// followed on the next from it).
#[derive(Default)]
pub struct SearchState {
    table: TableSlot,
    threat_memo: threat::Memo,
}

impl SearchState {
    pub fn new() -> SearchState {
        SearchState::default()
    }

    /// Sets the table size asked for. A smaller table replaces the one there is at once
    /// (the memory limit may have shrunk); a larger one is made by the next
    /// [`Self::prepare_table`], or by a search with the time for it.
    pub fn set_tt_bytes(&mut self, bytes: usize) {
        self.table.set_bytes(bytes);
    }

    /// The size of the table made so far, if one is.
    pub fn table_bytes(&self) -> Option<usize> {
        self.table.made_bytes()
    }

    pub fn tt_bytes(&self) -> usize {
        self.table.bytes()
    }

    /// Makes the table of the size asked for now, unless it is there already, with all
    /// its pages mapped: for `START`, which is off the move's clock, to pay for it rather
    /// than the first move.
    pub fn prepare_table(&mut self) {
        self.table.prepare();
    }

    pub fn new_game(&mut self) {
        // Positions of the last game may recur (same opening), so the table is kept.
    }

    pub fn clear_hash(&mut self) {
        self.table.clear();
        self.threat_memo = threat::Memo::default();
    }

    /// Searches `board` and returns the best move for the side to move.
    pub fn search(
        &mut self,
        board: &mut Board,
        limits: SearchLimits,
        stop: &AtomicBool,
        report: &mut dyn FnMut(&SearchEvent),
    ) -> Pos {
        self.run(board, limits, stop, report).best
    }

    /// Searches without reporting; the value is for the side to move.
    pub fn evaluate(
        &mut self,
        board: &mut Board,
        limits: SearchLimits,
        stop: &AtomicBool,
    ) -> Outcome {
        self.run(board, limits, stop, &mut |_| {})
    }

    fn run(
        &mut self,
        board: &mut Board,
        mut limits: SearchLimits,
        stop: &AtomicBool,
        report: &mut dyn FnMut(&SearchEvent),
    ) -> Outcome {
        let time = limits.time.take();
        limits.eval.prepare(board);
        let optimum_ms = time.as_ref().map(|tm| tm.optimum_ms());
        let tt = self.table.for_search(optimum_ms);
        tt.new_search();
        threads::search(
            board,
            tt,
            &limits,
            time,
            stop,
            &mut self.threat_memo,
            report,
        )
    }
}

/// Helpers shared by the search's unit tests.
#[cfg(test)]
mod testing {
    use super::{SearchLimits, SearchState};
    use crate::board::Board;
    use crate::eval::Value;
    use crate::params::plan::CLOCKLESS_MOVE_NODES;
    use crate::types::{parse_pos_sequence, Coord, Rule};
    use std::sync::atomic::AtomicBool;

    pub(super) fn position(rule: Rule, moves: &str) -> Board {
        let mut b = Board::new(15, 15, rule).unwrap();
        for c in parse_pos_sequence(moves).unwrap() {
            b.play(c).unwrap();
        }
        b
    }

    pub(super) fn best_move(rule: Rule, moves: &str, depth: i32) -> (Coord, Value) {
        best_move_with(rule, moves, SearchLimits::depth(depth))
    }

    pub(super) fn best_move_with(rule: Rule, moves: &str, limits: SearchLimits) -> (Coord, Value) {
        let mut b = position(rule, moves);
        let mut state = SearchState::new();
        state.set_tt_bytes(1 << 20);
        let stop = AtomicBool::new(false);
        let o = state.evaluate(&mut b, limits, &stop);
        (b.coord(o.best), o.value)
    }

    /// The move a search of `depth` plies picks with the check of step 7 on or off. The
    /// threat searches run without a clock, in the slices of the bench's nominal move
    /// counted in nodes, so the result does not depend on the machine's load.
    pub(super) fn checked_move(rule: Rule, moves: &str, depth: i32, check: bool) -> Coord {
        let mut limits = SearchLimits::depth(depth);
        limits.options.threat_check = check;
        limits.clockless_threat_nodes = Some(CLOCKLESS_MOVE_NODES);
        best_move_with(rule, moves, limits).0
    }

    pub(super) fn coords(list: &str) -> Vec<Coord> {
        list.split(',')
            .map(|c| Coord::from_pos_notation(c).unwrap())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::testing::position;
    use super::*;
    use crate::types::Rule;

    #[test]
    fn multi_pv_ranks_distinct_root_moves_best_first() {
        let mut b = position(Rule::Freestyle, "h8i9j7i7");
        let mut state = SearchState::new();
        state.set_tt_bytes(1 << 20);
        let stop = AtomicBool::new(false);
        let limits = SearchLimits {
            multi_pv: 3,
            ..SearchLimits::depth(4)
        };
        let mut last = None;
        let best = state.search(&mut b, limits, &stop, &mut |e| {
            if let SearchEvent::Iteration(r) = e {
                last = Some(r.clone());
            }
        });
        let r = last.expect("an iteration finished");
        assert_eq!(r.lines.len(), 3);
        assert_eq!(r.lines[0].pv.first(), Some(&b.coord(best)));
        let firsts: Vec<Coord> = r.lines.iter().map(|l| l.pv[0]).collect();
        assert!(firsts[0] != firsts[1] && firsts[1] != firsts[2] && firsts[0] != firsts[2]);
        assert!(
            r.lines.windows(2).all(|w| w[0].value >= w[1].value),
            "{:?}",
            r.lines
        );
        for c in firsts {
            let p = b.pos(c).expect("on the board");
            assert!(b.is_empty(p));
        }
    }

    #[test]
    fn a_larger_table_waits_for_start_or_a_move_with_time_for_it() {
        use crate::time::{Budget, SystemClock, TimeParams};
        let mut b = position(Rule::Freestyle, "h8i9j7");
        let stop = AtomicBool::new(false);
        let mut state = SearchState::new();
        state.set_tt_bytes(4 << 20);
        state.prepare_table();
        assert_eq!(state.table_bytes(), Some(4 << 20));
        let mut search_with_optimum = |state: &mut SearchState, optimum_ms| {
            let mut limits = SearchLimits::depth(1);
            limits.time = Some(TimeManager::start(
                SystemClock::new(),
                0,
                Budget {
                    optimum_ms,
                    hard_ms: 2 * optimum_ms,
                    turn_bound: false,
                },
                TimeParams::default(),
            ));
            state.evaluate(&mut b, limits, &stop);
        };
        // 64 MiB, assumed to take 64 ms to make: not within 1/16 of a 500 ms move.
        state.set_tt_bytes(64 << 20);
        search_with_optimum(&mut state, 500);
        assert_eq!(state.table_bytes(), Some(4 << 20));
        // Within 1/16 of a 2 s move.
        search_with_optimum(&mut state, 2_000);
        assert_eq!(state.table_bytes(), Some(64 << 20));
        // A smaller size (a lower memory limit) drops the table at once.
        state.set_tt_bytes(2 << 20);
        assert_eq!(state.table_bytes(), None);
        // START makes a larger one whatever the clock.
        state.set_tt_bytes(8 << 20);
        state.prepare_table();
        assert_eq!(state.table_bytes(), Some(8 << 20));
    }

    #[test]
    fn the_config_gives_the_default_options_and_a_file_overrides_them() {
        use crate::config::{Config, ConfigSource};
        let embedded = Config::embedded();
        assert_eq!(
            SearchOptions::from_config(&embedded),
            SearchOptions::default()
        );
        let file = Config::from_text(
            "[search]\ninterior_moves = 10\nlmr = off\n",
            ConfigSource::Embedded,
        );
        assert_eq!(file.take_warning(), None);
        let options = SearchOptions::from_config(&file);
        assert_eq!(options.interior_moves, 10);
        assert!(!options.late_move_reductions);
        // Fewer moves per node: a smaller tree to the same depth.
        let nodes = |options: SearchOptions| {
            let mut board = position(Rule::Freestyle, "h8i9i8g8j8k8h9h10");
            let mut limits = SearchLimits::depth(5);
            limits.options = options;
            let mut state = SearchState::new();
            state.set_tt_bytes(1 << 20);
            state
                .evaluate(&mut board, limits, &AtomicBool::new(false))
                .nodes
        };
        assert!(nodes(options) < nodes(SearchOptions::default()));
    }
}
