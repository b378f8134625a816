//! The values `INFO` sets (PROTOCOL.md §3), each read and checked here by its key: the
//! protocol hands over the key and the text of the value, and reports what comes back.

use crate::search::{MAX_PLY, MAX_THREADS};
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

/// Why an `INFO` value was not taken as sent. Managers do not read replies to `INFO`,
/// so the protocol reports each as one `MESSAGE` before its next move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InfoProblem {
    /// `INFO` without a key: nothing changes.
    NoKey,
    /// The value of `key` was not used as sent: `reason` says why, `used` what the
    /// setting holds instead (the value in force, kept, or the nearest one it can take).
    NotAsSent {
        key: String,
        value: String,
        reason: String,
        used: String,
    },
}

impl InfoProblem {
    pub fn not_as_sent(key: &str, value: &str, reason: impl Into<String>, used: String) -> Self {
        InfoProblem::NotAsSent {
            key: key.to_string(),
            value: value.to_string(),
            reason: reason.into(),
            used,
        }
    }

    /// The problem as one line, the value shown by `show` (the protocol quotes input
    /// short and printable).
    pub fn describe(&self, show: impl Fn(&str) -> String) -> String {
        match self {
            InfoProblem::NoKey => "INFO without a key ignored".to_string(),
            InfoProblem::NotAsSent {
                key,
                value,
                reason,
                used,
            } => format!("INFO {key} {}: {reason}; {used}", show(value)),
        }
    }
}

impl fmt::Display for InfoProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe(|v| format!("'{v}'")))
    }
}

/// The `rule` values taken as sent: the protocol's bits 0 (freestyle), 1 (exactly
/// five), 4 (renju), 8 (caro), 9 (Piskvork's "standard caro") and 2 (renju to
/// Yixin-Board and Rapfi).
const EXACT_RULES: [i64; 6] = [0, 1, 2, 4, 8, 9];

impl Settings {
    /// Applies `INFO key value`. A value the key can take is set as sent. Any other
    /// value is reported (`Err`): a number out of the key's range is replaced by the
    /// nearest one it can take, a value that is no number for it (text, a negative time
    /// or size, an unknown bit of `rule`) leaves the value in force; the problem says
    /// which. Numbers are decimal integers; `max_depth` and `max_node` of 0 mean no
    /// limit. Unknown keys are ignored, as the protocol asks.
    pub fn apply(&mut self, key: &str, value: &str) -> Result<Applied, InfoProblem> {
        if key.is_empty() {
            return Err(InfoProblem::NoKey);
        }
        let int = |current: String| {
            value.trim().parse::<i64>().map_err(|_| {
                InfoProblem::not_as_sent(key, value, "not a whole number", kept(current))
            })
        };
        let negative = |current: String| {
            InfoProblem::not_as_sent(key, value, "must not be negative", kept(current))
        };
        match key {
            "timeout_turn" | "timeout_match" | "max_memory" | "hash_size" => {
                let field = self.count_mut(key);
                let n = int(field.to_string())?;
                *field = u64::try_from(n).map_err(|_| negative(field.to_string()))?;
                if key == "hash_size" && *field > MAX_HASH_KB {
                    *field = MAX_HASH_KB;
                    let reason = format!("more than {MAX_HASH_KB} KiB (64 GiB)");
                    return Err(InfoProblem::not_as_sent(
                        key,
                        value,
                        reason,
                        used(MAX_HASH_KB),
                    ));
                }
            }
            "time_left" => self.time_left = Some(int(describe(self.time_left))?),
            "max_node" => {
                let n = int(describe(self.max_node))?;
                if n < 0 {
                    return Err(negative(describe(self.max_node)));
                }
                self.max_node = (n > 0).then_some(n as u64);
            }
            "game_type" => {
                let n = int(self.game_type.to_string())?;
                if !(0..=3).contains(&n) {
                    let reason = "not 0, 1, 2 or 3";
                    return Err(InfoProblem::not_as_sent(
                        key,
                        value,
                        reason,
                        kept(self.game_type),
                    ));
                }
                self.game_type = n;
            }
            "thread_num" => {
                let n = int(self.thread_num.to_string())?;
                let threads = n.clamp(1, MAX_THREADS as i64);
                self.thread_num = threads as usize;
                if threads != n {
                    let reason = format!("outside 1-{MAX_THREADS}");
                    return Err(InfoProblem::not_as_sent(key, value, reason, used(threads)));
                }
            }
            "max_depth" => self.apply_max_depth(value, int(describe(self.max_depth))?)?,
            "show_detail" => self.show_detail = int(u8::from(self.show_detail).to_string())? != 0,
            "rule" => self.apply_rule(value, int(self.rule.name().to_string())?)?,
            "folder" => self.folder = Some(value.to_string()),
            "pondering" => {
                int(String::from("no pondering"))?;
                return Ok(Applied::Ignored);
            }
            _ => return Ok(Applied::Ignored),
        }
        Ok(Applied::Set)
    }

    /// The setting of a key whose value is a count of ms, bytes or KiB.
    fn count_mut(&mut self, key: &str) -> &mut u64 {
        match key {
            "timeout_turn" => &mut self.timeout_turn,
            "timeout_match" => &mut self.timeout_match,
            "max_memory" => &mut self.max_memory,
            _ => &mut self.hash_size_kb,
        }
    }

    fn apply_max_depth(&mut self, value: &str, n: i64) -> Result<(), InfoProblem> {
        let deepest = MAX_PLY as i64;
        let problem =
            |reason: &str, used: String| InfoProblem::not_as_sent("max_depth", value, reason, used);
        if n < 0 {
            return Err(problem(
                "must not be negative",
                kept(describe(self.max_depth)),
            ));
        }
        self.max_depth = (n > 0).then_some(n.min(deepest) as u32);
        if n > deepest {
            return Err(problem("deeper than the search goes", used(deepest)));
        }
        Ok(())
    }

    fn apply_rule(&mut self, value: &str, n: i64) -> Result<(), InfoProblem> {
        if EXACT_RULES.contains(&n) {
            self.rule = Rule::from_info(n);
            return Ok(());
        }
        let reason = "not one of 0, 1, 2, 4, 8, 9";
        if (0..16).contains(&n) {
            // Known bits in an unusual combination (continuous game, two rules): read
            // as the protocol's bits say, renju before caro before exactly five.
            self.rule = Rule::from_info(n);
            return Err(InfoProblem::not_as_sent(
                "rule",
                value,
                reason,
                used(self.rule),
            ));
        }
        Err(InfoProblem::not_as_sent(
            "rule",
            value,
            reason,
            kept(self.rule),
        ))
    }
}

/// The largest `hash_size` (KiB) taken: the configuration's own ceiling, 64 GiB.
const MAX_HASH_KB: u64 = 64 << 20;

fn kept(current: impl fmt::Display) -> String {
    format!("{current} kept")
}

fn used(value: impl fmt::Display) -> String {
    format!("{value} used")
}

/// An optional setting as text: its value, or `none`.
fn describe<T: fmt::Display>(value: Option<T>) -> String {
    value.map_or_else(|| "none".to_string(), |v| v.to_string())
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
        assert_eq!(s.apply("max_depth", "20"), Ok(Applied::Set));
        assert_eq!(s.max_depth, Some(20));
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
            "INFO timeout_turn '-1': must not be negative; 30000 kept"
        );
        assert_eq!(s.timeout_turn, Settings::default().timeout_turn);
        assert!(s.apply("thread_num", "0").is_err());
        assert_eq!(s.thread_num, 1);
        assert!(s.apply("pondering", "yes").is_err());
        assert_eq!(s.apply("", "1"), Err(InfoProblem::NoKey));
    }

    /// One policy for every key: a value taken as sent is silent; a number out of range
    /// is replaced by the nearest one the key takes, anything else keeps the value in
    /// force; either way the problem says what is used.
    #[test]
    fn a_value_not_taken_as_sent_says_what_is_used() {
        let mut s = Settings::default();
        let said = |r: Result<Applied, InfoProblem>| r.unwrap_err().to_string();
        assert_eq!(
            said(s.apply("thread_num", "0")),
            "INFO thread_num '0': outside 1-64; 1 used"
        );
        assert_eq!(
            said(s.apply("thread_num", "1000")),
            "INFO thread_num '1000': outside 1-64; 64 used"
        );
        assert_eq!(s.thread_num, 64);
        assert_eq!(
            said(s.apply("thread_num", "two")),
            "INFO thread_num 'two': not a whole number; 64 kept"
        );
        for (sent, rule) in [(3, Rule::Standard), (12, Rule::Renju), (10, Rule::Caro)] {
            let text = sent.to_string();
            assert_eq!(
                said(s.apply("rule", &text)),
                format!("INFO rule '{sent}': not one of 0, 1, 2, 4, 8, 9; {rule} used")
            );
            assert_eq!(s.rule, rule);
        }
        for sent in ["16", "17", "-1", "renju"] {
            assert!(
                said(s.apply("rule", sent)).ends_with("; caro kept"),
                "{sent}"
            );
            assert_eq!(s.rule, Rule::Caro);
        }
        assert_eq!(
            said(s.apply("timeout_match", "-5")),
            "INFO timeout_match '-5': must not be negative; 0 kept"
        );
        assert!(said(s.apply("max_memory", "lots")).ends_with("not a whole number; 0 kept"));
        assert_eq!(
            said(s.apply("time_left", "soon")),
            "INFO time_left 'soon': not a whole number; none kept"
        );
        assert_eq!(
            said(s.apply("max_depth", "99999")),
            "INFO max_depth '99999': deeper than the search goes; 128 used"
        );
        assert_eq!(s.max_depth, Some(128));
        assert!(said(s.apply("max_depth", "-3")).ends_with("must not be negative; 128 kept"));
        assert!(said(s.apply("max_node", "-3")).ends_with("must not be negative; none kept"));
        assert!(said(s.apply("game_type", "7")).ends_with("not 0, 1, 2 or 3; 1 kept"));
        assert!(said(s.apply("hash_size", "99999999999")).ends_with("; 67108864 used"));
        assert!(said(s.apply("show_detail", "on")).ends_with("; 0 kept"));
        for exact in ["0", "1", "2", "4", "8", "9"] {
            assert_eq!(s.apply("rule", exact), Ok(Applied::Set), "{exact}");
        }
        assert_eq!(s.apply("max_node", "0"), Ok(Applied::Set));
        assert_eq!(s.max_node, None);
    }

    #[test]
    fn keys_without_use_are_ignored() {
        let mut s = Settings::default();
        assert_eq!(s.apply("pondering", "1"), Ok(Applied::Ignored));
        assert_eq!(s.apply("evaluate", "7,7"), Ok(Applied::Ignored));
        assert_eq!(s.apply("no_such_key", "1"), Ok(Applied::Ignored));
    }
}
