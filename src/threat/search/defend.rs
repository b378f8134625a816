//! Defender nodes: the replies that must each be refuted after a four or a three, their
//! order, and the search of each.

use super::table::REPLY_SALT;
use super::Searcher;
use crate::board::Pos;
use crate::params::threat::*;
use crate::threat::threats::{self, MoveShape};
use crate::types::Rule;
use smallvec::SmallVec;

/// Why a defender node's reply set could not be formed.
#[derive(Clone)]
pub(super) enum Replies {
    /// The defender makes five first: the attacker's line fails.
    DefenderWins,
    /// No stone stops the threat: the attacker wins.
    Unstoppable,
    /// These replies must each be refuted.
    Moves(SmallVec<[Pos; 16]>),
}

impl Searcher<'_, '_> {
    /// The defender's replies after an attacker threat: to a four (`points` is `None`)
    /// the stones that stop every five point; to a three, the stones that stop every sure
    /// win point in `points`, plus the defender's own fours.
    /// `last` is the attacker's threat just played: the attacker had no five point before
    /// it, so every five point now lies on its lines.
    pub(super) fn replies(&mut self, points: Option<&[Pos]>, last: Pos) -> Replies {
        if self.board.has_five_point(self.defender) {
            return Replies::DefenderWins;
        }
        let mut out: SmallVec<[Pos; 16]> = SmallVec::new();
        match points {
            None => {
                // The attacker had no five point before `last`: it would have played it.
                let Some(stops) = threats::five_stoppers_after(self.board, last, self.attacker)
                else {
                    return Replies::Unstoppable;
                };
                let caro = self.board.rule() == Rule::Caro;
                for s in stops {
                    if !threats::is_legal(self.board, s, self.defender) {
                        continue; // renju: black may not stop it there, so it does not count
                    }
                    // A defender stone makes no attacker five, so a stone on the only
                    // five point stops every five; only caro's blocking cells off the
                    // five point need the stone placed to tell.
                    let stopped = if caro {
                        self.board.place(s, self.defender);
                        let stopped = !self.board.has_five_point(self.attacker);
                        self.board.undo();
                        stopped
                    } else {
                        threats::only_five_point(self.board, s, self.attacker)
                    };
                    if stopped {
                        out.push(s);
                    }
                }
            }
            Some(points) => {
                let mut candidates = SmallVec::new();
                threats::three_stopper_candidates(
                    self.board,
                    points,
                    self.attacker,
                    &mut candidates,
                );
                let by_shape = threats::decided_by_shape(self.board.rule());
                for c in candidates {
                    // A four point the stone leaves one: not a reply, and no stone placed.
                    if by_shape
                        && points
                            .iter()
                            .any(|&q| threats::stays_four_point(self.board, q, c, self.attacker))
                    {
                        continue;
                    }
                    self.board.place(c, self.defender);
                    let stopped = points
                        .iter()
                        .all(|&q| !threats::still_sure(self.board, q, self.attacker));
                    self.board.undo();
                    // Legality last: under renju it is the expensive test.
                    if stopped && threats::is_legal(self.board, c, self.defender) {
                        out.push(c);
                    }
                }
                return self.with_counter_fours(out);
            }
        }
        if out.is_empty() {
            Replies::Unstoppable
        } else {
            Replies::Moves(out)
        }
    }

    /// Completes the replies to a three-like threat: adds the defender's fours (any four
    /// forces an answer first, so it is a reply of its own) and orders them.
    pub(super) fn with_counter_fours(&mut self, mut out: SmallVec<[Pos; 16]>) -> Replies {
        let mut fours = SmallVec::new();
        threats::four_moves(self.board, self.defender, &mut fours);
        for f in fours {
            threats::push_unique(&mut out, f);
        }
        self.order_replies(&mut out);
        if out.is_empty() {
            Replies::Unstoppable
        } else {
            Replies::Moves(out)
        }
    }

    /// Defender to move after the attacker's threat `last`; true when every reply loses.
    pub(super) fn defend(
        &mut self,
        ply: u32,
        threes: u32,
        points: Option<&[Pos]>,
        last: Pos,
    ) -> bool {
        if self.out_of_budget() {
            return false;
        }
        if points.is_some() && self.defender_has_vcf() {
            return false;
        }
        let replies = self.replies(points, last);
        self.defend_moves(ply, threes, replies)
    }

    /// After an attacker move that is not a four: the defender's replies, or `None` when
    /// the move threatens nothing (no sure win point, and in the second phase no VCF) or
    /// the defender's own VCF refutes it at once. All of it follows from the position
    /// (and the phase), and the inner deepening meets each position at several budgets,
    /// so the answer is kept in a table of its own.
    pub(super) fn three_replies(&mut self) -> Option<Replies> {
        let key = self.board.hash() ^ REPLY_SALT[usize::from(self.vcf_threats)];
        if let Some(r) = self.reply_cache.get(&key) {
            return r.clone();
        }
        let mut points = SmallVec::<[Pos; 8]>::new();
        threats::sure_win_points(self.board, self.attacker, &mut points);
        let replies = if !points.is_empty() {
            (!self.defender_has_vcf()).then(|| self.replies(Some(&points), Pos::NONE))
        } else if self.vcf_threats {
            (!self.defender_has_vcf())
                .then(|| self.vcf_threat_replies())
                .flatten()
        } else {
            None
        };
        // A reply set cut short by the clock is not kept.
        if !self.aborted {
            if self.reply_cache.len() >= TT_MAX_ENTRIES {
                self.reply_cache.clear();
            }
            self.reply_cache.insert(key, replies.clone());
        }
        replies
    }

    /// Strongest defences first: most lines fail, and a refutation found early saves
    /// proving the attacker's win against the other replies. Among equals, the squares
    /// that refuted most often so far (see [`History`](crate::threat::history::History)).
    fn order_replies(&self, replies: &mut SmallVec<[Pos; 16]>) {
        let defender = self.defender;
        let board = &*self.board;
        let history = &self.history;
        replies.sort_by_cached_key(|&r| {
            let own = MoveShape::of(board, r, defender).score();
            let blocks = MoveShape::of(board, r, defender.opponent()).score();
            let refuted = history.refutations(defender, r);
            (
                std::cmp::Reverse(own * 2 + blocks),
                std::cmp::Reverse(refuted),
                r,
            )
        });
    }

    /// Tries every reply; true when the attacker wins after each.
    pub(super) fn defend_moves(&mut self, ply: u32, threes: u32, replies: Replies) -> bool {
        match replies {
            Replies::DefenderWins => false,
            Replies::Unstoppable => true,
            Replies::Moves(moves) => {
                for r in moves {
                    self.board.place(r, self.defender);
                    let won = self.attack(ply, threes);
                    self.board.undo();
                    if !won {
                        if !self.aborted && self.learns_history {
                            let cells = self.board.cell_count();
                            self.history.add_refutation(self.defender, r, cells);
                        }
                        return false;
                    }
                }
                true
            }
        }
    }
}
