//! Victory by continuous fours, built for the node search: can the side to move win by
//! making a four at every move, whatever the opponent answers?
//!
//! The threat-space search (`threat`) answers the same question among others, with
//! proof trees and sequences; this one only says yes (and with which first move) or no,
//! allocates nothing, reads four points from the board's pattern state and remembers the
//! positions it has exhausted in a small table of its own, so the node search can ask it
//! at every leaf with a four point (and, with `search.interior_vcf`, at every node). An
//! attacker node tries its fours best first (a four that wins outright ends the node at
//! once); a defender node tries every cell that stops the five the four threatens (at
//! caro also the cells that block its far end), and a defender that has a five point of
//! its own wins first.

use crate::board::{Board, Pos};
use crate::movegen::{self, Threat};
use crate::params::search::{VCF_MAX_FOURS, VCF_TABLE_BITS};
use crate::pattern::Pattern;
use crate::rules;
use crate::types::{Color, Rule};
use smallvec::SmallVec;
use std::ops::ControlFlow;

/// What a VCF search found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VcfResult {
    /// The side to move wins by fours, starting with this move, making five within
    /// this many plies.
    Win(Pos, u32),
    /// No four-chain wins: every line was searched to its end.
    NoWin,
    /// The node budget ran out first.
    Unknown,
}

/// The search's state: the table of exhausted positions, kept across calls.
pub struct Vcf {
    /// Keys (position and attacker) of positions proven to have no VCF, direct-mapped.
    exhausted: Box<[u64]>,
    nodes: u64,
    budget: u64,
}

impl Default for Vcf {
    fn default() -> Self {
        Vcf::new()
    }
}

/// Mixed into the key of a position where white attacks, so the colours do not share
/// entries.
const WHITE_KEY: u64 = 0x6a09_e667_f3bc_c909;

impl Vcf {
    pub fn new() -> Vcf {
        Vcf {
            exhausted: vec![0; 1 << VCF_TABLE_BITS].into_boxed_slice(),
            nodes: 0,
            budget: 0,
        }
    }

    /// Forgets every exhausted position (for a new game).
    pub fn clear(&mut self) {
        self.exhausted.fill(0);
    }

    /// Whether the side to move of `board` wins by fours, searching at most `budget`
    /// positions. Leaves the board as it found it.
    pub fn search(&mut self, board: &mut Board, budget: u64) -> VcfResult {
        self.nodes = 0;
        self.budget = budget;
        let attacker = board.side_to_move();
        board.pause_search_extras();
        let result = self.attack(board, attacker, 0);
        board.resume_search_extras();
        match result {
            Some(Some((p, plies))) => VcfResult::Win(p, plies),
            Some(None) => VcfResult::NoWin,
            None => VcfResult::Unknown,
        }
    }

    /// Positions the last search visited.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    fn key(board: &Board, attacker: Color) -> u64 {
        let k = board.hash();
        // Zero marks an empty slot.
        (if attacker == Color::White {
            k ^ WHITE_KEY
        } else {
            k
        }) | 1
    }

    fn slot(&self, key: u64) -> usize {
        (key >> 7) as usize & (self.exhausted.len() - 1)
    }

    /// An attacker node: `Some(Some((first move, plies to the five)))` for a win,
    /// `Some(None)` when every four was refuted, `None` when the budget ran out.
    fn attack(
        &mut self,
        board: &mut Board,
        attacker: Color,
        depth: usize,
    ) -> Option<Option<(Pos, u32)>> {
        if board.has_five_point(attacker) {
            let five = movegen::five_points(board, attacker).first().copied();
            return Some(five.map(|p| (p, 1)));
        }
        self.nodes += 1;
        if self.nodes > self.budget {
            return None;
        }
        let key = Vcf::key(board, attacker);
        if self.exhausted[self.slot(key)] == key || depth >= crate::params::search::VCF_MAX_DEPTH {
            return Some(None);
        }
        let defender = attacker.opponent();
        let fours = self.fours(board, attacker, defender);
        let mut complete = true;
        for &(c, _) in &fours {
            board.make(c);
            let refuted = self.defend(board, attacker, depth);
            board.undo();
            match refuted {
                Some(Err(plies)) => return Some(Some((c, plies + 1))),
                Some(Ok(())) => {}
                None => complete = false,
            }
        }
        if !complete {
            return None;
        }
        let slot = self.slot(key);
        self.exhausted[slot] = key;
        Some(None)
    }

    /// The attacker's fours worth trying, best first: only those that also stop the
    /// defender's five when it has one, never a renju foul of black's.
    fn fours(
        &self,
        board: &mut Board,
        attacker: Color,
        defender: Color,
    ) -> SmallVec<[(Pos, Threat); 16]> {
        let must_block = board.has_five_point(defender);
        let mut fours: SmallVec<[(Pos, Threat); 16]> = SmallVec::new();
        board.for_cells_making(attacker, Pattern::Four, |p, lines| {
            let blocks = board.cell_patterns(p)[defender.index()].contains(&Pattern::Five);
            if !must_block || blocks {
                fours.push((p, movegen::threat_of_lines(&lines)));
            }
            ControlFlow::Continue(())
        });
        if board.rule() == Rule::Renju && attacker == Color::Black {
            fours.retain(|&mut (p, _)| !rules::is_forbidden(board, p));
        }
        // Strongest first (a winning four ends the search), then board order.
        fours.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        fours.truncate(VCF_MAX_FOURS);
        fours
    }

    /// A defender node after the attacker's four: `Some(Ok(()))` when some answer holds,
    /// `Some(Err(plies))` when every answer loses (the longest within `plies` plies),
    /// `None` when the budget ran out.
    fn defend(
        &mut self,
        board: &mut Board,
        attacker: Color,
        depth: usize,
    ) -> Option<Result<(), u32>> {
        let defender = attacker.opponent();
        if board.has_five_point(defender) {
            return Some(Ok(())); // the defender makes five first
        }
        let mut answers: SmallVec<[Pos; 4]> = SmallVec::new();
        for f in movegen::five_points(board, attacker) {
            if !answers.contains(&f) {
                answers.push(f);
            }
            if board.rule() == Rule::Caro {
                for e in super::node::caro_blocking_cells(board, f, attacker) {
                    if !answers.contains(&e) {
                        answers.push(e);
                    }
                }
            }
        }
        if board.rule() == Rule::Renju && defender == Color::Black {
            answers.retain(|p| !rules::is_forbidden(board, *p));
        }
        let mut complete = true;
        let mut longest = 0;
        for a in answers {
            board.make(a);
            let won = self.attack(board, attacker, depth + 1);
            board.undo();
            match won {
                Some(None) => return Some(Ok(())),
                Some(Some((_, plies))) => longest = longest.max(plies + 1),
                None => complete = false,
            }
        }
        // No answer at all (every block a renju foul): the five comes next ply.
        complete.then_some(Err(longest.max(1)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::threat;

    fn board(rule: Rule, moves: &str) -> Board {
        Board::from_moves(15, rule, moves).unwrap()
    }

    #[test]
    fn a_four_chain_is_found_and_a_blocked_one_is_not() {
        // Black h8 i8 j8, white far off: g8 or k8 makes an open four.
        let mut vcf = Vcf::new();
        let mut b = board(Rule::Freestyle, "h8a1i8a3j8a5");
        let VcfResult::Win(first, _) = vcf.search(&mut b, 10_000) else {
            panic!("no win found\n{b}");
        };
        assert!(["g8", "k8"].contains(&b.coord(first).to_pos_notation().as_str()));
        // White to move in the same position has no four to make.
        let mut b = board(Rule::Freestyle, "h8a1i8a3j8a5o15");
        assert_eq!(vcf.search(&mut b, 10_000), VcfResult::NoWin);
        // Black's three with one end blocked: a single four, answered; no win.
        let mut b = board(Rule::Freestyle, "h8g8i8a3j8a5");
        assert_eq!(vcf.search(&mut b, 10_000), VcfResult::NoWin);
    }

    /// The attacker's VCF as the threat-space search sees it, for comparison.
    fn threat_vcf(b: &mut Board) -> bool {
        let us = b.side_to_move();
        threat::find_win(
            b,
            us,
            &threat::Limits {
                max_nodes: 200_000,
                ..threat::Limits::vcf()
            },
        )
        .is_some()
    }

    #[test]
    fn agrees_with_the_threat_search_on_random_positions_of_every_rule() {
        // Every win claimed is a win the threat-space search also finds, and the VCFs it
        // finds are found here too (both search four-chains exhaustively).
        let mut rng = threat::corpus::Rng::new(5);
        for rule in Rule::ALL {
            let mut wins = 0;
            for i in 0..300 {
                let Some(mut b) =
                    threat::corpus::random_position(rule, (15, 15), 12 + i % 50, &mut rng)
                else {
                    continue;
                };
                let us = b.side_to_move();
                if b.has_five_point(us) || b.has_five_point(us.opponent()) {
                    continue;
                }
                let mut vcf = Vcf::new();
                let ours = vcf.search(&mut b, 1_000_000);
                assert_ne!(ours, VcfResult::Unknown, "{rule}\n{b}");
                let theirs = threat_vcf(&mut b);
                assert_eq!(matches!(ours, VcfResult::Win(..)), theirs, "{rule}\n{b}");
                if let VcfResult::Win(first, _) = ours {
                    wins += 1;
                    // The first move is a real win: the independent verifier agrees.
                    let limits = threat::Limits {
                        max_nodes: 1_000_000,
                        ..threat::Limits::vcf()
                    };
                    assert_eq!(
                        threat::verify::verify_win(&mut b, us, first, &limits, 2_000_000),
                        Ok(()),
                        "{rule}\n{b}"
                    );
                }
            }
            assert!(wins > 5, "{rule}: only {wins} wins in the sample");
        }
    }
}
