//! Static evaluation from the incremental pattern counts.
//!
//! The board keeps, for each colour, how many (empty cell, line) pairs carry each pattern
//! class, so most of this evaluation is a dot product of eleven counts per colour, exact
//! after every make/undo. On top come the cells where one colour combines lines (a
//! four-three or a double three: also counted by the board on make/undo) and two terms
//! for who moves: the side to move's own combination against an
//! opponent without fours, and an opponent's open three it must answer.
//!
//! The side to move's counts have their own weights (`to_move_*` keys): a threat of the
//! side to move is worth more than the same threat of the opponent, who moves second, and
//! by a different factor for each class (an open three to move is nearly a win, a lone
//! stone's line is worth the same to both).

pub mod learned;
pub mod pcode;
pub mod weights;

use crate::board::Board;
use crate::pattern::Pattern;
use crate::types::{Color, Rule};

/// Values are centi-stones from the side to move's point of view; wins are near `WIN`.
pub type Value = i32;

/// A win on the board now; a win in `n` plies is `WIN - n`.
pub const WIN: Value = 30_000;
/// Any value beyond this is a proven win or loss.
pub const WIN_THRESHOLD: Value = WIN - 1_000;
pub const INFINITE: Value = WIN + 1;

/// The evaluation the search uses: the learned tables of each rule, compiled in or
/// loaded from the files the configuration names.
#[derive(Clone, Copy, Debug)]
pub struct Evaluator {
    by_rule: [&'static learned::LearnedEval; 4],
}

/// The compiled-in weights of each rule (`weights/*.wzev`, see docs/training.md).
const COMPILED_WEIGHTS: [&[u8]; 4] = [
    include_bytes!("../../weights/freestyle.wzev"),
    include_bytes!("../../weights/standard.wzev"),
    include_bytes!("../../weights/renju.wzev"),
    include_bytes!("../../weights/caro.wzev"),
];

static COMPILED: once_cell::sync::Lazy<[learned::LearnedEval; 4]> =
    once_cell::sync::Lazy::new(|| {
        std::array::from_fn(|i| {
            let rule = Rule::ALL[i];
            // The files are part of the build and a test reads each; should one ever fail
            // to parse, the hand-set evaluation written as tables stands in.
            let weights = weights::LearnedWeights::from_bytes_for(COMPILED_WEIGHTS[i], rule)
                .unwrap_or_else(|_| learned::from_hand_set(rule, &Weights::default_for(rule)));
            learned::LearnedEval::new(weights)
        })
    });

impl Default for Evaluator {
    fn default() -> Self {
        Evaluator {
            by_rule: std::array::from_fn(|i| &COMPILED[i]),
        }
    }
}

impl Evaluator {
    /// The compiled-in tables, except for the rules whose `eval.weights.<rule>` key names
    /// a file: each such file is loaded, and one that cannot be read or is refused keeps
    /// the compiled-in tables and adds a warning to the configuration (reported as a
    /// `MESSAGE`).
    pub fn from_config(config: &crate::config::Config) -> Evaluator {
        let mut e = Evaluator::default();
        for rule in Rule::ALL {
            let key = format!("eval.weights.{}", rule.name());
            let Some(path) = config.get(&key) else {
                continue;
            };
            let path = path.trim();
            if path.is_empty() {
                continue;
            }
            let loaded = std::fs::read(path)
                .map_err(|err| err.to_string())
                .and_then(|bytes| {
                    weights::LearnedWeights::from_bytes_for(&bytes, rule)
                        .map_err(|err| err.to_string())
                });
            match loaded {
                Ok(w) => {
                    e.by_rule[rule.index()] = Box::leak(Box::new(learned::LearnedEval::new(w)))
                }
                Err(err) => config.add_warning(format!(
                    "{key} = {path}: {err}; using the compiled-in weights"
                )),
            }
        }
        e
    }

    /// The tables of `rule`.
    #[inline]
    pub fn for_rule(&self, rule: Rule) -> &'static learned::LearnedEval {
        self.by_rule[rule.index()]
    }

    /// Makes `board` sum the cell tables of its rule (done once per search; any board
    /// evaluates correctly without it, but slower).
    pub fn prepare(&self, board: &mut Board) {
        board.set_cell_values(&self.for_rule(board.rule()).cells);
    }

    /// The static value of the position for the side to move.
    #[inline]
    pub fn evaluate(&self, board: &Board) -> Value {
        self.for_rule(board.rule()).evaluate(board)
    }
}

/// The evaluation's weights under every rule: renju has its own set (config section
/// `[eval.renju]`), the other rules share one (`[eval]`). Renju's forbidden points change
/// what the patterns are worth: black cannot use a double three or an overline, and
/// white wins by the points black may not block, so the same counts mean other odds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EvalWeights {
    /// Freestyle, standard and caro.
    pub general: Weights,
    pub renju: Weights,
}

impl Default for EvalWeights {
    fn default() -> Self {
        EvalWeights {
            general: Weights::default(),
            renju: Weights::renju(),
        }
    }
}

impl EvalWeights {
    pub fn from_config(config: &crate::config::Config) -> EvalWeights {
        EvalWeights {
            general: Weights::from_section(config, "eval", Weights::default()),
            renju: Weights::from_section(config, "eval.renju", Weights::renju()),
        }
    }

    /// The weights used under `rule`.
    pub fn for_rule(&self, rule: Rule) -> &Weights {
        match rule {
            Rule::Renju => &self.renju,
            Rule::Freestyle | Rule::Standard | Rule::Caro => &self.general,
        }
    }

    /// The static value of the position for the side to move, by its rule's weights.
    #[inline]
    pub fn evaluate(&self, board: &Board) -> Value {
        self.for_rule(board.rule()).evaluate(board)
    }
}

/// The weights of one evaluation section (see [`EvalWeights`]; defaults below).
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

/// Config keys of the class weights within an evaluation section, in class order.
const CLASS_KEYS: [&str; Pattern::COUNT] = [
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

/// The config key of a class's weight within an evaluation section, e.g. "open_two".
pub fn class_key(class: Pattern) -> &'static str {
    CLASS_KEYS[class as usize]
}

/// The `[eval]` weights: freestyle, standard and caro.
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
    /// The `[eval.renju]` weights: those of `[eval]` until a fit of renju's own wins a
    /// match (three did not; config/wuzi.conf records them).
    pub fn renju() -> Weights {
        Weights::default()
    }

    /// The weights of `rule` before any configuration.
    pub fn default_for(rule: Rule) -> Weights {
        *EvalWeights::default().for_rule(rule)
    }

    /// The weights of config section `section` (e.g. "eval"), those of `d` where a key is
    /// missing or bad.
    fn from_section(config: &crate::config::Config, section: &str, d: Weights) -> Weights {
        let mut w = d;
        let get = |key: &str, range, default| {
            config.get_i32_in(&format!("{section}.{key}"), range, default)
        };
        for (i, key) in CLASS_KEYS.iter().enumerate() {
            w.class[i] = get(key, 0..=10_000, d.class[i]);
            let to_move_key = format!("to_move_{key}");
            w.class_to_move[i] = get(&to_move_key, 0..=10_000, d.class_to_move[i]);
        }
        w.tempo_per_mille = get("tempo_per_mille", 0..=5_000, d.tempo_per_mille);
        w.four_three = get("four_three", 0..=10_000, d.four_three);
        w.double_three = get("double_three", 0..=10_000, d.double_three);
        w.four_three_to_move = get("to_move_four_three", 0..=10_000, d.four_three_to_move);
        w.double_three_to_move = get("to_move_double_three", 0..=10_000, d.double_three_to_move);
        w.combo_to_move = get("combo_to_move", 0..=10_000, d.combo_to_move);
        w.must_defend = get("must_defend", 0..=10_000, d.must_defend);
        w
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

/// The static value with the compiled-in weights.
pub fn evaluate(board: &Board) -> Value {
    Evaluator::default().evaluate(board)
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
    fn the_embedded_config_holds_the_default_weights() {
        let embedded = EvalWeights::from_config(&crate::config::Config::embedded());
        assert_eq!(embedded, EvalWeights::default());
    }

    #[test]
    fn every_class_key_names_a_key_of_both_sections_of_the_embedded_config() {
        let config = crate::config::Config::embedded();
        for section in ["eval", "eval.renju"] {
            for v in 0..Pattern::COUNT as u8 {
                let class = class_key(Pattern::from_u8(v));
                for key in [
                    format!("{section}.{class}"),
                    format!("{section}.to_move_{class}"),
                ] {
                    assert!(config.get(&key).is_some(), "{key}");
                }
            }
        }
        assert_eq!(class_key(Pattern::OpenTwo), "open_two");
    }

    #[test]
    fn renju_positions_are_valued_by_the_renju_weights() {
        // Black's open three h8 i8 j8, white to move, under renju: only the renju
        // section's weights count.
        let mut b = Board::new(15, 15, Rule::Renju).unwrap();
        for (x, y) in [(7, 7), (0, 14), (8, 7), (14, 0), (9, 7)] {
            b.play(Coord::new(x, y)).unwrap();
        }
        let w = EvalWeights::default();
        let mut general = w;
        general.general.must_defend += 1000;
        assert_eq!(general.evaluate(&b), w.evaluate(&b));
        let mut renju = w;
        renju.renju.must_defend += 1000;
        assert_eq!(renju.evaluate(&b), w.evaluate(&b) - 1000);
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
}
