//! Sub-searches for a VCF inside the threat search: the defender's own VCF that refutes a
//! three at once (Allis's global refutation), and the attacker's VCF that a quiet move
//! threatens, with the window of squares where a defender stone may kill it.

use super::defend::Replies;
use super::proof::ProofSquare;
use super::Searcher;
use crate::board::{Board, Pos};
use crate::params::threat::*;
use crate::pattern::Cell;
use crate::threat::threats;
use crate::threat::{Level, Limits};
use crate::types::{Color, Rule};
use smallvec::SmallVec;

/// The empty squares where a defender stone placed before a VCF can break its proof.
///
/// Under freestyle and standard a VCF's proof holds unless the stone takes one of its
/// squares or lets the defender make a four or five while it blocks: only a four can
/// interrupt a sequence of fours. A four is four defender stones in a five-cell window
/// without an attacker stone, so a stone off the proof matters only in a window that
/// holds one of the proof's defender replies, no attacker stone yet, and enough
/// defender stones and replies that the stone makes four of them (see
/// `defender_four_windows`; a stone that makes a four by itself is a reply of its own,
/// see `with_counter_fours`). Under standard whether a five is an overline depends on
/// the line's own stones only. Under renju a stone can change whether a point is
/// forbidden far off, and under caro a run end can block a five from afar, so there
/// every square's lines count, ±5 and ±9.
///
/// Returns the squares, and whether the window is the narrow one (freestyle, standard)
/// rather than whole lines.
fn vcf_kill_window(board: &Board, defender: Color, squares: &[ProofSquare]) -> (Vec<Pos>, bool) {
    let mut window: Vec<Pos> = squares
        .iter()
        .map(|square| square.pos)
        .filter(|&p| board.is_empty(p))
        .collect();
    let narrow = match board.rule() {
        Rule::Freestyle | Rule::Standard => {
            defender_four_windows(board, defender, squares, &mut window);
            true
        }
        Rule::Renju => {
            lines_around(board, squares, 5, &mut window);
            false
        }
        Rule::Caro => {
            lines_around(board, squares, 9, &mut window);
            false
        }
    };
    window.sort();
    window.dedup();
    (window, narrow)
}

/// Adds the empty squares of every five-cell window through a defender reply of the
/// proof where one more defender stone would complete a four with the defender's stones
/// and the proof's replies, the window holding no attacker stone. The replies of the
/// whole proof tree count together and the attacker's moves are left out, so the set
/// can only be larger than the windows of any one line of play.
fn defender_four_windows(
    board: &Board,
    defender: Color,
    squares: &[ProofSquare],
    out: &mut Vec<Pos>,
) {
    let is_reply = |p: Pos| squares.iter().any(|s| s.defender_reply && s.pos == p);
    let own = Cell::stone(defender);
    for reply in squares.iter().filter(|s| s.defender_reply) {
        for dir in 0..4 {
            'window: for start in -4..=0isize {
                let mut defenders = 0;
                for k in start..start + 5 {
                    let p = board.offset(reply.pos, dir, k);
                    match board.cell(p) {
                        Cell::Empty if is_reply(p) => defenders += 1,
                        Cell::Empty => {}
                        c if c == own => defenders += 1,
                        _ => continue 'window,
                    }
                }
                if defenders + 1 >= 4 {
                    for k in start..start + 5 {
                        let p = board.offset(reply.pos, dir, k);
                        if board.is_empty(p) && !is_reply(p) {
                            out.push(p);
                        }
                    }
                }
            }
        }
    }
}

/// Adds every empty square within `reach` of a proof square on its four lines.
fn lines_around(board: &Board, squares: &[ProofSquare], reach: i32, out: &mut Vec<Pos>) {
    for square in squares {
        let c = board.coord(square.pos);
        for (dx, dy) in [(1, 0), (0, 1), (1, 1), (1, -1)] {
            for k in -reach..=reach {
                let at = crate::types::Coord::new(c.x + k * dx, c.y + k * dy);
                if let Some(p) = board.pos(at) {
                    if board.is_empty(p) {
                        out.push(p);
                    }
                }
            }
        }
    }
}

impl Searcher<'_, '_> {
    /// Allis's global refutation, in its exact form: after an attacker threat that is not
    /// a four (a three, or a threatened VCF), a defender with a VCF of its own ignores the
    /// threat and wins — a threat that needs two more moves cannot interrupt fours, and
    /// the VCF search answers the attacker's counter-fours among its blocks. A small
    /// sub-search; when it finds nothing, the replies are searched as usual.
    pub(super) fn defender_has_vcf(&mut self) -> bool {
        if !GLOBAL_REFUTATION || !threats::has_four_points(self.board, self.defender) {
            return false;
        }
        let limits = Limits {
            level: Level::Vcf,
            max_nodes: DEFENDER_VCF_NODES,
            max_depth: self.max_depth,
            deadline: None,
            stop: None,
        };
        let mut sub = Searcher::new(&mut *self.board, self.defender, &limits);
        sub.history = std::mem::take(&mut self.history);
        sub.learns_history = self.learns_history;
        let found = sub.run_budget().is_some();
        self.nodes += sub.nodes;
        self.history = std::mem::take(&mut sub.history);
        found
    }

    /// The attacker's VCF as if it moved again (a small sub-search), and the squares of
    /// its proof: `None` when it has none within `max_nodes`.
    ///
    /// Each sub-search has a fresh table. One table shared by all of them (a VCF's
    /// result is a fact of the position alone) saves nodes but not time: the large
    /// table's cache misses cost more than the nodes saved.
    fn vcf_proof(&mut self, max_nodes: u64) -> Option<Vec<ProofSquare>> {
        let limits = Limits {
            level: Level::Vcf,
            max_nodes,
            max_depth: self.max_depth,
            deadline: None,
            stop: None,
        };
        let mut sub = Searcher::new(&mut *self.board, self.attacker, &limits);
        sub.history = std::mem::take(&mut self.history);
        sub.learns_history = self.learns_history;
        let found = sub.run_budget();
        let mut squares = Vec::new();
        if found.is_some() {
            sub.marked_proof_squares(0, VCF_PROOF_SQUARES, &mut squares);
        }
        let (used, aborted) = (sub.nodes, sub.aborted);
        self.history = std::mem::take(&mut sub.history);
        self.nodes += used;
        // A proof cut at the cap would leave the reply window incomplete: no threat then.
        let complete = squares.len() < VCF_PROOF_SQUARES;
        (found.is_some() && !aborted && complete).then_some(squares)
    }

    /// After an attacker move that makes no sure win point, whether it threatens a VCF,
    /// and if so the defender's replies: its fours, and the stones in the proof's window
    /// (see `vcf_kill_window`) that may kill the VCF.
    ///
    /// Under freestyle and standard the window is narrow and every stone in it is a
    /// reply: the stones that leave the VCF standing are not sorted out here, because the
    /// attacker's fours are searched after every reply, so the tree refutes such a stone
    /// with the VCF itself (and keeps the proof in its table for the next budgets), and a
    /// line the defender refutes with an earlier reply never pays for the later ones.
    /// Testing every stone with a VCF search of its own first costs more. Under renju
    /// and caro the window spans whole
    /// lines, so each stone is tested that way, and one whose test runs out of nodes
    /// counts as a reply (more replies can only make a proof harder).
    pub(super) fn vcf_threat_replies(&mut self) -> Option<Replies> {
        if self.board.has_five_point(self.defender) {
            return None;
        }
        let squares = self.vcf_proof(VCF_THREAT_NODES)?;
        let (window, narrow) = vcf_kill_window(self.board, self.defender, &squares);
        let mut out: SmallVec<[Pos; 16]> = SmallVec::new();
        for c in window {
            if !narrow {
                // Each stone costs a VCF search of its own, and a window holds dozens of
                // them: the clock is read here too, or the deadline could pass by far.
                if self.past_deadline() {
                    self.aborted = true;
                    return None;
                }
                self.board.place(c, self.defender);
                let killed = self.vcf_proof(VCF_KILL_NODES).is_none();
                self.board.undo();
                if !killed {
                    continue;
                }
            }
            if threats::is_legal(self.board, c, self.defender) {
                out.push(c);
            }
        }
        Some(self.with_counter_fours(out))
    }
}
