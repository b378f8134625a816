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
//! Around the iterations, under a time manager, the threat-space search looks past their
//! horizon (`check_threats`): a quick look for our own forced win first, and after them
//! our win again and the opponent's win against the move chosen (which, if found,
//! drops that move and searches the defences again).

use crate::board::{Board, Pos};
use crate::eval::{self, EvalWeights, Value, INFINITE, WIN, WIN_THRESHOLD};
use crate::movegen::{self, MoveList, ScoredMove, Threat};
use crate::pattern::Pattern;
use crate::rules;
use crate::threat;
use crate::time::{FailLow, IterationReport, Resolution, TimeManager};
use crate::tt::{Bound, TranspositionTable};
use crate::types::{Color, Coord, Rule};
use smallvec::SmallVec;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Deepest ply a search reaches (forcing extensions included).
pub const MAX_PLY: usize = 128;
/// The value of a node whose searched moves all lose by force while others were pruned:
/// below every static value, above every proven loss, and not decisive.
const UNPROVEN_LOSS: Value = -(WIN_THRESHOLD - 1);
/// Moves searched at an interior node that is not forced, by default (config
/// `search.interior_moves`; the figures behind it are there).
const DEFAULT_INTERIOR_MOVES: usize = 16;
/// Threat-space search at the root: node cap per search (at least; see below), and the
/// shares of the optimum time (1/N) the search for our win and the computation of
/// defences may use.
/// The cap is per call, and the first phase gets two thirds of it (1M): a resumed search
/// that reaches that share moves on to the second phase for good. At 1M (667k for the
/// first phase) the longer look at 1 s per move, 222 ms at 3-4k nodes per ms, reached
/// the share just before its deadline and gave up first-phase wins of 826k and 1.10M
/// nodes in all (freestyle-selfplay game-0065-ply12 and game-0055-ply24); at 1.5M the
/// second is found at 261 ms, the first by the check. Freestyle, 1 s per move, 200 games
/// against 1M: 101-95-4, +10.4 Elo [-37.4, +58.6]; standard 102-92-6, +17.4 [-30.1,
/// +65.5]; renju 93-102-5 and 105-93-2 (two sets of openings), even over 400 games.
const ROOT_THREAT_NODES: u64 = 1_500_000;
/// The cap of the search for the opponent's win after the best move (`refutation`), at
/// least: 1.33M nodes for its first phase. In standard-selfplay-1s game-0034-ply12,
/// white's win after l11 takes 1.07M nodes of that phase; at 1.5M the phase ended at 1M
/// and the second found nothing. The searches for our own win keep `ROOT_THREAT_NODES`:
/// a trial with every root search at 2M lost freestyle (-38.4 Elo over 200 games).
const REFUTATION_THREAT_NODES: u64 = 2_000_000;
/// A threat search of the check around the iterations (see `check_limits_until`) may use
/// this many nodes per millisecond of its time slice when that is more than
/// `ROOT_THREAT_NODES` (or `REFUTATION_THREAT_NODES`): about what the search ran on an
/// older machine (1.5-2 per microsecond), so that the cap, and the first phase's share of
/// it, keep up with long slices instead of ending the search early. Slices up to 750 ms
/// (1 s for the refutation; every one at 1 s per move) keep the fixed cap. At 5 s per
/// move, pub-renju-win026 (a win that takes 1.02M nodes of the first phase) was played
/// from a proof after 716 ms; with the cap at 1M every slice stopped at it and the move
/// came from the iterations.
const ROOT_THREAT_NODES_PER_MS: u64 = 2_000;
const WIN_SHARE_OF_OPTIMUM: u64 = 8;
const DEFENCE_SHARE_OF_OPTIMUM: u64 = 8;
/// Each search of the check of the chosen move (step 7) may use at least this share (1/N)
/// of the optimum, even when the iterations used it all.
const CHECK_SLICE_OF_OPTIMUM: u64 = 4;
/// After the check refuted the best move, the search of the other moves leaves this share
/// (1/N) of what is left of the move for the check of its own choice.
const RECHECK_SHARE_OF_REST: u64 = 3;
/// The check of the chosen move (step 7) may run until this share (1/N) of the optimum
/// before the hard limit, left for acting on a refutation found late. Before, it ended
/// at its slice even with the rest of the move unused: in a standard-rule self-play
/// position (match-standard-game-0078-ply10) the iterations ended at 520 of 819 ms,
/// the check of f8 stopped at 724 ms, and white's win after f8 takes 207 ms. At 1 s per
/// move, freestyle, 200 games against the check cut at its slice: +12.2 [-35.2, +60.0],
/// mean move 373 ms against 384.
const REFUTATION_RESERVE_OF_OPTIMUM: u64 = 8;
/// After an iteration that went through a panic, once this share (1/N) of the optimum
/// has passed (the early iterations' best moves change too often to be worth it), the
/// check of its best move gets a slice of this other share (1/N) of the optimum (see
/// `refuted_between_iterations`).
const REFUTATION_SLICES_FROM_OPTIMUM: u64 = 4;
const REFUTATION_SLICE_OF_OPTIMUM: u64 = 2;
/// The quick search for our own win before the iterations: this share (1/N) of the optimum.
const QUICK_WIN_SHARE_OF_OPTIMUM: u64 = 16;
/// When the quick search was cut by its deadline (a rich threat space), it goes on until
/// this share (1/N) of the optimum, counted from its start.
/// Measured with our own win searched wider (closed threes threatening a VCF too, branch
/// `wide`), at 1 s/move against main: at a third, 480 games, 246-221-13, +18.1 [-12.5,
/// +49.0]; at half, 240 games, 107-127-6, -29.0 [-73.3, +14.3]. Neither kept. Half is what
/// finds pub-free-win002 (about 465k nodes) in every run; a third in 1 of 3.
const TACTICAL_WIN_SHARE_OF_OPTIMUM: u64 = 3;
/// Nodes between two checks of the hard time limit and the stop flag (a power of two).
/// A clock read costs tens of nanoseconds; late-game nodes cost tens of microseconds.
const LIMIT_CHECK_INTERVAL: u64 = 256;
/// Null move: smallest depth where it is tried, and its depth reduction.
const NULL_MIN_DEPTH: i32 = 3;
const NULL_REDUCTION: i32 = 2;
/// Late-move reductions: from which move index and depth a quiet move is reduced, and
/// the divisor of the log-log formula (see [`lmr_reduction`]).
const LMR_MIN_INDEX: usize = 3;
const LMR_MIN_DEPTH: i32 = 3;
const LMR_DIVISOR: f64 = 2.0;
/// Late-move pruning: at depth d ≤ `LMP_MAX_DEPTH` of a non-PV node, quiet moves after the
/// first `LMP_MOVES[d]` are not searched.
const LMP_MAX_DEPTH: i32 = 3;
const LMP_MOVES: [usize; LMP_MAX_DEPTH as usize + 1] = [0, 6, 9, 12];
/// Internal iterative reduction: smallest depth reduced when the table has no move.
const IIR_MIN_DEPTH: i32 = 4;
/// Futility pruning: at depth d ≤ `FUTILITY_MAX_DEPTH` of a non-PV node whose static
/// value plus `FUTILITY_MARGIN[d]` cannot reach alpha, quiet moves are not searched.
/// Because of the evaluation's side-to-move bonus (tempo factor), a quiet move almost
/// never raises the mover's static value: over the bench's depth-1 nodes the value after
/// it minus the value before had a median of -523 and a 99.9th percentile of +68. Depth 2
/// leaves the opponent's reply and our next move, hence the wider margin.
const FUTILITY_MAX_DEPTH: i32 = 2;
const FUTILITY_MARGIN: [Value; FUTILITY_MAX_DEPTH as usize + 1] = [0, 50, 250];
/// First aspiration window half-width around the previous iteration's value.
const ASPIRATION_DELTA: Value = 40;
/// Node cap of each VCF search at an interior node (step 4c): most end in a few nodes.
const INTERIOR_VCF_NODES: u64 = 1_000;
/// Fours tried at a leaf: the best-scored ones; a VCF rarely needs more choices.
const MAX_QUIESCENCE_FOURS: usize = 8;
/// Longest four-chain the leaf search follows.
const MAX_QUIESCENCE_CHAIN: i32 = 10;
/// Default transposition table size when nothing asks for another.
pub const DEFAULT_TT_BYTES: usize = 64 << 20;
/// Most search threads (`thread_num`, `engine.threads`); more would only contend.
pub const MAX_THREADS: usize = 64;
/// Stack of a helper thread: the recursion is at most `MAX_PLY` deep, with a move list
/// per frame, far below this; the margin covers the threat search.
const HELPER_STACK_BYTES: usize = 16 << 20;

/// Plies a quiet move at `index` (0-based, in search order) is searched shallower at
/// `depth`: ln(depth)·ln(index+1)/divisor, the formula of the Stockfish family, so late
/// moves at deep nodes lose most. At least one ply from `LMR_MIN_INDEX` on; never so much
/// that the reduced search skips the quiescence of the move (a four-chain) entirely.
fn lmr_reduction(depth: i32, index: usize) -> i32 {
    if depth < LMR_MIN_DEPTH || index < LMR_MIN_INDEX {
        return 0;
    }
    let r = (f64::from(depth).ln() * ((index + 1) as f64).ln() / LMR_DIVISOR) as i32;
    r.clamp(1, depth - 2)
}

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
    pub aspiration: bool,
    pub late_move_reductions: bool,
    pub late_move_pruning: bool,
    pub futility: bool,
    pub iir: bool,
    /// Moves searched at an interior node that no threat forces: the pattern-score
    /// ordering puts the moves that matter first, the rest are pruned.
    pub interior_moves: usize,
}

/// Defaults decided by matches (see `config/wuzi.conf` for the figures).
impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            threat_search: false,
            threat_check: true,
            interior_vcf: false,
            null_move: false,
            aspiration: false,
            late_move_reductions: true,
            late_move_pruning: false,
            futility: false,
            iir: false,
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
            aspiration: config.get_bool("search.aspiration", d.aspiration),
            late_move_reductions: config.get_bool("search.lmr", d.late_move_reductions),
            late_move_pruning: config.get_bool("search.lmp", d.late_move_pruning),
            futility: config.get_bool("search.futility", d.futility),
            iir: config.get_bool("search.iir", d.iir),
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
    pub eval: EvalWeights,
    /// Search threads (Lazy SMP): one is deterministic, more share the table.
    pub threads: usize,
    /// Best root moves searched and reported with their own lines (`YXNBEST n`).
    pub multi_pv: usize,
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
            eval: EvalWeights::default(),
            threads: 1,
            multi_pv: 1,
        }
    }

    /// The limits of a helper thread: no clock (the main thread decides when all stop),
    /// no node limit and no root threat step (the main thread's result is the one
    /// played), a single line.
    fn for_helper(&self) -> SearchLimits {
        SearchLimits {
            started: self.started,
            time: None,
            max_depth: self.max_depth,
            max_nodes: u64::MAX,
            options: SearchOptions {
                threat_search: false,
                ..self.options
            },
            eval: self.eval,
            threads: 1,
            multi_pv: 1,
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
    pub nodes: u64,
}

/// Cost of mapping a table's pages at once, as assumed: measured here at about 0.5 ms
/// per MiB (64 MiB in about 30 ms, 256 MiB in about 110 ms), taken as twice that.
const MAP_MS_PER_MIB: u64 = 1;
/// A table made during a move maps its pages at once only when that is assumed to take
/// at most this share (1/N) of the move's optimum time. A shorter move leaves them to be
/// mapped as the search touches them: it would not touch them all.
const MAP_SHARE_OF_OPTIMUM: u64 = 2;
/// A larger table than the one there is (`INFO max_memory` raised the size after
/// `START` made the table) replaces it in a move only when making it is assumed to take
/// at most this share (1/N) of the move's optimum; otherwise the table made at `START`
/// serves until the next `START`. Managers send `INFO max_memory` after `START`
/// (GomocupJudge, Piskvork), so every game's first move used to make a 256 MiB table on
/// its clock: at 1 s per move the search of pub-free-win002/s3 began 90-140 ms into the
/// move instead of at once. A 64 MiB table holds a few seconds of search.
const GROW_SHARE_OF_OPTIMUM: u64 = 16;

/// The table in `slot`, allocated with `bytes` if there is none. A new table has all its
/// pages mapped at once when `map_now` says so: a search touches nearly all of them, and
/// faulting them in one by one while it runs costs more. Measured on pub-renju-win024
/// through the protocol (`INFO max_depth 9`, a fresh process, alternating runs, medians
/// of 5), depths 1 to 9 took:
/// - 64 MiB, the table made at `START`: 441 ms with the pages mapped as touched, 357 ms
///   with them mapped beforehand;
/// - 256 MiB (`INFO max_memory` of Gomocup, so the table is made in the move): 579 ms
///   and 377 ms; the whole move 1197 ms and 1103 ms, the mapping included.
fn table_in(
    slot: &mut Option<TranspositionTable>,
    bytes: usize,
    map_now: bool,
) -> &mut TranspositionTable {
    slot.get_or_insert_with(|| {
        let mut tt = TranspositionTable::new(bytes);
        if map_now {
            tt.map_pages();
        }
        tt
    })
}

/// Whether a table of `bytes` made now may map its pages at once (see `table_in`):
/// always when no clock runs (bench, fixed-node searches), and within a timed move only
/// when that is cheap beside the move's optimum.
fn may_map_now(bytes: usize, time: Option<&TimeManager>) -> bool {
    mapping_fits(bytes, time, MAP_SHARE_OF_OPTIMUM)
}

/// Whether mapping a table of `bytes` is assumed to take at most 1/`share` of the
/// move's optimum (always, with no clock).
fn mapping_fits(bytes: usize, time: Option<&TimeManager>, share: u64) -> bool {
    let cost_ms = (bytes as u64 >> 20) * MAP_MS_PER_MIB;
    time.is_none_or(|tm| cost_ms * share <= tm.budget().optimum_ms)
}

/// Search state that lives across moves: the transposition table and its size, and
/// the threat search's memo of our own forced wins (a win claimed on one move is
/// followed on the next from it).
pub struct SearchState {
    tt: Option<TranspositionTable>,
    tt_bytes: usize,
    threat_memo: threat::Memo,
}

impl Default for SearchState {
    fn default() -> Self {
        SearchState::new()
    }
}

impl SearchState {
    pub fn new() -> SearchState {
        SearchState {
            tt: None,
            tt_bytes: DEFAULT_TT_BYTES,
            threat_memo: threat::Memo::default(),
        }
    }

    /// Sets the table size asked for. A smaller table replaces the one there is at once
    /// (the memory limit may have shrunk); a larger one is made by the next
    /// [`Self::prepare_table`], or by a search with the time for it (see
    /// `GROW_SHARE_OF_OPTIMUM`).
    pub fn set_tt_bytes(&mut self, bytes: usize) {
        self.tt_bytes = bytes;
        self.drop_table_if(std::cmp::Ordering::Greater);
    }

    /// The size of the table made so far, if one is.
    pub fn table_bytes(&self) -> Option<usize> {
        self.tt.as_ref().map(TranspositionTable::size_bytes)
    }

    /// Drops the table when its size compares so (`Less`: smaller) with the size asked
    /// for, so that the next `table_in` makes one of that size.
    fn drop_table_if(&mut self, size_is: std::cmp::Ordering) {
        let wanted = TranspositionTable::size_for(self.tt_bytes);
        if self
            .tt
            .as_ref()
            .is_some_and(|tt| tt.size_bytes().cmp(&wanted) == size_is)
        {
            self.tt = None;
        }
    }

    pub fn tt_bytes(&self) -> usize {
        self.tt_bytes
    }

    /// Makes the table of the size asked for now, unless it is there already, with all
    /// its pages mapped (see `table_in`): for `START`, which is off the move's clock, to
    /// pay for it rather than the first move.
    pub fn prepare_table(&mut self) {
        self.drop_table_if(std::cmp::Ordering::Less);
        table_in(&mut self.tt, self.tt_bytes, true);
    }

    pub fn new_game(&mut self) {
        // Positions of the last game may recur (same opening), so the table is kept.
    }

    pub fn clear_hash(&mut self) {
        if let Some(tt) = &mut self.tt {
            tt.clear();
        }
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
        if mapping_fits(self.tt_bytes, time.as_ref(), GROW_SHARE_OF_OPTIMUM) {
            self.drop_table_if(std::cmp::Ordering::Less);
        }
        let map_now = may_map_now(self.tt_bytes, time.as_ref());
        let tt = table_in(&mut self.tt, self.tt_bytes, map_now);
        tt.new_search();
        let tt: &TranspositionTable = tt;
        let helper_nodes = AtomicU64::new(0);
        let threads = limits.threads.clamp(1, MAX_THREADS);
        let threat_memo = &mut self.threat_memo;
        if threads == 1 {
            return Worker::new(board, tt, &limits, time, stop, &helper_nodes)
                .iterate_with_memo(threat_memo, report);
        }
        // Lazy SMP: helpers search the same root on their own boards and fill the shared
        // table; the main thread's search, which sees their entries, decides the move.
        let helper_limits = limits.for_helper();
        let done = AtomicBool::new(false);
        std::thread::scope(|scope| {
            // However the main search ends (even by a panic), the helpers stop with it;
            // otherwise the scope would wait for them forever.
            let _stop_helpers = SetOnDrop(&done);
            for id in 1..threads {
                let mut helper_board = board.clone();
                let (helper_limits, done, helper_nodes) = (&helper_limits, &done, &helper_nodes);
                let spawned = std::thread::Builder::new()
                    .name(format!("search-{id}"))
                    .stack_size(HELPER_STACK_BYTES)
                    .spawn_scoped(scope, move || {
                        let mut helper = Worker::new(
                            &mut helper_board,
                            tt,
                            helper_limits,
                            None,
                            done,
                            helper_nodes,
                        );
                        // Half the helpers run one iteration ahead, so the threads spread
                        // over two depths instead of repeating each other's work.
                        helper.helper_depth_offset = Some((id % 2) as i32);
                        helper.iterate(&mut |_| {});
                    });
                if let Err(e) = spawned {
                    log::warn!("search helper thread {id} not started: {e}");
                    break;
                }
            }
            Worker::new(board, tt, &limits, time, stop, &helper_nodes)
                .iterate_with_memo(threat_memo, report)
        })
    }
}

/// Sets the flag when dropped.
struct SetOnDrop<'a>(&'a AtomicBool);

impl Drop for SetOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

struct Worker<'a> {
    board: &'a mut Board,
    tt: &'a TranspositionTable,
    limits: &'a SearchLimits,
    time: Option<TimeManager>,
    stop: &'a AtomicBool,
    /// Nodes searched by the helper threads (they add to it as they go), so reports
    /// count the work of all threads.
    helper_nodes: &'a AtomicU64,
    /// `Some(offset)` for a helper thread: it searches `offset` plies deeper than the
    /// iteration number and reports nothing.
    helper_depth_offset: Option<i32>,
    nodes: u64,
    seldepth: i32,
    /// Depth of the iteration in progress.
    depth: i32,
    /// The hard limit, the node limit or a stop request ended the search.
    aborted: bool,
    /// The soft limit cut the current iteration between two root moves.
    cut: bool,
    /// Two moves per ply that last caused a cut-off there (reduced less, not ordered first).
    killers: [[Pos; 2]; MAX_PLY + 1],
    /// Triangular principal-variation table.
    pv: Vec<Vec<Pos>>,
    /// `after_null[ply]`: the move leading to this ply was a null move.
    after_null: Vec<bool>,
    /// The threat search for our own win at the root, kept between its two time slices
    /// (before and after the iterations) so that the second resumes the first.
    threat_memo: threat::Memo,
    /// The opponent's threat search after the best move, kept between the slices it gets
    /// between iterations and in the check, so that each resumes the last.
    refutation_memo: threat::Memo,
    /// The best move of the last panicked iteration while it stays best and has had no
    /// slice of the check between iterations (see `refuted_between_iterations`); else
    /// `Pos::NONE`.
    unchecked_panic_choice: Pos,
}

impl<'a> Worker<'a> {
    fn new(
        board: &'a mut Board,
        tt: &'a TranspositionTable,
        limits: &'a SearchLimits,
        time: Option<TimeManager>,
        stop: &'a AtomicBool,
        helper_nodes: &'a AtomicU64,
    ) -> Worker<'a> {
        Worker {
            board,
            tt,
            limits,
            time,
            stop,
            helper_nodes,
            helper_depth_offset: None,
            nodes: 0,
            seldepth: 0,
            depth: 0,
            aborted: false,
            cut: false,
            killers: [[Pos::NONE; 2]; MAX_PLY + 1],
            pv: vec![Vec::new(); MAX_PLY + 2],
            after_null: vec![false; MAX_PLY + 2],
            threat_memo: threat::Memo::default(),
            refutation_memo: threat::Memo::default(),
            unchecked_panic_choice: Pos::NONE,
        }
    }

    /// [`Self::iterate`] starting from the threat memo of the last move, which is left
    /// in `memo` afterwards.
    fn iterate_with_memo(
        &mut self,
        memo: &mut threat::Memo,
        report: &mut dyn FnMut(&SearchEvent),
    ) -> Outcome {
        self.threat_memo = std::mem::take(memo);
        let outcome = self.iterate(report);
        *memo = std::mem::take(&mut self.threat_memo);
        outcome
    }

    fn iterate(&mut self, report: &mut dyn FnMut(&SearchEvent)) -> Outcome {
        let mut root_moves = self.root_moves();
        let fallback = root_moves.first().map_or(Pos::NONE, |m| m.pos);
        let mut best = Outcome {
            best: fallback,
            value: 0,
            depth: 0,
            nodes: 0,
        };
        // Nothing to think about: a single legal answer, or an immediate five.
        let immediate_five = root_moves.first().is_some_and(|m| {
            movegen::threat_of(self.board, m.pos, self.board.side_to_move()) == Threat::Five
        });
        if root_moves.len() <= 1 || immediate_five {
            if immediate_five {
                best.value = WIN - 1;
            }
            return best;
        }
        // Step 0: the threat-space search. A proven win is played at once; against an
        // opponent's proven win only the moves that stop it are searched.
        if self.limits.options.threat_search {
            match self.root_threats(&mut root_moves, report) {
                RootThreat::Win(m, value) => {
                    return Outcome {
                        best: m,
                        value,
                        depth: 0,
                        nodes: self.nodes,
                    }
                }
                RootThreat::Defend | RootThreat::None => {}
            }
        }
        // Step 0b: a quick look for our own forced win, which the iterations would spend
        // their time on without reaching (most are found within a few milliseconds).
        if self.limits.options.threat_check
            && !self
                .board
                .has_five_point(self.board.side_to_move().opponent())
        {
            if let Some(tm) = self.time.as_ref() {
                let start = tm.elapsed_ms();
                let optimum = tm.budget().optimum_ms;
                let hard = tm.budget().hard_ms;
                let end = start + optimum / QUICK_WIN_SHARE_OF_OPTIMUM;
                if self.try_forced_win(end.min(hard), threat::Phases::All, &mut best, report) {
                    best.nodes = self.all_nodes();
                    return best;
                }
                // A threat space the quick look could not exhaust is worth a longer look
                // (resumed, not restarted): the check after the iterations may be left
                // little time, when a panic runs them close to the hard limit.
                // Without a three to make fours from, only while the search is in its
                // first phase (straight-four and four-three threats): when that phase
                // ends without a win, the rest (moves threatening a VCF) rarely wins and
                // the iterations need the time. At 1 s per move the quick look was cut in
                // its first phase in all 9 win puzzles it did not finish, and in its
                // second in both such defend puzzles (pub-free-def013, pub-std-def022).
                // In pub-renju-win024 (white has no such three) the first phase takes
                // 41k nodes, about the quick look's, and a look cut just before its end
                // used to go on through the second phase to its deadline, taking the
                // 230 ms the main search needed to find the winning move (the iterations
                // started at ~100 ms or ~330 ms from one run to the next). In def013 and
                // def022 the first phase takes 5.9k and 170 nodes.
                // With such a three, under freestyle and renju, the longer look goes on
                // through both phases. Under standard and caro it enters the second only
                // while that phase has had less than half of the look's nodes so far (the
                // half rule), as every rule once did; whether it has is down to the
                // machine's speed: in pub-free-win002 (black has threes; the win comes in
                // the second phase, 590k nodes in `solve`) the first phase fails after
                // 108k nodes, and a quick look of 216k left the second 108.4k, just over
                // half.
                // The win was then found after the iterations at ~900 ms or not at all
                // (4 of 5 runs in process), against 132-150 ms in 6 of 6 runs with the
                // look going on. At 1 s per move, 200 games each against the half rule:
                // freestyle 108-89-3, +33.1 Elo [-14.6, +82.1], and again (other
                // openings) 89-108-3, -33.1: even over 400 games; renju 99-100-1, -1.7
                // [-50.1, +46.6]; standard 87-105-8, -31.4 [-79.6, +15.7], and again
                // 91-104-5, -22.6 [-71.0, +24.9]: about -27 over 400 games. So the
                // exact-five rules (standard, and caro, untested, with them) keep the
                // half rule; freestyle and renju, where it costs no strength shown, go
                // on through both phases for the puzzle's sake.
                // In play it is not cheap: at 1 s per move (freestyle, 200 games) it ran
                // to its end in about 13% of the moves, where depth 1 began 200-300 ms
                // into the move, and it found a win before depth 1 in 25 of 5079 moves.
                // Yet without it: -19.1 Elo [-67.9, +28.9] over 200 games. Kept.
                let us = self.board.side_to_move();
                let memo = &self.threat_memo;
                let (phase, _) = memo.progress();
                let longer_look =
                    if !memo.is_for(self.board, us, threat::Level::Vct) || memo.complete {
                        None
                    } else if threat::threats::has_four_points(self.board, us) {
                        let exact_five = matches!(self.board.rule(), Rule::Standard | Rule::Caro);
                        let (nodes, phase_nodes) = memo.nodes();
                        let half_rule = phase == 0 || phase_nodes < nodes / 2;
                        (!exact_five || half_rule).then_some(threat::Phases::All)
                    } else {
                        (phase == 0).then_some(threat::Phases::Current)
                    };
                if let Some(phases) = longer_look {
                    let end = start + optimum / TACTICAL_WIN_SHARE_OF_OPTIMUM;
                    if self.try_forced_win(end.min(hard), phases, &mut best, report) {
                        best.nodes = self.all_nodes();
                        return best;
                    }
                }
            }
        }
        if self.limits.options.threat_check {
            // The looks above were cut in a search for our own win that may still succeed
            // (in its first phase, or with threes to make fours from: where the longer
            // look goes on): the check resumes it, so it gets a slice even when the limits
            // leave no time beyond the optimum (the turn limit alone: 91 ms at 1 s/move).
            // Two shared win puzzles in one orientation each (`puzzles --symmetries`:
            // pub-free-win002/s3, a win of 1.53M nodes, and pub-renju-win026/s1, 1.05M)
            // failed in every run: a panic ran the iterations to 819 ms, and the check
            // ended 100-115k nodes short; with the slice both are found at 800-840 ms.
            // Matches at 1 s per move against the capped hold-back (1f801ad), 200 games
            // each unless said: freestyle 107-84-9 (+40.1 Elo [-6.8, +88.6]) and 101-97-2
            // (other openings, +6.9): +23 over 400 games. Standard 60-58-2 (120 games),
            // 94-101-5 (-12.2) and 90-102-8 (-20.9 [-68.8, +26.3]): 244-261-15, about -11
            // over 520. Renju 93-107 (-24.4) and 93-100-7 (-12.2): about -18 over 400.
            // So freestyle only (a choice by rule from matches, as with the half rule
            // above; caro, unmatched, follows standard), and pub-renju-win026/s1 fails
            // again (2 of 2 runs).
            let own_win_unsettled = self.own_win_unsettled();
            if let Some(tm) = self.time.as_mut() {
                // A panic may run to the hard limit: keep two slices for the check.
                let slice = tm.budget().optimum_ms / CHECK_SLICE_OF_OPTIMUM;
                tm.hold_back(2 * slice, if own_win_unsettled { slice } else { 0 });
            }
        }
        if let Some(tm) = self.time.as_mut() {
            tm.iterations_start_now();
        }
        self.deepen(&mut root_moves, &mut best, report);
        if self.limits.options.threat_check {
            self.check_threats(&mut root_moves, &mut best, report);
        }
        best.nodes = self.all_nodes();
        best
    }

    /// Iterative deepening over `root_moves` until the time manager (or a limit) stops it;
    /// `best` is updated after every completed iteration.
    fn deepen(
        &mut self,
        root_moves: &mut MoveList,
        best: &mut Outcome,
        report: &mut dyn FnMut(&SearchEvent),
    ) {
        self.cut = false;
        let max_depth = self.limits.max_depth.max(1);
        for iteration in 1..=max_depth {
            let depth = (iteration + self.helper_depth_offset.unwrap_or(0)).min(max_depth);
            self.seldepth = 0;
            self.depth = depth;
            let previous = (best.depth > 0).then_some(best.value);
            let (value, best_move) = self.aspiration_search(root_moves, depth, previous, report);
            let pv: Vec<Coord> = self.pv[0].iter().map(|&p| self.board.coord(p)).collect();
            let mut lines = Vec::new();
            if self.limits.multi_pv > 1 && best_move.is_some() && !self.aborted && !self.cut {
                lines = self.other_lines(root_moves, depth, value, report);
            }
            if self.aborted || self.cut {
                // A partial iteration searched the previous best move first, so its best
                // move is at least as well founded as the last complete one. A stop in
                // mid-iteration keeps a move that raised alpha (it beat the previous best
                // at this depth); its value alone says little, since the static values
                // of odd and even depths differ by the side to move's tempo.
                if let Some(m) = best_move {
                    if self.cut || value > best.value || self.pv[0].first() == Some(&m) {
                        best.best = m;
                        best.value = value;
                    }
                }
                break;
            }
            let Some(m) = best_move else { break };
            *best = Outcome {
                best: m,
                value,
                depth,
                nodes: self.all_nodes(),
            };
            if !lines.is_empty() {
                lines.insert(
                    0,
                    PvLine {
                        value,
                        pv: pv.clone(),
                    },
                );
            }
            report(&SearchEvent::Iteration(SearchReport {
                depth,
                seldepth: self.seldepth,
                value,
                nodes: self.all_nodes(),
                elapsed: self.limits.started.elapsed(),
                best: self.board.coord(m),
                pv,
                lines,
            }));
            let proven = eval::is_decisive(value) && eval::plies_to_end(value) <= depth;
            if proven {
                break; // deeper search cannot change a proven result
            }
            let coord = self.board.coord(m);
            if let Some(tm) = self.time.as_mut() {
                let decision = tm.after_iteration(IterationReport {
                    depth: depth as u32,
                    best_move: coord,
                    score: value,
                    proven,
                });
                if decision != crate::time::Decision::Continue {
                    break;
                }
            }
            if self.refuted_between_iterations(m, value, report) {
                break; // the check acts on it at once (the win is in the memo)
            }
        }
    }

    /// After an iteration that panicked (its best move failed low: the likeliest kind of
    /// move to lose to a forced win), or after a later one that kept the best move such
    /// an iteration chose before that move had its slice, a slice of the check's search
    /// for the opponent's win after its best move `m` (worth `value`), which the check
    /// after the iterations resumes. A panic runs the iterations up to the time held back
    /// for the check, which with the turn limit alone is 91 ms at 1 s per move: in
    /// standard-selfplay-1s game-0034-ply12, l11 panicked at depth 11 (209 ms), depth 12
    /// ran to 709 ms and kept it, and white's win after it (1.07M nodes, about 370 ms) was
    /// not found in the rest.
    /// Returns whether `m` is refuted.
    fn refuted_between_iterations(
        &mut self,
        m: Pos,
        value: Value,
        report: &mut dyn FnMut(&SearchEvent),
    ) -> bool {
        let Some(tm) = self.time.as_ref() else {
            return false;
        };
        let budget = tm.budget();
        let now = tm.elapsed_ms();
        // A move that became best in a panic keeps its claim to a slice until it gets one,
        // even when the iterations after it hold it without a panic: in
        // standard-selfplay-1s game-0003-ply17, i5 took over in a panic at depth 8
        // (148 ms, before the slices start), held at depth 9 (223 ms), and depth 10 ran to
        // 574 ms; black's win after i5 takes 376k nodes (135 ms), and the check found it
        // with too little time left for the other moves in one run of the probe.
        if tm.last_iteration_panicked() {
            self.unchecked_panic_choice = m;
        } else if self.unchecked_panic_choice != m {
            self.unchecked_panic_choice = Pos::NONE;
        }
        // Not while the check is to resume the search for our own win: a slice here took
        // the time the iterations and the check needed to find it. With it, pub-free-win002
        // failed in two orientations (s2, s3) in every run: the iterations stopped at depth
        // 5 (355 ms), and the slice of d11 ran to 765 ms without a refutation; without it
        // depth 7 chooses d5 at 630 ms and the check proves the win at 753 ms.
        if !self.limits.options.threat_check
            || self.unchecked_panic_choice != m
            || now < budget.optimum_ms / REFUTATION_SLICES_FROM_OPTIMUM
            || !self.check_may_go_on(value)
            || self.own_win_unsettled()
        {
            return false;
        }
        let end = (now + budget.optimum_ms / REFUTATION_SLICE_OF_OPTIMUM).min(budget.hard_ms);
        self.unchecked_panic_choice = Pos::NONE;
        let Some(win) = self.refutation(m, end) else {
            return false;
        };
        report(&SearchEvent::Note(format!(
            "between iterations: {} loses to a forced win: {}",
            self.board.coord(m),
            self.line_text(&win.main_line())
        )));
        true
    }

    /// Whether the search for our own win at the root (`threat_memo`) was cut where it
    /// may still succeed, and the check after the iterations gets a slice to resume it:
    /// in its first phase, or with threes to make fours from, and only under freestyle
    /// (see where `iterate` holds the slice back).
    fn own_win_unsettled(&self) -> bool {
        let us = self.board.side_to_move();
        let memo = &self.threat_memo;
        self.board.rule() == Rule::Freestyle
            && memo.is_for(self.board, us, threat::Level::Vct)
            && !memo.complete
            && (memo.progress().0 == 0 || threat::threats::has_four_points(self.board, us))
    }

    /// The opponent's forced win after our move `m`, searched until `end_ms` after the
    /// move's start, resuming `refutation_memo` when it holds the same position (and
    /// skipping the search when an earlier one ran to the end there).
    fn refutation(&mut self, m: Pos, end_ms: u64) -> Option<threat::WinningSequence> {
        let them = self.board.side_to_move().opponent();
        let limits = self.check_limits_capped(end_ms, REFUTATION_THREAT_NODES);
        let mut memo = std::mem::take(&mut self.refutation_memo);
        self.board.make(m);
        let found = if memo.settled_without_win(self.board, them, threat::Level::Vct) {
            None
        } else {
            threat::find_win_resumed(self.board, them, &limits, &mut memo, threat::Phases::All)
        };
        self.board.undo();
        self.refutation_memo = memo;
        found
    }

    /// Step 7, after the iterations: the threat-space search looks past the main search's
    /// horizon at the move chosen. Our own forced win is played instead; a move after
    /// which the opponent has a forced win is dropped, the root moves are narrowed to the
    /// defences, and the search runs again (up to the hard limit, keeping time to check
    /// its choice the same way) until a move holds.
    /// Run after the search rather than before it, it mostly spends the time a stable
    /// best move leaves unused, and it only ever replaces a move proven to lose.
    /// Only under a time manager (the bench and fixed-node searches stay as they were).
    fn check_threats(
        &mut self,
        root_moves: &mut MoveList,
        best: &mut Outcome,
        report: &mut dyn FnMut(&SearchEvent),
    ) {
        let us = self.board.side_to_move();
        let them = us.opponent();
        if !self.check_may_go_on(best.value)
            || best.best == Pos::NONE
            || self.board.has_five_point(us)
            || self.board.has_five_point(them)
        {
            return;
        }
        // Our own win is looked for first, unless the search says we are behind: then
        // the opponent's win is the likelier find, and a refutation found late leaves no
        // time for a search among the defences. In renju-selfplay 0077 our own search
        // took 204 ms, then the refutation 1 ms, 30 ms before the hard limit. Behind,
        // our own win is looked for after the refutations, in the time they leave: in
        // 200 renju games at 1 s per move (4477 moves a side), 2 of 11 wins found after
        // the iterations came from a negative value (-625 and -9).
        let behind = best.value < 0;
        if !behind && self.try_forced_win(self.check_slice_end(), threat::Phases::All, best, report)
        {
            return;
        }
        self.replace_refuted_choice(root_moves, best, report);
        if behind && self.check_may_go_on(best.value) {
            self.try_forced_win(self.check_slice_end(), threat::Phases::All, best, report);
        }
    }

    /// Whether a threat search of the check may still run, after a search that ended
    /// with `value`: only under a time manager, with time left before the hard limit
    /// (a search ended by the held-back hard limit leaves the check its time; a stop
    /// request or the node limit does not), and while the value is not already decisive.
    fn check_may_go_on(&self, value: Value) -> bool {
        let time_left = self
            .time
            .as_ref()
            .is_some_and(|tm| tm.elapsed_ms() < tm.budget().hard_ms);
        time_left && !self.stopped_by_request_or_nodes() && !eval::is_decisive(value)
    }

    /// The end of one threat search of the check: half of what is left of the optimum,
    /// and at least a slice of it, never past the hard limit.
    fn check_slice_end(&self) -> u64 {
        let Some(tm) = self.time.as_ref() else {
            return 0;
        };
        let budget = tm.budget();
        let now = tm.elapsed_ms();
        let share = (budget.optimum_ms.saturating_sub(now) / 2)
            .max(budget.optimum_ms / CHECK_SLICE_OF_OPTIMUM);
        (now + share).min(budget.hard_ms)
    }

    /// The refutation loop of [`Self::check_threats`]: while the opponent has a forced
    /// win after the chosen move, the move is dropped, the root moves are narrowed to
    /// the defences, and the search runs again among them.
    fn replace_refuted_choice(
        &mut self,
        root_moves: &mut MoveList,
        best: &mut Outcome,
        report: &mut dyn FnMut(&SearchEvent),
    ) {
        let Some(tm) = self.time.as_ref() else { return };
        let us = self.board.side_to_move();
        // The first check of the chosen move may go on until a reserve before the hard
        // limit: when it ends without a verdict the move is played and the rest of its
        // time goes unused, and the reserve is for a refutation found late (defences
        // and a search among them).
        let budget = tm.budget();
        let reserve = budget.optimum_ms / REFUTATION_RESERVE_OF_OPTIMUM;
        let mut end = self
            .check_slice_end()
            .max(budget.hard_ms.saturating_sub(reserve));
        let mut narrowed = false;
        let original = *best;
        loop {
            let m = best.best;
            let Some(win) = self.refutation(m, end) else {
                return;
            };
            report(&SearchEvent::Note(format!(
                "{} loses to a forced win: {}",
                self.board.coord(m),
                self.line_text(&win.main_line())
            )));
            let Some(tm) = self.time.as_mut() else { return };
            if !narrowed {
                narrowed = true;
                tm.on_best_move_refuted();
                // The defences get a third of what is left; the searches after them the rest.
                let now = tm.elapsed_ms();
                let hard = tm.budget().hard_ms;
                let limits = self.check_limits_until(now + hard.saturating_sub(now) / 3);
                // The search's order (its best moves first), the refuted move last: those
                // are the candidates the deadline leaves time to try.
                let mut preferred: Vec<Pos> = root_moves.iter().map(|x| x.pos).collect();
                preferred.retain(|&p| p != m);
                preferred.push(m);
                if let Some(set) = threat::defences_preferring(self.board, us, &limits, &preferred)
                {
                    // Only the proven defences when there are any: the rest were never
                    // tried or were cut short, and the search among them and the checks
                    // of its choices have only what is left of the move. In the self-play
                    // position match-standard-game-0078-ply10 the defences get about 80 ms
                    // and 5 of their 36 candidates are tried: in the search's order g7,
                    // j5 and i9 lose, f7 is proven and i5 cut short. Among all 33 the
                    // search chose g9, which was refuted, then played e6 unchecked (white
                    // wins in 131k nodes); among the proven it plays f7, one of the three
                    // unhurried defences (i5 f7 i8).
                    // Self-play probes: standard FAIL 2, renju FAIL 1 (3 and 2-6 before);
                    // freestyle, 200 games at 1 s per move: +22.6 Elo [-24.7, +70.7].
                    let defences = if set.proven.is_empty() {
                        set.moves
                    } else {
                        set.proven
                    };
                    if !defences.is_empty() {
                        restrict_to_defences(root_moves, &defences);
                        self.retain_legal(root_moves);
                    }
                }
            }
            root_moves.retain(|x| x.pos != m);
            if root_moves.is_empty() {
                // Every move loses as far as we can see: keep the search's choice.
                *best = original;
                return;
            }
            *best = Outcome {
                best: root_moves[0].pos,
                value: -INFINITE,
                depth: 0,
                nodes: self.nodes,
            };
            self.aborted = false;
            // The new search leaves a third of what is left for the check of its choice:
            // among the defences, the one the search likes best may lose to another
            // forced win, and a search run up to the hard limit left no time to see it.
            if let Some(tm) = self.time.as_mut() {
                let now = tm.elapsed_ms();
                let left = tm.budget().hard_ms.saturating_sub(now);
                tm.restart_iterations(now + left - left / RECHECK_SHARE_OF_REST);
            }
            self.deepen(root_moves, best, report);
            if self.stopped_by_request_or_nodes() || eval::is_decisive(best.value) {
                return;
            }
            // Each later check may use half of what is left before the hard limit.
            let Some(tm) = self.time.as_mut() else { return };
            tm.release_hard_limit();
            let now = tm.elapsed_ms();
            let left = tm.budget().hard_ms.saturating_sub(now);
            if left == 0 {
                return;
            }
            end = now + left / 2;
        }
    }

    /// Whether a stop request or the node limit ended the search (the clock's limits
    /// leave the check its time; these do not).
    fn stopped_by_request_or_nodes(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || self.nodes >= self.limits.max_nodes
    }

    /// Our own forced win, searched until `end_ms` after the move's start and as far as
    /// `phases` lets it: when found, `best` becomes its first move (unless forbidden to
    /// us) and true is returned.
    fn try_forced_win(
        &mut self,
        end_ms: u64,
        phases: threat::Phases,
        best: &mut Outcome,
        report: &mut dyn FnMut(&SearchEvent),
    ) -> bool {
        let us = self.board.side_to_move();
        let level = threat::Level::Vct;
        if self.threat_memo.is_for(self.board, us, level) && self.threat_memo.complete {
            // An earlier slice searched this root to the end: nothing more to find.
            return false;
        }
        let limits = self.check_limits_until(end_ms);
        let mut memo = std::mem::take(&mut self.threat_memo);
        let found = threat::find_win_resumed(self.board, us, &limits, &mut memo, phases);
        self.threat_memo = memo;
        let Some(win) = found else {
            return false;
        };
        let legal = win.first_move().filter(|&m| {
            !(self.board.rule() == Rule::Renju
                && us == Color::Black
                && rules::is_forbidden(self.board, m))
        });
        let Some(first) = legal else { return false };
        report(&SearchEvent::Note(format!(
            "forced win: {}",
            self.line_text(&win.main_line())
        )));
        best.best = first;
        best.value = WIN - (2 * win.steps.len()).max(1) as Value;
        true
    }

    /// Limits for one threat search of [`Self::check_threats`], ending `end_ms` after the
    /// move's start (as the time manager counts).
    fn check_limits_until(&self, end_ms: u64) -> threat::Limits<'a> {
        self.check_limits_capped(end_ms, ROOT_THREAT_NODES)
    }

    /// [`Self::check_limits_until`] with at least `min_nodes` nodes instead of
    /// `ROOT_THREAT_NODES`.
    fn check_limits_capped(&self, end_ms: u64, min_nodes: u64) -> threat::Limits<'a> {
        let (slice_ms, deadline) = match self.time.as_ref() {
            Some(tm) => {
                let slice_ms = end_ms.saturating_sub(tm.elapsed_ms());
                (
                    slice_ms,
                    Some(Instant::now() + Duration::from_millis(slice_ms)),
                )
            }
            None => (0, None),
        };
        threat::Limits {
            level: threat::Level::Vct,
            max_nodes: min_nodes.max(slice_ms.saturating_mul(ROOT_THREAT_NODES_PER_MS)),
            max_depth: threat::ROOT_DEPTH,
            deadline,
            stop: Some(self.stop),
        }
    }

    fn line_text(&self, line: &[Pos]) -> String {
        let moves: Vec<String> = line
            .iter()
            .map(|&p| self.board.coord(p).to_string())
            .collect();
        moves.join(" ")
    }

    /// Nodes of this search, helper threads included.
    fn all_nodes(&self) -> u64 {
        self.nodes + self.helper_nodes.load(Ordering::Relaxed)
    }

    /// Multi-PV: after the best move of this iteration (first in `moves`), the next best
    /// root moves one by one, each searched among the moves not yet ranked, so that
    /// `moves` starts with the ranked ones in order. Returns their lines.
    fn other_lines(
        &mut self,
        moves: &mut MoveList,
        depth: i32,
        best_value: Value,
        report: &mut dyn FnMut(&SearchEvent),
    ) -> Vec<PvLine> {
        let mut lines = Vec::new();
        let wanted = self.limits.multi_pv.min(moves.len());
        for rank in 1..wanted {
            // The lines are shown, not used for the move: any value at all is wanted,
            // so the window is full (no fail-low, no panic).
            let (value, line_best) =
                self.search_root(&mut moves[rank..], depth, -INFINITE, INFINITE, None, report);
            if self.aborted || self.cut || line_best.is_none() {
                break;
            }
            let pv = self.pv[0].iter().map(|&p| self.board.coord(p)).collect();
            lines.push(PvLine {
                value: value.min(best_value),
                pv,
            });
        }
        lines
    }

    /// The threat-space search at the root, within a share of the move's time.
    fn root_threats(
        &mut self,
        root_moves: &mut MoveList,
        report: &mut dyn FnMut(&SearchEvent),
    ) -> RootThreat {
        let us = self.board.side_to_move();
        // Not when a five must be answered or is ours: steps 1-2 already decided.
        if self.board.has_five_point(us) || self.board.has_five_point(us.opponent()) {
            return RootThreat::None;
        }
        // Deadlines as shares of the optimum: finding our own win is worth most.
        let deadline = |share: u64| {
            self.time.as_ref().map(|tm| {
                Instant::now() + Duration::from_millis((tm.budget().optimum_ms / share).max(1))
            })
        };
        let stop = Some(self.stop);
        let limits = |deadline| threat::Limits {
            level: threat::Level::Vct,
            max_nodes: ROOT_THREAT_NODES,
            max_depth: threat::ROOT_DEPTH,
            deadline,
            stop,
        };
        if let Some(win) = threat::find_win(self.board, us, &limits(deadline(WIN_SHARE_OF_OPTIMUM)))
        {
            if let Some(first) = win.first_move() {
                let line: Vec<String> = win
                    .main_line()
                    .iter()
                    .map(|&p| self.board.coord(p).to_string())
                    .collect();
                report(&SearchEvent::Note(format!(
                    "forced win: {}",
                    line.join(" ")
                )));
                let plies = (2 * win.steps.len()).max(1) as Value;
                return RootThreat::Win(first, WIN - plies);
            }
        }
        match threat::defences(self.board, us, &limits(deadline(DEFENCE_SHARE_OF_OPTIMUM))) {
            Some(defences) if !defences.is_empty() => {
                let mut restricted = root_moves.clone();
                restrict_to_defences(&mut restricted, &defences);
                self.retain_legal(&mut restricted);
                if !restricted.is_empty() {
                    *root_moves = restricted;
                    return RootThreat::Defend;
                }
                RootThreat::None
            }
            // No threat, or every move loses (then the search picks the toughest).
            _ => RootThreat::None,
        }
    }

    /// Root moves: legal, filtered by the same forcing rules as any node, best first.
    fn root_moves(&mut self) -> MoveList {
        let us = self.board.side_to_move();
        let mut moves = match self.forced_moves(0) {
            Forced::Won(_) => {
                // Play the five itself, or else the winning four. Only the fives when
                // there are any: no node below sees a five already on the board (every
                // node takes its own five before moving), so a five searched as a root
                // move would be scored by what the opponent threatens next, and a
                // winning four by the opponent's five in reply: against an opponent's
                // four every move looked lost and the first was played.
                let fives = movegen::five_points(self.board, us);
                if fives.is_empty() {
                    let mut list = movegen::candidates(self.board);
                    list.retain(|m| {
                        movegen::threat_of(self.board, m.pos, us) >= Threat::WinningFour
                    });
                    list
                } else {
                    // Board order, as the candidates came: the first five is played.
                    fives
                        .into_iter()
                        .map(|pos| ScoredMove { pos, score: 0 })
                        .collect()
                }
            }
            Forced::Lost(_) | Forced::No => {
                let them = self.board.side_to_move().opponent();
                let threatened = has_decisive_four(self.board, them);
                self.ordinary_moves(0, Pos::NONE, threatened).0
            }
            Forced::Only(list) => list,
        };
        if moves.is_empty() {
            moves = movegen::candidates(self.board);
            movegen::sort_moves(&mut moves);
        }
        self.retain_legal(&mut moves);
        if moves.is_empty() {
            // Nothing sensible (an empty board, or every candidate forbidden): the legal
            // cell nearest the centre.
            if let Some(p) = movegen::nearest_to_centre(self.board) {
                moves.push(ScoredMove { pos: p, score: 0 });
            }
        }
        moves
    }

    fn retain_legal(&mut self, moves: &mut MoveList) {
        if self.board.rule() == Rule::Renju && self.board.side_to_move() == Color::Black {
            let board = &mut *self.board;
            moves.retain(|m| board.is_empty(m.pos) && !rules::is_forbidden(board, m.pos));
        }
    }

    /// One iteration, first in a narrow window around the previous value; a result
    /// outside it is searched again in a window widened on that side.
    fn aspiration_search(
        &mut self,
        moves: &mut MoveList,
        depth: i32,
        previous: Option<Value>,
        report: &mut dyn FnMut(&SearchEvent),
    ) -> (Value, Option<Pos>) {
        let centre = previous
            .filter(|v| self.limits.options.aspiration && depth >= 4 && !eval::is_decisive(*v));
        let Some(centre) = centre else {
            return self.search_root(moves, depth, -INFINITE, INFINITE, previous, report);
        };
        let mut delta = ASPIRATION_DELTA;
        let (mut alpha, mut beta) = (centre - delta, centre + delta);
        loop {
            let (value, best) = self.search_root(moves, depth, alpha, beta, previous, report);
            if self.aborted || self.cut {
                return (value, best);
            }
            if value <= alpha && alpha > -INFINITE {
                alpha = (alpha - delta).max(-INFINITE);
            } else if value >= beta && beta < INFINITE {
                beta = (beta + delta).min(INFINITE);
            } else {
                return (value, best);
            }
            delta *= 4;
            if delta > WIN_THRESHOLD / 4 {
                alpha = -INFINITE;
                beta = INFINITE;
            }
        }
    }

    fn search_root(
        &mut self,
        moves: &mut [ScoredMove],
        depth: i32,
        alpha: Value,
        beta: Value,
        previous: Option<Value>,
        report: &mut dyn FnMut(&SearchEvent),
    ) -> (Value, Option<Pos>) {
        let mut alpha = alpha;
        let mut best_move = None;
        let mut best_value = -INFINITE;
        let mut panicking = false;
        for (i, root_move) in moves.iter_mut().enumerate() {
            let m = root_move.pos;
            // The soft limit may end an iteration between root moves (never in panic
            // mode, which the time manager handles); depth 1 always completes.
            if i > 0 && depth > 1 && self.time.as_ref().is_some_and(|tm| tm.soft_limit_reached()) {
                self.cut = true;
                break;
            }
            report(&SearchEvent::RootMoveStarted(self.board.coord(m)));
            let nodes_before = self.nodes;
            // A root move that makes an open three or more is searched with the full
            // window at once, so its line is a PV line with the PV's smaller reductions.
            // A forcing move's win often runs through quiet moves late in the line,
            // which a null-window search reduces by one ply more and may not see: in
            // pub-renju-win024 white's k8 (an open three, a win in 23 plies through
            // quiet moves) lost to h6 under the null window until depth 12, and was
            // found at depth 9 by the full one (8 of 8 orientations at 1 s per move,
            // against 4). Few root moves threaten: `pbrain-wuzi bench 8` 3.86M -> 3.92M
            // nodes. At 1 s per move against the null window: freestyle 160 games
            // 71-77-12, -13.0 Elo [-65.5, +38.9]; renju 100 games 48-51-1, -10.4
            // [-79.5, +57.8]; standard 100 games 48-45-7, +10.4 [-55.7, +77.3]: even.
            let forcing =
                movegen::threat_of(self.board, m, self.board.side_to_move()) >= Threat::OpenThree;
            self.board.make(m);
            let v = if i == 0 || forcing {
                -self.negamax(depth - 1, -beta, -alpha, 1)
            } else {
                let v = -self.negamax(depth - 1, -alpha - 1, -alpha, 1);
                if v > alpha && !self.aborted {
                    -self.negamax(depth - 1, -beta, -alpha, 1)
                } else {
                    v
                }
            };
            self.board.undo();
            if self.aborted {
                break;
            }
            // A root move's score (its order at depth 1) now holds its subtree's size.
            root_move.score = i32::try_from(self.nodes - nodes_before).unwrap_or(i32::MAX);
            report(&SearchEvent::RootMoveDone {
                coord: self.board.coord(m),
                value: v,
            });
            if i == 0 {
                if let (Some(prev), Some(tm)) = (previous, self.time.as_mut()) {
                    // The move that was best failed low at this depth: maybe panic.
                    if v < prev {
                        let fail = FailLow {
                            depth: depth as u32,
                            best_move: self.board.coord(m),
                            previous_score: prev,
                            bound: v,
                            proven_loss: v <= -WIN_THRESHOLD,
                        };
                        if tm.on_fail_low(fail) {
                            panicking = true;
                            report(&SearchEvent::Note(tm.describe()));
                        }
                    }
                }
            }
            if v > best_value {
                if panicking && i > 0 && !eval::is_decisive(v.min(0)) {
                    // Another move holds where the old best fell: the panic is over.
                    panicking = false;
                    if let Some(tm) = self.time.as_mut() {
                        tm.on_resolved(Resolution::FoundMove(self.board.coord(m)));
                    }
                }
                best_value = v;
                best_move = Some(m);
                if v > alpha {
                    alpha = v;
                    self.update_pv(0, m);
                    report(&SearchEvent::NewBest(self.board.coord(m)));
                }
            }
        }
        // Search the best move first next iteration. After a complete iteration the
        // others follow by the nodes their refutation took, most first (a stable sort,
        // so equals keep their order): a move that was hard to refute is the likeliest
        // to take over when the best one fails low. At a fixed depth this searches
        // fewer nodes: `pbrain-wuzi bench` 438,667 -> 330,026; depth 8 over the 579
        // positions of the probe files and the shared puzzles, 335M -> 281M (the
        // heaviest gain most; the median position is unchanged).
        if let Some(m) = best_move {
            if let Some(i) = moves.iter().position(|x| x.pos == m) {
                moves[..=i].rotate_right(1);
            }
            if !self.aborted && !self.cut {
                moves[1..].sort_by_key(|m| std::cmp::Reverse(m.score));
            }
        }
        (best_value, best_move)
    }

    fn negamax(&mut self, depth: i32, mut alpha: Value, mut beta: Value, ply: usize) -> Value {
        self.nodes += 1;
        if self.nodes & (LIMIT_CHECK_INTERVAL - 1) == 0 {
            self.check_limits();
        }
        if self.aborted {
            return 0;
        }
        self.pv[ply].clear();
        self.seldepth = self.seldepth.max(ply as i32);
        if self.board.is_full() {
            return 0;
        }
        if ply >= MAX_PLY {
            return self.limits.eval.evaluate(self.board);
        }

        // Steps 1–3: decided or forced.
        let forced = match self.forced_moves(ply) {
            Forced::Won(v) | Forced::Lost(v) => return v,
            Forced::Only(list) => Some(list),
            Forced::No => None,
        };

        // Mate-distance pruning: nothing here can beat a shorter win already found.
        alpha = alpha.max(-WIN + ply as Value);
        beta = beta.min(WIN - ply as Value - 1);
        if alpha >= beta {
            return alpha;
        }

        if depth <= 0 && forced.is_none() {
            return self.quiescence(alpha, beta, ply, depth);
        }

        // Step 4: transposition table.
        let key = self.board.hash();
        let mut tt_move = Pos::NONE;
        let pv_node = beta - alpha > 1;
        if let Some(e) = self.tt.probe(key) {
            tt_move = e.best;
            let v = value_from_tt(e.value, ply);
            if !pv_node && e.depth >= depth {
                let cut = match e.bound {
                    Bound::Exact => true,
                    Bound::Lower => v >= beta,
                    Bound::Upper => v <= alpha,
                };
                if cut {
                    return v;
                }
            }
        }

        let us = self.board.side_to_move();
        let them = us.opponent();
        let threatened = forced.is_none() && has_decisive_four(self.board, them);

        // Step 4c: VCF for both sides. Our own four-chain win ends the node (proven by the
        // threat search); against the opponent's, only the moves that stop it are searched.
        let mut defences = None;
        if self.limits.options.interior_vcf && forced.is_none() && !threatened {
            let limits = threat::Limits {
                max_nodes: INTERIOR_VCF_NODES,
                ..threat::Limits::vcf()
            };
            if let Some(win) = threat::find_win(self.board, us, &limits) {
                return WIN - (ply as Value + 2 * win.steps.len() as Value - 1);
            }
            if threat::threats::has_four_points(self.board, them) {
                defences = threat::defences(self.board, us, &limits).filter(|d| !d.is_empty());
            }
        }

        // Step 4b: null move. If passing still fails high, a real move would too. Not
        // when the opponent threatens anything (a pass would just lose), never twice in
        // a row, never near win/loss bounds, and a pass never proves a win.
        if self.limits.options.null_move
            && !pv_node
            && forced.is_none()
            && !threatened
            && defences.is_none()
            && depth >= NULL_MIN_DEPTH
            && !self.after_null[ply]
            && beta.abs() < WIN_THRESHOLD
            && self.limits.eval.evaluate(self.board) >= beta
        {
            let reduction = NULL_REDUCTION + depth / 6;
            self.board.make_null();
            self.after_null[ply + 1] = true;
            let v = -self.negamax(depth - 1 - reduction, -beta, -beta + 1, ply + 1);
            self.after_null[ply + 1] = false;
            self.board.undo_null();
            if self.aborted {
                return 0;
            }
            if v >= beta {
                return if v >= WIN_THRESHOLD { beta } else { v };
            }
        }

        // Steps 5–6: moves.
        let (mut moves, capped, is_forced) = match forced {
            Some(list) => (list, false, true),
            None => {
                let (mut moves, capped) = self.ordinary_moves(ply, tt_move, threatened);
                if let Some(defences) = &defences {
                    restrict_to_defences(&mut moves, defences);
                }
                (moves, capped, false)
            }
        };
        self.retain_legal(&mut moves);
        if moves.is_empty() {
            // All answers forbidden (renju black) or nothing sensible left.
            return if self
                .board
                .has_five_point(self.board.side_to_move().opponent())
            {
                -(WIN - (ply as Value + 1))
            } else {
                self.limits.eval.evaluate(self.board)
            };
        }
        // Internal iterative reduction: with no table move the ordering is a guess, so a
        // deep node is searched one ply shallower (a later visit finds the move stored).
        let depth = if self.limits.options.iir
            && !is_forced
            && tt_move == Pos::NONE
            && depth >= IIR_MIN_DEPTH
        {
            depth - 1
        } else {
            depth
        };
        let new_depth = if is_forced { depth } else { depth - 1 };

        // Shallow pruning of quiet moves (below): only at non-PV nodes where nothing is
        // forced or threatened and no bound is a proven result, so it can never hide a
        // defence against a four or an open three, nor make a win or loss out of a guess.
        let prunable = !pv_node
            && !is_forced
            && !threatened
            && defences.is_none()
            && alpha.abs() < WIN_THRESHOLD
            && beta.abs() < WIN_THRESHOLD;
        let lmp_moves =
            if prunable && self.limits.options.late_move_pruning && depth <= LMP_MAX_DEPTH {
                LMP_MOVES[depth.max(0) as usize]
            } else {
                usize::MAX
            };
        let futile = prunable
            && self.limits.options.futility
            && depth <= FUTILITY_MAX_DEPTH
            && self.limits.eval.evaluate(self.board) + FUTILITY_MARGIN[depth.max(0) as usize]
                <= alpha;

        let original_alpha = alpha;
        // Whether some move of the node goes unsearched (the cap, or pruning below).
        let mut pruned = capped;
        let mut best_value = -INFINITE;
        let mut best_move = Pos::NONE;
        for (i, m) in moves.iter().map(|m| m.pos).enumerate() {
            if i > 0 && (i >= lmp_moves || futile) && m != tt_move && is_quiet(self.board, m, us) {
                pruned = true;
                continue;
            }
            // Late quiet moves (no threat made or met) are searched shallower first, by
            // more the later they come and the deeper the node; one ply less at PV nodes
            // and for killers. A fail high is confirmed at full depth.
            let reduction = if self.limits.options.late_move_reductions
                && !is_forced
                && !threatened
                && i >= LMR_MIN_INDEX
                && depth >= LMR_MIN_DEPTH
                && is_quiet(self.board, m, us)
            {
                let killer = self.killers[ply].contains(&m);
                (lmr_reduction(depth, i) - pv_node as i32 - killer as i32).max(0)
            } else {
                0
            };
            // A child above the horizon probes the table first thing after its forced-move
            // tests; start the slot's load now. (Leaves go to quiescence, which does not
            // probe, so their slots would only push other lines out of the cache.)
            if new_depth - reduction > 0 {
                self.tt.prefetch(self.board.hash_after(m));
            }
            self.board.make(m);
            let mut v;
            if i == 0 {
                v = -self.negamax(new_depth, -beta, -alpha, ply + 1);
            } else {
                v = -self.negamax(new_depth - reduction, -alpha - 1, -alpha, ply + 1);
                if v > alpha && reduction > 0 && !self.aborted {
                    v = -self.negamax(new_depth, -alpha - 1, -alpha, ply + 1);
                }
                if v > alpha && v < beta && !self.aborted {
                    v = -self.negamax(new_depth, -beta, -alpha, ply + 1);
                }
            }
            self.board.undo();
            if self.aborted {
                return 0;
            }
            if v > best_value {
                best_value = v;
                best_move = m;
                if v > alpha {
                    alpha = v;
                    self.update_pv(ply, m);
                    if v >= beta {
                        let k = &mut self.killers[ply];
                        if k[0] != m {
                            k[1] = k[0];
                            k[0] = m;
                        }
                        break;
                    }
                }
            }
        }
        if pruned && best_value <= -WIN_THRESHOLD {
            // Every move searched loses by force, but not every move was searched: a
            // loss is proven only against all of them, and a claimed one would be a false
            // win at the parent. The node is valued as lost, short of a proven loss.
            best_value = UNPROVEN_LOSS;
        }
        let bound = if best_value >= beta {
            Bound::Lower
        } else if best_value > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.tt
            .store(key, best_move, value_to_tt(best_value, ply), depth, bound);
        best_value
    }

    /// The leaf search: stand pat on the static value, or play one of our fours. A four
    /// leaves the opponent a single answer (step 2 of the child), which keeps the depth,
    /// so this follows four-chains (VCF). `depth` ≤ 0 counts the fours played so far in
    /// this chain (negated): the chain is bounded in length and narrows after its start.
    fn quiescence(&mut self, mut alpha: Value, beta: Value, ply: usize, depth: i32) -> Value {
        let chain = -depth;
        let stand_pat = self.limits.eval.evaluate(self.board);
        if stand_pat >= beta || ply >= MAX_PLY - 2 || chain >= MAX_QUIESCENCE_CHAIN {
            return stand_pat;
        }
        alpha = alpha.max(stand_pat);
        let us = self.board.side_to_move();
        if self.board.pattern_count(us, Pattern::Four) == 0 {
            return stand_pat;
        }
        let mut fours = movegen::four_moves(self.board, us);
        fours.truncate(if chain == 0 {
            MAX_QUIESCENCE_FOURS
        } else {
            MAX_QUIESCENCE_FOURS / 2
        });
        self.retain_legal(&mut fours);
        let mut best = stand_pat;
        for m in fours.iter().map(|m| m.pos) {
            self.board.make(m);
            let v = -self.negamax(depth - 1, -beta, -alpha, ply + 1);
            self.board.undo();
            if self.aborted {
                return 0;
            }
            if v > best {
                best = v;
                if v > alpha {
                    alpha = v;
                    self.update_pv(ply, m);
                    if v >= beta {
                        break;
                    }
                }
            }
        }
        best
    }

    fn update_pv(&mut self, ply: usize, m: Pos) {
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        let line = &mut head[ply];
        line.clear();
        line.push(m);
        line.extend_from_slice(&tail[0]);
    }

    /// Steps 1–3 of a node, shared with the root.
    fn forced_moves(&mut self, ply: usize) -> Forced {
        let board = &mut *self.board;
        let us = board.side_to_move();
        let them = us.opponent();
        let ply = ply as Value;
        if board.has_five_point(us) {
            return Forced::Won(WIN - (ply + 1));
        }
        let caro = board.rule() == Rule::Caro;
        if board.has_five_point(them) {
            let fives = movegen::five_points(board, them);
            if fives.len() >= 2 && !caro {
                return Forced::Lost(-(WIN - (ply + 2)));
            }
            let mut list = MoveList::new();
            for &f in &fives {
                list.push(ScoredMove { pos: f, score: 2 });
                if caro {
                    // At caro a five is also stopped by blocking the far end of its run
                    // when the near end is already ours.
                    for e in caro_blocking_cells(board, f, them) {
                        if !list.iter().any(|m| m.pos == e) {
                            list.push(ScoredMove { pos: e, score: 1 });
                        }
                    }
                }
            }
            return Forced::Only(list);
        }
        if has_decisive_four(board, us) {
            return Forced::Won(WIN - (ply + 3));
        }
        Forced::No
    }

    /// Steps 5–6: the moves of a node that no five forces.
    /// The moves of a node no five forces, best first, and whether the interior cap
    /// left some out (never at the root, nor when an open three must be met).
    fn ordinary_moves(&mut self, ply: usize, tt_move: Pos, threatened: bool) -> (MoveList, bool) {
        let them = self.board.side_to_move().opponent();
        let board = &*self.board;
        let us = board.side_to_move();
        let mut moves = movegen::candidates(board);
        if threatened {
            // They threaten an open four: we must make fours or break their lines.
            moves.retain(|m| {
                movegen::threat_of(board, m.pos, us) >= Threat::Four
                    || board.cell_patterns(m.pos)[them.index()]
                        .iter()
                        .any(|c| c.is_four())
            });
        }
        // The table move, then the pattern scores alone. Killers only reduce less (see
        // the reductions): a bonus of 500 put a quiet killer above a double three, and
        // without it, at 1 s per move against the engine with it: freestyle 200 games
        // 103-81-16, +38.4 Elo [-7.7, +85.8] (by pairs [+3.3, +74.2]); renju 80 games
        // 42-36-2, +26.1; standard 80 games 43-35-2, +34.9. There is no history
        // heuristic either: its bonus per cell (depth² per cut-off, capped at 16,384)
        // grew in long searches until it outranked every pattern score but a five's.
        // Without it, depth 8 over the 579 positions of the probe files and the shared
        // puzzles took 182M nodes instead of 281M, and at 1 s per move, 200 games each:
        // freestyle +83.2 Elo [+35.8, +133.8], renju +90.6 [+42.9, +141.9], standard
        // +68.6 [+21.7, +118.2].
        if let Some(m) = moves.iter_mut().find(|m| m.pos == tt_move) {
            m.score = i32::MAX; // first, whatever else it scores
        }
        let cap = self.limits.options.interior_moves;
        if !threatened && ply > 0 && moves.len() > cap {
            movegen::keep_best(&mut moves, cap);
            (moves, true)
        } else {
            movegen::sort_moves(&mut moves);
            (moves, false)
        }
    }

    fn check_limits(&mut self) {
        // With a zero budget ("play at once") depth 1 still completes: a move is needed.
        let out_of_time = self.time.as_ref().is_some_and(|tm| {
            tm.hard_limit_reached() && (self.depth > 1 || tm.budget().hard_ms > 0)
        });
        if out_of_time || self.nodes >= self.limits.max_nodes || self.stop.load(Ordering::Relaxed) {
            self.aborted = true;
        }
        if self.helper_depth_offset.is_some() {
            self.helper_nodes
                .fetch_add(LIMIT_CHECK_INTERVAL, Ordering::Relaxed);
        }
    }
}

/// A quiet move neither makes an open three or more for `us` nor takes a cell where the
/// opponent would make one: the only moves pruning and reductions may touch.
fn is_quiet(board: &Board, m: Pos, us: Color) -> bool {
    movegen::threat_of(board, m, us) < Threat::OpenThree
        && movegen::threat_of(board, m, us.opponent()) < Threat::OpenThree
}

/// Keeps the moves that are among `defences` (in their order) and appends, unscored, the
/// defences the list lacked: exactly the defences are then searched.
fn restrict_to_defences(moves: &mut MoveList, defences: &[Pos]) {
    moves.retain(|m| defences.contains(&m.pos));
    for &d in defences {
        if !moves.iter().any(|m| m.pos == d) {
            moves.push(ScoredMove { pos: d, score: 0 });
        }
    }
}

/// What the threat-space search found at the root.
enum RootThreat {
    /// Our proven win: its first move and value.
    Win(Pos, Value),
    /// The opponent has a proven win; the root moves are now the defences.
    Defend,
    None,
}

// A short-lived local of every node: boxing the list would cost an allocation per node.
#[allow(clippy::large_enum_variant)]
enum Forced {
    Won(Value),
    Lost(Value),
    Only(MoveList),
    No,
}

/// Whether `color` has a cell making an open four, a double four or two fours, which wins
/// unless the opponent makes five first (for renju black only where the cell is not
/// forbidden; never at caro).
fn has_decisive_four(board: &mut Board, color: Color) -> bool {
    // At caro a four can also be stopped at its extension square: nothing is decided.
    if board.rule() == Rule::Caro {
        return false;
    }
    // The board counts the empty cells where `threat_of` is `WinningFour`.
    if board.winning_four_cells(color) == 0 {
        return false;
    }
    if board.rule() != Rule::Renju || color != Color::Black {
        return true;
    }
    // Renju black: the cell must also not be forbidden (which needs the board mutably,
    // so the cells are gathered first). Fours on two lines, or two on one, are a
    // forbidden double four: only an open four can be a winning four black may play.
    if board.big_four_cells(color) == 0 {
        return false;
    }
    let mut cells: SmallVec<[Pos; 8]> = SmallVec::new();
    board.for_cells_making(color, Pattern::OpenFour, |p, _| {
        if movegen::threat_of(board, p, color) == Threat::WinningFour {
            cells.push(p);
        }
        ControlFlow::Continue(())
    });
    cells.into_iter().any(|p| !rules::is_forbidden(board, p))
}

/// At caro, the cells beyond the ends of the five that `attacker` makes at `f`, where a
/// defender stone blocks the five (its other end being a defender stone already).
fn caro_blocking_cells(board: &Board, f: Pos, attacker: Color) -> Vec<Pos> {
    use crate::pattern::Cell;
    let own = Cell::stone(attacker);
    let defender = Cell::stone(attacker.opponent());
    let mut out = Vec::new();
    for dir in 0..4 {
        if board.pattern(f, attacker, dir) != Pattern::Five {
            continue;
        }
        let mut ends = [Pos::NONE; 2];
        for (i, sign) in [-1isize, 1].into_iter().enumerate() {
            let mut k = 1;
            while k <= 5 && board.cell(board.offset(f, dir, sign * k)) == own {
                k += 1;
            }
            ends[i] = board.offset(f, dir, sign * k);
        }
        for (end, other) in [(ends[0], ends[1]), (ends[1], ends[0])] {
            if board.cell(end) == Cell::Empty && board.cell(other) == defender {
                out.push(end);
            }
        }
    }
    out
}

/// Wins and losses are stored relative to the node, not the root, so a stored mate
/// distance is right wherever the position recurs.
fn value_to_tt(v: Value, ply: usize) -> Value {
    if v >= WIN_THRESHOLD {
        v + ply as Value
    } else if v <= -WIN_THRESHOLD {
        v - ply as Value
    } else {
        v
    }
}

fn value_from_tt(v: Value, ply: usize) -> Value {
    if v >= WIN_THRESHOLD {
        v - ply as Value
    } else if v <= -WIN_THRESHOLD {
        v + ply as Value
    } else {
        v
    }
}

/// Three opening stones for swap2 (black, white, black) chosen to look balanced: of a
/// few compact shapes around the centre, the one whose static value is closest to even.
pub fn swap2_opening(board: &Board) -> Vec<Coord> {
    let cx = board.width() as i32 / 2;
    let cy = board.height() as i32 / 2;
    let mut best: Option<(Value, Vec<Coord>)> = None;
    for (wx, wy) in [(1, 0), (1, 1)] {
        for dx in -2..=2 {
            for dy in -2..=2 {
                let stones = [
                    Coord::new(cx, cy),
                    Coord::new(cx + wx, cy + wy),
                    Coord::new(cx + dx, cy + dy),
                ];
                let mut b = board.clone();
                if stones.iter().any(|&c| b.play(c).is_err()) {
                    continue;
                }
                let v = eval::evaluate(&b).abs();
                if best.as_ref().is_none_or(|(bv, _)| v < *bv) {
                    best = Some((v, stones.to_vec()));
                }
            }
        }
    }
    best.map(|(_, s)| s).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::parse_pos_sequence;

    fn position(rule: Rule, moves: &str) -> Board {
        let mut b = Board::new(15, 15, rule).unwrap();
        for c in parse_pos_sequence(moves).unwrap() {
            b.play(c).unwrap();
        }
        b
    }

    fn best_move(rule: Rule, moves: &str, depth: i32) -> (Coord, Value) {
        best_move_with(rule, moves, SearchLimits::depth(depth))
    }

    fn best_move_with(rule: Rule, moves: &str, limits: SearchLimits) -> (Coord, Value) {
        let mut b = position(rule, moves);
        let mut state = SearchState::new();
        state.set_tt_bytes(1 << 20);
        let stop = AtomicBool::new(false);
        let o = state.evaluate(&mut b, limits, &stop);
        (b.coord(o.best), o.value)
    }

    fn threads(depth: i32, threads: usize) -> SearchLimits {
        SearchLimits {
            threads,
            ..SearchLimits::depth(depth)
        }
    }

    #[test]
    fn several_threads_find_the_same_forced_answers() {
        // The positions of the single-thread tests below, searched by four threads: the
        // helpers share the table, so a bad entry of theirs would show here.
        let (m, v) = best_move_with(Rule::Freestyle, "h8h9i8i9j8j9k8k9", threads(5, 4));
        assert!(m == Coord::new(6, 7) || m == Coord::new(11, 7), "{m}");
        assert_eq!(v, WIN - 1);
        let (m, _) = best_move_with(Rule::Freestyle, "a1h9a3i9a5j9g9k9", threads(6, 4));
        assert_eq!(m, Coord::new(11, 8));
        let (m, v) = best_move_with(Rule::Freestyle, "a1i9a15j9o15k9", threads(6, 4));
        assert!([7, 11, 6, 12].contains(&m.x) && m.y == 8, "{m}");
        assert!(!eval::is_decisive(v));
    }

    #[test]
    fn helper_threads_end_with_the_main_search() {
        // A node limit stops the main thread early; the helpers (no limit of their own)
        // must stop with it, or `evaluate` would never return.
        let limits = SearchLimits {
            max_nodes: 2_000,
            ..threads(60, 3)
        };
        let (m, _) = best_move_with(Rule::Freestyle, "h8i9j7", limits);
        assert!(position(Rule::Freestyle, "h8i9j7").pos(m).is_some());
    }

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
    fn takes_a_five() {
        // Black h8 i8 j8 k8, white below: black completes at g8 or l8.
        let (m, v) = best_move(Rule::Freestyle, "h8h9i8i9j8j9k8k9", 3);
        assert!(m == Coord::new(6, 7) || m == Coord::new(11, 7), "{m}");
        assert_eq!(v, WIN - 1);
    }

    #[test]
    fn takes_a_five_before_a_winning_four_against_an_open_four() {
        // Black to move: its five at l10 (h10..k10, g10 white) and an open four at c5
        // (c2 c3 c4), which comes first in board order; white has an open four on row 14.
        // Only the five wins: after c5 white makes five first.
        let seq = "h10g10i10e14j10f14k10g14c2h14c3a15c4o1";
        for depth in 1..=3 {
            let (m, v) = best_move(Rule::Freestyle, seq, depth);
            assert_eq!((m, v), (Coord::new(11, 9), WIN - 1), "depth {depth}");
        }
    }

    #[test]
    fn blocks_a_four() {
        // White has four in a row on row 9 (h9..k9) with g9 blocked; black must play l9.
        let (m, _) = best_move(Rule::Freestyle, "a1h9a3i9a5j9g9k9", 4);
        assert_eq!(m, Coord::new(11, 8));
    }

    #[test]
    fn meets_an_open_three() {
        // White's open three i9 j9 k9: black must stop it at h9 or l9 (or the far ends).
        let (m, v) = best_move(Rule::Freestyle, "a1i9a15j9o15k9", 4);
        assert!([7, 11, 6, 12].contains(&m.x) && m.y == 8, "{m}");
        assert!(!eval::is_decisive(v));
    }

    /// The move a search of `depth` plies picks with the check of step 7 on or off, under
    /// a time manager generous enough that only the depth and the threat search's node
    /// cap bound the work.
    fn checked_move(rule: Rule, moves: &str, depth: i32, check: bool) -> Coord {
        use crate::time::{Budget, SystemClock, TimeParams};
        let mut b = position(rule, moves);
        let mut limits = SearchLimits::depth(depth);
        limits.options.threat_check = check;
        let budget = Budget {
            optimum_ms: 60_000,
            hard_ms: 120_000,
            turn_bound: false,
        };
        limits.time = Some(TimeManager::start(
            SystemClock::new(),
            0,
            budget,
            TimeParams::default(),
        ));
        let mut state = SearchState::new();
        state.set_tt_bytes(1 << 20);
        let stop = AtomicBool::new(false);
        let o = state.evaluate(&mut b, limits, &stop);
        b.coord(o.best)
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

    fn coords(list: &str) -> Vec<Coord> {
        list.split(',')
            .map(|c| Coord::from_pos_notation(c).unwrap())
            .collect()
    }

    #[test]
    fn the_check_plays_a_forced_win() {
        // pub-free-win007 (shared/positions/puzzles.txt): a VCT win in 19 plies.
        let moves =
            "k4i4f6g6e7g5g7e5h7i7f4f5h5h6k6g4e6j5j6l6j8h3g3k5i5h4d5f7m7j2i2l5l4k8d6l3i3l7j9l9l8m10";
        let answers = coords("j7,k7,m9,c6,b6");
        let m = checked_move(Rule::Freestyle, moves, 2, true);
        assert!(answers.contains(&m), "{m}");
    }

    #[test]
    fn no_loss_is_claimed_from_a_capped_move_list() {
        // Puzzle pub-free-def011 after black's i13 (only i9 holds): white wins by threats,
        // starting k8. With 16 moves per interior node, some of white's answers were never
        // searched, and the nodes where all the searched ones lost claimed a proven loss.
        let moves = "k13i10m12l8j12i11l12i12i13";
        let mut b = position(Rule::Freestyle, moves);
        let limits = threat::Limits {
            level: threat::Level::Vct,
            max_nodes: 1_000_000,
            max_depth: 30,
            deadline: None,
            stop: None,
        };
        let win = threat::find_win(&mut b, Color::White, &limits).expect("white's win");
        let first = win.first_move().unwrap();
        // White's win is real: the independent verifier tries every defence.
        assert_eq!(
            threat::verify::verify_win(&mut b, Color::White, first, &limits, 2_000_000),
            Ok(())
        );
        // So a search of the puzzle may not value i13 as a win: it used to, at depth 11
        // (+M19), and played it.
        let mut root = position(Rule::Freestyle, &moves[..moves.len() - 3]);
        let outcome = SearchState::new().evaluate(
            &mut root,
            SearchLimits::depth(11),
            &AtomicBool::new(false),
        );
        let (best, value) = (root.coord(outcome.best), outcome.value);
        let i13 = Coord::new(8, 12);
        assert!(
            best != i13 || value < WIN_THRESHOLD,
            "{best} claimed as a win ({value})"
        );
    }

    #[test]
    fn the_check_replaces_a_move_that_loses_to_a_forced_win() {
        // pub-std-def022: after f8 (the shallow search's choice) white wins by threats.
        let moves = "j3g6i8i4e8k6j5j4k4i6h6m6j6k8k5i7i5h5j7j9i10l7n5m8";
        let answers = coords("k9,l8,m7");
        assert!(!answers.contains(&checked_move(Rule::Standard, moves, 4, false)));
        let m = checked_move(Rule::Standard, moves, 4, true);
        assert!(answers.contains(&m), "{m}");
    }

    #[test]
    fn a_forcing_root_move_is_searched_with_the_full_window() {
        // pub-renju-win024: white's k8, an open three, wins in 23 plies through quiet
        // moves. Searched under a null window it lost to h6 until depth 12 in four of the
        // board's eight orientations; with the full window it leads from depth 9.
        let moves = parse_pos_sequence("k6i6m7l8i5j5h5j8h7").unwrap();
        let answer = Coord::new(10, 7);
        for sym in 0..8 {
            let mut b = Board::new(15, 15, Rule::Renju).unwrap();
            for c in &moves {
                b.play(c.transformed(15, sym)).unwrap();
            }
            let mut state = SearchState::new();
            state.set_tt_bytes(16 << 20);
            let o = state.evaluate(&mut b, SearchLimits::depth(10), &AtomicBool::new(false));
            assert_eq!(
                b.coord(o.best),
                answer.transformed(15, sym),
                "orientation {sym}"
            );
        }
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

    #[test]
    fn mate_values_survive_the_tt_round_trip() {
        for ply in [0usize, 3, 17] {
            for v in [WIN - 5, -(WIN - 9), 123, -77] {
                let stored = value_to_tt(v, ply);
                assert_eq!(value_from_tt(stored, ply), v);
            }
        }
        // A win in 5 plies seen at ply 3 is a win in 2 from that node.
        assert_eq!(value_to_tt(WIN - 5, 3), WIN - 2);
    }
}
