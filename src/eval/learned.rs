//! The learned evaluation's features: what the tables are indexed by.
//!
//! A position is valued for the side to move as
//! - the sum, over the empty cells, of a value per colour and pcode (`pcode.rs`): what
//!   that colour makes on the cell's four lines, counted for the colour's owner
//!   (positive: good for that colour); with `to_move_cells` the table is split by
//!   whether that colour is the one to move;
//! - plus a value of the threat mask for the side to move's colour: which forcing
//!   shapes each side holds (`threat_mask`), the terms a sum over cells cannot express
//!   (who moves first with a four-three decides the game).

use crate::board::{Board, CellValues, Pos};
use crate::eval::pcode;
use crate::eval::weights::LearnedWeights;
use crate::eval::{Value, WIN_THRESHOLD};
use crate::pattern::{cell_key, Pattern, CELL_KEY_COUNT};
use crate::types::Color;

/// Bits of the threat mask.
pub const MASK_BITS: usize = 11;
pub const MASK_COUNT: usize = 1 << MASK_BITS;

/// Which forcing shapes each side holds, seen from `us` (the side to move): bit 0 the
/// opponent has a five point; 1/2 us/them a winning-four point (open four, double four,
/// fours on two lines); 3 our four-three point; 4 our four point; 5 our double three;
/// 6 our open-three point; 7 their four-three; 8 their four; 9 their double three;
/// 10 their open three.
pub fn threat_mask(board: &Board, us: Color) -> usize {
    let them = us.opponent();
    let has = |c: Color, class: Pattern| board.pattern_count(c, class) > 0;
    let four = |c: Color| {
        has(c, Pattern::Four) || has(c, Pattern::OpenFour) || has(c, Pattern::DoubleFour)
    };
    let bits = [
        has(them, Pattern::Five),
        board.winning_four_cells(us) > 0,
        board.winning_four_cells(them) > 0,
        board.four_three_cells(us) > 0,
        four(us),
        board.double_three_cells(us) > 0,
        has(us, Pattern::OpenThree),
        board.four_three_cells(them) > 0,
        four(them),
        board.double_three_cells(them) > 0,
        has(them, Pattern::OpenThree),
    ];
    bits.iter()
        .enumerate()
        .fold(0, |m, (i, &b)| m | (usize::from(b) << i))
}

/// The learned evaluation and move policy of one rule, ready for the search: the tables
/// of a [`LearnedWeights`] spread over cell keys.
pub struct LearnedEval {
    pub weights: LearnedWeights,
    /// The cell tables, summed by the board.
    pub cells: CellValues,
    mask: [Box<[i16]>; 2],
    /// `policy[side to move][0 own, 1 opponent's][cell key]`.
    policy: [[Box<[i16]>; 2]; 2],
}

impl LearnedEval {
    pub fn new(weights: LearnedWeights) -> LearnedEval {
        let by_key = |t: &[i16]| -> Box<[i16]> {
            (0..CELL_KEY_COUNT)
                .map(|k| t[pcode::pcode_of_key(k)])
                .collect()
        };
        let cells = CellValues {
            tables: std::array::from_fn(|owner| {
                let owner = Color::BOTH[owner];
                std::array::from_fn(|tm| by_key(weights.cell_table(owner, tm == 1)))
            }),
        };
        let mask = std::array::from_fn(|c| weights.mask[c].clone().into_boxed_slice());
        let policy =
            std::array::from_fn(|c| std::array::from_fn(|k| by_key(&weights.policy[c][k])));
        LearnedEval {
            weights,
            cells,
            mask,
            policy,
        }
    }

    /// The static value of `board` for its side to move: from the board's sums when it
    /// sums this evaluation's cell tables (`Board::set_cell_values(&self.cells)`, which
    /// the search does), else from a pass over the board.
    #[inline]
    pub fn evaluate(&self, board: &Board) -> Value {
        let us = board.side_to_move();
        let them = us.opponent();
        let cells = if std::ptr::eq(board.cell_values(), &self.cells) {
            board.cell_value_sum(us, true) - board.cell_value_sum(them, false)
        } else {
            self.cell_sum_by_scan(board, us)
        };
        let threats = Value::from(self.mask[us.index()][threat_mask(board, us)]);
        (cells + threats).clamp(-WIN_THRESHOLD / 2, WIN_THRESHOLD / 2)
    }

    /// The cell part of the value, summed over the board.
    #[cold]
    fn cell_sum_by_scan(&self, board: &Board, us: Color) -> Value {
        let mut sum = 0;
        for p in board.positions().filter(|&p| board.is_empty(p)) {
            let lines = board.cell_patterns(p);
            for owner in Color::BOTH {
                let key = cell_key(&lines[owner.index()]);
                let v = i32::from(self.cells.tables[owner.index()][usize::from(owner == us)][key]);
                sum += if owner == us { v } else { -v };
            }
        }
        sum
    }

    /// The policy's score of `us` playing the empty cell `p`: what the move makes for
    /// `us` and what it takes from the opponent.
    #[inline]
    pub fn move_score(&self, board: &Board, p: Pos, us: Color) -> i32 {
        let lines = board.cell_patterns(p);
        let own = cell_key(&lines[us.index()]);
        let theirs = cell_key(&lines[us.opponent().index()]);
        let table = &self.policy[us.index()];
        i32::from(table[0][own]) + i32::from(table[1][theirs])
    }
}

impl std::fmt::Debug for LearnedEval {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "LearnedEval({:?})", self.weights)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Coord;
    use crate::types::Rule;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    /// Boards along random games of `rule` (moves near the stones, no five made), each
    /// with the learned tables `eval` summed.
    fn random_boards(rule: Rule, seed: u64, eval: &'static LearnedEval) -> Vec<Board> {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut out = Vec::new();
        for game in 0..12 {
            let size = if game % 3 == 0 { 20 } else { 15 };
            let mut b = Board::new(size, size, rule).unwrap();
            b.set_cell_values(&eval.cells);
            let c = size as i32 / 2;
            b.play(Coord::new(c, c)).unwrap();
            for _ in 0..rng.gen_range(4..70) {
                let mut near = Vec::new();
                b.for_cells_near_stones(|p| near.push(p));
                near.retain(|&p| !crate::rules::is_winning_move(&b, p, b.side_to_move()));
                if near.is_empty() {
                    break;
                }
                let p = near[rng.gen_range(0..near.len())];
                b.make(p);
                out.push(b.clone());
            }
        }
        out
    }

    fn leaked(w: LearnedWeights) -> &'static LearnedEval {
        Box::leak(Box::new(LearnedEval::new(w)))
    }

    /// Weights with every table entry distinct, so any mix-up of tables shows.
    fn scrambled(rule: Rule) -> LearnedWeights {
        let mut w = LearnedWeights::zero(rule, true);
        let mut rng = StdRng::seed_from_u64(rule.index() as u64);
        for t in w.cells.iter_mut().chain(w.mask.iter_mut()) {
            for v in t.iter_mut() {
                *v = rng.gen_range(-50..=50);
            }
        }
        w
    }

    #[test]
    fn incremental_sums_equal_recomputation_under_every_rule() {
        for rule in Rule::ALL {
            let eval = leaked(scrambled(rule));
            for mut b in random_boards(rule, 7, eval) {
                assert_eq!(b.verify_incremental_state(), Ok(()));
                // Undo restores the sums too.
                let last = b.last_move().unwrap();
                b.undo();
                assert_eq!(b.verify_incremental_state(), Ok(()));
                b.make(last);
                assert_eq!(b.verify_incremental_state(), Ok(()));
            }
        }
    }

    #[test]
    fn the_evaluation_is_the_same_in_every_orientation_of_the_board() {
        for rule in Rule::ALL {
            let eval = leaked(scrambled(rule));
            for b in random_boards(rule, 11, eval).iter().step_by(5) {
                let v = eval.evaluate(b);
                let size = b.width();
                for sym in 1..8 {
                    let mut t = Board::new(size, size, rule).unwrap();
                    t.set_cell_values(&eval.cells);
                    for &p in b.history() {
                        t.play(b.coord(p).transformed(size, sym)).unwrap();
                    }
                    assert_eq!(eval.evaluate(&t), v, "{rule} orientation {sym}\n{b}");
                }
            }
        }
    }
}
