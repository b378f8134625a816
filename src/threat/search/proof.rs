//! Reading a proven win back from the table: the squares of its proof tree (where a
//! defence must play) and its main line.

use super::attack::three_cost;
use super::defend::Replies;
use super::table::{Table, NO_WIN};
use super::Searcher;
use crate::board::{Board, Pos};
use crate::params::threat::*;
use crate::pattern::Pattern;
use crate::threat::threats::{self, five_point, MoveShape};
use crate::threat::{ThreatStep, WinningSequence};
use crate::types::{Color, Rule};
use smallvec::SmallVec;

/// Under caro a stone beside a five point can stop the five too (at a run end it makes
/// the five a blocked one), and one beside a straight-four point can spoil the four: so
/// the proof also needs every empty cell within reach along each line where `p` makes a
/// four or a five for `attacker`. Under the other rules only `p` itself matters.
/// Without them `defences` would miss, under caro, the block beyond the far end of a
/// four whose other five point has a defender stone next to it (`X . O O O O .`: the
/// right end stops both five points) and call the position lost.
fn push_caro_blockers(board: &Board, p: Pos, attacker: Color, out: &mut Vec<ProofSquare>) {
    if board.rule() == Rule::Caro {
        threats::empty_cells_along(board, p, attacker, Pattern::Four, |q| {
            out.push(ProofSquare::attacker(q))
        });
    }
}

/// One square of a proof tree, and whether the defender plays it (a reply) rather than
/// the attacker (a move, a five point, a sure win point).
#[derive(Clone, Copy)]
pub(super) struct ProofSquare {
    pub(super) pos: Pos,
    pub(super) defender_reply: bool,
}

impl ProofSquare {
    fn attacker(pos: Pos) -> ProofSquare {
        ProofSquare {
            pos,
            defender_reply: false,
        }
    }
}

impl Searcher<'_, '_> {
    /// The replies to the attacker's threat `best` (just played) when rebuilding a proof:
    /// the same sets the search used (four, sure win points, or a VCF threat).
    fn replies_after(&mut self, four: bool, points: &[Pos], best: Pos) -> Replies {
        if four {
            self.replies(None, best)
        } else if !points.is_empty() || !self.vcf_threats {
            self.replies(Some(points), best)
        } else {
            self.vcf_threat_replies().unwrap_or(Replies::Unstoppable)
        }
    }

    /// The winning move of a proven attacker node, from the table; when its entry was
    /// overwritten, the node is proven again to recover it.
    fn proven_move(&mut self, threes: u32) -> Option<Pos> {
        let stored = |tt: &Table, key| match tt.get(&key) {
            Some(e) if e.win_from != NO_WIN && !e.best.is_none() => Some(e.best),
            _ => None,
        };
        if let Some(best) = stored(&self.tt, self.key()) {
            return Some(best);
        }
        if !self.attack(0, threes) {
            return None;
        }
        stored(&self.tt, self.key())
    }

    /// Every square of a proven win's proof tree (attacker moves, defender replies, the
    /// final fives), at most `cap` of them: a defence must disturb one of these.
    pub fn proof_squares(&mut self, threes: u32, cap: usize, out: &mut Vec<Pos>) {
        let mut marked = Vec::new();
        self.marked_proof_squares(threes, cap, &mut marked);
        out.extend(marked.into_iter().map(|square| square.pos));
    }

    /// [`Self::proof_squares`], each marked with whether it is a defender's reply.
    pub(super) fn marked_proof_squares(
        &mut self,
        threes: u32,
        cap: usize,
        out: &mut Vec<ProofSquare>,
    ) {
        if out.len() >= cap || self.aborted {
            return;
        }
        if let Some(p) = five_point(self.board, self.attacker) {
            out.push(ProofSquare::attacker(p));
            push_caro_blockers(self.board, p, self.attacker, out);
            return;
        }
        let Some(best) = self.proven_move(threes) else {
            return;
        };
        out.push(ProofSquare::attacker(best));
        let was_block = self.board.has_five_point(self.defender);
        self.board.place(best, self.attacker);
        let four = self.board.has_five_point(self.attacker);
        let mut points = SmallVec::<[Pos; 8]>::new();
        let mut budget = threes;
        if !four {
            threats::sure_win_points(self.board, self.attacker, &mut points);
            out.extend(points.iter().map(|&p| ProofSquare::attacker(p)));
            budget = budget.saturating_sub(three_cost(was_block));
        }
        match self.replies_after(four, &points, best) {
            Replies::Moves(replies) => {
                for r in replies {
                    out.push(ProofSquare {
                        pos: r,
                        defender_reply: true,
                    });
                    self.board.place(r, self.defender);
                    self.marked_proof_squares(budget, cap, out);
                    self.board.undo();
                }
            }
            _ => {
                // Unstoppable: every five point (and straight-four point) is part of it;
                // both make a four or a five on some line.
                let attacker = self.attacker;
                for p in threats::cells_making(self.board, attacker, Pattern::Four) {
                    let shape = MoveShape::of(self.board, p, attacker);
                    if shape.five || shape.wins_next() {
                        out.push(ProofSquare::attacker(p));
                        push_caro_blockers(self.board, p, attacker, out);
                    }
                }
            }
        }
        self.board.undo();
    }

    /// Rebuilds the main line of a proven win from the table: the attacker's moves, and
    /// after each the defender's reply set; the line follows the first reply.
    pub(super) fn sequence(&mut self, threes: u32) -> WinningSequence {
        let mut steps = Vec::new();
        let mut placed = 0;
        let mut budget = threes;
        for _ in 0..=HARD_MAX_DEPTH {
            if let Some(p) = five_point(self.board, self.attacker) {
                steps.push(ThreatStep {
                    attack: p,
                    kind: threats::ThreatKind::Five,
                    replies: Vec::new(),
                });
                break;
            }
            let Some(best) = self.proven_move(budget) else {
                break;
            };
            let was_block = self.board.has_five_point(self.defender);
            self.board.place(best, self.attacker);
            placed += 1;
            let four = self.board.has_five_point(self.attacker);
            let mut points = SmallVec::<[Pos; 8]>::new();
            if !four {
                threats::sure_win_points(self.board, self.attacker, &mut points);
                budget = budget.saturating_sub(three_cost(was_block));
            }
            let replies = match self.replies_after(four, &points, best) {
                Replies::Moves(m) => m.to_vec(),
                _ => Vec::new(),
            };
            let kind = threats::classify(self.board, best, self.attacker, &replies);
            let next = replies.first().copied();
            steps.push(ThreatStep {
                attack: best,
                kind,
                replies,
            });
            match next {
                Some(r) => {
                    self.board.place(r, self.defender);
                    placed += 1;
                }
                None => {
                    // Unstoppable: the next attacker move is a five (recorded above).
                    continue;
                }
            }
        }
        for _ in 0..placed {
            self.board.undo();
        }
        WinningSequence {
            steps,
            nodes: self.nodes,
        }
    }
}
