//! Command-line options of `wuzi-match`, parsed by hand into a `MatchConfig`.

use super::engine::{default_name, EngineSpec};
use super::game::GameSetup;
use super::opening::{load_openings, OpeningFormat};
use super::sprt::SprtParams;
use super::tournament::MatchConfig;
use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use wuzi::types::Rule;

pub const USAGE: &str = "\
usage: wuzi-match --engine cmd=PATH [name=NAME] [dir=DIR] [arg=ARG]... [nodes=N] [depth=N] [info=KEY:VALUE]...
                  --engine cmd=PATH [...] [options]
Plays two Piskvork-protocol brains against each other.
  --rule R           freestyle | standard | renju | caro | INFO number  [freestyle]
  --size N | WxH     board size                                         [15]
  --turn MS          timeout_turn, ms per move (0 = play at once)       [1000]
  --match MS         timeout_match, ms per game (0 = unlimited)         [0]
  --tolerance MS     grace beyond the limits before a move is late      [1000]
  --max-memory B     INFO max_memory in bytes (0 = no limit)            [367001600]
  --max-moves N      draw when N stones are on the board (0 = never)    [0]
  --start-timeout MS limit for the ABOUT and START answers              [10000]
  --openings FILE    one opening per line; each is played twice, colours swapped
  --format F         offset | pos | auto (per line: a comma means offset) [auto]
  --shuffle SEED     play the openings in an order shuffled by SEED
  --games N          games to play            [2 per opening, or 2 without openings]
  -j, --concurrency N  games at once                                     [1]
  --sprt [elo0=E0] [elo1=E1] [alpha=A] [beta=B]  stop when decided   [0 10 0.05 0.05]
  --out DIR          records (SGF, PSQ, logs) and summary.json     [matches/<unix time>]
  --quiet            no progress lines
  -h, --help         this text";

/// What the command line asks for.
#[derive(Debug)]
pub enum Invocation {
    Help,
    Run {
        config: Box<MatchConfig>,
        quiet: bool,
    },
}

fn number<T: std::str::FromStr>(option: &str, value: Option<&String>) -> Result<T, String> {
    let value = value.ok_or_else(|| format!("{} needs a value", option))?;
    value
        .trim()
        .parse()
        .map_err(|_| format!("{}: not a valid number: {:?}", option, value))
}

fn text<'a>(option: &str, value: Option<&'a String>) -> Result<&'a String, String> {
    value.ok_or_else(|| format!("{} needs a value", option))
}

/// Splits `key=value` tokens following an option, stopping at the first other token.
fn key_values<'a>(args: &'a [String], start: &mut usize) -> Vec<(&'a str, &'a str)> {
    let mut pairs = Vec::new();
    while let Some(token) = args.get(*start) {
        match token.split_once('=') {
            Some((key, value)) if !token.starts_with('-') => {
                pairs.push((key, value));
                *start += 1;
            }
            _ => break,
        }
    }
    pairs
}

fn parse_engine(pairs: &[(&str, &str)]) -> Result<EngineSpec, String> {
    let mut path = None;
    let mut name = None;
    let mut dir = None;
    let mut args = Vec::new();
    let mut info = Vec::new();
    for &(key, value) in pairs {
        match key {
            "cmd" => path = Some(PathBuf::from(value)),
            "name" => name = Some(value.to_string()),
            "dir" => dir = Some(PathBuf::from(value)),
            "arg" => args.push(value.to_string()),
            "nodes" | "depth" => {
                value
                    .parse::<u64>()
                    .map_err(|_| format!("--engine {key}: not a number: {value:?}"))?;
                let info_key = if key == "nodes" {
                    "max_node"
                } else {
                    "max_depth"
                };
                info.push((info_key.to_string(), value.to_string()));
            }
            "info" => match value.split_once(':') {
                Some((k, v)) if !k.is_empty() && !k.contains(char::is_whitespace) => {
                    info.push((k.to_string(), v.to_string()))
                }
                _ => return Err(format!("--engine info: expected KEY:VALUE, got {value:?}")),
            },
            _ => return Err(format!("--engine: unknown key {:?}", key)),
        }
    }
    let path = path.ok_or("--engine needs cmd=PATH")?;
    Ok(EngineSpec {
        name: name.unwrap_or_else(|| default_name(&path)),
        path,
        args,
        dir,
        info,
    })
}

fn parse_sprt(pairs: &[(&str, &str)]) -> Result<SprtParams, String> {
    let mut params = SprtParams::default();
    for &(key, value) in pairs {
        let v: f64 = value
            .parse()
            .map_err(|_| format!("--sprt {}: not a number: {:?}", key, value))?;
        match key {
            "elo0" => params.elo0 = v,
            "elo1" => params.elo1 = v,
            "alpha" => params.alpha = v,
            "beta" => params.beta = v,
            _ => return Err(format!("--sprt: unknown key {:?}", key)),
        }
    }
    params.validate()?;
    Ok(params)
}

/// Parses `N` or `WxH`.
pub fn parse_size(value: &str) -> Option<(usize, usize)> {
    let lower = value.trim().to_ascii_lowercase();
    match lower.split_once('x') {
        Some((w, h)) => Some((w.trim().parse().ok()?, h.trim().parse().ok()?)),
        None => {
            let n = lower.parse().ok()?;
            Some((n, n))
        }
    }
}

/// Parses the arguments (without the program name) and loads the opening file.
pub fn parse_args(args: &[String]) -> Result<Invocation, String> {
    let mut engines = Vec::new();
    let mut setup = GameSetup::default();
    let mut openings_path = None;
    let mut format = OpeningFormat::Auto;
    let mut shuffle_seed = None;
    let mut games = None;
    let mut concurrency = 1usize;
    let mut sprt = None;
    let mut out_dir = None;
    let mut quiet = false;
    let mut i = 0;
    while i < args.len() {
        let option = args[i].as_str();
        let value = args.get(i + 1);
        i += 2; // most options take one value; the others step back below
        match option {
            "-h" | "--help" => return Ok(Invocation::Help),
            "--quiet" => {
                quiet = true;
                i -= 1;
            }
            "--engine" => {
                i -= 1;
                engines.push(parse_engine(&key_values(args, &mut i))?);
            }
            "--sprt" => {
                i -= 1;
                sprt = Some(parse_sprt(&key_values(args, &mut i))?);
            }
            "--rule" => {
                let v = text(option, value)?;
                setup.rule =
                    Rule::parse(v).ok_or_else(|| format!("--rule: unknown rule {:?}", v))?;
            }
            "--size" => {
                let v = text(option, value)?;
                (setup.width, setup.height) = parse_size(v)
                    .ok_or_else(|| format!("--size: expected N or WxH, got {:?}", v))?;
            }
            "--turn" => setup.time.turn_ms = number(option, value)?,
            "--match" => setup.time.match_ms = number(option, value)?,
            "--tolerance" => setup.time.tolerance_ms = number(option, value)?,
            "--max-memory" => setup.max_memory = number(option, value)?,
            "--max-moves" => setup.max_moves = number(option, value)?,
            "--start-timeout" => {
                setup.start_timeout = Duration::from_millis(number(option, value)?)
            }
            "--openings" => openings_path = Some(PathBuf::from(text(option, value)?)),
            "--format" => {
                let v = text(option, value)?;
                format = OpeningFormat::parse(v).ok_or_else(|| {
                    format!("--format: expected offset, pos or auto, got {:?}", v)
                })?;
            }
            "--shuffle" => shuffle_seed = Some(number(option, value)?),
            "--games" => games = Some(number(option, value)?),
            "-j" | "--concurrency" => concurrency = number(option, value)?,
            "--out" => out_dir = Some(PathBuf::from(text(option, value)?)),
            _ => return Err(format!("unknown option {:?} (see --help)", option)),
        }
    }
    let [first, second]: [EngineSpec; 2] =
        engines.try_into().map_err(|found: Vec<EngineSpec>| {
            format!("need exactly two --engine, got {}", found.len())
        })?;
    let mut config = MatchConfig::new(first, second);
    if config.engines[0].name == config.engines[1].name {
        // Self-play: keep the two sides apart in tables and records.
        config.engines[0].name.push_str("-1");
        config.engines[1].name.push_str("-2");
    }
    config.setup = setup;
    if let Some(path) = &openings_path {
        config.openings = load_openings(path, format, config.setup.width, config.setup.height)?;
        if config.openings.is_empty() {
            return Err(format!("{}: no openings", path.display()));
        }
    }
    config.games = games.unwrap_or(2 * config.openings.len().max(1));
    config.shuffle_seed = shuffle_seed;
    config.concurrency = concurrency.max(1);
    config.sprt = sprt;
    config.out_dir = Some(out_dir.unwrap_or_else(|| {
        let secs = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        PathBuf::from(format!("matches/{}", secs))
    }));
    Ok(Invocation::Run {
        config: Box::new(config),
        quiet,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matchrunner::clock::TimeControl;

    fn args(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_string).collect()
    }

    fn run(text: &str) -> (MatchConfig, bool) {
        match parse_args(&args(text)) {
            Ok(Invocation::Run { config, quiet }) => (*config, quiet),
            other => panic!("unexpected {:?}", other),
        }
    }

    #[test]
    fn full_command_line() {
        let (c, quiet) = run(
            "--engine cmd=/x/pbrain-a arg=-v arg=2 dir=/tmp nodes=700 depth=9 info=caution_factor:2 \
             --engine cmd=b name=base \
             --rule renju --size 20x15 --turn 200 --match 5000 --tolerance 50 --max-moves 200 \
             --games 7 -j 3 --sprt elo1=5 alpha=0.1 --out o --shuffle 9 --quiet",
        );
        assert!(quiet);
        assert_eq!(c.engines[0].name, "pbrain-a");
        assert_eq!(c.engines[0].args, vec!["-v", "2"]);
        assert_eq!(c.engines[0].dir, Some(PathBuf::from("/tmp")));
        let info: Vec<(&str, &str)> = c.engines[0]
            .info
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        assert_eq!(
            info,
            [
                ("max_node", "700"),
                ("max_depth", "9"),
                ("caution_factor", "2")
            ]
        );
        assert!(c.engines[1].info.is_empty());
        assert_eq!(c.engines[1].name, "base");
        assert_eq!(c.setup.rule, Rule::Renju);
        assert_eq!((c.setup.width, c.setup.height), (20, 15));
        assert_eq!(
            c.setup.time,
            TimeControl {
                turn_ms: 200,
                match_ms: 5000,
                tolerance_ms: 50
            }
        );
        assert_eq!(c.setup.max_moves, 200);
        assert_eq!(c.games, 7);
        assert_eq!(c.concurrency, 3);
        assert_eq!(c.shuffle_seed, Some(9));
        assert_eq!(c.out_dir, Some(PathBuf::from("o")));
        let sprt = c.sprt.unwrap();
        assert_eq!(
            (sprt.elo0, sprt.elo1, sprt.alpha, sprt.beta),
            (0.0, 5.0, 0.1, 0.05)
        );
    }

    #[test]
    fn self_play_names_are_told_apart_and_defaults_apply() {
        let (c, quiet) = run("--engine cmd=a/pbrain-w --engine cmd=b/pbrain-w");
        assert!(!quiet);
        assert_eq!(c.engines[0].name, "pbrain-w-1");
        assert_eq!(c.engines[1].name, "pbrain-w-2");
        assert_eq!(c.games, 2);
        assert_eq!(c.setup.rule, Rule::Freestyle);
        assert!(c.sprt.is_none());
    }

    #[test]
    fn bad_command_lines_are_errors_not_panics() {
        for bad in [
            "--engine cmd=a",
            "--engine name=x --engine cmd=b",
            "--engine cmd=a --engine cmd=b --turn",
            "--engine cmd=a --engine cmd=b --turn fast",
            "--engine cmd=a --engine cmd=b --size 15y",
            "--engine cmd=a --engine cmd=b --rule chess",
            "--engine cmd=a --engine cmd=b --sprt elo0=5 elo1=1",
            "--engine cmd=a --engine cmd=b --bogus",
            "--engine cmd=a --engine cmd=b --openings /nonexistent/file",
        ] {
            assert!(parse_args(&args(bad)).is_err(), "{}", bad);
        }
        assert!(matches!(parse_args(&args("--help")), Ok(Invocation::Help)));
    }
}
