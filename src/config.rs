//! Engine configuration: `key = value` lines read from `wuzi.conf`, so operators can tune
//! the engine without recompiling.
//!
//! Format: one `key = value` per line; `#` starts a comment (a whole line, or after
//! whitespace at the end of a value); `[section]` headers prefix the keys below them
//! (`[search]` + `null_move = true` → `search.null_move`); keys are case-insensitive;
//! CR LF, LF and lone CR line ends are accepted; a UTF-8 byte order mark is skipped.
//!
//! The default file `config/wuzi.conf` is compiled in and is also the schema: a key is
//! known when it appears there, and an override must have the same form as its default
//! (boolean, integer, number or text). A user file only needs the keys it changes.
//!
//! A bad file never stops the engine: a bad line or value keeps the default, an unknown
//! key is ignored, an unreadable file leaves all defaults; each problem becomes a pending
//! warning that the protocol layer prints as one `MESSAGE` line before its next move.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fmt;
use std::fs;
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Mutex;

/// The default configuration, compiled in: the fallback and the schema of known keys.
pub const DEFAULT_TEXT: &str = include_str!("../config/wuzi.conf");

/// The file name looked for beside the executable and in the working directory.
pub const FILE_NAME: &str = "wuzi.conf";

/// Environment variable naming a config file to use instead of the usual lookup.
pub const ENV_VAR: &str = "WUZI_CONFIG";

/// At most this many problems are spelled out in the warning line; the rest are counted.
const MAX_LISTED_WARNINGS: usize = 6;

/// Where the configuration came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConfigSource {
    /// No file was found (or it was unreadable): the compiled-in default.
    Embedded,
    File(PathBuf),
}

impl fmt::Display for ConfigSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigSource::Embedded => f.write_str("built-in defaults"),
            ConfigSource::File(path) => write!(f, "{}", path.display()),
        }
    }
}

/// The form of a value, taken from the default file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Bool,
    Integer,
    Number,
    Text,
}

impl Kind {
    /// Only `true`/`false` make a boolean default: a text default such as `off` (a log
    /// level) must stay text.
    fn of_default(value: &str) -> Kind {
        if value == "true" || value == "false" {
            Kind::Bool
        } else if value.parse::<i64>().is_ok() {
            Kind::Integer
        } else if parse_number(value).is_some() {
            Kind::Number
        } else {
            Kind::Text
        }
    }

    /// The value in canonical form if it has this kind.
    fn accept(self, value: &str) -> Option<String> {
        match self {
            Kind::Bool => parse_bool(value).map(|b| b.to_string()),
            Kind::Integer => value.parse::<i64>().ok().map(|n| n.to_string()),
            Kind::Number => parse_number(value).map(|_| value.to_string()),
            Kind::Text => Some(value.to_string()),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Kind::Bool => "true or false",
            Kind::Integer => "an integer",
            Kind::Number => "a number",
            Kind::Text => "text",
        }
    }
}

fn parse_bool(value: &str) -> Option<bool> {
    match value.to_ascii_lowercase().as_str() {
        "true" | "yes" | "on" => Some(true),
        "false" | "no" | "off" => Some(false),
        _ => None,
    }
}

fn parse_number(value: &str) -> Option<f64> {
    value.parse::<f64>().ok().filter(|n| n.is_finite())
}

/// One `key = value` entry as read from a file, with its line number.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Entry {
    line: usize,
    key: String,
    value: String,
}

/// Splits a file into entries; problems go to `warnings` as "line N: …".
fn parse_entries(text: &str, warnings: &mut Vec<String>) -> Vec<Entry> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut entries = Vec::new();
    // `None` after a bad header: the keys below it are skipped until the next good one.
    let mut section = Some(String::new());
    for (index, raw) in text.split(['\n', '\r']).enumerate() {
        let line = index + 1;
        let content = strip_comment(raw).trim();
        if content.is_empty() {
            continue;
        }
        if let Some(header) = content.strip_prefix('[') {
            section = header
                .strip_suffix(']')
                .map(|name| name.trim().to_ascii_lowercase())
                .filter(|name| is_valid_key(name));
            if section.is_none() {
                warnings.push(format!(
                    "line {line}: bad section header '{content}'; its keys are ignored"
                ));
            }
            continue;
        }
        let Some((key, value)) = content.split_once('=') else {
            warnings.push(format!(
                "line {line}: '{content}' is not 'key = value'; ignored"
            ));
            continue;
        };
        let key = key.trim().to_ascii_lowercase();
        if !is_valid_key(&key) {
            warnings.push(format!("line {line}: bad key '{key}'; ignored"));
            continue;
        }
        let Some(section) = &section else {
            continue;
        };
        let key = if section.is_empty() {
            key
        } else {
            format!("{section}.{key}")
        };
        entries.push(Entry {
            line,
            key,
            value: value.trim().to_string(),
        });
    }
    entries
}

/// Drops a comment: `#` at the start of the line or after whitespace. A `#` inside a
/// word (a file name such as `run#2.log`) is kept.
fn strip_comment(line: &str) -> &str {
    let mut after_space = true;
    for (i, c) in line.char_indices() {
        if c == '#' && after_space {
            return &line[..i];
        }
        after_space = c.is_whitespace();
    }
    line
}

/// Letters, digits, `_` and `-` in dot-separated parts, none empty.
fn is_valid_key(key: &str) -> bool {
    !key.is_empty()
        && key.split('.').all(|part| {
            !part.is_empty()
                && part
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        })
}

/// The values in force, with typed getters that fall back to a default.
#[derive(Debug)]
pub struct Config {
    values: BTreeMap<String, String>,
    source: ConfigSource,
    /// Problems not reported yet. Behind a lock because getters (`&self`) add to it.
    warnings: Mutex<Vec<String>>,
}

impl Clone for Config {
    fn clone(&self) -> Config {
        Config {
            values: self.values.clone(),
            source: self.source.clone(),
            warnings: Mutex::new(self.pending()),
        }
    }
}

impl Default for Config {
    fn default() -> Config {
        Config::embedded()
    }
}

impl Config {
    /// The compiled-in defaults.
    pub fn embedded() -> Config {
        let mut ignored = Vec::new();
        let values = parse_entries(DEFAULT_TEXT, &mut ignored)
            .into_iter()
            .map(|entry| (entry.key, entry.value))
            .collect();
        Config {
            values,
            source: ConfigSource::Embedded,
            warnings: Mutex::new(Vec::new()),
        }
    }

    /// The defaults overridden by `text` (the contents of a file at `source`). Bad lines,
    /// unknown keys and values of the wrong form keep the default and leave a warning.
    pub fn from_text(text: &str, source: ConfigSource) -> Config {
        let mut config = Config::embedded();
        config.source = source;
        let mut problems = Vec::new();
        let mut seen: BTreeMap<String, usize> = BTreeMap::new();
        for entry in parse_entries(text, &mut problems) {
            let Some(default) = config.values.get(&entry.key) else {
                problems.push(format!(
                    "line {}: unknown key '{}'; ignored",
                    entry.line, entry.key
                ));
                continue;
            };
            let kind = Kind::of_default(default);
            let Some(value) = kind.accept(&entry.value) else {
                problems.push(format!(
                    "line {}: {} = '{}' is not {}; default {} kept",
                    entry.line,
                    entry.key,
                    entry.value,
                    kind.name(),
                    default
                ));
                continue;
            };
            if let Some(first) = seen.insert(entry.key.clone(), entry.line) {
                problems.push(format!(
                    "line {}: {} already set on line {first}; the later value is used",
                    entry.line, entry.key
                ));
            }
            config.values.insert(entry.key, value);
        }
        if !problems.is_empty() {
            config.add_warning(format!("{}: {}", config.source, summarize(&problems)));
        }
        config
    }

    /// Finds and reads the configuration the usual way: the file named by `WUZI_CONFIG`,
    /// else `wuzi.conf` beside the executable, else in the working directory, else the
    /// compiled-in defaults.
    pub fn load() -> Config {
        Config::load_with(&Lookup::from_process())
    }

    /// [`Config::load`] with the places to look given explicitly (for tests).
    pub fn load_with(lookup: &Lookup) -> Config {
        if let Some(path) = &lookup.env_path {
            // An explicit choice that fails is reported, not silently replaced by a
            // different file the operator did not ask for.
            return Config::read_file(path).unwrap_or_else(|problem| {
                let config = Config::embedded();
                config.add_warning(format!("{ENV_VAR}: {problem}; built-in defaults used"));
                config
            });
        }
        for path in lookup.candidates() {
            if !path.is_file() {
                continue;
            }
            return Config::read_file(&path).unwrap_or_else(|problem| {
                let config = Config::embedded();
                config.add_warning(format!("{problem}; built-in defaults used"));
                config
            });
        }
        Config::embedded()
    }

    /// Reads and parses one file; `Err` with a description when it cannot be read.
    fn read_file(path: &Path) -> Result<Config, String> {
        let bytes = fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let text = String::from_utf8(bytes)
            .map_err(|_| format!("{} is not UTF-8 text", path.display()))?;
        Ok(Config::from_text(
            &text,
            ConfigSource::File(path.to_path_buf()),
        ))
    }

    pub fn source(&self) -> &ConfigSource {
        &self.source
    }

    /// The raw value of a key, if it is set.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.values.get(key).map(String::as_str)
    }

    /// Every key in force, sorted.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.values.keys().map(String::as_str)
    }

    pub fn get_bool(&self, key: &str, default: bool) -> bool {
        self.typed(key, default, "true or false", parse_bool)
    }

    pub fn get_i64(&self, key: &str, default: i64) -> i64 {
        self.typed(key, default, "an integer", |v| v.parse().ok())
    }

    pub fn get_f64(&self, key: &str, default: f64) -> f64 {
        self.typed(key, default, "a number", parse_number)
    }

    pub fn get_str<'a>(&'a self, key: &str, default: &'a str) -> &'a str {
        self.get(key).unwrap_or(default)
    }

    /// A value that must be one of `choices` (compared without case); the default when
    /// it is missing or not one of them.
    pub fn get_choice<'a>(&self, key: &str, choices: &[&'a str], default: &'a str) -> &'a str {
        let Some(value) = self.get(key) else {
            return default;
        };
        match choices.iter().find(|c| c.eq_ignore_ascii_case(value)) {
            Some(choice) => choice,
            None => {
                self.add_warning(format!(
                    "{}: {key} = '{value}' is not one of {}; {default} used",
                    self.source,
                    choices.join("/")
                ));
                default
            }
        }
    }

    pub fn get_u64_in(&self, key: &str, range: RangeInclusive<u64>, default: u64) -> u64 {
        self.ranged(key, range, default)
    }

    pub fn get_u32_in(&self, key: &str, range: RangeInclusive<u32>, default: u32) -> u32 {
        self.ranged(key, range, default)
    }

    pub fn get_i32_in(&self, key: &str, range: RangeInclusive<i32>, default: i32) -> i32 {
        self.ranged(key, range, default)
    }

    pub fn get_f64_in(&self, key: &str, range: RangeInclusive<f64>, default: f64) -> f64 {
        self.ranged(key, range, default)
    }

    /// A value parsed by `parse`; the default (and a warning) when it does not parse.
    fn typed<T: Copy>(
        &self,
        key: &str,
        default: T,
        form: &str,
        parse: impl Fn(&str) -> Option<T>,
    ) -> T {
        let Some(value) = self.get(key) else {
            return default;
        };
        parse(value).unwrap_or_else(|| {
            self.add_warning(format!("{}: {key} = '{value}' is not {form}", self.source));
            default
        })
    }

    /// A value that must parse as `T` and lie in `range`; the default (and a warning)
    /// otherwise.
    fn ranged<T>(&self, key: &str, range: RangeInclusive<T>, default: T) -> T
    where
        T: FromStr + PartialOrd + fmt::Display + Copy,
    {
        let Some(value) = self.get(key) else {
            return default;
        };
        match value.parse::<T>() {
            Ok(parsed) if range.contains(&parsed) => parsed,
            _ => {
                self.add_warning(format!(
                    "{}: {key} = '{value}' is outside {}..={}; default {default} used",
                    self.source,
                    range.start(),
                    range.end()
                ));
                default
            }
        }
    }

    /// Records a problem to report before the next move (also for callers that validate
    /// values further, e.g. two keys that contradict each other).
    pub fn add_warning(&self, warning: String) {
        if let Ok(mut warnings) = self.warnings.lock() {
            warnings.push(warning);
        }
    }

    fn pending(&self) -> Vec<String> {
        self.warnings.lock().map(|w| w.clone()).unwrap_or_default()
    }

    /// All pending warnings as one line (for a single `MESSAGE`), and clears them.
    /// `None` when there is nothing to report.
    pub fn take_warning(&self) -> Option<String> {
        let warnings = match self.warnings.lock() {
            Ok(mut warnings) => std::mem::take(&mut *warnings),
            Err(_) => return None,
        };
        if warnings.is_empty() {
            return None;
        }
        let line = format!("config: {}", summarize(&warnings));
        // A value read from a file could carry control characters; the protocol line
        // must stay one line.
        Some(
            line.chars()
                .map(|c| if c.is_control() { ' ' } else { c })
                .collect(),
        )
    }
}

/// The first few problems joined by "; ", the rest counted, so a broken file still makes
/// a short message.
fn summarize(problems: &[String]) -> String {
    let listed = problems.len().min(MAX_LISTED_WARNINGS);
    let mut text = problems[..listed].join("; ");
    if problems.len() > listed {
        text.push_str(&format!("; and {} more", problems.len() - listed));
    }
    text
}

/// The places the configuration is looked for, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Lookup {
    /// From `WUZI_CONFIG`: used alone when set.
    pub env_path: Option<PathBuf>,
    /// The executable's folder: first, since managers start the brain in another folder.
    pub exe_dir: Option<PathBuf>,
    /// The working directory: second.
    pub work_dir: Option<PathBuf>,
}

impl Lookup {
    /// The places for this process. Anything that cannot be determined is left out.
    pub fn from_process() -> Lookup {
        Lookup {
            env_path: std::env::var_os(ENV_VAR)
                .filter(|v: &OsString| !v.is_empty())
                .map(PathBuf::from),
            exe_dir: exe_dir(),
            work_dir: std::env::current_dir().ok(),
        }
    }

    /// The files to try after `env_path`, in order.
    pub fn candidates(&self) -> Vec<PathBuf> {
        [&self.exe_dir, &self.work_dir]
            .into_iter()
            .flatten()
            .map(|dir| dir.join(FILE_NAME))
            .collect()
    }
}

/// The folder of the running executable, if the system tells it.
pub fn exe_dir() -> Option<PathBuf> {
    std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(Path::to_path_buf))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Config {
        Config::from_text(text, ConfigSource::File(PathBuf::from("test.conf")))
    }

    #[test]
    fn the_embedded_default_parses_cleanly() {
        let config = parse(DEFAULT_TEXT);
        assert_eq!(config.take_warning(), None);
        let embedded = Config::embedded();
        assert_eq!(config.values, embedded.values);
        assert_eq!(embedded.get_i64("engine.hash_mb", -1), 0);
        assert!(embedded.get_i64("engine.threads", 0) >= 1);
        for switch in [
            "null_move",
            "threat_search",
            "threat_check",
            "interior_vcf",
            "lmr",
            "lmp",
            "reverse_futility",
        ] {
            let key = format!("search.{switch}");
            assert!(
                matches!(embedded.get(&key), Some("true" | "false")),
                "{key}"
            );
        }
        assert_eq!(embedded.get("log.level"), Some("off"));
        assert_eq!(embedded.get("log.file"), Some("wuzi.log"));
    }

    #[test]
    fn sections_comments_spaces_and_line_ends() {
        let text = "\u{feff}# a comment\r\n\
                    engine.threads=3\r\n\
                    \t[Search]   # switches\r\n\
                    \x20 NULL_MOVE   =   false   # off for a test\r\
                    lmr = no\n\
                    [log]\n\
                    file = run#2.log\n";
        let config = parse(text);
        assert_eq!(config.take_warning(), None);
        assert_eq!(config.get_i64("engine.threads", 0), 3);
        assert!(!config.get_bool("search.null_move", true));
        assert!(!config.get_bool("search.lmr", true));
        assert_eq!(
            config.get("search.interior_vcf"),
            Config::embedded().get("search.interior_vcf"),
            "untouched keys keep defaults"
        );
        assert_eq!(config.get_str("log.file", ""), "run#2.log");
    }

    #[test]
    fn bad_lines_keep_defaults_and_are_reported() {
        // Values opposite to the defaults, so each assertion can tell applied from not.
        let defaults = Config::embedded();
        let flip = |key: &str| {
            if defaults.get_bool(key, false) {
                "false"
            } else {
                "true"
            }
        };
        let text = format!(
            "engine.threads = many\n\
             just some words\n\
             [search\n\
             null_move = {}\n\
             [search]\n\
             lmr = maybe\n\
             interior_vcf = {}\n\
             nul_move = true\n\
             bad key = 1\n",
            flip("search.null_move"),
            flip("search.interior_vcf")
        );
        let config = parse(&text);
        assert_eq!(config.get("engine.threads"), defaults.get("engine.threads"));
        assert_eq!(
            config.get("search.null_move"),
            defaults.get("search.null_move"),
            "under a bad header"
        );
        assert_eq!(config.get("search.lmr"), defaults.get("search.lmr"));
        assert_eq!(
            config.get("search.interior_vcf"),
            Some(flip("search.interior_vcf")),
            "good lines still count"
        );
        assert_eq!(config.get("search.nul_move"), None);
        let warning = config.take_warning().unwrap_or_default();
        for expected in [
            "line 1", "line 2", "line 3", "line 6", "line 8", "nul_move", "line 9",
        ] {
            assert!(
                warning.contains(expected),
                "{expected} missing from: {warning}"
            );
        }
        assert!(!warning.contains("line 7"), "{warning}");
        assert!(!warning.contains('\n'));
        assert_eq!(config.take_warning(), None, "taken once");
    }

    #[test]
    fn a_key_set_twice_uses_the_later_value_and_says_so() {
        let config = parse("engine.threads = 2\nengine.threads = 4\n");
        assert_eq!(config.get_i64("engine.threads", 0), 4);
        assert!(config.take_warning().is_some_and(|w| w.contains("line 2")));
    }

    #[test]
    fn many_problems_still_make_one_short_line() {
        let text: String = (0..20).map(|i| format!("unknown.key{i} = 1\n")).collect();
        let warning = parse(&text).take_warning().unwrap_or_default();
        assert!(warning.contains("and 14 more"), "{warning}");
        assert!(!warning.contains("key19"));
        assert_eq!(warning.matches("test.conf").count(), 1, "{warning}");
    }

    #[test]
    fn typed_getters_fall_back_to_the_given_default() {
        let config = Config::embedded();
        assert_eq!(config.get_i64("eval.not_yet_named", 17), 17);
        assert_eq!(config.get_f64("eval.not_yet_named", 0.5), 0.5);
        assert!(config.get_bool("eval.not_yet_named", true));
        assert_eq!(config.get_str("eval.not_yet_named", "x"), "x");
        // A value of the wrong form for the getter: default and a warning.
        assert_eq!(config.get_i64("log.file", 9), 9);
        assert!(config
            .take_warning()
            .is_some_and(|w| w.contains("log.file")));
        // Out of range.
        assert_eq!(config.get_u64_in("engine.hash_mb", 1..=10, 5), 5);
        assert!(config
            .take_warning()
            .is_some_and(|w| w.contains("engine.hash_mb")));
        assert_eq!(config.get_u64_in("engine.hash_mb", 0..=10, 5), 0);
        assert_eq!(config.take_warning(), None);
    }

    #[test]
    fn choices_accept_any_case_and_reject_others() {
        let levels = ["off", "error", "warn", "info", "debug", "trace"];
        let config = parse("log.level = DEBUG\n");
        assert_eq!(config.get_choice("log.level", &levels, "off"), "debug");
        let config = parse("log.level = loud\n");
        assert_eq!(config.get_choice("log.level", &levels, "off"), "off");
        assert!(config.take_warning().is_some_and(|w| w.contains("loud")));
    }

    /// A fresh, empty folder under the system temp dir, unique to this test.
    fn temp_folder(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("wuzi-config-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("temp dir is writable");
        dir
    }

    fn write_conf(dir: &Path, threads: u32) -> PathBuf {
        let path = dir.join(FILE_NAME);
        fs::write(&path, format!("engine.threads = {threads}\n")).expect("temp file");
        path
    }

    #[test]
    fn lookup_prefers_the_executable_folder_then_the_working_directory() {
        let exe = temp_folder("exe");
        let work = temp_folder("work");
        let lookup = Lookup {
            env_path: None,
            exe_dir: Some(exe.clone()),
            work_dir: Some(work.clone()),
        };
        assert_eq!(Config::load_with(&lookup).source(), &ConfigSource::Embedded);

        let in_work = write_conf(&work, 2);
        let config = Config::load_with(&lookup);
        assert_eq!(config.source(), &ConfigSource::File(in_work));
        assert_eq!(config.get_i64("engine.threads", 0), 2);

        let in_exe = write_conf(&exe, 3);
        let config = Config::load_with(&lookup);
        assert_eq!(config.source(), &ConfigSource::File(in_exe));
        assert_eq!(config.get_i64("engine.threads", 0), 3);
        assert_eq!(config.take_warning(), None);

        let _ = fs::remove_dir_all(exe);
        let _ = fs::remove_dir_all(work);
    }

    #[test]
    fn the_environment_variable_path_is_used_alone() {
        let exe = temp_folder("env-exe");
        let chosen = temp_folder("env-chosen");
        write_conf(&exe, 3);
        let chosen_file = chosen.join("special.conf");
        fs::write(&chosen_file, "engine.threads = 5\n").expect("temp file");
        let mut lookup = Lookup {
            env_path: Some(chosen_file.clone()),
            exe_dir: Some(exe.clone()),
            work_dir: None,
        };
        let config = Config::load_with(&lookup);
        assert_eq!(config.get_i64("engine.threads", 0), 5);
        assert_eq!(config.source(), &ConfigSource::File(chosen_file));

        // A missing chosen file: built-in defaults and a warning, not the exe's file.
        lookup.env_path = Some(chosen.join("missing.conf"));
        let config = Config::load_with(&lookup);
        assert_eq!(config.source(), &ConfigSource::Embedded);
        assert!(config.take_warning().is_some_and(|w| w.contains(ENV_VAR)));

        let _ = fs::remove_dir_all(exe);
        let _ = fs::remove_dir_all(chosen);
    }

    #[test]
    fn an_unreadable_file_leaves_the_defaults_and_a_warning() {
        let dir = temp_folder("unreadable");
        let path = dir.join(FILE_NAME);
        fs::write(&path, [b'e', b'=', 0xff, 0xfe, b'\n']).expect("temp file");
        let lookup = Lookup {
            env_path: None,
            exe_dir: Some(dir.clone()),
            work_dir: None,
        };
        let config = Config::load_with(&lookup);
        assert_eq!(config.source(), &ConfigSource::Embedded);
        assert_eq!(config.values, Config::embedded().values);
        assert!(config.take_warning().is_some_and(|w| w.contains("UTF-8")));
        let _ = fs::remove_dir_all(dir);
    }
}
