//! What the fit adjusts: the evaluation's tables, parametrised as the options say, and
//! how the parameters become the tables of a weights file.
//!
//! The tables the engine reads are indexed by pcode (the multiset of a cell's four line
//! classes) and by threat mask. Fitted entry by entry they need far more games than the
//! pipeline plays, so by default each table is *factored*: a cell's value is a weight per
//! line class plus a weight per pair of classes among its four lines, and a mask's value
//! a weight per bit plus a weight per pair of bits. The colours share their tables (a
//! pattern is worth the same to either side; the rule's asymmetries are in the classes
//! already), and one weight for "black to move" takes the first move's advantage, which
//! would otherwise be learnt as a difference between the colours' patterns.

use wuzi::board::Board;
use wuzi::eval::learned::{threat_mask, MASK_BITS, MASK_COUNT};
use wuzi::eval::pcode::{self, PCODE_COUNT};
use wuzi::eval::weights::LearnedWeights;
use wuzi::pattern::Pattern;
use wuzi::types::{Color, Rule};

const CLASSES: usize = Pattern::COUNT;
/// Factored cell table: one weight per class, one per unordered pair of classes.
const CELL_FACTORS: usize = CLASSES + CLASSES * (CLASSES + 1) / 2;
/// Factored mask table: one weight per bit, one per pair of distinct bits.
const MASK_FACTORS: usize = MASK_BITS + MASK_BITS * (MASK_BITS - 1) / 2;

#[derive(Clone, Copy, Debug)]
pub struct Model {
    /// Tables per entry (pcode, mask) instead of factored.
    pub full: bool,
    /// Separate tables for the colour to move and the other.
    pub to_move_cells: bool,
    /// Separate tables per colour (and no first-move weight).
    pub per_colour: bool,
}

fn pair(a: usize, b: usize) -> usize {
    let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
    hi * (hi + 1) / 2 + lo
}

fn bit_pair(a: usize, b: usize) -> usize {
    // a < b
    b * (b - 1) / 2 + a
}

impl Model {
    fn owner_tables(&self) -> usize {
        if self.per_colour {
            2
        } else {
            1
        }
    }

    fn cell_tables(&self) -> usize {
        self.owner_tables() * if self.to_move_cells { 2 } else { 1 }
    }

    fn cell_width(&self) -> usize {
        if self.full {
            PCODE_COUNT
        } else {
            CELL_FACTORS
        }
    }

    fn mask_width(&self) -> usize {
        if self.full {
            MASK_COUNT
        } else {
            MASK_FACTORS
        }
    }

    fn cell_table(&self, owner: Color, to_move: bool) -> usize {
        let o = if self.per_colour { owner.index() } else { 0 };
        if self.to_move_cells {
            2 * o + usize::from(to_move)
        } else {
            o
        }
    }

    fn mask_base(&self, us: Color) -> usize {
        let o = if self.per_colour { us.index() } else { 0 };
        self.cell_tables() * self.cell_width() + o * self.mask_width()
    }

    /// The index of the first-move weight.
    fn black_index(&self) -> usize {
        self.cell_tables() * self.cell_width() + self.owner_tables() * self.mask_width()
    }

    pub fn len(&self) -> usize {
        self.black_index() + 1
    }

    /// The features of `board` for its side to move, as (index, value) pairs with
    /// distinct indices; `scratch` has `len()` zeros and is left so.
    pub fn features(&self, board: &Board, scratch: &mut [f32], out: &mut Vec<(usize, f32)>) {
        let us = board.side_to_move();
        let mut touched: Vec<usize> = Vec::new();
        let mut add = |i: usize, v: f32, scratch: &mut [f32]| {
            if scratch[i] == 0.0 {
                touched.push(i);
            }
            scratch[i] += v;
        };
        for p in board.positions() {
            if !board.is_empty(p) {
                continue;
            }
            let lines = board.cell_patterns(p);
            for owner in Color::BOTH {
                let sign = if owner == us { 1.0 } else { -1.0 };
                let base = self.cell_table(owner, owner == us) * self.cell_width();
                let l = &lines[owner.index()];
                if self.full {
                    add(base + pcode::pcode(l), sign, scratch);
                } else {
                    for d in 0..4 {
                        add(base + l[d] as usize, sign, scratch);
                        for e in d + 1..4 {
                            add(
                                base + CLASSES + pair(l[d] as usize, l[e] as usize),
                                sign,
                                scratch,
                            );
                        }
                    }
                }
            }
        }
        let mask = threat_mask(board, us);
        let base = self.mask_base(us);
        if self.full {
            add(base + mask, 1.0, scratch);
        } else {
            for a in 0..MASK_BITS {
                if mask & (1 << a) == 0 {
                    continue;
                }
                add(base + a, 1.0, scratch);
                for b in a + 1..MASK_BITS {
                    if mask & (1 << b) != 0 {
                        add(base + MASK_BITS + bit_pair(a, b), 1.0, scratch);
                    }
                }
            }
        }
        if !self.per_colour {
            add(
                self.black_index(),
                if us == Color::Black { 1.0 } else { -1.0 },
                scratch,
            );
        }
        for i in touched {
            if scratch[i] != 0.0 {
                out.push((i, scratch[i]));
            }
            scratch[i] = 0.0;
        }
    }

    /// The value of a cell table entry: pcode `pc` in table `t`.
    fn cell_value(&self, w: &[f64], t: usize, pc: usize) -> f64 {
        let base = t * self.cell_width();
        if self.full {
            return w[base + pc];
        }
        let l = pcode::classes_of_pcode(pc).map(|c| c as usize);
        let mut v = 0.0;
        for d in 0..4 {
            v += w[base + l[d]];
            for e in d + 1..4 {
                v += w[base + CLASSES + pair(l[d], l[e])];
            }
        }
        v
    }

    fn mask_value(&self, w: &[f64], us: Color, mask: usize) -> f64 {
        let base = self.mask_base(us);
        let first_move = if self.per_colour {
            0.0
        } else if us == Color::Black {
            w[self.black_index()]
        } else {
            -w[self.black_index()]
        };
        if self.full {
            return w[base + mask] + first_move;
        }
        let mut v = first_move;
        for a in 0..MASK_BITS {
            if mask & (1 << a) == 0 {
                continue;
            }
            v += w[base + a];
            for b in a + 1..MASK_BITS {
                if mask & (1 << b) != 0 {
                    v += w[base + MASK_BITS + bit_pair(a, b)];
                }
            }
        }
        v
    }

    /// The tables of a weights file (the policy left at zero).
    pub fn export(&self, rule: Rule, w: &[f64]) -> LearnedWeights {
        let round = |x: f64| x.round().clamp(f64::from(i16::MIN), f64::from(i16::MAX)) as i16;
        let mut out = LearnedWeights::zero(rule, true);
        for owner in Color::BOTH {
            for tm in [false, true] {
                let t = self.cell_table(owner, tm);
                for pc in 0..PCODE_COUNT {
                    out.cells[2 * owner.index() + usize::from(tm)][pc] =
                        round(self.cell_value(w, t, pc));
                }
            }
        }
        for us in Color::BOTH {
            for m in 0..MASK_COUNT {
                out.mask[us.index()][m] = round(self.mask_value(w, us, m));
            }
        }
        out
    }

    /// Human-readable lines of the factored weights (for docs and sanity checks).
    pub fn describe(&self, w: &[f64]) -> String {
        if self.full {
            return String::new();
        }
        let mut s = String::new();
        let names = [
            "dead",
            "overline",
            "one",
            "two",
            "open_two",
            "three",
            "open_three",
            "four",
            "open_four",
            "double_four",
            "five",
        ];
        for t in 0..self.cell_tables() {
            let base = t * self.cell_width();
            s += &format!("cell table {t}:");
            for (c, name) in names.iter().enumerate() {
                s += &format!(" {name} {:.0}", w[base + c]);
            }
            s += "\n";
        }
        if !self.per_colour {
            s += &format!("black to move: {:.0}\n", w[self.black_index()]);
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wuzi::eval::learned::LearnedEval;

    /// Positions along a fixed game, with neither side able to make five.
    fn positions(rule: Rule) -> Vec<Board> {
        let moves = "h8i9j8i7i8g8k8l8j9k10h10g11j7j10k6l5i10l7";
        let mut b = Board::new(15, 15, rule).unwrap();
        let mut out = Vec::new();
        for c in wuzi::types::parse_pos_sequence(moves).unwrap() {
            if b.play(c).is_err() {
                break;
            }
            let us = b.side_to_move();
            if !b.has_five_point(us) && !b.has_five_point(us.opponent()) {
                out.push(b.clone());
            }
        }
        assert!(out.len() > 10);
        out
    }

    #[test]
    fn exported_tables_value_positions_as_the_fitted_weights_do() {
        // Integer weights (no rounding): the engine's evaluation from the exported
        // tables equals the linear model the fit optimised, for every form of the model.
        for rule in Rule::ALL {
            for (full, to_move_cells, per_colour) in [
                (false, true, false),
                (false, false, false),
                (true, true, true),
                (true, false, false),
            ] {
                let model = Model {
                    full,
                    to_move_cells,
                    per_colour,
                };
                let w: Vec<f64> = (0..model.len())
                    .map(|i| ((i * 7919) % 5) as f64 - 2.0)
                    .collect();
                let eval = LearnedEval::new(model.export(rule, &w));
                let mut scratch = vec![0.0; model.len()];
                for b in positions(rule) {
                    let mut features = Vec::new();
                    model.features(&b, &mut scratch, &mut features);
                    let linear: f64 = features.iter().map(|&(i, x)| w[i] * f64::from(x)).sum();
                    assert_eq!(
                        f64::from(eval.evaluate(&b)),
                        linear,
                        "{rule} {model:?}\n{b}"
                    );
                    assert!(scratch.iter().all(|&x| x == 0.0));
                }
            }
        }
    }
}
