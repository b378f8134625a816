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

/// The evaluation's weights (config section `[eval]`; defaults below).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EvalWeights {
    /// Value of one (empty cell, line) pair of each pattern class for its colour, by
    /// class (index = `Pattern as usize`).
    pub class: [Value; Pattern::COUNT],
    /// Threats of the side to move are worth more than the same threats of the
    /// opponent, who moves second (per mille).
    pub tempo_per_mille: Value,
}

/// Config keys of the class weights, in class order.
const CLASS_KEYS: [&str; Pattern::COUNT] = [
    "eval.dead",
    "eval.overline",
    "eval.one",
    "eval.two",
    "eval.open_two",
    "eval.three",
    "eval.open_three",
    "eval.four",
    "eval.open_four",
    "eval.double_four",
    "eval.five",
];

impl Default for EvalWeights {
    fn default() -> Self {
        EvalWeights {
            class: [0, 0, 1, 3, 7, 9, 28, 30, 110, 110, 250],
            tempo_per_mille: 1_300,
        }
    }
}

impl EvalWeights {
    pub fn from_config(config: &crate::config::Config) -> EvalWeights {
        let d = EvalWeights::default();
        let mut w = d;
        for (i, key) in CLASS_KEYS.iter().enumerate() {
            w.class[i] = config.get_i32_in(key, 0..=10_000, d.class[i]);
        }
        w.tempo_per_mille = config.get_i32_in("eval.tempo_per_mille", 0..=5_000, d.tempo_per_mille);
        w
    }

    /// The static value of the position for the side to move.
    pub fn evaluate(&self, board: &Board) -> Value {
        let us = board.side_to_move();
        let them = us.opponent();
        let score = |color| -> Value {
            self.class
                .iter()
                .enumerate()
                .map(|(class, w)| {
                    w * board.pattern_count(color, Pattern::from_u8(class as u8)) as Value
                })
                .sum()
        };
        let v = score(us) * self.tempo_per_mille / 1000 - score(them);
        // Keep static values far from the win range whatever the position.
        v.clamp(-WIN_THRESHOLD / 2, WIN_THRESHOLD / 2)
    }
}

/// The static value with the default weights.
pub fn evaluate(board: &Board) -> Value {
    EvalWeights::default().evaluate(board)
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
