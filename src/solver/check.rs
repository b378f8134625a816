//! The proof checker: replays a proof tree against the rules alone.
//!
//! It shares nothing with the solver or the threat search. It uses the board for the
//! stones and renju's forbidden points (`rules::is_forbidden`), and recognises fives by
//! walking the stones along each line and applying the rule's definition directly
//! (exactly five under standard, caro and for renju black; caro's five not blocked by
//! opponent stones at both ends; five or more otherwise), not through pattern tables.
//!
//! At an attacker line it checks the move is legal, and that it is a five (then the
//! line ends) or that the defender's replies below it are answered. At a defender node
//! every legal reply of the board must be listed, or leave the attacker a five (the
//! checker finds one), or be answered by the `*` line's subtree, which is then checked
//! with that reply on the board. A reply that makes five for the defender, a listed
//! reply that is not legal, a defender node with no legal reply (a draw) and an
//! attacker move after a five are all holes.
//!
//! An attacker line `=` (a transposition) holds where the same position, stone for
//! stone, was proven earlier in the check. The checker walks the tree in file order (a
//! defender node's listed replies first, in their order, then the others), remembers
//! every position whose attacker line it has checked to the end, and compares positions
//! by their stones, not by a hash. The attacker, the rule and the side to move (the
//! stones alternate) are the same throughout, so a position proven once is proven
//! wherever it comes up again, and a reference can only point back to a finished check.
//!
//! Which replies leave a five is decided from the attacker's five points before the
//! reply (a defender stone never makes one). Under caro, or with no five point, every
//! empty cell of the board is tried. Otherwise a five is made of the attacker's stones
//! alone, so a defender stone takes away only the five point it lands on: with two or
//! more five points every reply leaves one, with one only that point can need an
//! answer, and only it (and the listed replies) are played.

use super::format::{cell_text, Move, Node, ProofFile};
use crate::board::{Board, Pos};
use crate::pattern::Cell;
use crate::rules;
use crate::types::{Color, Coord, Rule};
use std::collections::HashSet;
use std::fmt;

/// What a successful check saw.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CheckReport {
    /// Attacker moves replayed (a move checked again under `*` counts again).
    pub attacker_moves: u64,
    /// Defender nodes whose replies were enumerated.
    pub defender_nodes: u64,
    /// Defender replies answered by a five the checker found.
    pub implicit_replies: u64,
    /// The longest line checked, in plies.
    pub max_plies: usize,
    /// `=` lines accepted: positions proven earlier in the check.
    pub transpositions: u64,
}

/// Why a proof was rejected: the line of the file (0 when it has none) and the moves
/// from the position to the hole.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejection {
    pub line: usize,
    pub path: Vec<Coord>,
    pub reason: String,
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path: Vec<String> = self.path.iter().map(|c| c.to_pos_notation()).collect();
        write!(f, "line {}: {}", self.line, self.reason)?;
        if !path.is_empty() {
            write!(f, " (after {})", path.join(" "))?;
        }
        Ok(())
    }
}

impl std::error::Error for Rejection {}

struct Checker {
    board: Board,
    attacker: Color,
    path: Vec<Coord>,
    report: CheckReport,
    /// The five points of each colour now (see [`Checker::play`]), and those of the
    /// positions before, for taking moves back.
    fives: [Vec<Pos>; 2],
    earlier_fives: Vec<[Vec<Pos>; 2]>,
    /// The positions (attacker to move) proven so far, by [`stones_key`].
    proven: HashSet<Box<[u8]>>,
}

/// Checks `proof`: `Ok` when its tree wins for its attacker against every defence.
pub fn check(proof: &ProofFile) -> Result<CheckReport, Rejection> {
    let reject = |reason: String| Rejection {
        line: 0,
        path: Vec::new(),
        reason,
    };
    let mut board = Board::new(proof.width, proof.height, proof.rule)
        .map_err(|e| reject(format!("bad board: {e}")))?;
    for &c in &proof.moves {
        board
            .play(c)
            .map_err(|e| reject(format!("bad position: {e}")))?;
    }
    if let Some(c) = decided(&board) {
        return Err(reject(format!(
            "the position is already won (a five through {})",
            cell_text(c, proof.width)
        )));
    }
    let fives = [Color::Black, Color::White].map(|color| all_five_points(&board, color));
    let mut checker = Checker {
        attacker: proof.attacker,
        path: Vec::new(),
        report: CheckReport::default(),
        board,
        fives,
        earlier_fives: Vec::new(),
        proven: HashSet::new(),
    };
    if checker.board.side_to_move() == proof.attacker {
        match &proof.roots[..] {
            [root] => checker.attacker_node(root)?,
            _ => {
                return Err(reject(format!(
                    "the attacker is to move: the tree needs one top line, not {}",
                    proof.roots.len()
                )))
            }
        }
    } else {
        checker.defender_node(&proof.roots, 0)?;
    }
    Ok(checker.report)
}

impl Checker {
    fn reject(&self, line: usize, reason: String) -> Rejection {
        Rejection {
            line,
            path: self.path.clone(),
            reason,
        }
    }

    fn name(&self, c: Coord) -> String {
        cell_text(c, self.board.width())
    }

    /// The attacker plays `node`'s move and the defender's replies below it are checked;
    /// or `node` is `=` and the position is one proven before. A position whose line
    /// passes is remembered as proven.
    fn attacker_node(&mut self, node: &Node) -> Result<(), Rejection> {
        let key = stones_key(&self.board);
        let c = match node.mv {
            Move::At(c) => c,
            Move::ProvenAbove => return self.proven_above(node, &key),
            Move::Others => {
                return Err(self.reject(node.line, "'*' where an attacker move belongs".into()))
            }
        };
        self.attacker_move(node, c)?;
        self.proven.insert(key);
        Ok(())
    }

    /// A `=` line: the position on the board (`key`) must have been proven before.
    fn proven_above(&mut self, node: &Node, key: &[u8]) -> Result<(), Rejection> {
        if !node.children.is_empty() {
            return Err(self.reject(node.line, "moves listed below '='".into()));
        }
        if !self.proven.contains(key) {
            let reason = "'=' but this position is not proven above".to_string();
            return Err(self.reject(node.line, reason));
        }
        self.report.transpositions += 1;
        Ok(())
    }

    /// The attacker's move `c` of `node`, and the defender's replies below it.
    fn attacker_move(&mut self, node: &Node, c: Coord) -> Result<(), Rejection> {
        self.report.attacker_moves += 1;
        self.report.max_plies = self.report.max_plies.max(self.path.len() + 1);
        let attacker = self.attacker;
        let p = match self.board.pos(c) {
            Some(p) if self.board.is_empty(p) => p,
            _ => {
                let reason = format!("attacker move {} is off the board or taken", self.name(c));
                return Err(self.reject(node.line, reason));
            }
        };
        if wins(&self.board, p, attacker, None) {
            if !node.children.is_empty() {
                let reason = format!("moves listed after the five {}", self.name(c));
                return Err(self.reject(node.line, reason));
            }
            return Ok(());
        }
        if !legal(&mut self.board, p, attacker) {
            let reason = format!("attacker move {} is forbidden", self.name(c));
            return Err(self.reject(node.line, reason));
        }
        self.play(p, attacker);
        self.path.push(c);
        let result = self.defender_node(&node.children, node.line);
        self.path.pop();
        self.take_back();
        result
    }

    /// The defender is to move; `replies` are the lines listed for it (`line` is the
    /// attacker line above them). Every legal reply of the board must be answered.
    fn defender_node(&mut self, replies: &[Node], line: usize) -> Result<(), Rejection> {
        self.report.defender_nodes += 1;
        let (listed, others) = self.listed_replies(replies)?;
        let defender = self.attacker.opponent();
        // A five is always legal, so a defender five point is a reply that wins.
        if let Some(&p) = self.fives[defender.index()].first() {
            let reason = format!(
                "the defender makes five with {}",
                self.name(self.board.coord(p))
            );
            return Err(self.reject(line, reason));
        }
        let fives = self.fives[self.attacker.index()].clone();
        let every_cell = self.board.rule() == Rule::Caro || fives.is_empty();
        // The listed replies first, in file order, so that a `=` line meets the positions
        // proven above it; then the other cells that may need an answer.
        let mut cells: Vec<Pos> = listed
            .iter()
            .filter_map(|(c, _)| self.board.pos(*c))
            .collect();
        if every_cell {
            let others: Vec<Pos> = self
                .board
                .positions()
                .filter(|p| !cells.contains(p))
                .collect();
            cells.extend(others);
        } else if let [f] = fives[..] {
            // Outside caro a defender stone takes away only the five point it lands on
            // (a five is made of the attacker's stones alone): with two five points
            // every reply leaves one, with one only that point needs an answer.
            if !cells.contains(&f) {
                cells.push(f);
            }
        }
        let mut any_legal = false;
        for d in cells {
            if !self.board.is_empty(d) || !legal(&mut self.board, d, defender) {
                continue;
            }
            any_legal = true;
            let c = self.board.coord(d);
            let answer = listed.iter().find(|(at, _)| *at == c).map(|(_, n)| *n);
            let node = match answer {
                Some(node) => node,
                None if self.five_survives(&fives, d) => {
                    self.report.implicit_replies += 1;
                    continue;
                }
                None => match others {
                    Some(node) => node,
                    None => {
                        let reason = format!("reply {} is not answered", self.name(c));
                        return Err(self.reject(line, reason));
                    }
                },
            };
            self.play(d, defender);
            self.path.push(c);
            let result = self.attacker_node(node);
            self.path.pop();
            self.take_back();
            result?;
        }
        if !any_legal && !self.has_legal_reply() {
            return Err(self.reject(line, "the defender has no legal move: a draw".into()));
        }
        Ok(())
    }

    /// Whether the defender has any legal move.
    fn has_legal_reply(&mut self) -> bool {
        let defender = self.attacker.opponent();
        let cells: Vec<Pos> = self
            .board
            .positions()
            .filter(|&p| self.board.is_empty(p))
            .collect();
        cells
            .into_iter()
            .any(|p| legal(&mut self.board, p, defender))
    }

    /// The listed replies (each with its attacker answer) and the `*` answer, after
    /// checking their shape: one answer each, no repeats, every listed cell a legal reply.
    #[allow(clippy::type_complexity)]
    fn listed_replies<'n>(
        &mut self,
        replies: &'n [Node],
    ) -> Result<(Vec<(Coord, &'n Node)>, Option<&'n Node>), Rejection> {
        let defender = self.attacker.opponent();
        let mut listed: Vec<(Coord, &Node)> = Vec::new();
        let mut others = None;
        for r in replies {
            let [answer] = &r.children[..] else {
                let reason = format!(
                    "a defender line needs exactly one attacker answer, not {}",
                    r.children.len()
                );
                return Err(self.reject(r.line, reason));
            };
            match r.mv {
                Move::Others if others.is_none() => others = Some(answer),
                Move::Others => return Err(self.reject(r.line, "a second '*' line".into())),
                Move::ProvenAbove => {
                    return Err(self.reject(r.line, "'=' where a defender move belongs".into()))
                }
                Move::At(c) => {
                    let ok = self.board.pos(c).is_some_and(|p| {
                        self.board.is_empty(p) && legal(&mut self.board, p, defender)
                    });
                    if !ok {
                        let reason = format!("reply {} is not a legal move", self.name(c));
                        return Err(self.reject(r.line, reason));
                    }
                    if listed.iter().any(|(at, _)| *at == c) {
                        let reason = format!("reply {} listed twice", self.name(c));
                        return Err(self.reject(r.line, reason));
                    }
                    listed.push((c, answer));
                }
            }
        }
        Ok((listed, others))
    }

    /// Plays `color`'s stone on `p` and updates the five points of both colours. A
    /// stone makes new five points only for its own colour, on its own lines within
    /// four cells (a new five holds the stone, and a run of five or more of one colour
    /// is a finished game), and never for the other colour; a five point may also be
    /// lost (taken, blocked, or grown into an overline). So the new five points are
    /// among the old ones and the cells on the stone's lines, each tested afresh.
    fn play(&mut self, p: Pos, color: Color) {
        self.board.place(p, color);
        let board = &self.board;
        let mut own = self.fives[color.index()].clone();
        own.extend(board.cells_on_lines(p));
        own.sort();
        own.dedup();
        own.retain(|&q| board.is_empty(q) && wins(board, q, color, None));
        let mut other = self.fives[color.opponent().index()].clone();
        other.retain(|&q| board.is_empty(q) && wins(board, q, color.opponent(), None));
        let mut next = [Vec::new(), Vec::new()];
        next[color.index()] = own;
        next[color.opponent().index()] = other;
        self.earlier_fives
            .push(std::mem::replace(&mut self.fives, next));
    }

    /// Takes back the last [`Checker::play`].
    fn take_back(&mut self) {
        self.board.undo();
        if let Some(fives) = self.earlier_fives.pop() {
            self.fives = fives;
        }
    }

    /// Whether, with the defender's stone on `reply`, one of the attacker's five points
    /// `fives` (from before the reply) still makes five. A defender stone can only take
    /// or block a five point, never make one, so these are the only candidates; each is
    /// tested afresh with the reply's stone in place.
    fn five_survives(&self, fives: &[Pos], reply: Pos) -> bool {
        let stone = Some((reply, Cell::stone(self.attacker.opponent())));
        fives
            .iter()
            .any(|&f| f != reply && wins(&self.board, f, self.attacker, stone))
    }
}

/// Whether a stone of `color` on `p` (empty or holding that stone) stands in a winning
/// line under the board's rule, with `extra` (a cell and its content) read in place of
/// what the board holds there. Lines are walked cell by cell on the board's padded
/// grid, whose wall cells end every run.
fn wins(board: &Board, p: Pos, color: Color, extra: Option<(Pos, Cell)>) -> bool {
    let own = Cell::stone(color);
    let opponent = Cell::stone(color.opponent());
    let at = |q: Pos| match extra {
        _ if q == p => own,
        Some((e, cell)) if e == q => cell,
        _ => board.cell(q),
    };
    (0..4).any(|dir| {
        let run = |sign: isize| {
            let mut k = 0;
            while at(board.offset(p, dir, sign * (k + 1))) == own {
                k += 1;
            }
            k
        };
        let (back, fwd) = (run(-1), run(1));
        let len = back + fwd + 1;
        if len < 5 {
            return false;
        }
        match board.rule() {
            Rule::Freestyle => true,
            Rule::Standard => len == 5,
            Rule::Renju => len == 5 || color == Color::White,
            Rule::Caro => {
                let before = at(board.offset(p, dir, -(back + 1)));
                let after = at(board.offset(p, dir, fwd + 1));
                len == 5 && !(before == opponent && after == opponent)
            }
        }
    })
}

/// The stones of `board`, two bits a cell: a position's identity, exact.
fn stones_key(board: &Board) -> Box<[u8]> {
    let mut key = vec![0u8; (board.width() * board.height()).div_ceil(4)];
    for (i, p) in board.positions().enumerate() {
        let bits = match board.cell(p) {
            Cell::Black => 1,
            Cell::White => 2,
            _ => 0,
        };
        key[i / 4] |= bits << (2 * (i % 4));
    }
    key.into_boxed_slice()
}

/// Every empty cell where `color` makes five, board order.
fn all_five_points(board: &Board, color: Color) -> Vec<Pos> {
    board
        .positions()
        .filter(|&p| board.is_empty(p) && wins(board, p, color, None))
        .collect()
}

/// Whether `color` may play the empty `p`: only renju black has forbidden points, and a
/// five is never forbidden.
fn legal(board: &mut Board, p: Pos, color: Color) -> bool {
    board.rule() != Rule::Renju
        || color == Color::White
        || wins(board, p, color, None)
        || !rules::is_forbidden(board, p)
}

/// A stone of a finished game: one in a winning line, if any.
fn decided(board: &Board) -> Option<Coord> {
    board.positions().find_map(|p| {
        let winner = match board.cell(p) {
            Cell::Black => Color::Black,
            Cell::White => Color::White,
            _ => return None,
        };
        wins(board, p, winner, None).then(|| board.coord(p))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::format::parse;

    fn proof(rule: &str, moves: &str, attacker: &str, tree: &str) -> ProofFile {
        let text = format!(
            "wuzi-proof 2\nrule {rule}\nsize 15 15\nmoves {moves}\nattacker {attacker}\ntree\n{tree}end\n"
        );
        parse(&text).unwrap()
    }

    /// Black has an open four on row 8 (d8 to g8), white stones far away.
    const OPEN_FOUR: &str = "d8a1e8a3f8a5g8";

    #[test]
    fn a_five_is_a_proof_and_a_non_five_leaf_is_not() {
        assert!(check(&proof("freestyle", OPEN_FOUR, "black", "h8\n")).is_err());
        // White to move: every reply leaves black a five, found by the checker.
        let r = check(&proof("freestyle", OPEN_FOUR, "black", "")).unwrap();
        assert_eq!(r.defender_nodes, 1);
        // Under caro each reply is tried and answered by a five.
        let r = check(&proof("caro", OPEN_FOUR, "black", "")).unwrap();
        assert!(r.implicit_replies > 200);
        // The same after a black move: the tree's top line is black's.
        let b = proof("freestyle", "d8a1e8a3f8a5g8a7", "black", "c8\n");
        assert!(check(&b).is_ok());
        // A quiet move beside an open four still wins: every reply leaves a five.
        assert!(check(&proof("freestyle", "d8a1e8a3f8a5g8a7", "black", "j8\n")).is_ok());
        // Beside a closed four it does not: the block g8 is a hole.
        let closed = proof("freestyle", "c8b8d8a1e8a3f8a5", "black", "j15\n");
        let e = check(&closed).unwrap_err();
        assert!(e.reason.contains("g8 is not answered"), "{e}");
    }

    #[test]
    fn a_closed_four_needs_its_block_answered() {
        // Black c8..f8 closed by white b8: white must take g8.
        let moves = "c8b8d8a1e8a3f8";
        let e = check(&proof("freestyle", moves, "black", "")).unwrap_err();
        assert!(e.reason.contains("g8 is not answered"), "{e}");
        // After g8 black has no five: a quiet answer is checked in turn.
        let e = check(&proof("freestyle", moves, "black", "g8\n h9\n")).unwrap_err();
        assert!(e.reason.contains("not answered"), "{e}");
    }

    #[test]
    fn the_rules_decide_fives() {
        // Standard: black's d8 e8 f8 _ h8 i8 (g8 makes six) is no five.
        let six = "d8a1e8a3f8a5h8a7i8a9";
        assert!(check(&proof("freestyle", six, "black", "g8\n")).is_ok());
        assert!(check(&proof("standard", six, "black", "g8\n")).is_err());
        // Renju: six is forbidden for black and a win for white.
        assert!(check(&proof("renju", six, "black", "g8\n")).is_err());
        let white_six = "a1d8a3e8a5f8a7h8a9i8o15";
        assert!(check(&proof("renju", white_six, "white", "g8\n")).is_ok());
        // Caro: a five blocked by white at both ends does not win; the edge is no block.
        let blocked = "c8b8d8h8e8a1f8a3";
        assert!(check(&proof("caro", blocked, "black", "g8\n")).is_err());
        assert!(check(&proof("freestyle", blocked, "black", "g8\n")).is_ok());
        let edge = "a8g8b8o1c8o3d8o5";
        assert!(check(&proof("caro", edge, "black", "e8\n")).is_ok());
    }

    #[test]
    fn shapes_that_are_not_proofs_are_rejected() {
        let both = proof("freestyle", "d8a1e8a3f8a5g8a7", "black", "c8\nh8\n");
        assert!(check(&both).is_err());
        let after_five = proof("freestyle", "d8a1e8a3f8a5g8a7", "black", "c8\n a9\n  b9\n");
        assert!(check(&after_five).is_err());
        let taken = proof("freestyle", "d8a1e8a3f8a5g8a7", "black", "d8\n");
        assert!(check(&taken).is_err());
        // A reply listed twice, a reply with no answer, a taken reply.
        let moves = "c8b8d8a1e8a3f8";
        for tree in ["g8\n h9\ng8\n h9\n", "g8\n", "a1\n h9\n", "*\n*\n"] {
            let p = proof("freestyle", moves, "black", tree);
            assert!(check(&p).is_err(), "{tree}");
        }
        // A finished game is no position to prove.
        assert!(check(&proof("freestyle", "d8a1e8a3f8a5g8a7h8", "white", "")).is_err());
    }

    #[test]
    fn the_defenders_five_breaks_a_proof() {
        // Black has an open four, white (to move) a four of its own: white makes five.
        let moves = "d8a1e8a2f8a3g8a4o15";
        let e = check(&proof("freestyle", moves, "black", "")).unwrap_err();
        assert!(e.reason.contains("defender makes five with a5"), "{e}");
    }
}
