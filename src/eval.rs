//! Static evaluation from the incremental pattern counts.
//!
//! The board keeps, for each colour, how many (empty cell, line) pairs carry each pattern
//! class, so this evaluation is a dot product of eleven counts per colour: free to
//! compute at every leaf and exact after every make/undo.

use crate::board::Board;
use crate::pattern::Pattern;

/// Values are centi-stones from the side to move's point of view; wins are near `WIN`.
pub type Value = i32;

/// A win on the board now; a win in `n` plies is `WIN - n`.
pub const WIN: Value = 30_000;
/// Any value beyond this is a proven win or loss.
pub const WIN_THRESHOLD: Value = WIN - 1_000;
pub const INFINITE: Value = WIN + 1;

/// Value of each (cell, line) pattern for the evaluation, by class.
const COUNT_WEIGHT: [Value; Pattern::COUNT] = [
    0,   // Dead
    0,   // Overline
    1,   // One
    3,   // Two
    7,   // OpenTwo
    9,   // Three
    28,  // OpenThree
    30,  // Four
    110, // OpenFour
    110, // DoubleFour
    250, // Five
];

/// Threats of the side to move are worth more than the same threats of the opponent:
/// the side to move gets to use them first (in per-mille).
const TEMPO_FACTOR: Value = 1_300;

/// The static value of the position for the side to move.
pub fn evaluate(board: &Board) -> Value {
    let us = board.side_to_move();
    let them = us.opponent();
    let score = |color| -> Value {
        COUNT_WEIGHT
            .iter()
            .enumerate()
            .map(|(class, w)| {
                w * board.pattern_count(color, Pattern::from_u8(class as u8)) as Value
            })
            .sum()
    };
    let v = score(us) * TEMPO_FACTOR / 1000 - score(them);
    // Keep static values far from the win range whatever the position.
    v.clamp(-WIN_THRESHOLD / 2, WIN_THRESHOLD / 2)
}

/// True for values that prove a win or a loss.
#[inline]
pub fn is_decisive(v: Value) -> bool {
    v.abs() >= WIN_THRESHOLD
}

/// Plies to the end for a decisive value.
#[inline]
pub fn plies_to_end(v: Value) -> i32 {
    WIN - v.abs()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{Coord, Rule};

    #[test]
    fn the_side_with_more_threats_is_better() {
        let mut b = Board::new(15, 15, Rule::Freestyle).unwrap();
        // Black builds an open three while white plays far away.
        for (x, y) in [(7, 7), (0, 14), (8, 7), (14, 0), (9, 7)] {
            b.play(Coord::new(x, y)).unwrap();
        }
        // White to move, black has an open three: bad for white.
        assert!(evaluate(&b) < 0);
        b.play(Coord::new(6, 7)).unwrap(); // white blocks one end
                                           // Black to move and still better.
        assert!(evaluate(&b) > 0);
    }
}
