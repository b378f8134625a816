//! Candidate moves and their static scores, from the per-cell line patterns.
//!
//! A cell's score for a colour combines its four line classes; strong combinations
//! (four-three, double three, double four) are scored as the threats they are. Move
//! ordering uses `attack(own) + defence(opponent)`; the evaluation uses the same
//! per-class weights.

use crate::board::{Board, Pos};
use crate::eval::learned::LearnedEval;
use crate::pattern::{Cell, Pattern};
use crate::types::Color;
use smallvec::SmallVec;
use std::ops::ControlFlow;

/// What one colour gets from playing a cell, all four lines considered together.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Threat {
    None,
    /// Some line potential, nothing forcing.
    Quiet,
    /// One open three.
    OpenThree,
    /// One four (forcing: the opponent must answer it).
    Four,
    /// Two open threes (a win unless the opponent has forcing moves).
    DoubleThree,
    /// A four plus an open three (a win unless the opponent has forcing moves).
    FourThree,
    /// Open four, double four or two fours: wins unless the opponent makes five first.
    WinningFour,
    /// Makes five.
    Five,
}

/// Classifies the combined threat `color` makes by playing the empty cell `p`. Renju
/// forbidden points are not excluded here; callers that may play for black check them.
#[inline]
pub fn threat_of(board: &Board, p: Pos, color: Color) -> Threat {
    threat_of_lines(&board.cell_patterns(p)[color.index()])
}

/// The combined threat of a cell whose four line classes for the colour are `lines`.
#[inline]
pub fn threat_of_lines(lines: &[Pattern; 4]) -> Threat {
    let mut fours = 0;
    let mut open_fours = 0;
    let mut threes = 0;
    let mut quiet = false;
    for &class in lines {
        match class {
            Pattern::Five => return Threat::Five,
            Pattern::OpenFour => open_fours += 1,
            Pattern::DoubleFour => fours += 2,
            Pattern::Four => fours += 1,
            Pattern::OpenThree => threes += 1,
            Pattern::Three | Pattern::OpenTwo | Pattern::Two => quiet = true,
            _ => {}
        }
    }
    if open_fours > 0 || fours >= 2 {
        Threat::WinningFour
    } else if fours == 1 && threes > 0 {
        Threat::FourThree
    } else if fours == 1 {
        Threat::Four
    } else if threes >= 2 {
        Threat::DoubleThree
    } else if threes == 1 {
        Threat::OpenThree
    } else if quiet {
        Threat::Quiet
    } else {
        Threat::None
    }
}

/// A candidate move with its ordering score.
#[derive(Clone, Copy, Debug)]
pub struct ScoredMove {
    pub pos: Pos,
    pub score: i32,
}

pub type MoveList = SmallVec<[ScoredMove; 64]>;

/// Empty cells worth considering, each scored for the side to move by the move policy, in board order (callers order them: `sort_moves` or `keep_best`).
/// A cell qualifies when a stone stands within two cells of it (in a 5×5 square).
pub fn candidates(board: &Board, policy: &LearnedEval) -> MoveList {
    let us = board.side_to_move();
    let mut list = MoveList::new();
    // Only cells within two of a stone: every cell that makes or stops a four, an open
    // three or a broken three is that close, and far cells are rarely better.
    board.for_cells_near_stones(|p| {
        list.push(ScoredMove {
            pos: p,
            score: policy.move_score(board, p, us),
        });
    });
    list
}

/// Best first; ties by position, so the order is total and the search deterministic.
fn better_first(a: &ScoredMove, b: &ScoredMove) -> std::cmp::Ordering {
    b.score.cmp(&a.score).then(a.pos.cmp(&b.pos))
}

/// Sorts best first, ties by position.
pub fn sort_moves(list: &mut MoveList) {
    list.sort_unstable_by(better_first);
}

/// Keeps only the `keep` best moves, sorted best first. Partitioning first costs linear
/// time instead of sorting every candidate of a node that will only try a few.
pub fn keep_best(list: &mut MoveList, keep: usize) {
    if list.len() > keep && keep > 0 {
        list.select_nth_unstable_by(keep - 1, better_first);
        list.truncate(keep);
    }
    sort_moves(list);
}

/// The cells where `color` makes five.
pub fn five_points(board: &Board, color: Color) -> SmallVec<[Pos; 4]> {
    let mut out = SmallVec::new();
    // Every forced node asks this: the last stone's lines are read first, and the scan
    // of the board, when it is needed, stops at the last five point.
    let fives = board.pattern_count(color, Pattern::Five);
    if fives > 0 && !five_points_near_last_move(board, color, fives, &mut out) {
        board.for_cells_making(color, Pattern::Five, |p, _| {
            out.push(p);
            ControlFlow::Continue(())
        });
    }
    out
}

/// The five points of `color` when all of them lie on the lines of its last stone,
/// within four cells (in the search they do: a five point left standing is played at
/// once, so the stone that made the four made them all): `out` gets them in board order,
/// as the full scan would, and true is returned. Otherwise (a position set up with a
/// five point elsewhere, say) `out` is left empty. Reads 32 cells instead of the board.
fn five_points_near_last_move(
    board: &Board,
    color: Color,
    total: u32,
    out: &mut SmallVec<[Pos; 4]>,
) -> bool {
    let Some(last) = board.last_move() else {
        return false;
    };
    if board.cell(last) != Cell::stone(color) {
        return false;
    }
    let mut found = 0;
    for q in board.cells_on_lines(last) {
        if board.is_empty(q) {
            let fives = board.cell_patterns(q)[color.index()]
                .iter()
                .filter(|&&class| class == Pattern::Five)
                .count() as u32;
            if fives > 0 {
                out.push(q);
                found += fives;
            }
        }
    }
    if found == total {
        out.sort_unstable();
        true
    } else {
        out.clear();
        false
    }
}

/// The empty cell nearest the centre (by Chebyshev distance, then row, then column) that
/// the side to move may play; any empty cell if every one is forbidden; `None` on a full
/// board. The last resort of move choice: it never offers an occupied cell.
pub fn nearest_to_centre(board: &Board) -> Option<Pos> {
    let (cx, cy) = (board.width() as i32 / 2, board.height() as i32 / 2);
    let mut empties: Vec<Pos> = board.positions().filter(|&p| board.is_empty(p)).collect();
    empties.sort_by_key(|&p| {
        let c = board.coord(p);
        ((c.x - cx).abs().max((c.y - cy).abs()), c.y, c.x)
    });
    let us = board.side_to_move();
    let mut scratch = board.clone();
    empties
        .iter()
        .copied()
        .find(|&p| crate::rules::is_legal_for(&mut scratch, p, us))
        .or_else(|| empties.first().copied())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{parse_pos_sequence, Coord, Rule};

    fn board(moves: &str) -> Board {
        Board::from_moves(15, Rule::Freestyle, moves).unwrap()
    }

    fn coords(b: &Board, points: &[Pos]) -> Vec<Coord> {
        points.iter().map(|&p| b.coord(p)).collect()
    }

    fn cells(moves: &str) -> Vec<Coord> {
        parse_pos_sequence(moves).unwrap()
    }

    #[test]
    fn an_open_four_has_both_ends_as_five_points_in_board_order() {
        // Black d8 e8 f8 g8 (white far off, on row 1): c8 and h8 make five.
        let b = board("d8a1e8b1f8c1g8");
        assert_eq!(coords(&b, &five_points(&b, Color::Black)), cells("c8h8"));
        assert!(five_points(&b, Color::White).is_empty());
    }

    #[test]
    fn five_points_off_the_last_stones_lines_are_found_too() {
        // Black's four on row 8 left unanswered, then black's four on column m: the
        // last stone (m5) is far from h8. Board order is row by row from row 1.
        let b = board("d8a1e8b1f8c1g8a3m2b3m3c3m4o15m5");
        let found = coords(&b, &five_points(&b, Color::Black));
        assert_eq!(found, cells("m1m6c8h8"));
        assert!(five_points(&b, Color::White).is_empty());
    }
}
