//! What wins and what is forbidden, under the rule of the board.
//!
//! Wins come straight from the line patterns (each rule has its own tables, so "five"
//! already means exactly five for standard/caro/renju black and an unblocked five for
//! caro). The one thing a line pattern cannot decide alone is renju's double three: a
//! three counts only if it can become a straight four through a point that is not itself
//! forbidden, which needs the whole board and recursion. That lives here.

use crate::board::{reach_of, Board, Pos};
use crate::pattern::{self, Pattern};
use crate::types::{Color, Coord, Rule};
use smallvec::SmallVec;

/// The judgement of a move before it is played.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    OffBoard,
    Occupied,
    /// A renju foul: black played a forbidden point and loses.
    Forbidden,
    /// The move makes a winning five under the rule in force.
    Win,
    Normal,
}

/// Judges the side to move playing `c` on `board` (which is left unchanged).
pub fn judge_move(board: &Board, c: Coord) -> Verdict {
    let Some(p) = board.pos(c) else {
        return Verdict::OffBoard;
    };
    if !board.is_empty(p) {
        return Verdict::Occupied;
    }
    let color = board.side_to_move();
    if is_winning_move(board, p, color) {
        // A five wins even where it also makes a forbidden shape.
        return Verdict::Win;
    }
    if board.rule() == Rule::Renju && color == Color::Black && is_forbidden(&mut board.clone(), p) {
        return Verdict::Forbidden;
    }
    Verdict::Normal
}

/// Whether `color` playing the empty cell `p` makes a winning five.
#[inline]
pub fn is_winning_move(board: &Board, p: Pos, color: Color) -> bool {
    board.cell_patterns(p)[color.index()].contains(&Pattern::Five)
}

/// Whether the empty cell `p` is forbidden for black: renju only. Overline, double four
/// (two fours, also on one line) and double three (two *real* threes) are forbidden
/// unless the move makes a five. The board is used as scratch space and left unchanged.
pub fn is_forbidden(board: &mut Board, p: Pos) -> bool {
    if board.rule() != Rule::Renju || !board.is_empty(p) {
        return false;
    }
    let lines = board.cell_patterns(p)[Color::Black.index()];
    if lines.contains(&Pattern::Overline) {
        return !lines.contains(&Pattern::Five);
    }
    // Without an overline only two fours or two open threes can forbid a cell: a cell
    // with no line of an open three or better is decided by one word test, and one with
    // a single open three and at most one four by counting.
    if !pattern::any_at_least(&lines, Pattern::OpenThree) || lines.contains(&Pattern::Five) {
        return false;
    }
    if lines.iter().map(|l| l.four_count()).sum::<u32>() >= 2 {
        return true;
    }
    let three_dirs = || (0..4).filter(|&d| lines[d] == Pattern::OpenThree);
    if three_dirs().count() < 2 {
        return false;
    }
    board.place(p, Color::Black);
    let real_threes = three_dirs()
        .filter(|&d| is_real_three(board, p, d))
        .take(2)
        .count();
    board.undo();
    real_threes >= 2
}

/// With black on `p`, whether the open three through `p` along `dir` can become a straight
/// four through a point that is not itself forbidden.
fn is_real_three(board: &mut Board, p: Pos, dir: usize) -> bool {
    for k in (-4..=4).filter(|&k| k != 0) {
        let e = board.offset(p, dir, k);
        if !board.is_empty(e) || board.pattern(e, Color::Black, dir) != Pattern::OpenFour {
            continue;
        }
        board.place(e, Color::Black);
        // The line class at `p` (an occupied cell) reads its line as if black played it:
        // an open four there means the straight four passes through `p`.
        let four_through_p = board.line_class(p, Color::Black, dir) == Pattern::OpenFour;
        board.undo();
        if four_through_p && !is_forbidden(board, e) {
            return true;
        }
    }
    false
}

/// Pushes onto `out` (with repeats) the empty cells where one stone, of either colour,
/// could change whether the empty cell `p` is forbidden for black (renju): a superset,
/// for the threat search's reply windows, which re-check each cell exactly.
///
/// A stone changes `p`'s line classes only from `p`'s lines within the rule's reach;
/// beyond them it acts through [`is_real_three`] (see
/// [`forbidden_dependence_off_lines`]).
fn forbidden_dependence(board: &mut Board, p: Pos, out: &mut Vec<Pos>) {
    let reach = reach_of(Rule::Renju) as isize;
    for dir in 0..4 {
        for k in (-reach..=reach).filter(|&k| k != 0) {
            let c = board.offset(p, dir, k);
            if board.is_empty(c) {
                out.push(c);
            }
        }
    }
    forbidden_dependence_off_lines(board, p, out);
}

/// The part of [`forbidden_dependence`] off `p`'s own lines. A stone there leaves `p`'s
/// classes as they are, so [`is_forbidden`] takes the same path: it can only matter
/// when `p` is decided by its threes being real, by making a straight-four point of one
/// of them forbidden or allowed, from anywhere that point itself depends on. (The
/// straight-four points are read along `p`'s lines, and a stone further out on such a
/// line, within reach of the point, lies on the point's own lines.) For most cells
/// there is no such path and nothing is pushed.
pub fn forbidden_dependence_off_lines(board: &mut Board, p: Pos, out: &mut Vec<Pos>) {
    let lines = board.cell_patterns(p)[Color::Black.index()];
    if lines.contains(&Pattern::Five)
        || lines.contains(&Pattern::Overline)
        || lines.iter().map(|l| l.four_count()).sum::<u32>() >= 2
    {
        return;
    }
    let three_dirs: SmallVec<[usize; 4]> =
        (0..4).filter(|&d| lines[d] == Pattern::OpenThree).collect();
    if three_dirs.len() < 2 {
        return;
    }
    board.place(p, Color::Black);
    for &dir in &three_dirs {
        for k in (-4..=4).filter(|&k| k != 0) {
            let e = board.offset(p, dir, k);
            if board.is_empty(e) && board.pattern(e, Color::Black, dir) == Pattern::OpenFour {
                forbidden_dependence(board, e, out);
            }
        }
    }
    board.undo();
}

/// Black's forbidden points on the board (empty under any other rule), row by row.
pub fn forbidden_points(board: &Board) -> Vec<Pos> {
    if board.rule() != Rule::Renju {
        return Vec::new();
    }
    let mut scratch = board.clone();
    board
        .positions()
        .filter(|&p| is_forbidden(&mut scratch, p))
        .collect()
}

/// Whether `color` may play the empty cell `p` (only renju black has forbidden points).
#[inline]
pub fn is_legal_for(board: &mut Board, p: Pos, color: Color) -> bool {
    board.is_empty(p)
        && !(color == Color::Black && board.rule() == Rule::Renju && is_forbidden(board, p))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The search's renju shortcut (`has_decisive_four`) relies on it: a cell where black
    /// makes a winning four without an open four on any line has fours on two lines (or
    /// two on one), a double four, so black may not play it.
    #[test]
    fn black_winning_fours_without_an_open_four_are_forbidden() {
        use crate::movegen::{threat_of, Threat};
        use crate::threat::corpus::{random_position, Rng};
        let mut rng = Rng::new(99);
        let mut seen = 0;
        for i in 0..3000 {
            let Some(mut b) = random_position(Rule::Renju, (15, 15), 10 + i % 60, &mut rng) else {
                continue;
            };
            let cells: Vec<Pos> = b.positions().filter(|&p| b.is_empty(p)).collect();
            for p in cells {
                let lines = b.cell_patterns(p)[Color::Black.index()];
                if threat_of(&b, p, Color::Black) == Threat::WinningFour
                    && !lines.contains(&Pattern::OpenFour)
                {
                    seen += 1;
                    assert!(is_forbidden(&mut b, p), "{}", b.coord(p));
                }
            }
        }
        // The positions must have met such cells, or the test proves nothing.
        assert!(seen > 20, "only {seen} cells");
    }

    fn board_with(rule: Rule, black: &[(i32, i32)], white: &[(i32, i32)]) -> Board {
        let mut b = Board::new(15, 15, rule).unwrap();
        for &(x, y) in black {
            b.place(b.pos(Coord::new(x, y)).unwrap(), Color::Black);
        }
        for &(x, y) in white {
            b.place(b.pos(Coord::new(x, y)).unwrap(), Color::White);
        }
        b
    }

    fn forbidden(b: &Board, x: i32, y: i32) -> bool {
        is_forbidden(&mut b.clone(), b.pos(Coord::new(x, y)).unwrap())
    }

    fn wins(b: &Board, color: Color, x: i32, y: i32) -> bool {
        is_winning_move(b, b.pos(Coord::new(x, y)).unwrap(), color)
    }

    #[test]
    fn gomocup_renju_acceptance_point_is_forbidden() {
        // h8 h9 i7 i9 h10 i6 i11 i12: black's g9 makes two real threes.
        let b = board_with(
            Rule::Renju,
            &[(7, 7), (8, 6), (7, 9), (8, 10)],
            &[(7, 8), (8, 8), (8, 5), (8, 11)],
        );
        assert!(forbidden(&b, 6, 8));
        assert_eq!(
            forbidden_points(&b)
                .iter()
                .map(|&p| b.coord(p))
                .collect::<Vec<_>>(),
            vec![Coord::new(6, 8)]
        );
    }

    #[test]
    fn renju_overline_is_forbidden_for_black_and_wins_for_white() {
        let row = [(2, 7), (3, 7), (4, 7), (6, 7), (7, 7)];
        let b = board_with(Rule::Renju, &row, &[]);
        assert!(forbidden(&b, 5, 7));
        assert!(!wins(&b, Color::Black, 5, 7));
        let w = board_with(Rule::Renju, &[], &row);
        assert!(wins(&w, Color::White, 5, 7));
    }

    #[test]
    fn renju_four_four_on_one_line_is_forbidden() {
        let b = board_with(Rule::Renju, &[(1, 7), (3, 7), (5, 7), (7, 7)], &[]);
        assert!(forbidden(&b, 4, 7));
        // The same shape in freestyle is simply a strong double four.
        let f = board_with(Rule::Freestyle, &[(1, 7), (3, 7), (5, 7), (7, 7)], &[]);
        assert!(!forbidden(&f, 4, 7));
        assert_eq!(
            f.pattern(f.pos(Coord::new(4, 7)).unwrap(), Color::Black, 0),
            Pattern::DoubleFour
        );
    }

    #[test]
    fn renju_five_beats_a_forbidden_shape() {
        // Playing (4,7) makes an exact five horizontally and a double three elsewhere.
        let b = board_with(
            Rule::Renju,
            &[
                (0, 7),
                (1, 7),
                (2, 7),
                (3, 7),
                (4, 8),
                (4, 9),
                (5, 8),
                (6, 9),
            ],
            &[(5, 7)],
        );
        assert!(wins(&b, Color::Black, 4, 7));
        assert!(!forbidden(&b, 4, 7));
    }

    #[test]
    fn renju_double_three_with_a_fake_three_is_allowed() {
        // p = (4,7). Horizontal `.X[p].X.`: its only straight-four point is (5,7).
        // Vertical through p: (4,8),(4,9) make a real open three.
        let base_black = vec![(3, 7), (6, 7), (4, 8), (4, 9)];
        let b = board_with(Rule::Renju, &base_black, &[]);
        assert!(forbidden(&b, 4, 7), "two real threes are forbidden");

        // Make (5,7) an overline point for black vertically: then the horizontal three
        // can only become a straight four through a forbidden point, so it is not real.
        let mut with_trap = base_black.clone();
        with_trap.extend([(5, 4), (5, 5), (5, 6), (5, 8), (5, 9)]);
        let b = board_with(Rule::Renju, &with_trap, &[]);
        assert!(
            forbidden(&b, 5, 7),
            "the completion point itself is an overline"
        );
        assert!(
            !forbidden(&b, 4, 7),
            "one real three and one fake three are allowed"
        );
    }

    #[test]
    fn a_white_stone_off_the_lines_can_make_a_point_forbidden() {
        // p = (4,7): the open three (4,8) (4,9) down, and `.X[p].X.` across, whose only
        // straight-four point (5,7) is a double four while (5,4) (5,5) (5,6) make a four
        // with it (white (5,8) closes the other end): the row's three is not real, p is
        // allowed. White on (5,3), on none of p's lines, kills that four, (5,7) is then
        // allowed, the three real, and p a double three.
        let black = [(3, 7), (6, 7), (4, 8), (4, 9), (5, 4), (5, 5), (5, 6)];
        let mut b = board_with(Rule::Renju, &black, &[(5, 8)]);
        let p = b.pos(Coord::new(4, 7)).unwrap();
        let far = b.pos(Coord::new(5, 3)).unwrap();
        assert!(!is_forbidden(&mut b, p));
        b.place(far, Color::White);
        assert!(is_forbidden(&mut b, p));
        b.undo();
        let mut cells = Vec::new();
        forbidden_dependence(&mut b, p, &mut cells);
        assert!(cells.contains(&far));
    }

    /// No stone outside `forbidden_dependence` changes whether a cell is forbidden: over
    /// random renju positions, every empty cell with two lines of an open three or
    /// better (the others are decided by their lines) against every empty cell outside
    /// its dependence, played by either colour and tested by `is_forbidden`.
    #[test]
    fn forbidden_dependence_holds_every_stone_that_matters() {
        use crate::threat::corpus::{random_position, Rng};
        let mut rng = Rng::new(57);
        let (mut checked, mut deep) = (0, 0);
        for i in 0..400 {
            let Some(mut b) = random_position(Rule::Renju, (15, 15), 20 + i % 50, &mut rng) else {
                continue;
            };
            let empty: Vec<Pos> = b.positions().filter(|&p| b.is_empty(p)).collect();
            for &p in &empty {
                let lines = b.cell_patterns(p)[Color::Black.index()];
                if lines.iter().filter(|&&l| l >= Pattern::OpenThree).count() < 2 {
                    continue;
                }
                let mut cells = Vec::new();
                forbidden_dependence(&mut b, p, &mut cells);
                if cells.len() > 40 {
                    deep += 1; // it followed a straight-four point
                }
                let before = is_forbidden(&mut b, p);
                for &c in empty.iter().filter(|&&c| c != p && !cells.contains(&c)) {
                    for color in Color::BOTH {
                        b.place(c, color);
                        let after = is_forbidden(&mut b, p);
                        b.undo();
                        checked += 1;
                        assert_eq!(before, after, "{} by {color:?} {}", b.coord(p), b.coord(c));
                    }
                }
            }
        }
        assert!(
            checked > 10_000 && deep > 20,
            "{checked} checks, {deep} deep"
        );
    }

    #[test]
    fn standard_overline_does_not_win_for_either_colour() {
        let row = [(2, 7), (3, 7), (4, 7), (6, 7), (7, 7)];
        for (black, white, color) in [
            (&row[..], &[][..], Color::Black),
            (&[][..], &row[..], Color::White),
        ] {
            let b = board_with(Rule::Standard, black, white);
            assert!(!wins(&b, color, 5, 7));
            let f = board_with(Rule::Freestyle, black, white);
            assert!(wins(&f, color, 5, 7));
        }
    }

    #[test]
    fn caro_five_blocked_at_both_ends_does_not_win() {
        let blocked = board_with(
            Rule::Caro,
            &[(2, 7), (3, 7), (4, 7), (5, 7)],
            &[(1, 7), (7, 7)],
        );
        assert!(!wins(&blocked, Color::Black, 6, 7));
        let open_end = board_with(Rule::Caro, &[(2, 7), (3, 7), (4, 7), (5, 7)], &[(1, 7)]);
        assert!(wins(&open_end, Color::Black, 6, 7));
        // The edge does not block: `|XXXX[.]o` wins.
        let edge = board_with(Rule::Caro, &[(0, 7), (1, 7), (2, 7), (3, 7)], &[(5, 7)]);
        assert!(wins(&edge, Color::Black, 4, 7));
        // Caro also needs exactly five.
        let six = board_with(Rule::Caro, &[(2, 7), (3, 7), (4, 7), (6, 7), (7, 7)], &[]);
        assert!(!wins(&six, Color::Black, 5, 7));
    }

    #[test]
    fn judge_move_reports_every_outcome() {
        let mut b = Board::new(15, 15, Rule::Renju).unwrap();
        for (x, y) in [
            (7, 7),
            (7, 8),
            (8, 6),
            (8, 8),
            (7, 9),
            (8, 5),
            (8, 10),
            (8, 11),
        ] {
            b.play(Coord::new(x, y)).unwrap();
        }
        assert_eq!(judge_move(&b, Coord::new(6, 8)), Verdict::Forbidden);
        assert_eq!(judge_move(&b, Coord::new(7, 7)), Verdict::Occupied);
        assert_eq!(judge_move(&b, Coord::new(15, 3)), Verdict::OffBoard);
        assert_eq!(judge_move(&b, Coord::new(0, 0)), Verdict::Normal);
        let mut f = Board::new(15, 15, Rule::Freestyle).unwrap();
        for (x, y) in [
            (0, 0),
            (0, 1),
            (1, 0),
            (1, 1),
            (2, 0),
            (2, 1),
            (3, 0),
            (3, 1),
        ] {
            f.play(Coord::new(x, y)).unwrap();
        }
        assert_eq!(judge_move(&f, Coord::new(4, 0)), Verdict::Win);
    }
}
