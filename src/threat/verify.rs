//! An independent check of claimed wins, written apart from the search.
//!
//! It shares nothing with `threats`/`search` except the board and the renju forbidden
//! check: fives are recognised by walking the stones along each line and applying the
//! rule's definition directly (not through the pattern tables), and the defender is not
//! limited to "reply squares": it tries *every* legal move within distance 2 of a stone,
//! and so every move that makes it a four (see `defender_moves`). Against each, the attacker must win
//! again — by a five, or by a move the search finds afresh and that is checked the same
//! way — down to an actual five. A claim passes only if every branch ends in one.

use super::{find_win, find_win_counted, Level, Limits};
use crate::board::{Board, Pos};
use crate::pattern::Cell;
use crate::rules;
use crate::types::{Color, Coord, Rule};
use std::collections::HashMap;

/// How many search lines deep the verifier follows a game before calling it undecided.
const VERIFY_DEPTH_FACTOR: u32 = 3;

/// Line directions as coordinate steps.
const DIRS: [(i32, i32); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];

/// Why a claimed win was not confirmed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rejection {
    /// The claimed first move is occupied or illegal.
    IllegalMove(Coord),
    /// The defender survives: this line of moves (attacker first) is the refutation.
    Refuted(Vec<Coord>),
    /// The check gave up (too many positions, too deep, or a re-search out of nodes)
    /// before reaching a verdict: neither proven nor refuted.
    TooBig,
}

/// Whether a stone of `color` at `c` would be part of a winning line (`c` is treated as
/// holding that stone, whatever it holds now: no board update is needed).
fn stone_wins(board: &Board, c: Coord, color: Color) -> bool {
    let own = Cell::stone(color);
    let opp = Cell::stone(color.opponent());
    let at = |x: i32, y: i32| -> Cell {
        if x == c.x && y == c.y {
            return own;
        }
        match board.pos(Coord::new(x, y)) {
            Some(p) => board.cell(p),
            None => Cell::Wall,
        }
    };
    for (dx, dy) in DIRS {
        let mut back = 0;
        while at(c.x - (back + 1) * dx, c.y - (back + 1) * dy) == own {
            back += 1;
        }
        let mut fwd = 0;
        while at(c.x + (fwd + 1) * dx, c.y + (fwd + 1) * dy) == own {
            fwd += 1;
        }
        let len = back + fwd + 1;
        if len < 5 {
            continue;
        }
        let wins = match board.rule() {
            Rule::Freestyle => true,
            Rule::Renju => len == 5 || color == Color::White,
            Rule::Standard => len == 5,
            Rule::Caro => {
                let before = at(c.x - (back + 1) * dx, c.y - (back + 1) * dy);
                let after = at(c.x + (fwd + 1) * dx, c.y + (fwd + 1) * dy);
                len == 5 && !(before == opp && after == opp)
            }
        };
        if wins {
            return true;
        }
    }
    false
}

/// Whether `color` playing the empty `p` wins at once.
fn wins_by(board: &Board, p: Pos, color: Color) -> bool {
    stone_wins(board, board.coord(p), color)
}

/// A winning move of `color`, if any. A five always touches one of the player's stones,
/// so only empty cells next to one are tried.
fn winning_move(board: &Board, color: Color) -> Option<Pos> {
    let own = Cell::stone(color);
    board
        .positions()
        .find(|&p| board.is_empty(p) && touches(board, p, own, 1) && wins_by(board, p, color))
}

/// Whether a cell within Chebyshev distance `r` of `p` holds `stone`.
fn touches(board: &Board, p: Pos, stone: Cell, r: i32) -> bool {
    let c = board.coord(p);
    for dy in -r..=r {
        for dx in -r..=r {
            if let Some(q) = board.pos(Coord::new(c.x + dx, c.y + dy)) {
                if board.cell(q) == stone {
                    return true;
                }
            }
        }
    }
    false
}

fn near_any_stone(board: &Board, p: Pos, r: i32) -> bool {
    touches(board, p, Cell::Black, r) || touches(board, p, Cell::White, r)
}

/// Whether `color` may play `p`: renju black may not play a forbidden point unless it
/// makes five.
fn legal(board: &mut Board, p: Pos, color: Color) -> bool {
    board.is_empty(p)
        && (board.rule() != Rule::Renju
            || color == Color::White
            || wins_by(board, p, color)
            || !rules::is_forbidden(board, p))
}

struct Verifier {
    attacker: Color,
    limits: Limits<'static>,
    /// Keyed by (hash, 0) for wins and (hash, depth) for failures.
    memo: HashMap<(u64, u32), bool>,
    positions: u64,
    max_positions: u64,
    gave_up: bool,
}

/// What the verifier concluded about one position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Outcome {
    Win,
    /// The defender survives: neither the tried moves nor a re-search win.
    Lose,
    /// A budget ran out (depth, positions, or the re-search's nodes) before a verdict.
    Unknown,
}

impl Verifier {
    /// Attacker to move: whether it wins against every defence (within `depth` attacker
    /// moves). `hint` is tried before a fresh search.
    fn attacker_wins(&mut self, board: &mut Board, hint: Option<Pos>, depth: u32) -> Outcome {
        let attacker = self.attacker;
        if winning_move(board, attacker).is_some() {
            return Outcome::Win;
        }
        if depth == 0 || self.gave_up {
            return Outcome::Unknown;
        }
        // Wins hold at any larger depth; failures only at the depth they were found.
        if self.memo.contains_key(&(board.hash(), 0)) {
            return Outcome::Win;
        }
        if self.memo.contains_key(&(board.hash(), depth)) {
            return Outcome::Lose;
        }
        self.positions += 1;
        if self.positions > self.max_positions {
            self.gave_up = true;
            return Outcome::Unknown;
        }
        let mut tried = Vec::new();
        if let Some(h) = hint {
            tried.push(h);
        }
        let (found, nodes) = find_win_counted(board, attacker, &self.limits);
        let mut result = if nodes >= self.limits.max_nodes {
            Outcome::Unknown // the re-search gave up, it did not fail
        } else {
            Outcome::Lose
        };
        if let Some(m) = found.and_then(|seq| seq.first_move()) {
            if Some(m) != hint {
                tried.push(m);
            }
        }
        for m in tried {
            match self.attack_move_wins(board, m, depth) {
                Outcome::Win => {
                    result = Outcome::Win;
                    break;
                }
                Outcome::Unknown => result = Outcome::Unknown,
                Outcome::Lose => {}
            }
        }
        match result {
            Outcome::Win => {
                self.memo.insert((board.hash(), 0), true);
            }
            Outcome::Lose => {
                self.memo.insert((board.hash(), depth), false);
            }
            Outcome::Unknown => {}
        }
        result
    }

    /// Plays the attacker's `m` and checks every defence against it.
    fn attack_move_wins(&mut self, board: &mut Board, m: Pos, depth: u32) -> Outcome {
        let attacker = self.attacker;
        let defender = attacker.opponent();
        if !legal(board, m, attacker) {
            return Outcome::Lose;
        }
        if wins_by(board, m, attacker) {
            return Outcome::Win;
        }
        board.place(m, attacker);
        let mut outcome = if winning_move(board, defender).is_some() {
            Outcome::Lose
        } else {
            Outcome::Win
        };
        if outcome == Outcome::Win {
            for d in defender_moves(board, defender) {
                board.place(d, defender);
                let after = self.attacker_wins(board, None, depth - 1);
                board.undo();
                match after {
                    Outcome::Win => {}
                    Outcome::Lose => {
                        outcome = Outcome::Lose;
                        break;
                    }
                    Outcome::Unknown => outcome = Outcome::Unknown,
                }
            }
        }
        board.undo();
        outcome
    }
}

/// Every legal defender move within distance 2 of a stone. That also covers every move
/// that makes a four anywhere: a four has four own stones in five cells, so one of
/// them is at most two cells from the new stone.
fn defender_moves(board: &mut Board, defender: Color) -> Vec<Pos> {
    let cells: Vec<Pos> = board
        .positions()
        .filter(|&p| board.is_empty(p) && near_any_stone(board, p, 2))
        .collect();
    cells
        .into_iter()
        .filter(|&p| legal(board, p, defender))
        .collect()
}

/// Checks that `attacker`, to move, wins by playing `first`: every defence is tried and
/// the attacker must reach a five in at most 3 × `search.max_depth` moves, its moves after
/// each defence found by a fresh search within `search`. `max_positions` bounds the
/// attacker positions examined (then `TooBig`). The board is left unchanged.
pub fn verify_win(
    board: &mut Board,
    attacker: Color,
    first: Pos,
    search: &Limits,
    max_positions: u64,
) -> Result<(), Rejection> {
    // Each re-search may start a fresh line of up to `max_depth` moves (its earlier plan
    // is not remembered), so the whole game tree may run deeper than one search's line.
    let max_depth = search.max_depth.max(1) * VERIFY_DEPTH_FACTOR;
    if !legal(board, first, attacker) {
        return Err(Rejection::IllegalMove(board.coord(first)));
    }
    let mut v = Verifier {
        attacker,
        limits: Limits {
            level: Level::Vct,
            stop: None,
            ..*search
        },
        memo: HashMap::new(),
        positions: 0,
        max_positions,
        gave_up: false,
    };
    match v.attack_move_wins(board, first, max_depth) {
        Outcome::Win => return Ok(()),
        Outcome::Unknown => return Err(Rejection::TooBig),
        Outcome::Lose => {}
    }
    Err(Rejection::Refuted(refutation_line(
        board, &mut v, first, max_depth,
    )))
}

/// A defender line that survives, for the error message: after the attacker's move, the
/// first defence after which the attacker could not be shown to win, then the
/// attacker's next try there (a fresh search), and so on while one exists.
fn refutation_line(board: &mut Board, v: &mut Verifier, first: Pos, depth: u32) -> Vec<Coord> {
    let defender = v.attacker.opponent();
    let mut line = Vec::new();
    let mut placed = 0;
    let mut m = Some(first);
    let mut depth = depth;
    while let Some(a) = m.take() {
        if depth == 0 || !legal(board, a, v.attacker) {
            break;
        }
        line.push(board.coord(a));
        board.place(a, v.attacker);
        placed += 1;
        if let Some(w) = winning_move(board, defender) {
            line.push(board.coord(w));
            break;
        }
        for d in defender_moves(board, defender) {
            board.place(d, defender);
            if v.attacker_wins(board, None, depth - 1) == Outcome::Lose {
                line.push(board.coord(d));
                placed += 1;
                m = find_win(board, v.attacker, &v.limits).and_then(|s| s.first_move());
                break;
            }
            board.undo();
        }
        depth -= 1;
    }
    for _ in 0..placed {
        board.undo();
    }
    line
}

/// The independent five test, exposed for tests: whether `color` playing `p` wins.
pub fn is_five_move(board: &mut Board, p: Pos, color: Color) -> bool {
    board.is_empty(p) && wins_by(board, p, color)
}
