//! Time management: turns the protocol's clocks into two budgets for one move, shares
//! the move out among the searches that make it, and decides, while the search runs,
//! when it must stop.
//!
//! A Gomocup game is lost by a single timeout, so every limit here is computed with a
//! reserve kept back, and the hard limit is never moved past what the clocks allow.
//!
//! Files: `budget` (the clocks and parameters → optimum and hard limit), this one (the
//! [`TimeManager`] of one move: the stop checks and the iteration decisions), `plan`
//! (the move plan: the named [`Slice`]s of the move for the threat-space searches).
//!
//! How the search uses it (one [`TimeManager`] per move):
//! 1. every ~1–2k nodes: [`TimeManager::hard_limit_stops`] — abort at once when true;
//! 2. between root moves: [`TimeManager::soft_limit_reached`] — finish the iteration early
//!    (keeping the best move found so far) when true; never true in panic mode;
//! 3. after each completed depth: [`TimeManager::after_iteration`] — go deeper or stop;
//! 4. when the current best move fails low at a new depth: [`TimeManager::on_fail_low`];
//!    when that is settled: [`TimeManager::on_resolved`];
//! 5. for each threat-space search around the iterations: [`TimeManager::slice`] — its
//!    deadline and node cap; after a refutation of the best move,
//!    [`TimeManager::on_best_move_refuted`] and [`TimeManager::restart_iterations_for_recheck`];
//! 6. after a check that left the choice standing:
//!    [`TimeManager::resume_iterations_after_check`] — whether the iterations go on.
//!
//! The search must always complete depth 1 (it needs a move to play), whatever the budget:
//! with `timeout_turn = 0` both budgets are zero and the engine plays after depth 1.

mod budget;
mod plan;

pub use budget::{Budget, GameProgress, TimeControl, TimeParams};
pub use plan::{Slice, SliceLimits};

use crate::types::Coord;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// A budget or limit that is not bounded at all (no turn limit and no match clock).
pub const UNLIMITED: u64 = u64::MAX;

/// `ms × factor`, keeping [`UNLIMITED`] unlimited (float casts saturate otherwise).
fn scale_ms(ms: u64, factor: f64) -> u64 {
    if ms == UNLIMITED {
        UNLIMITED
    } else {
        (ms as f64 * factor) as u64
    }
}

/// The protocol's "unlimited" value for `time_left` (PROTOCOL.md §3). Also accepted for
/// `timeout_turn`, which has no sentinel of its own.
pub const PROTOCOL_UNLIMITED: i64 = 2_147_483_647;

/// A source of monotonic milliseconds. Injectable so tests can script time.
pub trait Clock {
    /// Milliseconds since an arbitrary fixed origin; never decreases.
    fn now_ms(&self) -> u64;
}

impl<C: Clock + ?Sized> Clock for &C {
    fn now_ms(&self) -> u64 {
        (**self).now_ms()
    }
}

impl<C: Clock + ?Sized> Clock for Arc<C> {
    fn now_ms(&self) -> u64 {
        (**self).now_ms()
    }
}

impl<C: Clock + ?Sized> Clock for Box<C> {
    fn now_ms(&self) -> u64 {
        (**self).now_ms()
    }
}

/// The real clock: milliseconds since it was created. Create one at process start so
/// every time stamp (command read, search start) shares the origin.
#[derive(Clone, Copy, Debug)]
pub struct SystemClock {
    origin: Instant,
}

impl SystemClock {
    pub fn new() -> SystemClock {
        SystemClock {
            origin: Instant::now(),
        }
    }
}

impl Default for SystemClock {
    fn default() -> SystemClock {
        SystemClock::new()
    }
}

impl Clock for SystemClock {
    fn now_ms(&self) -> u64 {
        u64::try_from(self.origin.elapsed().as_millis()).unwrap_or(UNLIMITED)
    }
}

/// A clock that moves only when told to. Atomic so a test can share it with the manager
/// (`&ManualClock` and `Arc<ManualClock>` are clocks too).
#[derive(Debug, Default)]
pub struct ManualClock {
    now: AtomicU64,
}

impl ManualClock {
    pub fn new(start_ms: u64) -> ManualClock {
        ManualClock {
            now: AtomicU64::new(start_ms),
        }
    }

    pub fn set(&self, ms: u64) {
        self.now.store(ms, Ordering::Relaxed);
    }

    pub fn advance(&self, ms: u64) {
        self.now.fetch_add(ms, Ordering::Relaxed);
    }
}

impl Clock for ManualClock {
    fn now_ms(&self) -> u64 {
        self.now.load(Ordering::Relaxed)
    }
}

/// What the search reports after completing a depth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IterationReport {
    pub depth: u32,
    pub best_move: Coord,
    pub score: i32,
    /// The score is a proven win or loss: deeper search cannot change the move's value.
    pub proven: bool,
}

/// The best move failed low at a new depth: its score is now at most `bound`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FailLow {
    pub depth: u32,
    pub best_move: Coord,
    /// The move's score at the previous depth.
    pub previous_score: i32,
    /// The upper bound the new depth proved for it.
    pub bound: i32,
    /// The bound is a proven loss.
    pub proven_loss: bool,
}

/// How a panic ended, as the search saw it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resolution {
    /// Another root move holds: it does not fail low like the old best move did.
    FoundMove(Coord),
    /// Every root move is shown to lose (or to be as bad): searching on cannot help.
    AllMovesLose,
}

/// The decision after a completed iteration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    Continue,
    Stop(StopReason),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// A proven win or loss: the move's value is known.
    Proven,
    /// Every root move loses: nothing left to find.
    AllMovesLose,
    /// The (possibly stretched) target is used up.
    TargetReached,
    /// The best move has been stable, and the shrunk target is used up before the optimum.
    StableBestMove,
    /// The next iteration is predicted to end past what may be spent.
    NextIterationTooLong,
    /// The hard limit has passed.
    HardLimit,
}

/// One completed iteration, as remembered for the branching estimate and stability.
#[derive(Clone, Copy, Debug)]
struct Iteration {
    best_move: Coord,
    score: i32,
    duration_ms: u64,
    /// The best move failed low into a panic during it: the other root moves were searched
    /// without the cutoffs a holding best move gives, so its duration says nothing of how
    /// iterations grow.
    panicked: bool,
}

/// Iterations shorter than this are too coarse (1 ms clock) to estimate growth from.
const MEASURABLE_ITERATION_MS: u64 = 5;
/// How many of the latest duration ratios the branching estimate averages.
const BRANCHING_WINDOW: usize = 3;

/// The time manager of one move; see the module documentation for the call protocol.
#[derive(Debug)]
pub struct TimeManager<C: Clock = SystemClock> {
    clock: C,
    params: TimeParams,
    budget: Budget,
    /// Clock reading when the move command was read: every limit counts from here.
    started_at_ms: u64,
    /// Absolute clock value of the hard limit, so the frequent check is one comparison.
    hard_deadline_ms: u64,
    /// Absolute clock value after which the current iteration is cut at a root-move
    /// boundary (ignored in panic mode).
    iteration_deadline_ms: u64,
    /// The optimum as currently stretched or shrunk, ms from the start, ≤ hard.
    target_ms: u64,
    iterations: Vec<Iteration>,
    /// Clock reading (elapsed) when the last iteration ended.
    last_iteration_end_ms: u64,
    /// A panic resolution found a new best move; counts as a best-move change.
    best_move_changed_in_panic: bool,
    /// A panic ended with every move failing low; counts as a falling evaluation.
    all_moves_fell: bool,
    panic: Option<Panic>,
    /// The threat-space search refuted the best move: the search goes on up to the hard
    /// limit to find the move that holds.
    refuted: bool,
    /// The iterations were resumed after the check (see
    /// [`Self::resume_iterations_after_check`]): they run to their deadline.
    resumed: bool,
}

/// The fail-low that started a panic, and when.
#[derive(Clone, Copy, Debug)]
struct Panic {
    fail: FailLow,
    since_ms: u64,
}

impl<C: Clock> TimeManager<C> {
    /// Starts managing one move. `started_at_ms` is the clock reading when the move
    /// command was read (the manager's turn clock starts then, not when searching does).
    pub fn start(clock: C, started_at_ms: u64, budget: Budget, params: TimeParams) -> Self {
        let mut manager = TimeManager {
            clock,
            params,
            budget,
            started_at_ms,
            hard_deadline_ms: started_at_ms.saturating_add(budget.hard_ms),
            iteration_deadline_ms: 0,
            target_ms: budget.optimum_ms,
            iterations: Vec::new(),
            last_iteration_end_ms: 0,
            best_move_changed_in_panic: false,
            all_moves_fell: false,
            panic: None,
            refuted: false,
            resumed: false,
        };
        manager.last_iteration_end_ms = manager.elapsed_ms();
        manager.retarget();
        manager
    }

    /// The cheap check for the search's node loop (call every ~1–2k nodes): true once
    /// the hard limit has passed and the search must stop at once.
    #[inline]
    pub fn hard_limit_reached(&self) -> bool {
        self.clock.now_ms() >= self.hard_deadline_ms
    }

    /// The node check at `depth` (see [`Self::hard_limit_reached`]): whether the search
    /// must stop at once. With a zero budget ("play at once") depth 1 still completes: a
    /// move is needed.
    #[inline]
    pub fn hard_limit_stops(&self, depth: i32) -> bool {
        self.hard_limit_reached() && (depth > 1 || self.budget.hard_ms > 0)
    }

    /// The check between root moves: true once the current iteration has run past what
    /// was planned for it, so the search should finish it early with the best move found
    /// so far. Never true in panic mode (only the hard limit stops a panic).
    #[inline]
    pub fn soft_limit_reached(&self) -> bool {
        let now = self.clock.now_ms();
        now >= self.hard_deadline_ms || (self.panic.is_none() && now >= self.iteration_deadline_ms)
    }

    /// Milliseconds since the move command was read.
    pub fn elapsed_ms(&self) -> u64 {
        self.clock.now_ms().saturating_sub(self.started_at_ms)
    }

    pub fn budget(&self) -> Budget {
        self.budget
    }

    /// The time the move should take, in ms from its start (for the table's sizing).
    pub fn optimum_ms(&self) -> u64 {
        self.budget.optimum_ms
    }

    /// The optimum as currently stretched (best move changes, falling evaluation) or
    /// shrunk (stable best move); never past the hard limit.
    pub fn target_ms(&self) -> u64 {
        self.target_ms
    }

    /// The time a panic may use, counted from the move's start: up to the hard limit,
    /// ignoring the optimum.
    pub fn panic_budget_ms(&self) -> u64 {
        self.budget.hard_ms
    }

    pub fn in_panic(&self) -> bool {
        self.panic.is_some()
    }

    /// Whether the last completed iteration went through a panic (see `after_iteration`).
    pub fn last_iteration_panicked(&self) -> bool {
        self.iterations.last().is_some_and(|it| it.panicked)
    }

    /// The search completed an iteration: record it and decide whether to go deeper.
    pub fn after_iteration(&mut self, report: IterationReport) -> Decision {
        let now = self.elapsed_ms();
        let duration_ms = now.saturating_sub(self.last_iteration_end_ms);
        self.last_iteration_end_ms = now;
        // A panic of this iteration is still open, or it ended in one of the two ways
        // `on_resolved` records (both reset for every iteration).
        let panicked =
            self.panic.is_some() || self.best_move_changed_in_panic || self.all_moves_fell;
        // A completed iteration has searched every root move: any panic is settled.
        self.panic = None;
        self.iterations.push(Iteration {
            best_move: report.best_move,
            score: report.score,
            duration_ms,
            panicked,
        });
        self.retarget();
        // Panic adjustments apply to the iteration in which they happened only.
        self.best_move_changed_in_panic = false;
        self.all_moves_fell = false;

        if report.proven {
            return Decision::Stop(StopReason::Proven);
        }
        if now >= self.budget.hard_ms {
            return Decision::Stop(StopReason::HardLimit);
        }
        if now >= self.target_ms {
            let reason = if now < self.budget.optimum_ms {
                StopReason::StableBestMove
            } else {
                StopReason::TargetReached
            };
            return Decision::Stop(reason);
        }
        let unsettled = self.params.spend_turn_when_unsettled
            && self.budget.turn_bound
            && self.best_move_just_changed();
        let first_move_only = self.spends_whole_turn() || unsettled || self.resumed;
        let predicted = self.next_iteration_ms(duration_ms, first_move_only);
        let predicted_end = now.saturating_add(predicted);
        if predicted_end > self.iteration_limit_ms() {
            return Decision::Stop(StopReason::NextIterationTooLong);
        }
        Decision::Continue
    }

    /// The current best move failed low at a new depth. Starts panic mode when the fall
    /// is large (at least `panic_drop`) or to a proven loss; returns whether panicking.
    pub fn on_fail_low(&mut self, fail: FailLow) -> bool {
        let drop = i64::from(fail.previous_score) - i64::from(fail.bound);
        if self.panic.is_none() && (fail.proven_loss || drop >= i64::from(self.params.panic_drop)) {
            self.panic = Some(Panic {
                fail,
                since_ms: self.elapsed_ms(),
            });
        }
        self.in_panic()
    }

    /// The search settled the panic before the iteration ended. A new best move stretches
    /// the target like any best-move change; every move losing counts as a falling
    /// evaluation. Returns the decision: with every move lost, stop now.
    pub fn on_resolved(&mut self, resolution: Resolution) -> Decision {
        if self.panic.take().is_none() {
            return Decision::Continue;
        }
        match resolution {
            Resolution::FoundMove(_) => self.best_move_changed_in_panic = true,
            Resolution::AllMovesLose => self.all_moves_fell = true,
        }
        self.retarget();
        match resolution {
            Resolution::FoundMove(_) => Decision::Continue,
            Resolution::AllMovesLose => Decision::Stop(StopReason::AllMovesLose),
        }
    }

    /// The threat-space search proved that the best move loses (a forced win for the
    /// opponent after it): like a fail-low to a proven loss, the search may now use
    /// everything up to the hard limit to find a move that holds.
    pub fn on_best_move_refuted(&mut self) {
        self.refuted = true;
        self.release_hard_limit();
        self.retarget();
    }

    /// Gives back the time up to the hard limit that [`Self::hold_back`] or
    /// [`Self::restart_iterations`] kept from the iterations.
    pub fn release_hard_limit(&mut self) {
        self.stop_iterations_at(self.budget.hard_ms);
    }

    /// The iterations stop `ms` after the move's start (never past the hard limit).
    fn stop_iterations_at(&mut self, ms: u64) {
        self.hard_deadline_ms = self
            .started_at_ms
            .saturating_add(ms.min(self.budget.hard_ms));
    }

    /// The search starts its iterations again from depth 1, on other root moves (those
    /// left after the threat search refuted the best one): the earlier iterations'
    /// durations and best moves say nothing of the new ones. The first new iteration is
    /// timed from now, not from the end of the last old one, which would count the
    /// threat searches in between as its own and make depth 2 look too long to start.
    /// The new iterations end by `end_ms` after the move's start (at most the hard
    /// limit), so that the threat search may check their choice in the rest (see
    /// [`Self::release_hard_limit`]).
    pub fn restart_iterations(&mut self, end_ms: u64) {
        self.iterations.clear();
        self.iterate_from_now_until(end_ms);
    }

    /// Iterations start now (after other searches) and end by `end_ms` after the move's
    /// start: no panic carries over, and the first one is timed from now.
    fn iterate_from_now_until(&mut self, end_ms: u64) {
        self.panic = None;
        self.best_move_changed_in_panic = false;
        self.all_moves_fell = false;
        self.last_iteration_end_ms = self.elapsed_ms();
        self.stop_iterations_at(end_ms);
        self.retarget();
    }

    /// How long the iteration after one of `last_ms` is predicted to take, or its first
    /// root move alone when `first_move_only` (enough where the deadline cuts the rest).
    fn next_iteration_ms(&self, last_ms: u64, first_move_only: bool) -> u64 {
        let whole = scale_ms(last_ms, self.branching_factor());
        if first_move_only {
            scale_ms(whole, self.params.first_move_share)
        } else {
            whole
        }
    }

    /// How long after the move's start the current iteration may run, never past the
    /// hard limit: the target with its overrun, or the deadline itself for iterations
    /// resumed after the check.
    fn iteration_limit_ms(&self) -> u64 {
        if self.resumed {
            self.target_ms
        } else {
            scale_ms(self.target_ms, self.params.iteration_overrun).min(self.budget.hard_ms)
        }
    }

    /// The iterations start now: work done before them (the threat search's look for a
    /// win) is not counted as the first iteration's duration, which would make the next
    /// iteration look too long to start.
    pub fn iterations_start_now(&mut self) {
        self.last_iteration_end_ms = self.elapsed_ms();
    }

    /// Keeps the last `ms` before the hard limit out of the search's reach (never more
    /// than what lies beyond the optimum, unless `at_least_ms` asks for more): the caller
    /// needs them for work after it (the threat check), and a search in panic mode would
    /// otherwise use them all. Released by [`Self::on_best_move_refuted`].
    pub fn hold_back(&mut self, ms: u64, at_least_ms: u64) {
        let budget = self.budget;
        let held = ms
            .min(budget.hard_ms.saturating_sub(budget.optimum_ms))
            .max(at_least_ms);
        self.stop_iterations_at(budget.hard_ms.saturating_sub(held));
    }

    /// Growth of an iteration's duration over the previous one: the mean of the latest
    /// measurable ratios, clamped; the default until there are any. A pair with a
    /// panicked iteration is not a measure: a panic searches every root move without the
    /// cut-offs a holding best move gives, and its growth would stop the next iteration.
    fn branching_factor(&self) -> f64 {
        let ratios: Vec<f64> = self
            .iterations
            .windows(2)
            .filter(|pair| pair[0].duration_ms >= MEASURABLE_ITERATION_MS)
            .filter(|pair| !pair[0].panicked && !pair[1].panicked)
            .map(|pair| pair[1].duration_ms as f64 / pair[0].duration_ms as f64)
            .collect();
        let recent = &ratios[ratios.len().saturating_sub(BRANCHING_WINDOW)..];
        if recent.is_empty() {
            return self.params.default_branching;
        }
        let mean = recent.iter().sum::<f64>() / recent.len() as f64;
        mean.clamp(self.params.min_branching, self.params.max_branching)
    }

    /// Time saved on this move would be lost (see [`TimeParams::spend_whole_turn`]).
    fn spends_whole_turn(&self) -> bool {
        self.params.spend_whole_turn && self.budget.turn_bound
    }

    /// How many completed iterations in a row ended with the latest best move.
    fn stable_run(&self) -> u32 {
        let Some(last) = self.iterations.last() else {
            return 0;
        };
        self.iterations
            .iter()
            .rev()
            .take_while(|it| it.best_move == last.best_move)
            .count() as u32
    }

    fn best_move_just_changed(&self) -> bool {
        let n = self.iterations.len();
        self.best_move_changed_in_panic
            || (n >= 2 && self.iterations[n - 1].best_move != self.iterations[n - 2].best_move)
    }

    fn eval_falling(&self) -> bool {
        let n = self.iterations.len();
        self.all_moves_fell
            || (n >= 2
                && i64::from(self.iterations[n - 2].score)
                    - i64::from(self.iterations[n - 1].score)
                    >= i64::from(self.params.eval_drop))
    }

    /// Recomputes the stretched/shrunk target and the iteration deadline.
    fn retarget(&mut self) {
        let p = &self.params;
        let mut scale = 1.0;
        if self.best_move_just_changed() {
            scale *= p.best_move_change_scale;
        } else if self.stable_run() >= p.stable_iterations && !self.spends_whole_turn() {
            scale *= p.stable_scale;
        }
        if self.eval_falling() {
            scale *= p.eval_drop_scale;
        }
        self.target_ms = if self.refuted {
            self.budget.hard_ms
        } else if self.resumed {
            self.hard_deadline_ms.saturating_sub(self.started_at_ms)
        } else {
            scale_ms(self.budget.optimum_ms, scale).min(self.budget.hard_ms)
        };
        self.iteration_deadline_ms = self.started_at_ms.saturating_add(self.iteration_limit_ms());
    }

    /// One line for a `MESSAGE` (no line breaks): the budgets, or the panic and its budget.
    pub fn describe(&self) -> String {
        let elapsed = self.elapsed_ms();
        match &self.panic {
            Some(panic) => {
                let fail = &panic.fail;
                let fall = if fail.proven_loss {
                    "to a proven loss".to_string()
                } else {
                    format!("from {} to at most {}", fail.previous_score, fail.bound)
                };
                format!(
                    "panic: best move {} failed low at depth {} ({}) after {} ms; searching the \
                     other moves up to the hard limit {} ({} left)",
                    fail.best_move,
                    fail.depth,
                    fall,
                    panic.since_ms,
                    Ms(self.panic_budget_ms()),
                    Ms(self.panic_budget_ms().saturating_sub(elapsed)),
                )
            }
            None => format!(
                "time: optimum {}, target {}, hard limit {}, elapsed {}",
                Ms(self.budget.optimum_ms),
                Ms(self.target_ms),
                Ms(self.budget.hard_ms),
                Ms(elapsed)
            ),
        }
    }
}

/// Milliseconds for messages, spelling out "unlimited".
struct Ms(u64);

impl fmt::Display for Ms {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 == UNLIMITED {
            f.write_str("unlimited")
        } else {
            write!(f, "{} ms", self.0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(depth: u32, best_move: Coord, score: i32) -> IterationReport {
        IterationReport {
            depth,
            best_move,
            score,
            proven: false,
        }
    }

    /// Runs iterations of the given durations until the manager says stop; returns the
    /// elapsed time and reason then.
    fn run(
        tm: &mut TimeManager<&ManualClock>,
        clock: &ManualClock,
        durations: &[u64],
        best: impl Fn(usize) -> Coord,
    ) -> (u64, StopReason) {
        for (i, &duration) in durations.iter().enumerate() {
            clock.advance(duration);
            if let Decision::Stop(reason) = tm.after_iteration(report(i as u32 + 1, best(i), 0)) {
                return (tm.elapsed_ms(), reason);
            }
        }
        panic!("the manager never stopped");
    }

    const DOUBLING: [u64; 12] = [
        10, 20, 40, 80, 160, 320, 640, 1280, 2560, 5120, 10240, 20480,
    ];

    /// A budget the match clock sets (time saved is kept for later moves).
    fn budget(optimum_ms: u64, hard_ms: u64) -> Budget {
        Budget {
            optimum_ms,
            hard_ms,
            turn_bound: false,
        }
    }

    /// Parameters with `spend_whole_turn` on (off by default).
    fn whole_turn() -> TimeParams {
        TimeParams {
            spend_whole_turn: true,
            ..TimeParams::default()
        }
    }

    /// A budget the turn limit alone sets (time saved is lost).
    fn turn_budget(optimum_ms: u64, hard_ms: u64) -> Budget {
        Budget {
            turn_bound: true,
            ..budget(optimum_ms, hard_ms)
        }
    }

    #[test]
    fn a_refuted_best_move_may_use_the_time_up_to_the_hard_limit() {
        let clock = ManualClock::new(0);
        let mut tm = TimeManager::start(&clock, 0, budget(1_000, 4_000), TimeParams::default());
        run(&mut tm, &clock, &DOUBLING, |_| Coord::new(7, 7));
        tm.on_best_move_refuted();
        assert_eq!(tm.target_ms(), 4_000);
        clock.set(2_000);
        assert!(!tm.soft_limit_reached());
        // It lasts for the rest of the move, whatever the next iterations report.
        tm.after_iteration(report(1, Coord::new(3, 3), 0));
        assert_eq!(tm.target_ms(), 4_000);
    }

    #[test]
    fn iterations_started_again_are_timed_from_the_restart() {
        // At 1 s per move: iterations up to 588 ms, the best move refuted at 613 ms and
        // the defences computed until 711 ms; then depth 1 of the new search takes 1 ms.
        fn refuted_at_711(clock: &ManualClock) -> TimeManager<&ManualClock> {
            clock.set(0);
            let mut tm = TimeManager::start(clock, 0, turn_budget(820, 910), TimeParams::default());
            for (depth, end_ms) in [(1, 1), (2, 2), (5, 5), (7, 34), (8, 102), (9, 588)] {
                clock.set(end_ms);
                tm.after_iteration(report(depth, Coord::new(7, 7), -500));
            }
            clock.set(613);
            tm.on_best_move_refuted();
            clock.set(711);
            tm
        }
        let first = report(1, Coord::new(4, 9), 14);
        let clock = ManualClock::new(0);
        let mut restarted = refuted_at_711(&clock);
        restarted.restart_iterations(850);
        clock.set(712);
        assert_eq!(restarted.after_iteration(first), Decision::Continue);
        // They end by the time given, and the rest of the move is there after them.
        clock.set(850);
        assert!(restarted.hard_limit_reached());
        restarted.release_hard_limit();
        assert!(!restarted.hard_limit_reached());
        clock.set(910);
        assert!(restarted.hard_limit_reached());
        // Timed from the end of depth 9 instead, depth 1 seems to take 124 ms.
        let mut carried_on = refuted_at_711(&clock);
        clock.set(712);
        assert!(matches!(
            carried_on.after_iteration(first),
            Decision::Stop(_)
        ));
    }

    #[test]
    fn held_back_time_ends_the_search_early_until_the_move_is_refuted() {
        let clock = ManualClock::new(0);
        let mut tm = TimeManager::start(&clock, 0, budget(1_000, 4_000), TimeParams::default());
        tm.hold_back(500, 0);
        clock.set(3_600);
        assert!(tm.hard_limit_reached());
        tm.on_best_move_refuted();
        assert!(!tm.hard_limit_reached());
        // Never into the optimum.
        let mut tm = TimeManager::start(&clock, 3_600, budget(1_000, 1_200), TimeParams::default());
        tm.hold_back(500, 0);
        clock.set(3_600 + 999);
        assert!(!tm.hard_limit_reached());
        // Unless asked to.
        let mut tm = TimeManager::start(&clock, 3_600, budget(1_000, 1_200), TimeParams::default());
        tm.hold_back(500, 300);
        clock.set(3_600 + 899);
        assert!(!tm.hard_limit_reached());
        clock.set(3_600 + 900);
        assert!(tm.hard_limit_reached());
    }

    #[test]
    fn a_stable_best_move_stops_before_the_optimum() {
        let clock = ManualClock::new(0);
        let mut tm = TimeManager::start(&clock, 0, budget(1_000, 4_000), TimeParams::default());
        let (elapsed, _) = run(&mut tm, &clock, &DOUBLING, |_| Coord::new(7, 7));
        assert!(elapsed < 1_000, "stopped at {elapsed}");
    }

    #[test]
    fn a_changing_best_move_searches_past_the_optimum_but_not_the_hard_limit() {
        let clock = ManualClock::new(0);
        let mut tm = TimeManager::start(&clock, 0, budget(1_000, 4_000), TimeParams::default());
        let (elapsed, _) = run(&mut tm, &clock, &DOUBLING, |i| Coord::new(i as i32 % 2, 0));
        assert!(elapsed > 1_000 && elapsed <= 4_000, "stopped at {elapsed}");
    }

    #[test]
    fn a_stable_best_move_uses_the_whole_turn_when_time_saved_is_lost() {
        let clock = ManualClock::new(0);
        let mut tm = TimeManager::start(&clock, 0, turn_budget(1_000, 1_100), whole_turn());
        let (elapsed, _) = run(&mut tm, &clock, &DOUBLING, |_| Coord::new(7, 7));
        assert!(elapsed >= 1_000, "stopped at {elapsed}");
        // Switched off, the stable move stops early as under a match clock.
        let params = TimeParams {
            spend_whole_turn: false,
            ..TimeParams::default()
        };
        let clock = ManualClock::new(0);
        let mut tm = TimeManager::start(&clock, 0, turn_budget(1_000, 1_100), params);
        let (elapsed, _) = run(&mut tm, &clock, &DOUBLING, |_| Coord::new(7, 7));
        assert!(elapsed < 1_000, "stopped at {elapsed}");
    }

    #[test]
    fn an_iteration_starts_when_its_first_root_move_fits_the_turn() {
        let clock = ManualClock::new(0);
        let mut tm = TimeManager::start(&clock, 0, turn_budget(1_000, 1_200), whole_turn());
        // 100, 200, 400: growth 2, so the next would take 800 and end at 1500, past the
        // hard limit, but its first root move (half of it) ends at 1100, inside: it
        // starts (a match clock would stop here, see the next test). It ends at the
        // optimum, which is then used up.
        let (elapsed, reason) = run(&mut tm, &clock, &[100, 200, 400, 300], |_| Coord::new(3, 3));
        assert_eq!((elapsed, reason), (1_000, StopReason::TargetReached));
    }

    #[test]
    fn an_unsettled_best_move_starts_an_iteration_whose_first_root_move_fits_the_turn() {
        // 100, 200, 400 again: the next iteration would end at 1500, past the hard limit,
        // its first root move at 1100. With the best move changing it starts, takes 300,
        // and the one after it would not fit.
        let durations = [100, 200, 400, 300];
        let changing = |i: usize| Coord::new(i as i32 % 2, 0);
        let clock = ManualClock::new(0);
        let params = TimeParams::default();
        assert!(params.spend_turn_when_unsettled && !params.spend_whole_turn);
        let mut tm = TimeManager::start(&clock, 0, turn_budget(1_000, 1_200), params.clone());
        let (elapsed, reason) = run(&mut tm, &clock, &durations, changing);
        assert_eq!((elapsed, reason), (1_000, StopReason::NextIterationTooLong));
        // A settled best move stops as before.
        let clock = ManualClock::new(0);
        let mut tm = TimeManager::start(&clock, 0, turn_budget(1_000, 1_200), params.clone());
        let (elapsed, reason) = run(&mut tm, &clock, &durations, |_| Coord::new(3, 3));
        assert_eq!((elapsed, reason), (700, StopReason::NextIterationTooLong));
        // So does an unsettled one when the match clock sets the budget (time saved is
        // kept for later moves)...
        let clock = ManualClock::new(0);
        let mut tm = TimeManager::start(&clock, 0, budget(1_000, 1_200), params.clone());
        let (elapsed, reason) = run(&mut tm, &clock, &durations, changing);
        assert_eq!((elapsed, reason), (700, StopReason::NextIterationTooLong));
        // ...and when the rule is switched off.
        let off = TimeParams {
            spend_turn_when_unsettled: false,
            ..params
        };
        let clock = ManualClock::new(0);
        let mut tm = TimeManager::start(&clock, 0, turn_budget(1_000, 1_200), off);
        let (elapsed, reason) = run(&mut tm, &clock, &durations, changing);
        assert_eq!((elapsed, reason), (700, StopReason::NextIterationTooLong));
    }

    #[test]
    fn a_panicked_iteration_does_not_count_as_growth() {
        // Depths 1-3 take 10, 20 and 40 ms (growth 2); depth 4 takes 300 ms and ends at
        // 370 with a new best move. Measured from depth 4, growth is 3.8: the next
        // iteration's first root move would end at 370 + 300 * 3.8 / 2 = 945, past the
        // hard limit, so no depth 5. When depth 4 took that long because its best move
        // failed low into a panic, growth stays 2 and depth 5 starts.
        let depth_four = |panicked: bool| {
            let clock = ManualClock::new(0);
            let params = TimeParams::default();
            let mut tm = TimeManager::start(&clock, 0, turn_budget(800, 900), params.clone());
            for (depth, duration) in [(1, 10), (2, 20), (3, 40)] {
                clock.advance(duration);
                let decision = tm.after_iteration(report(depth, Coord::new(7, 7), 40));
                assert_eq!(decision, Decision::Continue);
            }
            clock.advance(50);
            if panicked {
                let drop = params.panic_drop;
                assert!(tm.on_fail_low(fail_low(40, 40 - drop, false)));
                tm.on_resolved(Resolution::FoundMove(Coord::new(8, 8)));
            }
            clock.advance(250);
            tm.after_iteration(report(4, Coord::new(8, 8), -200))
        };
        assert_eq!(
            depth_four(false),
            Decision::Stop(StopReason::NextIterationTooLong)
        );
        assert_eq!(depth_four(true), Decision::Continue);
    }

    #[test]
    fn an_iteration_that_cannot_finish_in_time_is_not_started() {
        let clock = ManualClock::new(0);
        let mut tm = TimeManager::start(&clock, 0, budget(1_000, 1_200), TimeParams::default());
        // 100, 200, 400: growth 2, so the next would take 800 and end at 1500 > 1200.
        let (elapsed, reason) = run(&mut tm, &clock, &[100, 200, 400], |_| Coord::new(3, 3));
        assert_eq!((elapsed, reason), (700, StopReason::NextIterationTooLong));
    }

    #[test]
    fn a_proven_result_stops_at_once() {
        let clock = ManualClock::new(0);
        let mut tm = TimeManager::start(&clock, 0, budget(10_000, 40_000), TimeParams::default());
        clock.advance(5);
        let mut won = report(3, Coord::new(1, 1), 30_000);
        won.proven = true;
        assert_eq!(tm.after_iteration(won), Decision::Stop(StopReason::Proven));
    }

    #[test]
    fn a_falling_evaluation_stretches_the_target_within_the_hard_limit() {
        let p = TimeParams::default();
        for hard in [1_200, 4_000] {
            let clock = ManualClock::new(0);
            let mut tm = TimeManager::start(&clock, 0, budget(1_000, hard), p.clone());
            clock.advance(10);
            tm.after_iteration(report(1, Coord::new(7, 7), 50));
            clock.advance(10);
            tm.after_iteration(report(2, Coord::new(7, 7), 50 - p.eval_drop));
            assert!(
                tm.target_ms() > 1_000 && tm.target_ms() <= hard,
                "{}",
                tm.target_ms()
            );
        }
    }

    #[test]
    fn the_hard_limit_counts_from_when_the_command_was_read() {
        let clock = ManualClock::new(150);
        let tm = TimeManager::start(&clock, 100, budget(200, 500), TimeParams::default());
        assert_eq!(tm.elapsed_ms(), 50);
        clock.set(599);
        assert!(!tm.hard_limit_reached());
        clock.set(600);
        assert!(tm.hard_limit_reached());
    }

    /// A manager after two quick iterations with best move 7,7 at score 40, ready for
    /// depth 3; budget: optimum 1000, hard 3000.
    fn at_depth_three(clock: &ManualClock) -> TimeManager<&ManualClock> {
        let mut tm = TimeManager::start(clock, 0, budget(1_000, 3_000), TimeParams::default());
        for depth in 1..=2 {
            clock.advance(50);
            tm.after_iteration(report(depth, Coord::new(7, 7), 40));
        }
        tm
    }

    fn fail_low(previous_score: i32, bound: i32, proven_loss: bool) -> FailLow {
        FailLow {
            depth: 3,
            best_move: Coord::new(7, 7),
            previous_score,
            bound,
            proven_loss,
        }
    }

    #[test]
    fn panic_searches_past_the_optimum_but_never_past_the_hard_limit() {
        let clock = ManualClock::new(0);
        let mut tm = at_depth_three(&clock);
        let calm_clock = ManualClock::new(0);
        let calm = at_depth_three(&calm_clock);

        clock.set(900);
        assert!(tm.on_fail_low(fail_low(40, 40 - TimeParams::default().panic_drop, false)));
        assert!(tm.in_panic());
        assert_eq!(tm.panic_budget_ms(), 3_000);

        for t in [1_600, 2_999] {
            clock.set(t);
            calm_clock.set(t);
            assert!(
                calm.soft_limit_reached(),
                "without panic the iteration is cut at {t}"
            );
            assert!(
                !tm.soft_limit_reached() && !tm.hard_limit_reached(),
                "panic at {t}"
            );
        }
        clock.set(3_000);
        assert!(tm.hard_limit_reached() && tm.soft_limit_reached());
    }

    #[test]
    fn a_small_fail_low_does_not_panic() {
        let clock = ManualClock::new(0);
        let mut tm = at_depth_three(&clock);
        let drop = TimeParams::default().panic_drop - 1;
        assert!(!tm.on_fail_low(fail_low(40, 40 - drop, false)));
        clock.set(1_600);
        assert!(tm.soft_limit_reached());
    }

    #[test]
    fn a_fail_low_to_a_proven_loss_always_panics() {
        let clock = ManualClock::new(0);
        let mut tm = at_depth_three(&clock);
        assert!(tm.on_fail_low(fail_low(40, 39, true)));
    }

    #[test]
    fn finding_a_move_that_holds_ends_the_panic_and_stretches_the_target() {
        let clock = ManualClock::new(0);
        let mut tm = at_depth_three(&clock);
        clock.set(900);
        tm.on_fail_low(fail_low(40, -500, false));
        clock.set(1_200);
        let decision = tm.on_resolved(Resolution::FoundMove(Coord::new(8, 8)));
        assert_eq!(decision, Decision::Continue);
        assert!(!tm.in_panic());
        assert!(tm.target_ms() > 1_000 && tm.target_ms() <= 3_000);
        // Back to normal: the iteration is cut again once past its (stretched) deadline.
        clock.set(2_999);
        assert!(tm.soft_limit_reached());
    }

    #[test]
    fn every_move_losing_ends_the_panic_and_stops() {
        let clock = ManualClock::new(0);
        let mut tm = at_depth_three(&clock);
        tm.on_fail_low(fail_low(40, -30_000, true));
        let decision = tm.on_resolved(Resolution::AllMovesLose);
        assert_eq!(decision, Decision::Stop(StopReason::AllMovesLose));
        assert!(!tm.in_panic());
    }

    #[test]
    fn a_completed_iteration_settles_a_panic() {
        let clock = ManualClock::new(0);
        let mut tm = at_depth_three(&clock);
        tm.on_fail_low(fail_low(40, -500, false));
        clock.set(400);
        tm.after_iteration(report(3, Coord::new(8, 8), -20));
        assert!(!tm.in_panic());
    }

    #[test]
    fn describe_is_one_line_naming_the_panic_and_its_budget() {
        let clock = ManualClock::new(0);
        let mut tm = at_depth_three(&clock);
        let calm = tm.describe();
        assert!(calm.contains("optimum 1000 ms") && calm.contains("hard limit 3000 ms"));
        tm.on_fail_low(fail_low(40, -500, false));
        let text = tm.describe();
        assert!(text.starts_with("panic"), "{text}");
        assert!(text.contains("7,7") && text.contains("3000 ms"), "{text}");
        assert!(!text.contains('\n') && !text.contains('\r'));
    }
}
