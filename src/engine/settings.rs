//! The values `INFO` sets (PROTOCOL.md §3), each read and checked here by its key: the
//! protocol hands over the key and the text of the value, and reports what comes back.

use crate::types::Rule;
use std::fmt;

/// Values set by `INFO` (PROTOCOL.md §3). Times in milliseconds, memory in bytes.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Per-move limit; 0 = play as fast as possible.
    pub timeout_turn: u64,
    /// Per-game limit; 0 = unlimited.
    pub timeout_match: u64,
    /// Match time left, sent before every move; may be negative. `None` until sent.
    pub time_left: Option<i64>,
    /// Whole-process memory limit; 0 = none.
    pub max_memory: u64,
    pub rule: Rule,
    pub game_type: i64,
    pub thread_num: usize,
    /// Transposition table size in KiB asked by `INFO hash_size` (Yixin); 0 = automatic.
    pub hash_size_kb: u64,
    pub max_depth: Option<u32>,
    pub max_node: Option<u64>,
    pub show_detail: bool,
    pub folder: Option<String>,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            // Piskvork's defaults when a manager sends nothing.
            timeout_turn: 30_000,
            timeout_match: 0,
            time_left: None,
            max_memory: 0,
            rule: Rule::Freestyle,
            game_type: 1,
            thread_num: 1,
            hash_size_kb: 0,
            max_depth: None,
            max_node: None,
            show_detail: false,
            folder: None,
        }
    }
}

/// What an `INFO key value` did to the settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Applied {
    /// The setting of `key` took the value.
    Set,
    /// A key the engine has no use for: unknown keys (as the protocol asks), `pondering`
    /// (managers suspend the brain between moves instead) and `evaluate` (debug only).
    Ignored,
}

/// Why an `INFO` line changed nothing. Managers do not read replies to `INFO`, so the
/// protocol reports these as a `MESSAGE` before its next move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InfoProblem {
    /// `INFO` without a key.
    NoKey,
    /// A numeric key with a value that is not a number in its range.
    NotANumber { key: String, value: String },
}

impl fmt::Display for InfoProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InfoProblem::NoKey => write!(f, "ignored INFO without a key"),
            InfoProblem::NotANumber { key, value } => {
                write!(f, "ignored INFO {key} '{value}': not a valid number")
            }
        }
    }
}

impl Settings {
    /// Applies `INFO key value`: the value is read as the key's type and range, and set
    /// only when it fits. Numbers are decimal integers; `max_depth` and `max_node` of 0
    /// or less mean no limit; `rule` is the protocol's bit field (see `Rule::from_info`).
    pub fn apply(&mut self, key: &str, value: &str) -> Result<Applied, InfoProblem> {
        if key.is_empty() {
            return Err(InfoProblem::NoKey);
        }
        let number = value.trim().parse::<i64>();
        match (key, number) {
            ("timeout_turn", Ok(v)) if v >= 0 => self.timeout_turn = v as u64,
            ("timeout_match", Ok(v)) if v >= 0 => self.timeout_match = v as u64,
            ("time_left", Ok(v)) => self.time_left = Some(v),
            ("max_memory", Ok(v)) if v >= 0 => self.max_memory = v as u64,
            ("game_type", Ok(v)) => self.game_type = v,
            ("thread_num", Ok(v)) if v >= 1 => self.thread_num = v as usize,
            ("hash_size", Ok(v)) if v >= 0 => self.hash_size_kb = v as u64,
            ("max_depth", Ok(v)) => self.max_depth = (v > 0).then_some(v.min(1000) as u32),
            ("max_node", Ok(v)) => self.max_node = (v > 0).then_some(v as u64),
            ("show_detail", Ok(v)) => self.show_detail = v != 0,
            ("rule", Ok(v)) => self.rule = Rule::from_info(v),
            ("folder", _) => self.folder = Some(value.to_string()),
            ("pondering", Ok(_)) | ("evaluate", _) => return Ok(Applied::Ignored),
            (
                "timeout_turn" | "timeout_match" | "time_left" | "max_memory" | "game_type"
                | "thread_num" | "hash_size" | "max_depth" | "max_node" | "show_detail"
                | "pondering" | "rule",
                _,
            ) => {
                return Err(InfoProblem::NotANumber {
                    key: key.to_string(),
                    value: value.to_string(),
                })
            }
            _ => return Ok(Applied::Ignored),
        }
        Ok(Applied::Set)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_key_takes_its_type_and_range() {
        let mut s = Settings::default();
        assert_eq!(s.apply("timeout_turn", " 5000 "), Ok(Applied::Set));
        assert_eq!(s.timeout_turn, 5_000);
        assert_eq!(s.apply("time_left", "-250"), Ok(Applied::Set));
        assert_eq!(s.time_left, Some(-250));
        assert_eq!(s.apply("max_depth", "0"), Ok(Applied::Set));
        assert_eq!(s.max_depth, None);
        assert_eq!(s.apply("max_depth", "99999"), Ok(Applied::Set));
        assert_eq!(s.max_depth, Some(1000));
        assert_eq!(s.apply("rule", "4"), Ok(Applied::Set));
        assert_eq!(s.rule, Rule::Renju);
        assert_eq!(s.apply("folder", "C:\\tmp x"), Ok(Applied::Set));
        assert_eq!(s.folder.as_deref(), Some("C:\\tmp x"));
    }

    #[test]
    fn a_bad_value_changes_nothing_and_says_why() {
        let mut s = Settings::default();
        let problem = s.apply("timeout_turn", "-1").unwrap_err();
        assert_eq!(
            problem.to_string(),
            "ignored INFO timeout_turn '-1': not a valid number"
        );
        assert_eq!(s.timeout_turn, Settings::default().timeout_turn);
        assert!(s.apply("thread_num", "0").is_err());
        assert_eq!(s.thread_num, 1);
        assert!(s.apply("pondering", "yes").is_err());
        assert_eq!(s.apply("", "1"), Err(InfoProblem::NoKey));
    }

    #[test]
    fn keys_without_use_are_ignored() {
        let mut s = Settings::default();
        assert_eq!(s.apply("pondering", "1"), Ok(Applied::Ignored));
        assert_eq!(s.apply("evaluate", "7,7"), Ok(Applied::Ignored));
        assert_eq!(s.apply("no_such_key", "1"), Ok(Applied::Ignored));
    }
}
