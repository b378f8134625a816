//! Swap2 (`SWAP2BOARD`): the opening stones to place, and the choice between swapping
//! and staying.

use super::{Engine, EngineError, Swap2Reply};
use crate::board::Board;
use crate::book;
use crate::params::engine::SWAP2_CHOICE_DEPTH;
use crate::types::Coord;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

impl Engine {
    /// `SWAP2BOARD`: the opening stage of swap2. `stones` are in move order, black first.
    pub fn swap2(
        &mut self,
        stones: &[Coord],
        started: Instant,
        stop: &AtomicBool,
    ) -> Result<Swap2Reply, EngineError> {
        let current = self.board.as_ref().ok_or(EngineError::NoBoard)?;
        let mut board = Board::new(current.width(), current.height(), current.rule())?;
        for &c in stones {
            board.play(c)?;
        }
        let reply = match stones.len() {
            0 => Swap2Reply::Place(
                self.balanced_book_opening(&board)
                    .unwrap_or_else(|| swap2_opening(&board)),
            ),
            3 | 5 => {
                // Swap when the side to move stands worse than the side that just moved.
                // The colour is chosen by a search to a fixed even depth, the measure the
                // opening lists are balanced by: the static value favours whoever moves at
                // the leaves, so values of mixed depths (a clock-bound search's, or the
                // book's, whose leaves all have black to move) carry a bias of a few
                // hundred and would make every choice the same (openings/README.md).
                // Half the move's time at most: the move itself must still fit.
                let mut limits = self.limits_for(&board, started, 0.5);
                limits.max_depth = limits.max_depth.min(SWAP2_CHOICE_DEPTH);
                let mut scratch = board.clone();
                let outcome = self.search.evaluate(&mut scratch, limits, stop);
                if outcome.value < 0 {
                    Swap2Reply::Swap
                } else {
                    // Staying: the book's move when it knows the position.
                    let time = self.limits_for(&board, started, 1.0).time;
                    let best = self
                        .book_move(&board, time.as_ref(), stop)
                        .map_or(outcome.best, |m| board.pos(m.best).unwrap_or(outcome.best));
                    Swap2Reply::Place(vec![board.coord(best)])
                }
            }
            n => return Err(EngineError::BadSwap2Count(n)),
        };
        // Our own stones of a "place" reply are on the position from now on.
        let mut placed = board;
        if let Swap2Reply::Place(moves) = &reply {
            for &c in moves {
                placed.play(c)?;
            }
        }
        self.board = Some(placed);
        // The colours are settled by the manager's next command (a swap or a move).
        self.own = None;
        Ok(reply)
    }

    /// Three stones (black, white, black) for a swap2 opening from the book: of the
    /// book's three-stone positions (the opening lists' balanced ones among them), the
    /// one whose value is nearest even, so that neither colour is the better choice.
    fn balanced_book_opening(&self, empty: &Board) -> Option<Vec<Coord>> {
        let book = self.books.iter().find(|b| {
            b.rule == empty.rule() && b.size == empty.width() && empty.width() == empty.height()
        })?;
        let (board, _) = book
            .positions()
            .into_iter()
            .filter(|(b, _)| b.move_count() == 3)
            .min_by_key(|(_, m)| m.value.abs())?;
        let (black, white) = book::stones(&board);
        Some(vec![*black.first()?, *white.first()?, *black.get(1)?])
    }
}

/// Three opening stones for swap2 (black, white, black) chosen to look balanced: of a
/// few compact shapes around the centre, the one whose static value is closest to even.
fn swap2_opening(board: &Board) -> Vec<Coord> {
    let cx = board.width() as i32 / 2;
    let cy = board.height() as i32 / 2;
    let mut best: Option<(crate::eval::Value, Vec<Coord>)> = None;
    for (wx, wy) in [(1, 0), (1, 1)] {
        for dx in -2..=2 {
            for dy in -2..=2 {
                let stones = [
                    Coord::new(cx, cy),
                    Coord::new(cx + wx, cy + wy),
                    Coord::new(cx + dx, cy + dy),
                ];
                let mut b = board.clone();
                if stones.iter().any(|&c| b.play(c).is_err()) {
                    continue;
                }
                let v = crate::eval::evaluate(&b).abs();
                if best.as_ref().is_none_or(|(bv, _)| v < *bv) {
                    best = Some((v, stones.to_vec()));
                }
            }
        }
    }
    best.map(|(_, s)| s).unwrap_or_default()
}
