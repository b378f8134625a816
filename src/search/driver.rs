//! The iteration driver: iterative deepening over the root moves,
//! the root move loop with its panic handling, multi-PV lines, and the root move list.
//! The threat looks around the iterations are `tactics`'s; this file calls them.

use super::node::{has_decisive_four, Forced, Worker};
use super::tactics::RootTactics;
use super::{Outcome, PvLine, SearchEvent, SearchReport};
use crate::board::Pos;
use crate::eval::{self, Value, INFINITE, WIN, WIN_THRESHOLD};
use crate::movegen::{self, MoveList, ScoredMove, Threat};
use crate::time::{Decision, FailLow, IterationReport, Resolution};
use crate::types::Coord;

impl Worker<'_> {
    /// The whole search of the root: the trivial cases, the threat looks before the
    /// iterations (`tactics`), the iterations, and the check of their choice.
    pub(super) fn iterate(
        &mut self,
        tactics: &mut RootTactics,
        report: &mut dyn FnMut(&SearchEvent),
    ) -> Outcome {
        let mut root_moves = self.root_moves();
        let fallback = root_moves.first().map_or(Pos::NONE, |m| m.pos);
        let mut best = Outcome {
            best: fallback,
            value: 0,
            depth: 0,
            nodes: 0,
            threat_nodes: 0,
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
            if let Some(won) = tactics.root_threats(self, &mut root_moves, report) {
                return won;
            }
        }
        // Step 0b: a quick look for our own forced win.
        if self.limits.options.threat_check && tactics.quick_win(self, &mut best, report) {
            best.nodes = self.all_nodes();
            return best;
        }
        if self.limits.options.threat_check {
            tactics.hold_back_for_check(self);
        }
        if let Some(tm) = self.time.as_mut() {
            tm.iterations_start_now();
        }
        self.deepen(1, tactics, &mut root_moves, &mut best, report);
        if self.limits.options.threat_check {
            tactics.check_threats(self, &mut root_moves, &mut best, report);
            self.deepen_after_check(tactics, &mut root_moves, &mut best, report);
        }
        best.nodes = self.all_nodes();
        best
    }

    /// Step 8, on a move whose turn limit binds (time it leaves unused is lost): the time
    /// the check left goes back to the iterations, from one ply deeper than the last
    /// completed (the table holds the shallower ones), when the time manager predicts
    /// that the first root move of that iteration ends in time. A new choice is checked
    /// for the opponent's win in the rest of the move, and the move the check passed is
    /// played instead when it loses.
    fn deepen_after_check(
        &mut self,
        tactics: &mut RootTactics,
        root_moves: &mut MoveList,
        best: &mut Outcome,
        report: &mut dyn FnMut(&SearchEvent),
    ) {
        if self.aborted
            || self.stopped_by_request_or_nodes()
            || best.best == Pos::NONE
            || eval::is_decisive(best.value)
        {
            return;
        }
        let Some(tm) = self.time.as_mut() else {
            return;
        };
        if !tm.resume_iterations_after_check() {
            return;
        }
        report(&SearchEvent::Note(format!(
            "the check left the choice standing; iterations resumed at {} ms",
            tm.elapsed_ms()
        )));
        let checked = *best;
        self.deepen(best.depth + 1, tactics, root_moves, best, report);
        if best.best != checked.best
            && tactics.refuted_after_resumed_iterations(self, best.best, report)
        {
            *best = checked;
        }
    }

    /// Iterative deepening over `root_moves` from depth `first` until the time manager
    /// (or a limit) stops it; `best` is updated after every completed iteration.
    pub(super) fn deepen(
        &mut self,
        first: i32,
        tactics: &mut RootTactics,
        root_moves: &mut MoveList,
        best: &mut Outcome,
        report: &mut dyn FnMut(&SearchEvent),
    ) {
        self.cut = false;
        let max_depth = self.limits.max_depth.max(1);
        for iteration in first.max(1)..=max_depth {
            let depth = (iteration + self.helper_depth_offset.unwrap_or(0)).min(max_depth);
            self.seldepth = 0;
            self.depth = depth;
            let previous = (best.depth > 0).then_some(best.value);
            let (value, best_move) =
                self.search_root(root_moves, depth, -INFINITE, INFINITE, previous, report);
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
                threat_nodes: 0,
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
                if decision != Decision::Continue {
                    break;
                }
            }
            if tactics.refuted_between_iterations(self, m, value, report) {
                break; // the check acts on it at once (the win is in the memo)
            }
        }
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
                    let mut list = movegen::candidates(
                        self.board,
                        self.limits.eval.for_rule(self.board.rule()),
                    );
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
            moves = movegen::candidates(self.board, self.limits.eval.for_rule(self.board.rule()));
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

    /// One pass over the root moves at `depth` within (`alpha`, `beta`): the value and
    /// the best move, or `None` when the first move was not searched to the end.
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
            let v = self.search_root_move(i, m, depth, alpha, beta);
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
                if let Some(prev) = previous {
                    panicking = self.first_move_fell(depth, m, prev, v, report);
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
        if let Some(m) = best_move {
            self.order_for_next_iteration(moves, m);
        }
        (best_value, best_move)
    }

    /// The value of root move `m` (the `index`-th searched). The first, and any move
    /// that makes an open three or more, is searched with the full window at once, so
    /// its line is a PV line with the PV's smaller reductions: a forcing move's win
    /// often runs through quiet moves late in the line, which a null-window search
    /// reduces by one ply more and may not see. The others get a null window first.
    fn search_root_move(
        &mut self,
        index: usize,
        m: Pos,
        depth: i32,
        alpha: Value,
        beta: Value,
    ) -> Value {
        let forcing =
            movegen::threat_of(self.board, m, self.board.side_to_move()) >= Threat::OpenThree;
        self.board.make(m);
        let v = if index == 0 || forcing {
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
        v
    }

    /// The move that was best (worth `previous` at the last depth) is now worth `value`:
    /// when it failed low, the time manager may start a panic. Returns whether it did.
    fn first_move_fell(
        &mut self,
        depth: i32,
        m: Pos,
        previous: Value,
        value: Value,
        report: &mut dyn FnMut(&SearchEvent),
    ) -> bool {
        let coord = self.board.coord(m);
        let Some(tm) = self.time.as_mut() else {
            return false;
        };
        if value >= previous {
            return false;
        }
        let fail = FailLow {
            depth: depth as u32,
            best_move: coord,
            previous_score: previous,
            bound: value,
            proven_loss: value <= -WIN_THRESHOLD,
        };
        if !tm.on_fail_low(fail) {
            return false;
        }
        report(&SearchEvent::Note(tm.describe()));
        true
    }

    /// Puts the best move `m` first for the next iteration. After a complete iteration
    /// the others follow by the nodes their refutation took, most first (a stable sort,
    /// so equals keep their order): a move that was hard to refute is the likeliest to
    /// take over when the best one fails low, and a fixed depth takes fewer nodes so.
    fn order_for_next_iteration(&self, moves: &mut [ScoredMove], m: Pos) {
        if let Some(i) = moves.iter().position(|x| x.pos == m) {
            moves[..=i].rotate_right(1);
        }
        if !self.aborted && !self.cut {
            moves[1..].sort_by_key(|m| std::cmp::Reverse(m.score));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::best_move;
    use super::super::{SearchLimits, SearchState};
    use super::*;
    use crate::board::Board;
    use crate::types::{parse_pos_sequence, Rule};
    use std::sync::atomic::AtomicBool;

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
}
