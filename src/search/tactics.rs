//! Root tactics: the threat-space searches around the iterations. Before them, a quick
//! look (and, where it pays, a longer one) for our own forced win; between them, a slice
//! of the search for the opponent's win after a best move chosen in a panic; after them,
//! the check of the chosen move (`check_threats`), which plays our own forced win or
//! replaces a move that loses to the opponent's. The memos that let one slice resume
//! the last belong to [`RootTactics`], not to the node search.

use super::node::{restrict_to_defences, Worker};
use super::{Outcome, SearchEvent};
use crate::board::{Board, Pos};
use crate::eval::{self, Value, INFINITE, WIN};
use crate::movegen::MoveList;
use crate::rules;
use crate::threat;
use crate::time::{Slice, SliceLimits};
use crate::types::{Color, Rule};

/// The root's threat searches and what they keep between their slices.
pub(super) struct RootTactics {
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
    /// Nodes of the resumed searches for our own win and the opponent's so far.
    nodes: u64,
}

impl RootTactics {
    /// The tactics of a new move, resuming `threat_memo` (our own win, as searched on
    /// the last move: a win claimed then is followed now from it).
    pub(super) fn resuming(threat_memo: threat::Memo) -> RootTactics {
        RootTactics {
            threat_memo,
            refutation_memo: threat::Memo::default(),
            unchecked_panic_choice: Pos::NONE,
            nodes: 0,
        }
    }

    /// The memo of our own win, for the next move.
    pub(super) fn into_threat_memo(self) -> threat::Memo {
        self.threat_memo
    }

    /// Nodes of the resumed threat searches so far (see [`Outcome::threat_nodes`]).
    pub(super) fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Step 0b: a quick look for our own forced win, which the iterations would spend
    /// their time on without reaching (most are found within a few milliseconds), and
    /// where the threat space is rich a longer one. Returns whether `best` is now a
    /// forced win.
    pub(super) fn quick_win(
        &mut self,
        w: &mut Worker<'_>,
        best: &mut Outcome,
        report: &mut dyn FnMut(&SearchEvent),
    ) -> bool {
        if w.board.has_five_point(w.board.side_to_move().opponent()) {
            return false;
        }
        // Without a clock the slices are counted in nodes: any start will do.
        let started_ms = w.time.as_ref().map_or(0, |tm| tm.elapsed_ms());
        let quick = Slice::QuickWinLook { started_ms };
        if self.try_forced_win(w, quick, threat::Phases::All, best, report) {
            return true;
        }
        // A threat space the quick look could not exhaust is worth a longer look
        // (resumed, not restarted): the check after the iterations may be left little
        // time, when a panic runs them close to the hard limit.
        let Some(phases) = self.longer_look(w.board) else {
            return false;
        };
        let longer = Slice::LongerWinLook { started_ms };
        self.try_forced_win(w, longer, phases, best, report)
    }

    /// Whether the quick look is worth a longer one, and how far it may go. Without a
    /// three to make fours from, only while the search is in its first phase
    /// (straight-four and four-three threats): when that phase ends without a win, the
    /// rest (moves threatening a VCF) rarely wins and the iterations need the time. With
    /// such a three, under freestyle and renju, through both phases; under standard and
    /// caro (the exact-five rules) into the second only while that phase has had less
    /// than half of the look's nodes so far (the half rule), which matched better there.
    fn longer_look(&self, board: &Board) -> Option<threat::Phases> {
        let us = board.side_to_move();
        let memo = &self.threat_memo;
        let (phase, _) = memo.progress();
        if !memo.is_for(board, us, threat::Level::Vct) || memo.complete {
            None
        } else if threat::threats::has_four_points(board, us) {
            let exact_five = matches!(board.rule(), Rule::Standard | Rule::Caro);
            let (nodes, phase_nodes) = memo.nodes();
            let half_rule = phase == 0 || phase_nodes < nodes / 2;
            (!exact_five || half_rule).then_some(threat::Phases::All)
        } else {
            (phase == 0).then_some(threat::Phases::Current)
        }
    }

    /// Keeps time back from the iterations for the check after them.
    pub(super) fn hold_back_for_check(&self, w: &mut Worker<'_>) {
        // A look cut where it may still succeed (see `own_win_unsettled`) is resumed by
        // the check, so it gets a slice even when the limits leave no time beyond the
        // optimum (the turn limit alone), under freestyle only: the other rules matched
        // better without it.
        let own_win_unsettled = self.own_win_unsettled(w.board);
        if let Some(tm) = w.time.as_mut() {
            tm.hold_back_for_check(own_win_unsettled);
        }
    }

    /// After an iteration that panicked (its best move failed low: the likeliest kind of
    /// move to lose to a forced win), or after a later one that kept the best move such
    /// an iteration chose before that move had its slice, a slice of the check's search
    /// for the opponent's win after its best move `m` (worth `value`), which the check
    /// after the iterations resumes: a panic runs the iterations up to the time held
    /// back for the check, which with the turn limit alone is too little for a deep
    /// refutation. Returns whether `m` is refuted.
    pub(super) fn refuted_between_iterations(
        &mut self,
        w: &mut Worker<'_>,
        m: Pos,
        value: Value,
        report: &mut dyn FnMut(&SearchEvent),
    ) -> bool {
        let Some(tm) = w.time.as_ref() else {
            return false;
        };
        // A move that became best in a panic keeps its claim to a slice until it gets one,
        // even when the iterations after it hold it without a panic.
        if tm.last_iteration_panicked() {
            self.unchecked_panic_choice = m;
        } else if self.unchecked_panic_choice != m {
            self.unchecked_panic_choice = Pos::NONE;
        }
        // Not while the check is to resume the search for our own win: a slice here takes
        // the time the iterations and the check need to find it.
        if !w.limits.options.threat_check
            || self.unchecked_panic_choice != m
            || !tm.checks_between_iterations_open()
            || !check_may_go_on(w, value)
            || self.own_win_unsettled(w.board)
        {
            return false;
        }
        self.unchecked_panic_choice = Pos::NONE;
        self.refuted_within(
            w,
            m,
            Slice::BetweenIterations,
            "between iterations: ",
            report,
        )
    }

    /// Whether the new choice `m` of the iterations resumed after the check loses to a
    /// forced win of the opponent, searched until the hard limit.
    pub(super) fn refuted_after_resumed_iterations(
        &mut self,
        w: &mut Worker<'_>,
        m: Pos,
        report: &mut dyn FnMut(&SearchEvent),
    ) -> bool {
        let context = "after the resumed iterations: ";
        self.refuted_within(w, m, Slice::ResumedChoiceCheck, context, report)
    }

    /// Whether our move `m` loses to a forced win of the opponent searched within
    /// `slice` (see [`Self::refutation`]); a win found is reported, after `context`.
    fn refuted_within(
        &mut self,
        w: &mut Worker<'_>,
        m: Pos,
        slice: Slice,
        context: &str,
        report: &mut dyn FnMut(&SearchEvent),
    ) -> bool {
        let Some(win) = self.refutation(w, m, slice) else {
            return false;
        };
        report(&SearchEvent::Note(format!(
            "{context}{} loses to a forced win: {}",
            w.board.coord(m),
            line_text(w.board, &win.main_line())
        )));
        true
    }

    /// Whether the search for our own win at the root (`threat_memo`) was cut where it
    /// may still succeed, and the check after the iterations gets a slice to resume it:
    /// in its first phase, or with threes to make fours from, and only under freestyle
    /// (see `hold_back_for_check`).
    fn own_win_unsettled(&self, board: &Board) -> bool {
        let us = board.side_to_move();
        let memo = &self.threat_memo;
        board.rule() == Rule::Freestyle
            && memo.is_for(board, us, threat::Level::Vct)
            && !memo.complete
            && (memo.progress().0 == 0 || threat::threats::has_four_points(board, us))
    }

    /// The opponent's forced win after our move `m`, searched within `slice`, resuming
    /// `refutation_memo` when it holds the same position (and skipping the search when
    /// an earlier one ran to the end there).
    fn refutation(
        &mut self,
        w: &mut Worker<'_>,
        m: Pos,
        slice: Slice,
    ) -> Option<threat::WinningSequence> {
        let them = w.board.side_to_move().opponent();
        let limits = slice_limits(w, slice)?;
        let mut memo = std::mem::take(&mut self.refutation_memo);
        w.board.make(m);
        let found = if memo.settled_without_win(w.board, them, threat::Level::Vct) {
            None
        } else {
            let before = memo_nodes(&memo, w.board, them);
            let found =
                threat::find_win_resumed(w.board, them, &limits, &mut memo, threat::Phases::All);
            self.nodes += memo_nodes(&memo, w.board, them).saturating_sub(before);
            found
        };
        w.board.undo();
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
    /// Under a time manager in the slices of the move plan; without a clock (the bench,
    /// fixed-depth searches) in its slices counted in nodes.
    pub(super) fn check_threats(
        &mut self,
        w: &mut Worker<'_>,
        root_moves: &mut MoveList,
        best: &mut Outcome,
        report: &mut dyn FnMut(&SearchEvent),
    ) {
        let us = w.board.side_to_move();
        let them = us.opponent();
        if !check_may_go_on(w, best.value)
            || best.best == Pos::NONE
            || w.board.has_five_point(us)
            || w.board.has_five_point(them)
        {
            return;
        }
        // Our own win is looked for first, unless the search says we are behind: then
        // the opponent's win is the likelier find, and a refutation found late leaves no
        // time for a search among the defences. Behind, our own win is looked for after
        // the refutations, in the time they leave.
        let behind = best.value < 0;
        if !behind && self.try_forced_win(w, Slice::OwnWinCheck, threat::Phases::All, best, report)
        {
            return;
        }
        self.replace_refuted_choice(w, root_moves, best, report);
        if behind && check_may_go_on(w, best.value) {
            self.try_forced_win(w, Slice::OwnWinCheck, threat::Phases::All, best, report);
        }
    }

    /// The refutation loop of [`Self::check_threats`]: while the opponent has a forced
    /// win after the chosen move, the move is dropped, the root moves are narrowed to
    /// the defences, and the search runs again among them.
    fn replace_refuted_choice(
        &mut self,
        w: &mut Worker<'_>,
        root_moves: &mut MoveList,
        best: &mut Outcome,
        report: &mut dyn FnMut(&SearchEvent),
    ) {
        // The first check of the chosen move may go on until a reserve before the hard
        // limit: when it ends without a verdict the move is played and the rest of its
        // time goes unused, and the reserve is for a refutation found late (defences
        // and a search among them).
        let mut slice = Slice::FirstRefutationCheck;
        let mut narrowed = false;
        let original = *best;
        loop {
            let m = best.best;
            if !self.refuted_within(w, m, slice, "", report) {
                return;
            }
            if !narrowed {
                narrowed = true;
                narrow_to_defences(w, root_moves, m);
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
                nodes: w.nodes,
                threat_nodes: 0,
            };
            w.aborted = false;
            // The new search leaves a third of what is left for the check of its choice:
            // among the defences, the one the search likes best may lose to another
            // forced win, and a search run up to the hard limit left no time to see it.
            if let Some(tm) = w.time.as_mut() {
                tm.restart_iterations_for_recheck();
            }
            w.deepen(1, self, root_moves, best, report);
            if w.stopped_by_request_or_nodes() || eval::is_decisive(best.value) {
                return;
            }
            // Each later check may use half of what is left before the hard limit.
            if let Some(tm) = w.time.as_mut() {
                tm.release_hard_limit();
                if !tm.within_move_time() {
                    return;
                }
            }
            slice = Slice::LaterRefutationCheck;
        }
    }

    /// Our own forced win, searched within `slice` and as far as `phases` lets it: when
    /// found, `best` becomes its first move (unless forbidden to us) and true is
    /// returned.
    fn try_forced_win(
        &mut self,
        w: &mut Worker<'_>,
        slice: Slice,
        phases: threat::Phases,
        best: &mut Outcome,
        report: &mut dyn FnMut(&SearchEvent),
    ) -> bool {
        let us = w.board.side_to_move();
        let level = threat::Level::Vct;
        if self.threat_memo.is_for(w.board, us, level) && self.threat_memo.complete {
            // An earlier slice searched this root to the end: nothing more to find.
            return false;
        }
        let Some(limits) = slice_limits(w, slice) else {
            return false;
        };
        let mut memo = std::mem::take(&mut self.threat_memo);
        let before = memo_nodes(&memo, w.board, us);
        let found = threat::find_win_resumed(w.board, us, &limits, &mut memo, phases);
        self.nodes += memo_nodes(&memo, w.board, us).saturating_sub(before);
        self.threat_memo = memo;
        let Some(win) = found else {
            return false;
        };
        let legal = win.first_move().filter(|&m| {
            !(w.board.rule() == Rule::Renju
                && us == Color::Black
                && rules::is_forbidden(w.board, m))
        });
        let Some(first) = legal else { return false };
        report(&SearchEvent::Note(format!(
            "forced win: {}",
            line_text(w.board, &win.main_line())
        )));
        best.best = first;
        best.value = WIN - (2 * win.steps.len()).max(1) as Value;
        true
    }

    /// Step 0 (`search.threat_search`): the threat-space search at the root, within a
    /// share of the move's time. Returns our proven win; against the opponent's, the root
    /// moves are narrowed to the defences.
    pub(super) fn root_threats(
        &mut self,
        w: &mut Worker<'_>,
        root_moves: &mut MoveList,
        report: &mut dyn FnMut(&SearchEvent),
    ) -> Option<Outcome> {
        let us = w.board.side_to_move();
        // Not when a five must be answered or is ours: steps 1-2 already decided.
        if w.board.has_five_point(us) || w.board.has_five_point(us.opponent()) {
            return None;
        }
        // Our own win first: finding it is worth most.
        let win_limits = slice_limits(w, Slice::RootWin)?;
        if let Some(win) = threat::find_win(w.board, us, &win_limits) {
            if let Some(first) = win.first_move() {
                let line: Vec<String> = win
                    .main_line()
                    .iter()
                    .map(|&p| w.board.coord(p).to_string())
                    .collect();
                report(&SearchEvent::Note(format!(
                    "forced win: {}",
                    line.join(" ")
                )));
                let plies = (2 * win.steps.len()).max(1) as Value;
                return Some(Outcome {
                    best: first,
                    value: WIN - plies,
                    depth: 0,
                    nodes: w.nodes,
                    threat_nodes: 0,
                });
            }
        }
        // No threat, or every move loses (then the search picks the toughest): the
        // root moves stay as they are.
        let defence_limits = slice_limits(w, Slice::RootDefences)?;
        let defences = threat::defences(w.board, us, &defence_limits);
        if let Some(defences) = defences.filter(|d| !d.is_empty()) {
            let mut restricted = root_moves.clone();
            restrict_to_defences(&mut restricted, &defences);
            w.retain_legal(&mut restricted);
            if !restricted.is_empty() {
                *root_moves = restricted;
            }
        }
        None
    }
}

/// After the first refutation of the chosen move `refuted`: the time manager (if any)
/// lets the search run to the hard limit, and the root moves are narrowed to the defences found
/// in a third of what is left (the searches after them get the rest).
fn narrow_to_defences(w: &mut Worker<'_>, root_moves: &mut MoveList, refuted: Pos) {
    let us = w.board.side_to_move();
    if let Some(tm) = w.time.as_mut() {
        tm.on_best_move_refuted();
    }
    let Some(limits) = slice_limits(w, Slice::Defences) else {
        return;
    };
    // The search's order (its best moves first), the refuted move last: those are the
    // candidates the deadline leaves time to try.
    let mut preferred: Vec<Pos> = root_moves.iter().map(|x| x.pos).collect();
    preferred.retain(|&p| p != refuted);
    preferred.push(refuted);
    let Some(set) = threat::defences_preferring(w.board, us, &limits, &preferred) else {
        return;
    };
    // Only the proven defences when there are any: the rest were never tried or were
    // cut short, and the search among them and the checks of its choices have only what
    // is left of the move.
    let defences = if set.proven.is_empty() {
        set.moves
    } else {
        set.proven
    };
    if !defences.is_empty() {
        restrict_to_defences(root_moves, &defences);
        w.retain_legal(root_moves);
    }
}

/// Whether a threat search of the check may still run, after a search that ended
/// with `value`: with time left before the hard limit, if there is a clock (a search
/// ended by the held-back hard limit leaves the check its time; a stop request or the
/// node limit does not), and while the value is not already decisive.
fn check_may_go_on(w: &Worker<'_>, value: Value) -> bool {
    let time_left = w.time.as_ref().is_none_or(|tm| tm.within_move_time());
    time_left && !w.stopped_by_request_or_nodes() && !eval::is_decisive(value)
}

/// The threat-search limits of `slice` for one of the root's searches: the move plan's,
/// or without a clock the plan's clockless ones, if the limits ask for them (`None`: the
/// slice is not searched).
fn slice_limits<'a>(w: &Worker<'a>, slice: Slice) -> Option<threat::Limits<'a>> {
    let limits = match w.time.as_ref() {
        Some(tm) => tm.slice(slice),
        None => SliceLimits::without_clock(slice, w.limits.clockless_threat_nodes)?,
    };
    Some(threat::Limits {
        level: threat::Level::Vct,
        max_nodes: limits.max_nodes,
        max_depth: threat::ROOT_DEPTH,
        deadline: limits.deadline,
        stop: Some(w.stop),
    })
}

/// The nodes `memo` holds of the search of `board` for `attacker` (0 for another root).
fn memo_nodes(memo: &threat::Memo, board: &Board, attacker: Color) -> u64 {
    if memo.is_for(board, attacker, threat::Level::Vct) {
        memo.nodes().0
    } else {
        0
    }
}

fn line_text(board: &Board, line: &[Pos]) -> String {
    let moves: Vec<String> = line.iter().map(|&p| board.coord(p).to_string()).collect();
    moves.join(" ")
}

#[cfg(test)]
mod tests {
    use super::super::testing::{checked_move, coords, position};
    use super::super::{SearchLimits, SearchState};
    use crate::params::plan::CLOCKLESS_MOVE_NODES;
    use crate::types::Rule;
    use std::sync::atomic::AtomicBool;

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
    fn the_check_replaces_a_move_that_loses_to_a_forced_win() {
        // pub-std-def022: after f8 (the shallow search's choice) white wins by threats.
        let moves = "j3g6i8i4e8k6j5j4k4i6h6m6j6k8k5i7i5h5j7j9i10l7n5m8";
        let answers = coords("k9,l8,m7");
        assert!(!answers.contains(&checked_move(Rule::Standard, moves, 4, false)));
        let m = checked_move(Rule::Standard, moves, 4, true);
        assert!(answers.contains(&m), "{m}");
    }

    #[test]
    fn without_a_clock_the_threat_searches_run_when_asked_and_count_their_nodes() {
        // pub-free-win007 (shared/positions/puzzles.txt): a VCT win in 19 plies.
        let moves =
            "k4i4f6g6e7g5g7e5h7i7f4f5h5h6k6g4e6j5j6l6j8h3g3k5i5h4d5f7m7j2i2l5l4k8d6l3i3l7j9l9l8m10";
        let search = |threat_nodes: Option<u64>| {
            let mut b = position(Rule::Freestyle, moves);
            let mut limits = SearchLimits::depth(2);
            limits.clockless_threat_nodes = threat_nodes;
            let mut state = SearchState::new();
            state.set_tt_bytes(1 << 20);
            let o = state.evaluate(&mut b, limits, &AtomicBool::new(false));
            (b.coord(o.best), o.value, o.threat_nodes)
        };
        let (_, _, nodes) = search(None);
        assert_eq!(nodes, 0);
        let (_, _, nodes) = search(Some(CLOCKLESS_MOVE_NODES));
        assert!(nodes > 0);
        // A nominal move large enough for the quick look to find the win.
        let (m, v, _) = search(Some(20 * CLOCKLESS_MOVE_NODES));
        assert!(coords("j7,k7,m9,c6,b6").contains(&m), "{m}");
        assert!(v >= crate::eval::WIN_THRESHOLD, "{v}");
    }
}
