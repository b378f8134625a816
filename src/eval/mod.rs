//! Static evaluation: learned tables over what each colour makes on the lines of every
//! empty cell, summed by the board on make/undo (`learned`), one weights file per rule
//! (`weights`), compiled in or loaded from the configuration. `pcode` names the cell
//! codes the tables are indexed by. The tables and the move policy beside them are fitted
//! by `wuzi-train` (docs/training.md).

pub mod learned;
pub mod pcode;
pub mod weights;

use crate::board::Board;
use crate::types::Rule;

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
            // to parse, all-zero tables stand in rather than a panic in the brain.
            let weights = weights::LearnedWeights::from_bytes_for(COMPILED_WEIGHTS[i], rule)
                .unwrap_or_else(|_| weights::LearnedWeights::zero(rule, true));
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

    #[test]
    fn every_compiled_in_weights_file_parses_for_its_rule() {
        for (i, rule) in Rule::ALL.into_iter().enumerate() {
            assert!(
                weights::LearnedWeights::from_bytes_for(COMPILED_WEIGHTS[i], rule).is_ok(),
                "{rule}"
            );
        }
    }

    /// The null move's guard (`search::node`) relies on this: the tables favour the side
    /// to move, so a pass, which hands the move to the opponent, lowers the static value
    /// of the side that passed.
    #[test]
    fn a_pass_lowers_the_static_value_of_the_side_that_passes() {
        for &(rule, size, moves) in crate::bench::POSITIONS {
            let mut board = Board::from_moves(size, rule, moves).unwrap();
            let before = evaluate(&board);
            board.make_null();
            let after_pass = -evaluate(&board);
            assert!(
                after_pass < before,
                "{rule} {moves}: {after_pass} >= {before}"
            );
        }
    }

    #[test]
    fn a_weights_file_named_by_the_config_is_loaded_and_a_bad_one_refused() {
        use crate::config::{Config, ConfigSource};
        let dir = std::env::temp_dir().join(format!("wuzi-weights-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut w = weights::LearnedWeights::zero(Rule::Standard, true);
        w.mask[0][0] = 1234;
        let good = dir.join("standard.wzev");
        std::fs::write(&good, w.to_bytes()).unwrap();
        let damaged = dir.join("damaged.wzev");
        let mut bytes = w.to_bytes();
        bytes[40] ^= 0x55;
        std::fs::write(&damaged, bytes).unwrap();
        let text = format!(
            "[eval.weights]\nstandard = {}\nrenju = {}\n",
            good.display(),
            damaged.display()
        );
        let config = Config::from_text(&text, ConfigSource::Embedded);
        let e = Evaluator::from_config(&config);
        assert_eq!(e.for_rule(Rule::Standard).weights, w);
        // The damaged file keeps the compiled-in tables and says why.
        assert!(std::ptr::eq(
            e.for_rule(Rule::Renju),
            Evaluator::default().for_rule(Rule::Renju)
        ));
        let warning = config.take_warning().unwrap_or_default();
        assert!(
            warning.contains("damaged") && warning.contains("renju"),
            "{warning}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
