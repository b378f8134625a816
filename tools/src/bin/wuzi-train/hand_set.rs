//! The hand-set evaluation and move ordering the engine played with before its tables
//! were learned: a weight per line class and per combination for each side, scaled for
//! the side to move, and a score per cell for ordering moves. `wuzi-train hand-set`
//! writes them as tables (the committed starting point of the pipeline), the policy fit
//! starts from the ordering, and the dataset reports their loss as a baseline.

use wuzi::board::Board;
#[cfg(test)]
use wuzi::board::Pos;
use wuzi::eval::learned::MASK_COUNT;
use wuzi::eval::pcode::{self, PCODE_COUNT};
use wuzi::eval::weights::LearnedWeights;
use wuzi::eval::{Value, WIN_THRESHOLD};
use wuzi::movegen::{threat_of_lines, Threat};
use wuzi::pattern::{self, Pattern};
use wuzi::types::{Color, Rule};

/// The hand-set evaluation's weights (defaults below).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Weights {
    /// Value of one (empty cell, line) pair of each pattern class for the opponent of
    /// the side to move, by class (index = `Pattern as usize`).
    pub class: [Value; Pattern::COUNT],
    /// The same for the side to move (config `to_move_<class>`).
    pub class_to_move: [Value; Pattern::COUNT],
    /// The side to move's whole sum is scaled by this (per mille).
    pub tempo_per_mille: Value,
    /// Value of one empty cell where the opponent makes a four together with an open
    /// three or a second four on other lines (a four-three or four-four point).
    pub four_three: Value,
    /// Value of one empty cell where the opponent makes two open threes (a double three).
    pub double_three: Value,
    /// The same two for the side to move (config `to_move_four_three`,
    /// `to_move_double_three`).
    pub four_three_to_move: Value,
    pub double_three_to_move: Value,
    /// Bonus for the side to move holding a four-three or double-three point while the
    /// opponent cannot make a four: playing it wins unless the opponent defends with
    /// fours, and they have none.
    pub combo_to_move: Value,
    /// Cost to the side to move of an opponent's open three (a cell making an open or
    /// double four) or four-three point while it cannot make a four itself: its move is
    /// spent defending.
    pub must_defend: Value,
}

/// The weights the engine played with before the tables were learned.
impl Default for Weights {
    fn default() -> Self {
        let class = [0, 0, 0, 0, 2, 9, 28, 59, 348, 348, 250];
        Weights {
            class,
            class_to_move: class,
            tempo_per_mille: 1_660,
            four_three: 455,
            double_three: 0,
            four_three_to_move: 455,
            double_three_to_move: 0,
            combo_to_move: 2_873,
            must_defend: 94,
        }
    }
}

impl Weights {
    /// The weights of `rule`: one set for every rule (fits of renju's own did not win).
    pub fn default_for(_rule: Rule) -> Weights {
        Weights::default()
    }

    /// The static value of the position for the side to move.
    pub fn evaluate(&self, board: &Board) -> Value {
        let us = board.side_to_move();
        let them = us.opponent();
        let combos = combo_cells(board);
        let score = |color: Color, class: &[Value; Pattern::COUNT], ft: Value, dt: Value| {
            let lines: Value = class
                .iter()
                .enumerate()
                .map(|(class, w)| {
                    w * board.pattern_count(color, Pattern::from_u8(class as u8)) as Value
                })
                .sum();
            let [four_three, double_three] = combos[color.index()];
            lines + ft * four_three as Value + dt * double_three as Value
        };
        let ours = score(
            us,
            &self.class_to_move,
            self.four_three_to_move,
            self.double_three_to_move,
        );
        let theirs = score(them, &self.class, self.four_three, self.double_three);
        let mut v = ours * self.tempo_per_mille / 1000 - theirs;
        let [ft, dt] = combos[us.index()];
        if ft + dt > 0 && !can_four(board, them) {
            v += self.combo_to_move;
        }
        if (board.pattern_count(them, Pattern::OpenFour)
            + board.pattern_count(them, Pattern::DoubleFour)
            > 0
            || combos[them.index()][0] > 0)
            && !can_four(board, us)
        {
            v -= self.must_defend;
        }
        // Keep static values far from the win range whatever the position.
        v.clamp(-WIN_THRESHOLD / 2, WIN_THRESHOLD / 2)
    }
}

/// The line class a `wuzi-train hand-set` option names (`open-three` for
/// `Pattern::OpenThree`), if any.
pub fn class_of_option(name: &str) -> Option<Pattern> {
    const NAMES: [(&str, Pattern); 9] = [
        ("one", Pattern::One),
        ("two", Pattern::Two),
        ("open-two", Pattern::OpenTwo),
        ("three", Pattern::Three),
        ("open-three", Pattern::OpenThree),
        ("four", Pattern::Four),
        ("open-four", Pattern::OpenFour),
        ("double-four", Pattern::DoubleFour),
        ("five", Pattern::Five),
    ];
    NAMES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|&(_, class)| class)
}

/// Per colour, the empty cells where it makes a four-three (or four-four across lines)
/// and those where it makes a double three: `[color][0 = four-three, 1 = double three]`.
/// Renju black's double threes are forbidden and not counted.
///
/// The board keeps both counts incrementally over every empty cell. The evaluation used
/// to scan only cells with a stone within two cells; the others hold no open three or
/// four on any line (tests/board_incremental.rs checks this over every line code), so the
/// counts are the same.
fn combo_cells(board: &Board) -> [[u32; 2]; 2] {
    Color::BOTH.map(|c| [board.four_three_cells(c), board.double_three_cells(c)])
}

/// Whether `color` can make a four (or better) somewhere.
pub fn can_four(board: &Board, color: Color) -> bool {
    [
        Pattern::Four,
        Pattern::OpenFour,
        Pattern::DoubleFour,
        Pattern::Five,
    ]
    .iter()
    .any(|&class| board.pattern_count(color, class) > 0)
}

/// Weight of each line class for a cell's score (index = `Pattern as usize`).
pub const CLASS_WEIGHT: [i32; Pattern::COUNT] = [
    0,    // Dead
    0,    // Overline
    1,    // One
    4,    // Two
    9,    // OpenTwo
    12,   // Three
    40,   // OpenThree
    50,   // Four
    400,  // OpenFour
    400,  // DoubleFour
    5000, // Five
];

/// Bonus for combined threats on one cell, on top of the per-line weights.
#[inline]
fn combo_bonus(threat: Threat) -> i32 {
    match threat {
        Threat::Five => 20000,
        Threat::WinningFour => 3000,
        Threat::FourThree => 1500,
        Threat::DoubleThree => 300,
        _ => 0,
    }
}

/// The score of `color` playing cell `p`: its line weights plus combination bonuses.
#[cfg(test)]
pub fn cell_score(board: &Board, p: Pos, color: Color) -> i32 {
    score_of_lines(&board.cell_patterns(p)[color.index()])
}

/// The score of playing a cell whose four line classes for the colour are `lines`.
#[inline]
pub fn score_of_lines(lines: &[Pattern; 4]) -> i32 {
    let sum: i32 = lines.iter().map(|&c| CLASS_WEIGHT[c as usize]).sum();
    // Every combination has an open three or better on some line; most cells have none,
    // and one word test spares them the classification.
    if pattern::any_at_least(lines, Pattern::OpenThree) {
        sum + combo_bonus(threat_of_lines(lines))
    } else {
        sum
    }
}

/// The hand-set evaluation and move ordering written as learned tables (where a sum
/// over the board is scaled by the side to move's tempo, each cell is, so the result is
/// the same up to rounding): the starting point of a fit, and a check of the tables'
/// plumbing.
pub fn from_hand_set(rule: Rule, w: &Weights) -> LearnedWeights {
    let mut out = LearnedWeights::zero(rule, true);
    for owner in Color::BOTH {
        let renju_black = rule == Rule::Renju && owner == Color::Black;
        for tm in [false, true] {
            let t = 2 * owner.index() + usize::from(tm);
            for pc in 0..PCODE_COUNT {
                let lines = pcode::classes_of_pcode(pc);
                let (class, ft, dt) = if tm {
                    (
                        &w.class_to_move,
                        w.four_three_to_move,
                        w.double_three_to_move,
                    )
                } else {
                    (&w.class, w.four_three, w.double_three)
                };
                let (is_ft, is_dt) = combination(&lines, !renju_black);
                let sum: i64 = lines
                    .iter()
                    .map(|&c| i64::from(class[c as usize]))
                    .sum::<i64>()
                    + i64::from(ft) * i64::from(is_ft)
                    + i64::from(dt) * i64::from(is_dt);
                let scaled = if tm {
                    sum * i64::from(w.tempo_per_mille) / 1000
                } else {
                    sum
                };
                out.cells[t][pc] = scaled.clamp(i16::MIN.into(), i16::MAX.into()) as i16;
            }
        }
    }
    for us in 0..2 {
        for mask in 0..MASK_COUNT {
            let bit = |i: usize| mask & (1 << i) != 0;
            let mut v = 0;
            if (bit(3) || bit(5)) && !(bit(8) || bit(0)) {
                v += w.combo_to_move;
            }
            if (bit(2) || bit(7)) && !bit(4) {
                v -= w.must_defend;
            }
            out.mask[us][mask] = v.clamp(i16::MIN.into(), i16::MAX.into()) as i16;
        }
        for pc in 0..PCODE_COUNT {
            let s = score_of_lines(&pcode::classes_of_pcode(pc));
            out.policy[us][0][pc] = (s * 6 / 5).clamp(i16::MIN.into(), i16::MAX.into()) as i16;
            out.policy[us][1][pc] = s.clamp(i16::MIN.into(), i16::MAX.into()) as i16;
        }
    }
    out
}

/// Whether the lines make a four-three (or four-four) point, and a double three
/// (counted only where `double_threes`), as the board's combination counters do.
fn combination(lines: &[Pattern; 4], double_threes: bool) -> (bool, bool) {
    let count = |f: fn(Pattern) -> bool| lines.iter().filter(|&&c| f(c)).count();
    let fives = count(|c| c == Pattern::Five);
    let big = count(|c| matches!(c, Pattern::OpenFour | Pattern::DoubleFour));
    let fours = count(|c| c == Pattern::Four);
    let threes = count(|c| c == Pattern::OpenThree);
    let four_three = fives == 0 && big == 0 && (fours >= 2 || (fours == 1 && threes >= 1));
    let double_three = fives == 0 && big == 0 && fours == 0 && threes >= 2 && double_threes;
    (four_three, double_three)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};
    use wuzi::eval::learned::LearnedEval;
    use wuzi::types::Coord;

    fn evaluate(b: &Board) -> Value {
        Weights::default().evaluate(b)
    }

    fn leaked(w: LearnedWeights) -> &'static LearnedEval {
        Box::leak(Box::new(LearnedEval::new(w)))
    }

    /// Boards along random games of `rule` (moves near the stones, no five made), each
    /// with the tables of `eval` summed.
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
                near.retain(|&p| !wuzi::rules::is_winning_move(&b, p, b.side_to_move()));
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

    fn board(moves: &[(i32, i32)]) -> Board {
        let coords: Vec<Coord> = moves.iter().map(|&(x, y)| Coord::new(x, y)).collect();
        Board::from_coords(15, Rule::Freestyle, &coords).unwrap()
    }

    #[test]
    fn a_double_three_point_of_the_side_to_move_is_valued() {
        // Black h8 i8 and j6 j7 (white in the corners), black to move: j8 makes two
        // open threes and white cannot make a four.
        let b = board(&[
            (7, 7),
            (0, 0),
            (8, 7),
            (14, 0),
            (9, 5),
            (0, 14),
            (9, 6),
            (14, 14),
        ]);
        assert_eq!(combo_cells(&b)[Color::Black.index()], [0, 1]);
        let w = Weights::default();
        let without = Weights {
            combo_to_move: 0,
            ..w
        };
        assert_eq!(w.evaluate(&b) - without.evaluate(&b), w.combo_to_move);
    }

    #[test]
    fn the_side_to_move_has_its_own_weights() {
        // Black's open three h8 i8 j8, white to move: black's pairs are the opponent's.
        let b = board(&[(7, 7), (0, 14), (8, 7), (14, 0), (9, 7)]);
        let w = Weights::default();
        let open_four = Pattern::OpenFour as usize;
        let mut to_move = w;
        to_move.class_to_move[open_four] += 1000;
        assert_eq!(to_move.evaluate(&b), w.evaluate(&b));
        let mut opponent = w;
        opponent.class[open_four] += 1;
        let cells = b.pattern_count(Color::Black, Pattern::OpenFour) as Value;
        assert_eq!(w.evaluate(&b) - opponent.evaluate(&b), cells);
    }

    #[test]
    fn an_open_three_to_answer_costs_the_side_to_move() {
        // Black's open three h8 i8 j8, white to move without a four.
        let b = board(&[(7, 7), (0, 14), (8, 7), (14, 0), (9, 7)]);
        let w = Weights::default();
        let without = Weights {
            must_defend: 0,
            ..w
        };
        assert_eq!(without.evaluate(&b) - w.evaluate(&b), w.must_defend);
    }

    #[test]
    fn the_hand_set_evaluation_written_as_tables_values_positions_alike() {
        // With the tempo factor at one, no rounding comes in: the tables give the
        // hand-set value exactly wherever no five point stands.
        for rule in Rule::ALL {
            let hand = Weights {
                tempo_per_mille: 1000,
                ..Weights::default_for(rule)
            };
            let eval = leaked(from_hand_set(rule, &hand));
            for b in random_boards(rule, 3, eval) {
                let us = b.side_to_move();
                if b.has_five_point(us) || b.has_five_point(us.opponent()) {
                    continue;
                }
                assert_eq!(eval.evaluate(&b), hand.evaluate(&b), "{rule}\n{b}");
                for p in b.positions().filter(|&p| b.is_empty(p)) {
                    let ordering = cell_score(&b, p, us) * 6 / 5 + cell_score(&b, p, us.opponent());
                    assert_eq!(eval.move_score(&b, p, us), ordering);
                }
            }
        }
    }
}
