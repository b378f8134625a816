//! The move plan: how the time manager shares out one move among the threat-space
//! searches around the main search (and the book's gate before it). Each is a named
//! [`Slice`]; its caller asks for the slice's limits and never does arithmetic on the
//! budgets. A slice's node cap grows with its length (see
//! `params::tactics::ROOT_THREAT_NODES_PER_MS`), so that a long slice is cut by its
//! deadline rather than by its nodes.

use super::{Clock, TimeManager};
use crate::params::engine::{BOOK_GATE_NODES, BOOK_REPLY_GATE_NODES};
use crate::params::plan::*;
use crate::params::tactics::{
    REFUTATION_THREAT_NODES, ROOT_THREAT_NODES, ROOT_THREAT_NODES_PER_MS,
};
use std::time::{Duration, Instant};

/// A named piece of the move's time, for one threat-space search. "Now" is when the
/// caller asks for it; every end is at most the hard limit unless said otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slice {
    /// The book gate's check for a forced result: until 1/N of the optimum.
    BookForcedCheck,
    /// The book gate's check of the opponent's win after the book move: until 1/N of
    /// the optimum.
    BookReplyCheck,
    /// `search.threat_search`: our own win before the iterations, 1/N of the optimum
    /// from now (not bounded by the hard limit).
    RootWin,
    /// `search.threat_search`: the defences against the opponent's win, 1/N of the
    /// optimum from now (not bounded by the hard limit).
    RootDefences,
    /// The quick look for our own win before the iterations, which started at
    /// `started_ms`: 1/N of the optimum from then.
    QuickWinLook { started_ms: u64 },
    /// The longer look, where the quick one started at `started_ms` was cut: until 1/N
    /// of the optimum from the quick look's start.
    LongerWinLook { started_ms: u64 },
    /// The opponent's win after a best move chosen in a panic, between two iterations:
    /// 1/N of the optimum from now.
    BetweenIterations,
    /// Our own win in the check after the iterations: half of what is left of the
    /// optimum, and at least 1/N of it.
    OwnWinCheck,
    /// The first search for the opponent's win after the chosen move: up to a reserve
    /// before the hard limit (for acting on a late refutation), and at least an
    /// [`Slice::OwnWinCheck`].
    FirstRefutationCheck,
    /// The defences after the chosen move was refuted: a third of what is left of the
    /// move (the searches after them get the rest).
    Defences,
    /// A later search for the opponent's win, after a new choice among the defences:
    /// half of what is left of the move.
    LaterRefutationCheck,
    /// The search for the opponent's win after a new choice of the iterations resumed
    /// after the check: up to the hard limit.
    ResumedChoiceCheck,
}

/// The limits of one slice: when its search must stop, and how many nodes it may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SliceLimits {
    /// `None` without a clock (or past any instant the system can name).
    pub deadline: Option<Instant>,
    pub max_nodes: u64,
}

impl Slice {
    /// The slice's node cap for a slice of `slice_ms`: the book gate's and step 0's are
    /// fixed; the others grow with their length from the cap of their kind (the
    /// opponent's wins after our move get the larger one).
    fn max_nodes(self, slice_ms: u64) -> u64 {
        let least = match self {
            Slice::BookForcedCheck => return BOOK_GATE_NODES,
            Slice::BookReplyCheck => return BOOK_REPLY_GATE_NODES,
            Slice::RootWin | Slice::RootDefences => return ROOT_THREAT_NODES,
            Slice::BetweenIterations
            | Slice::FirstRefutationCheck
            | Slice::LaterRefutationCheck
            | Slice::ResumedChoiceCheck => REFUTATION_THREAT_NODES,
            Slice::QuickWinLook { .. }
            | Slice::LongerWinLook { .. }
            | Slice::OwnWinCheck
            | Slice::Defences => ROOT_THREAT_NODES,
        };
        least.max(slice_ms.saturating_mul(ROOT_THREAT_NODES_PER_MS))
    }
}

impl SliceLimits {
    /// The limits of `slice` in a search without a clock (the bench, fixed-depth and
    /// fixed-node searches), bounded by nodes alone: step 0 by its own node cap; the
    /// searches around the iterations, when `move_nodes` gives a nominal move's nodes
    /// (the bench's `CLOCKLESS_MOVE_NODES`), by their share of it (the checks after the
    /// iterations the check's least slice each), so that they run as under a clock but
    /// deterministically; else not at all (`None`). The book gate does not run without
    /// a clock: the search decides.
    pub fn without_clock(slice: Slice, move_nodes: Option<u64>) -> Option<SliceLimits> {
        let max_nodes = match slice {
            Slice::BookForcedCheck | Slice::BookReplyCheck => return None,
            Slice::RootWin | Slice::RootDefences => slice.max_nodes(0),
            Slice::QuickWinLook { .. } => move_nodes? / QUICK_WIN_SHARE_OF_OPTIMUM,
            Slice::LongerWinLook { .. } => move_nodes? / TACTICAL_WIN_SHARE_OF_OPTIMUM,
            Slice::BetweenIterations => move_nodes? / REFUTATION_SLICE_OF_OPTIMUM,
            Slice::OwnWinCheck
            | Slice::FirstRefutationCheck
            | Slice::Defences
            | Slice::LaterRefutationCheck
            | Slice::ResumedChoiceCheck => move_nodes? / CHECK_SLICE_OF_OPTIMUM,
        };
        Some(SliceLimits {
            deadline: None,
            max_nodes,
        })
    }
}

impl<C: Clock> TimeManager<C> {
    /// The limits of `slice`, asked for now.
    pub fn slice(&self, slice: Slice) -> SliceLimits {
        let now = self.elapsed_ms();
        let slice_ms = self.slice_end_ms(slice, now).saturating_sub(now);
        SliceLimits {
            deadline: Instant::now().checked_add(Duration::from_millis(slice_ms)),
            max_nodes: slice.max_nodes(slice_ms),
        }
    }

    /// When `slice` ends, in ms after the move's start, asked for at `now`.
    fn slice_end_ms(&self, slice: Slice, now: u64) -> u64 {
        let optimum = self.budget.optimum_ms;
        let hard = self.budget.hard_ms;
        let left = hard.saturating_sub(now);
        match slice {
            Slice::BookForcedCheck => optimum / BOOK_CHECK_SHARE_OF_OPTIMUM,
            Slice::BookReplyCheck => optimum / BOOK_REPLY_CHECK_SHARE_OF_OPTIMUM,
            Slice::RootWin => now + (optimum / WIN_SHARE_OF_OPTIMUM).max(1),
            Slice::RootDefences => now + (optimum / DEFENCE_SHARE_OF_OPTIMUM).max(1),
            Slice::QuickWinLook { started_ms } => {
                (started_ms + optimum / QUICK_WIN_SHARE_OF_OPTIMUM).min(hard)
            }
            Slice::LongerWinLook { started_ms } => {
                (started_ms + optimum / TACTICAL_WIN_SHARE_OF_OPTIMUM).min(hard)
            }
            Slice::BetweenIterations => (now + optimum / REFUTATION_SLICE_OF_OPTIMUM).min(hard),
            Slice::OwnWinCheck => {
                let share = (optimum.saturating_sub(now) / 2).max(optimum / CHECK_SLICE_OF_OPTIMUM);
                (now + share).min(hard)
            }
            Slice::FirstRefutationCheck => {
                let reserve = optimum / REFUTATION_RESERVE_OF_OPTIMUM;
                self.slice_end_ms(Slice::OwnWinCheck, now)
                    .max(hard.saturating_sub(reserve))
            }
            Slice::Defences => now + left / 3,
            Slice::LaterRefutationCheck => now + left / 2,
            Slice::ResumedChoiceCheck => hard,
        }
    }

    /// Keeps time back from the iterations for the check after them: a panic may run
    /// them to the hard limit, so two of the check's least slices (see
    /// [`Slice::OwnWinCheck`]), never more than lies past the optimum, unless our own
    /// win is unsettled (`own_win_unsettled`: the check is to resume it), which gets one
    /// slice in any case.
    pub fn hold_back_for_check(&mut self, own_win_unsettled: bool) {
        let slice = self.budget.optimum_ms / CHECK_SLICE_OF_OPTIMUM;
        self.hold_back(2 * slice, if own_win_unsettled { slice } else { 0 });
    }

    /// Whether a check between iterations may start now: not in the first share of the
    /// optimum, whose iterations change their best move too often to be worth it.
    pub fn checks_between_iterations_open(&self) -> bool {
        self.elapsed_ms() >= self.budget.optimum_ms / REFUTATION_SLICES_FROM_OPTIMUM
    }

    /// Whether the move's hard limit (the budget's, not the one held back from the
    /// iterations) is still ahead: the threat checks may run until it.
    pub fn within_move_time(&self) -> bool {
        self.elapsed_ms() < self.budget.hard_ms
    }

    /// After a check that left the choice standing (no refutation), on a move whose turn
    /// limit binds (`time.resume_after_check`): the iterations go on, timed from now,
    /// until a reserve before the hard limit for the check of a new choice (see
    /// [`Slice::ResumedChoiceCheck`]), while the next one's first root move is predicted
    /// to end by then. Returns whether they go on.
    pub fn resume_iterations_after_check(&mut self) -> bool {
        // After a refutation the time went to the defences and their own checks.
        if !self.params.resume_after_check || !self.budget.turn_bound || self.refuted {
            return false;
        }
        let Some(last) = self.iterations.last() else {
            return false;
        };
        let now = self.elapsed_ms();
        let end = self
            .budget
            .hard_ms
            .saturating_sub(self.budget.optimum_ms / RESUMED_CHOICE_CHECK_OF_OPTIMUM);
        if now.saturating_add(self.next_iteration_ms(last.duration_ms, true)) > end {
            return false;
        }
        self.resumed = true;
        self.iterate_from_now_until(end);
        true
    }

    /// The search starts again among the defences after a refutation (see
    /// [`Self::restart_iterations`]), leaving a share of what is left of the move for the
    /// check of its own choice.
    pub fn restart_iterations_for_recheck(&mut self) {
        let now = self.elapsed_ms();
        let left = self.budget.hard_ms.saturating_sub(now);
        self.restart_iterations(now + left - left / RECHECK_SHARE_OF_REST);
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Budget, Decision, IterationReport, ManualClock, TimeParams};
    use super::*;
    use crate::types::Coord;

    /// At 1 s per move (optimum 819 ms, hard limit 910 ms), `ms` into the move.
    fn one_second_move(clock: &ManualClock, ms: u64) -> TimeManager<&ManualClock> {
        let budget = Budget {
            optimum_ms: 819,
            hard_ms: 910,
            turn_bound: true,
        };
        let tm = TimeManager::start(clock, 0, budget, TimeParams::default());
        clock.set(ms);
        tm
    }

    #[test]
    fn slices_end_as_their_shares_of_the_move_say() {
        let clock = ManualClock::new(0);
        let tm = one_second_move(&clock, 100);
        let end = |s| tm.slice_end_ms(s, tm.elapsed_ms());
        assert_eq!(end(Slice::BookForcedCheck), 819 / 4);
        assert_eq!(end(Slice::BookReplyCheck), 819 / 2);
        assert_eq!(end(Slice::RootWin), 100 + 819 / 8);
        assert_eq!(end(Slice::QuickWinLook { started_ms: 90 }), 90 + 819 / 16);
        assert_eq!(end(Slice::LongerWinLook { started_ms: 90 }), 90 + 819 / 3);
        assert_eq!(end(Slice::BetweenIterations), 100 + 819 / 2);
        // Half of what is left of the optimum, at least a quarter of it.
        assert_eq!(end(Slice::OwnWinCheck), 100 + (819 - 100) / 2);
        // Until an eighth of the optimum before the hard limit.
        assert_eq!(end(Slice::FirstRefutationCheck), 910 - 819 / 8);
        assert_eq!(end(Slice::Defences), 100 + (910 - 100) / 3);
        assert_eq!(end(Slice::LaterRefutationCheck), 100 + (910 - 100) / 2);
        assert_eq!(end(Slice::ResumedChoiceCheck), 910);
        // Late in the move: the least slice, and never past the hard limit.
        let tm = one_second_move(&clock, 800);
        assert_eq!(tm.slice_end_ms(Slice::OwnWinCheck, 800), 910);
        assert_eq!(tm.slice_end_ms(Slice::BetweenIterations, 800), 910);
    }

    #[test]
    fn a_long_slice_may_search_more_nodes_than_its_cap() {
        let clock = ManualClock::new(0);
        let tm = one_second_move(&clock, 0);
        let quick = tm.slice(Slice::QuickWinLook { started_ms: 0 });
        assert_eq!(quick.max_nodes, ROOT_THREAT_NODES);
        assert!(quick.deadline.is_some());
        let budget = Budget {
            optimum_ms: 8_000,
            hard_ms: 20_000,
            turn_bound: true,
        };
        let long = TimeManager::start(&clock, 0, budget, TimeParams::default());
        let defences = long.slice(Slice::Defences);
        assert_eq!(defences.max_nodes, (20_000 / 3) * ROOT_THREAT_NODES_PER_MS);
        assert_eq!(
            long.slice(Slice::BookForcedCheck).max_nodes,
            BOOK_GATE_NODES
        );
    }

    #[test]
    fn without_a_clock_the_slices_are_counted_in_nodes() {
        let nominal = Some(CLOCKLESS_MOVE_NODES);
        let root = SliceLimits::without_clock(Slice::RootWin, None).unwrap();
        assert_eq!((root.deadline, root.max_nodes), (None, ROOT_THREAT_NODES));
        let quick = Slice::QuickWinLook { started_ms: 0 };
        let quick = SliceLimits::without_clock(quick, nominal).unwrap();
        let check = SliceLimits::without_clock(Slice::OwnWinCheck, nominal).unwrap();
        assert_eq!(quick.deadline, None);
        assert!(0 < quick.max_nodes && quick.max_nodes < check.max_nodes);
        // Not asked for: only step 0 runs.
        assert_eq!(SliceLimits::without_clock(Slice::OwnWinCheck, None), None);
        assert_eq!(
            SliceLimits::without_clock(Slice::BookForcedCheck, nominal),
            None
        );
    }

    #[test]
    fn the_check_holds_back_two_slices_within_what_lies_past_the_optimum() {
        let clock = ManualClock::new(0);
        let mut tm = one_second_move(&clock, 0);
        tm.hold_back_for_check(false);
        // Two quarters of the optimum exceed the 91 ms past it: those are held back.
        clock.set(910 - 91);
        assert!(tm.hard_limit_reached());
        let mut tm = one_second_move(&clock, 0);
        tm.hold_back_for_check(true);
        clock.set(910 - 204 - 1);
        assert!(!tm.hard_limit_reached());
        clock.set(910 - 204);
        assert!(tm.hard_limit_reached());
    }

    /// The report of an iteration at `depth` that kept the best move at h8.
    fn kept_best_move(depth: u32) -> IterationReport {
        IterationReport {
            depth,
            best_move: Coord::new(7, 7),
            score: 0,
            proven: false,
        }
    }

    /// A 1 s move whose iterations ran 2, 6, 18 and 54 ms (growth 3) and ended at
    /// `end_ms`, with a stable best move; the clock then at `now_ms` (the check ran
    /// in between).
    fn after_four_iterations(
        clock: &ManualClock,
        end_ms: u64,
        now_ms: u64,
    ) -> TimeManager<&ManualClock> {
        let mut tm = one_second_move(clock, 0);
        let mut at = end_ms - 80;
        clock.set(at);
        tm.iterations_start_now();
        for (depth, ms) in [(1, 2), (2, 6), (3, 18), (4, 54)] {
            at += ms;
            clock.set(at);
            tm.after_iteration(kept_best_move(depth));
        }
        clock.set(now_ms);
        tm
    }

    #[test]
    fn the_time_the_check_leaves_goes_back_to_the_iterations() {
        let clock = ManualClock::new(0);
        // The next iteration's first root move: 54 ms x 3 x 0.5 = 81 ms, which ends
        // before the reserve for the check of a new choice (910 - 819/8 = 808 ms).
        let mut tm = after_four_iterations(&clock, 300, 500);
        assert!(tm.resume_iterations_after_check());
        clock.set(807);
        assert!(!tm.hard_limit_reached() && !tm.soft_limit_reached());
        clock.set(808);
        assert!(tm.hard_limit_reached());
        // The resumed iterations go on while the next first root move ends in time:
        // depth 5 took 150 ms (growth about 2.9), so depth 6's first move takes about
        // 217 ms: from 650 ms it does not end by 808, from 550 it does.
        let report = kept_best_move(5);
        clock.set(650);
        assert_ne!(tm.after_iteration(report), Decision::Continue);
        let mut tm = after_four_iterations(&clock, 300, 400);
        assert!(tm.resume_iterations_after_check());
        clock.set(550);
        assert_eq!(tm.after_iteration(report), Decision::Continue);
    }

    #[test]
    fn the_iterations_resume_only_when_the_turn_is_lost_unused_and_fits() {
        let clock = ManualClock::new(0);
        // Too late: 81 ms from 730 ms ends past 808.
        let mut tm = after_four_iterations(&clock, 300, 730);
        assert!(!tm.resume_iterations_after_check());
        // A refutation gave the rest of the move to the defences.
        let mut tm = after_four_iterations(&clock, 300, 400);
        tm.on_best_move_refuted();
        assert!(!tm.resume_iterations_after_check());
        // The match clock binds: time saved is time for later moves.
        let budget = Budget {
            optimum_ms: 819,
            hard_ms: 910,
            turn_bound: false,
        };
        let mut tm = TimeManager::start(&clock, 0, budget, TimeParams::default());
        clock.set(100);
        tm.after_iteration(kept_best_move(1));
        assert!(!tm.resume_iterations_after_check());
        // Off in the configuration.
        let params = TimeParams {
            resume_after_check: false,
            ..TimeParams::default()
        };
        let budget = Budget {
            turn_bound: true,
            ..budget
        };
        let mut tm = TimeManager::start(&clock, 0, budget, params);
        tm.after_iteration(kept_best_move(1));
        assert!(!tm.resume_iterations_after_check());
        // No iteration yet: nothing to predict from.
        let mut tm = one_second_move(&clock, 100);
        assert!(!tm.resume_iterations_after_check());
    }
}
