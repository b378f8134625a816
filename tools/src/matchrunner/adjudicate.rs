//! The referee of one game: judges every reply with `wuzi::rules::judge_move` before it is
//! played (off-board, occupied, renju foul, winning five) and knows when the board is full.
//! No rules are decided here.

use wuzi::board::Board;
use wuzi::rules::judge_move;
pub use wuzi::rules::Verdict;
use wuzi::types::{Color, Coord, Rule};

pub struct Referee {
    board: Board,
}

impl Referee {
    /// An empty board; fails for sizes the board does not support.
    pub fn new(width: usize, height: usize, rule: Rule) -> Result<Referee, String> {
        Board::new(width, height, rule)
            .map(|board| Referee { board })
            .map_err(|e| e.to_string())
    }

    /// Judges `c` for the side to move, without playing it.
    pub fn judge(&self, c: Coord) -> Verdict {
        judge_move(&self.board, c)
    }

    /// Plays `c` for the side to move; call after a `Normal` or `Win` verdict.
    pub fn play(&mut self, c: Coord) -> Result<(), String> {
        self.board.play(c).map_err(|e| e.to_string())
    }

    /// Takes back the last stone (a manager's undo); nothing on an empty board.
    pub fn undo(&mut self) {
        if self.board.move_count() > 0 {
            self.board.undo();
        }
    }

    pub fn side_to_move(&self) -> Color {
        self.board.side_to_move()
    }

    pub fn is_full(&self) -> bool {
        self.board.is_full()
    }

    pub fn move_count(&self) -> usize {
        self.board.move_count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(x: i32, y: i32) -> Coord {
        Coord::new(x, y)
    }

    #[test]
    fn verdicts_come_from_the_rules() {
        let mut r = Referee::new(15, 15, Rule::Freestyle).unwrap();
        assert_eq!(r.judge(at(15, 0)), Verdict::OffBoard);
        assert_eq!(r.judge(at(-1, 3)), Verdict::OffBoard);
        // Black on row 0, white on row 1: black's fifth stone on row 0 wins.
        for x in 0..4 {
            r.play(at(x, 0)).unwrap();
            r.play(at(x, 1)).unwrap();
        }
        assert_eq!(r.judge(at(3, 1)), Verdict::Occupied);
        assert_eq!(r.judge(at(4, 0)), Verdict::Win);
        assert_eq!(r.judge(at(5, 5)), Verdict::Normal);
        assert_eq!(r.move_count(), 8);
        assert!(!r.is_full());
        r.undo();
        assert_eq!(r.move_count(), 7);
        assert_eq!(r.side_to_move(), Color::White);
        assert_eq!(r.judge(at(3, 1)), Verdict::Normal);
        assert!(Referee::new(40, 15, Rule::Freestyle).is_err());
    }
}
