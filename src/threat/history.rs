//! Move-ordering history of one threat search: which squares have won attacker nodes,
//! and which have refuted attacker threats, so far.
//!
//! The threat search orders the attacker's moves and the defender's replies by their
//! shape; without a history, among moves of the same shape the order is the board's, so
//! the nodes a proof takes depend on the board's orientation. A square that won (or
//! refuted) in one line of play tends to do so in its neighbours, which differ by a few
//! stones: tried first among its equals, it finds the proof (or the refutation) sooner.
//! Shape still comes first: a killer reply tried before all others (the last refutation
//! at its ply, the usual trick) costs more nodes, since counter-fours and strong blocks
//! refute most lines, and a killer rarely is one.
//!
//! Under renju only in the root's resumable searches (see `Searcher::learns_history`):
//! kept by every search there it plays worse in matches.
//!
//! One history serves a search and its VCF sub-searches (whose attacker may be either
//! side, hence one table per colour), and a resumed search carries it on through the
//! memo. Tables are allocated at the first count, so the many tiny searches that never
//! win or refute anything cost nothing.

use crate::board::Pos;
use crate::types::Color;

/// Counts per square, per colour: one table for attacker wins, one for refutations.
#[derive(Default)]
pub struct History {
    wins: [Vec<u32>; 2],
    refutations: [Vec<u32>; 2],
}

impl History {
    /// How often `p` won an attacker node for `attacker`.
    pub fn wins(&self, attacker: Color, p: Pos) -> u32 {
        count(&self.wins[attacker.index()], p)
    }

    /// How often `p` refuted a threat for `defender`.
    pub fn refutations(&self, defender: Color, p: Pos) -> u32 {
        count(&self.refutations[defender.index()], p)
    }

    /// Whether anything was counted for `attacker`'s wins (orders nothing otherwise).
    pub fn has_wins(&self, attacker: Color) -> bool {
        !self.wins[attacker.index()].is_empty()
    }

    /// `p` won an attacker node for `attacker` (on a board of `cells` cells).
    pub fn add_win(&mut self, attacker: Color, p: Pos, cells: usize) {
        bump(&mut self.wins[attacker.index()], p, cells);
    }

    /// `p` refuted a threat for `defender` (on a board of `cells` cells).
    pub fn add_refutation(&mut self, defender: Color, p: Pos, cells: usize) {
        bump(&mut self.refutations[defender.index()], p, cells);
    }
}

fn count(table: &[u32], p: Pos) -> u32 {
    table.get(p.index()).copied().unwrap_or(0)
}

fn bump(table: &mut Vec<u32>, p: Pos, cells: usize) {
    if table.len() < cells {
        table.resize(cells, 0);
    }
    if let Some(n) = table.get_mut(p.index()) {
        *n = n.saturating_add(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_per_colour_and_kind() {
        let mut h = History::default();
        let p = Pos(40);
        assert_eq!(h.wins(Color::Black, p), 0);
        assert!(!h.has_wins(Color::Black));
        h.add_win(Color::Black, p, 100);
        h.add_win(Color::Black, p, 100);
        h.add_refutation(Color::White, p, 100);
        assert_eq!(h.wins(Color::Black, p), 2);
        assert_eq!(h.wins(Color::White, p), 0);
        assert_eq!(h.refutations(Color::White, p), 1);
        assert_eq!(h.refutations(Color::Black, p), 0);
        assert!(h.has_wins(Color::Black) && !h.has_wins(Color::White));
        assert_eq!(h.wins(Color::Black, Pos(41)), 0);
    }
}
