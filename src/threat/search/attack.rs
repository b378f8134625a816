//! Attacker nodes: the threats the attacker may play, in what order, and what each costs
//! of the three budget.

use super::Searcher;
use crate::board::Pos;
use crate::params::threat::*;
use crate::pattern::Pattern;
use crate::threat::threats::{self, five_point, five_stoppers, MoveShape};
use crate::threat::Level;
use crate::types::Rule;

/// Three budget a non-four attacker move costs: none for a forced block (see `attack`).
#[inline]
pub(super) fn three_cost(was_block: bool) -> u32 {
    u32::from(!was_block)
}

impl Searcher<'_, '_> {
    /// Attacker to move, `ply` attacker moves made, `threes` three-moves still allowed.
    /// True when the attacker wins against every defence.
    ///
    /// Inside the tree (not at the root, which deepens by itself), the smaller budgets are
    /// tried first: a short win in one reply's line is then found before the full budget
    /// is spent on its failing threes.
    pub(super) fn attack(&mut self, ply: u32, threes: u32) -> bool {
        if INNER_DEEPENING && ply > 0 && threes >= 2 {
            // Cheaper wins first: each smaller budget is tried before the full one,
            // from the first one the table does not already decide.
            let mut from = 1;
            if let Some(e) = self.tt.get(&self.key()) {
                if e.wins(threes) {
                    return true;
                }
                from = from.max(e.fails_below as u32);
            }
            // Straight to the budget that won at the nearby proof's matching node.
            if let Some((_, b)) = self.nearby_win().filter(|&(_, b)| b <= threes) {
                from = from.max(b);
            }
            for b in from..threes {
                if self.attack_at(ply, b) {
                    return true;
                }
                if self.aborted {
                    return false;
                }
            }
        }
        self.attack_at(ply, threes)
    }

    /// [`Self::attack`] at exactly this three budget.
    fn attack_at(&mut self, ply: u32, threes: u32) -> bool {
        if self.out_of_budget() {
            return false;
        }
        if let Some(p) = five_point(self.board, self.attacker) {
            self.store(true, threes, p);
            return true;
        }
        if ply >= self.max_depth {
            return false;
        }
        let key = self.key();
        let mut hint = Pos::NONE;
        if let Some(e) = self.tt.get(&key) {
            if e.wins(threes) {
                return true;
            }
            if e.fails(threes) {
                return false;
            }
            hint = e.hint;
        }
        let mut moves = self.move_buffers.pop().unwrap_or_default();
        moves.clear();
        let must_block = self.board.has_five_point(self.defender);
        if must_block {
            if !self.five_stopping_moves(&mut moves) {
                self.move_buffers.push(moves);
                return self.store(false, threes, Pos::NONE);
            }
        } else {
            self.threat_moves(ply, threes, &mut moves);
        }
        self.order_moves(ply, threes, hint, &mut moves);
        let mut proven = false;
        let mut best = Pos::NONE;
        let mut hardest = (0u64, Pos::NONE);
        for &(_, m) in &moves {
            let n0 = self.nodes;
            if self.attacker_move_wins(ply, threes, must_block, m) {
                proven = true;
                best = m;
                if self.learns_history {
                    let cells = self.board.cell_count();
                    self.history.add_win(self.attacker, m, cells);
                }
                break;
            }
            let effort = if ply == 0 {
                self.add_root_effort(m, self.nodes - n0)
            } else {
                self.nodes - n0
            };
            if self.aborted {
                break;
            }
            if effort > hardest.0 {
                hardest = (effort, m);
            }
        }
        self.move_buffers.push(moves);
        if self.aborted {
            return false;
        }
        self.store(proven, threes, if proven { best } else { hardest.1 })
    }

    /// The defender has a five point: only a stone that stops it can be played. Adds
    /// those the attacker may play to `moves`, strongest first; false when no stone stops
    /// the five (two five points, say).
    fn five_stopping_moves(&mut self, moves: &mut Vec<(i32, Pos)>) -> bool {
        let Some(stops) = five_stoppers(self.board, self.defender) else {
            return false;
        };
        for p in stops {
            if threats::is_legal(self.board, p, self.attacker) {
                moves.push((MoveShape::of(self.board, p, self.attacker).score(), p));
            }
        }
        moves.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        true
    }

    /// Adds the attacker's threats to `moves` (threes only while the budget allows
    /// them), and notes when a three was possible but the budget did not allow it.
    fn threat_moves(&mut self, ply: u32, threes: u32, moves: &mut Vec<(i32, Pos)>) {
        // Closed threes count here only near the root of the second phase.
        let closed_threes = self.vcf_threats && ply < CLOSED_THREE_PLIES;
        if threes == 0
            && self.limits.level == Level::Vct
            && (self.board.pattern_count(self.attacker, Pattern::OpenThree) > 0
                || (CROSSING_THREES && self.board.pattern_count(self.attacker, Pattern::Three) > 1)
                || (CLOSED_THREE_THREATS
                    && closed_threes
                    && self.board.pattern_count(self.attacker, Pattern::Three) > 0)
                || (QUIET_THREATS
                    && ply < QUIET_THREAT_PLIES
                    && matches!(self.board.rule(), Rule::Freestyle | Rule::Standard)
                    && threats::has_four_points(self.board, self.attacker)))
        {
            // A three was possible here but not allowed: a larger budget may win.
            self.budget_bound = true;
        }
        threats::attacker_moves(
            self.board,
            self.attacker,
            threes > 0,
            ply < QUIET_THREAT_PLIES,
            closed_threes,
            moves,
        );
    }

    /// Orders `moves` (sorted by shape): among moves of equal shape, the squares that
    /// won most often so far (see [`History`](crate::threat::history::History)); at the
    /// root, the table's `hint` first; the move that won at the nearby proof's matching
    /// node before all.
    fn order_moves(&self, ply: u32, threes: u32, hint: Pos, moves: &mut Vec<(i32, Pos)>) {
        if self.history.has_wins(self.attacker) {
            let (history, attacker) = (&self.history, self.attacker);
            moves.sort_by(|a, b| {
                let wins = |p| history.wins(attacker, p);
                b.0.cmp(&a.0)
                    .then(wins(b.1).cmp(&wins(a.1)))
                    .then(a.1.cmp(&b.1))
            });
        }
        if ROOT_HINT && ply == 0 && !hint.is_none() {
            if let Some(i) = moves.iter().position(|&(_, m)| m == hint) {
                let h = moves.remove(i);
                moves.insert(0, h);
            }
        }
        if let Some((m, _)) = self.nearby_win().filter(|&(_, b)| b <= threes) {
            if let Some(i) = moves.iter().position(|&(_, p)| p == m) {
                let first = moves.remove(i);
                moves.insert(0, first);
            }
        }
    }

    /// Whether the attacker's move `m` wins against every defence (`must_block`: it
    /// answers the defender's five point).
    fn attacker_move_wins(&mut self, ply: u32, threes: u32, must_block: bool, m: Pos) -> bool {
        self.board.place(m, self.attacker);
        let won = if must_block && self.board.has_five_point(self.defender) {
            false
        } else if self.board.has_five_point(self.attacker) {
            self.defend(ply + 1, threes, None, m)
        } else if threes > 0 || (must_block && self.limits.level == Level::Vct) {
            // A block answering a counter-four costs no three: the threat it keeps
            // standing was paid for when it was made.
            let cost = three_cost(must_block);
            match self.three_replies() {
                Some(replies) if !self.out_of_budget() => {
                    self.defend_moves(ply + 1, threes - cost, replies)
                }
                _ => false,
            }
        } else {
            if must_block && self.limits.level == Level::Vct {
                // A block that might keep a three standing needs a three budget.
                self.budget_bound = true;
            }
            false
        };
        self.board.undo();
        won
    }

    /// Adds `nodes` to what root move `m` has cost at the budget in progress; returns its
    /// total.
    fn add_root_effort(&mut self, m: Pos, nodes: u64) -> u64 {
        match self.root_effort.iter_mut().find(|(p, _)| *p == m) {
            Some((_, total)) => {
                *total += nodes;
                *total
            }
            None => {
                self.root_effort.push((m, nodes));
                nodes
            }
        }
    }
}
