//! Command-line options of `wuzi-match`, parsed with `clap` into a `MatchConfig`.
//!
//! `--engine` and `--sprt` take `key=value` words up to the next option, as before clap
//! (scripts outside the repository write them that way); what the words mean is checked
//! here, after clap has grouped them.

use super::engine::{default_name, EngineSpec};
use super::game::GameSetup;
use super::opening::{load_openings, OpeningFormat};
use super::shard::Shard;
use super::sprt::SprtParams;
use super::tournament::MatchConfig;
use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{ArgAction, ArgMatches, Args, CommandFactory, FromArgMatches, Parser, Subcommand};
use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use wuzi::types::Rule;

/// The command line as clap sees it.
#[derive(Parser, Debug)]
#[command(
    name = "wuzi-match",
    version,
    about = "Plays two Piskvork-protocol brains against each other.",
    override_usage = "wuzi-match --engine cmd=PATH [KEY=VALUE]... --engine cmd=PATH [KEY=VALUE]... [OPTIONS]\n       wuzi-match merge [--out DIR] DIR...",
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    run: RunArgs,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Combines the output directories of a match's shards (`--shard K/N`) into the
    /// match: its table, summary.json and report.html
    Merge(MergeArgs),
}

#[derive(Args, Debug)]
struct MergeArgs {
    /// Output directories of the shards, each holding its summary.json
    #[arg(value_name = "DIR", required = true)]
    dirs: Vec<PathBuf>,
    /// Where the merged summary.json and report.html go [default: matches/<unix time>-merged]
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Print nothing but errors
    #[arg(long)]
    quiet: bool,
}

#[derive(Args, Debug)]
struct RunArgs {
    /// A brain, given twice: cmd=PATH [name=NAME] [dir=DIR] [arg=ARG]... [nodes=N] [depth=N]
    /// [info=KEY:VALUE]... [env=NAME=VALUE]... (nodes and depth send INFO max_node and
    /// max_depth; env sets a variable for the brain's process)
    // clap's derive does not group the words by occurrence; `engine_words` does.
    #[arg(long = "engine", value_name = "KEY=VALUE", num_args = 1.., action = ArgAction::Append)]
    engines: Vec<String>,
    /// freestyle | standard | renju | caro | INFO number
    #[arg(long, value_name = "R", default_value = "freestyle", value_parser = parse_rule)]
    rule: Rule,
    /// Board size, N or WxH
    #[arg(long, value_name = "N|WxH", default_value = "15", value_parser = parse_size_arg)]
    size: (usize, usize),
    /// timeout_turn, ms per move (0 = play at once)
    #[arg(long, value_name = "MS", default_value_t = 1000)]
    turn: u64,
    /// timeout_match, ms per game (0 = unlimited)
    #[arg(long = "match", value_name = "MS", default_value_t = 0)]
    match_ms: u64,
    /// Grace beyond the limits before a move is late
    #[arg(long, value_name = "MS", default_value_t = 1000)]
    tolerance: u64,
    /// INFO max_memory in bytes (0 = no limit)
    #[arg(long, value_name = "B", default_value_t = 350 * 1024 * 1024)]
    max_memory: u64,
    /// Draw when N stones are on the board (0 = never)
    #[arg(long, value_name = "N", default_value_t = 0)]
    max_moves: usize,
    /// Limit for the ABOUT and START answers
    #[arg(long, value_name = "MS", default_value_t = 10_000)]
    start_timeout: u64,
    /// One opening per line; each is played twice, colours swapped
    #[arg(long, value_name = "FILE")]
    openings: Option<PathBuf>,
    /// offset | pos | auto (per line: a comma means offset)
    #[arg(long, value_name = "F", default_value = "auto", value_parser = parse_format)]
    format: OpeningFormat,
    /// Play the openings in an order shuffled by SEED
    #[arg(long, value_name = "SEED")]
    shuffle: Option<u64>,
    /// Games to play [default: 2 per opening, or 2 without openings]
    #[arg(long, value_name = "N")]
    games: Option<usize>,
    /// Games at once
    #[arg(
        short = 'j',
        long = "concurrency",
        value_name = "N",
        default_value_t = 1
    )]
    concurrency: usize,
    /// Play only the K-th of N slices of the game pairs (1 <= K <= N); both games of an
    /// opening are always in the same slice. `wuzi-match merge` combines the slices
    #[arg(long, value_name = "K/N", value_parser = Shard::parse)]
    shard: Option<Shard>,
    /// Start both brains anew for every game, so that no game depends on the games a
    /// brain played before (a brain that keeps its hash table between games plays a
    /// fixed-node game differently after another one)
    #[arg(long)]
    fresh: bool,
    /// Stop when decided: [elo0=E0] [elo1=E1] [alpha=A] [beta=B], defaults 0 10 0.05 0.05
    #[arg(long, value_name = "KEY=VALUE", num_args = 0..)]
    sprt: Option<Vec<String>>,
    /// Records (SGF, PSQ, logs), summary.json and report.html [default: matches/<unix time>]
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// No progress: neither the line per game (stdout) nor the bar or lines on stderr
    #[arg(long)]
    quiet: bool,
}

/// What the command line asks for.
#[derive(Debug)]
pub enum Invocation {
    /// `--help` or `--version`: the text to print on stdout.
    Help(String),
    Run {
        config: Box<MatchConfig>,
        quiet: bool,
    },
    Merge {
        dirs: Vec<PathBuf>,
        out: PathBuf,
        quiet: bool,
    },
}

/// The usage lines, for messages.
pub fn usage() -> String {
    Cli::command().render_usage().to_string()
}

fn parse_rule(text: &str) -> Result<Rule, String> {
    Rule::parse(text).ok_or_else(|| format!("unknown rule {text:?}"))
}

fn parse_format(text: &str) -> Result<OpeningFormat, String> {
    OpeningFormat::parse(text).ok_or_else(|| "expected offset, pos or auto".to_string())
}

fn parse_size_arg(text: &str) -> Result<(usize, usize), String> {
    parse_size(text).ok_or_else(|| "expected N or WxH".to_string())
}

/// Splits the words of `--engine` or `--sprt` into `(key, value)`.
fn key_values<'a>(option: &str, words: &'a [String]) -> Result<Vec<(&'a str, &'a str)>, String> {
    words
        .iter()
        .map(|word| {
            word.split_once('=')
                .ok_or_else(|| format!("{option}: expected KEY=VALUE, got {word:?}"))
        })
        .collect()
}

fn parse_engine(words: &[String]) -> Result<EngineSpec, String> {
    let mut path = None;
    let mut name = None;
    let mut dir = None;
    let mut args = Vec::new();
    let mut info = Vec::new();
    let mut env = Vec::new();
    for (key, value) in key_values("--engine", words)? {
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
            "env" => match value.split_once('=') {
                Some((k, v)) if !k.is_empty() => env.push((k.to_string(), v.to_string())),
                _ => return Err(format!("--engine env: expected NAME=VALUE, got {value:?}")),
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
        env,
    })
}

fn parse_sprt(words: &[String]) -> Result<SprtParams, String> {
    let mut params = SprtParams::default();
    for (key, value) in key_values("--sprt", words)? {
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

/// `matches/<unix time><suffix>`, the default output folder.
fn default_out(suffix: &str) -> PathBuf {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    PathBuf::from(format!("matches/{secs}{suffix}"))
}

/// The words of each `--engine`, one list per occurrence.
fn engine_words(matches: &ArgMatches) -> Vec<Vec<String>> {
    matches
        .get_occurrences::<String>("engines")
        .map(|occurrences| occurrences.map(|o| o.cloned().collect()).collect())
        .unwrap_or_default()
}

/// Builds the match from the parsed options and loads the opening file.
fn match_config(run: RunArgs, engines: &[Vec<String>]) -> Result<MatchConfig, String> {
    let engines = engines
        .iter()
        .map(|words| parse_engine(words))
        .collect::<Result<Vec<_>, _>>()?;
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
    let setup = GameSetup {
        rule: run.rule,
        width: run.size.0,
        height: run.size.1,
        max_memory: run.max_memory,
        max_moves: run.max_moves,
        start_timeout: Duration::from_millis(run.start_timeout),
        ..GameSetup::default()
    };
    config.setup = setup;
    config.setup.time.turn_ms = run.turn;
    config.setup.time.match_ms = run.match_ms;
    config.setup.time.tolerance_ms = run.tolerance;
    if let Some(path) = &run.openings {
        config.openings = load_openings(path, run.format, config.setup.width, config.setup.height)?;
        if config.openings.is_empty() {
            return Err(format!("{}: no openings", path.display()));
        }
    }
    config.games = run.games.unwrap_or(2 * config.openings.len().max(1));
    config.shuffle_seed = run.shuffle;
    config.concurrency = run.concurrency.max(1);
    config.shard = run.shard;
    config.fresh_engines = run.fresh;
    config.sprt = run.sprt.as_deref().map(parse_sprt).transpose()?;
    config.out_dir = Some(run.out.unwrap_or_else(|| default_out("")));
    Ok(config)
}

/// Parses the arguments (without the program name) and loads the opening file. An error
/// is the whole message to print, usage included.
pub fn parse_args(args: &[String]) -> Result<Invocation, String> {
    let words = std::iter::once("wuzi-match".to_string()).chain(args.iter().cloned());
    let parsed = Cli::command()
        .try_get_matches_from(words)
        .and_then(|matches| Cli::from_arg_matches(&matches).map(|cli| (cli, matches)));
    let (cli, matches) = match parsed {
        Ok(parsed) => parsed,
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => {
            return Ok(Invocation::Help(e.render().to_string()))
        }
        Err(mut e) => {
            // Value errors come without the usage; every refusal shows it.
            if e.get(ContextKind::Usage).is_none() {
                e.insert(
                    ContextKind::Usage,
                    ContextValue::StyledStr(Cli::command().render_usage()),
                );
            }
            return Err(e.render().to_string());
        }
    };
    let invalid = |message: String| {
        Cli::command()
            .error(ErrorKind::ValueValidation, message)
            .render()
            .to_string()
    };
    if let Some(Command::Merge(merge)) = cli.command {
        return Ok(Invocation::Merge {
            dirs: merge.dirs,
            out: merge.out.unwrap_or_else(|| default_out("-merged")),
            quiet: merge.quiet,
        });
    }
    let quiet = cli.run.quiet;
    let config = match_config(cli.run, &engine_words(&matches)).map_err(invalid)?;
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
             env=WUZI_CONFIG=/c/a=b.conf \
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
        assert_eq!(
            c.engines[0].env,
            [("WUZI_CONFIG".to_string(), "/c/a=b.conf".to_string())]
        );
        assert!(c.engines[1].info.is_empty() && c.engines[1].env.is_empty());
        assert_eq!(c.engines[1].name, "base");
        assert_eq!(c.shard, None);
        assert!(!c.fresh_engines);
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
        assert_eq!((c.setup.width, c.setup.height), (15, 15));
        assert_eq!(c.setup.time, TimeControl::default());
        assert_eq!(c.setup.max_memory, 367_001_600);
        assert_eq!(c.concurrency, 1);
        assert!(c.sprt.is_none());
    }

    #[test]
    fn sprt_alone_takes_the_defaults_and_shard_and_fresh_are_read() {
        let (c, _) = run("--engine cmd=a --sprt --engine cmd=b --shard 2/4 --fresh");
        assert_eq!(c.sprt, Some(SprtParams::default()));
        assert_eq!(c.shard, Some(Shard { index: 2, count: 4 }));
        assert!(c.fresh_engines);
        assert_eq!(c.engines[1].name, "b");
    }

    #[test]
    fn merge_takes_directories_and_an_output() {
        match parse_args(&args("merge a/s1 a/s2 --out a/all")) {
            Ok(Invocation::Merge { dirs, out, quiet }) => {
                assert_eq!(dirs, [PathBuf::from("a/s1"), PathBuf::from("a/s2")]);
                assert_eq!(out, PathBuf::from("a/all"));
                assert!(!quiet);
            }
            other => panic!("unexpected {:?}", other),
        }
        assert!(parse_args(&args("merge")).is_err());
        assert!(parse_args(&args("merge a --games 3")).is_err());
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
            "--engine cmd=a oops --engine cmd=b",
            "--engine cmd=a --engine cmd=b --shard 5/4",
            "--engine cmd=a --engine cmd=b --shard 0/4",
        ] {
            let error = parse_args(&args(bad)).expect_err(bad);
            assert!(error.contains("Usage:"), "{bad}: {error}");
        }
        assert!(matches!(
            parse_args(&args("--help")),
            Ok(Invocation::Help(_))
        ));
    }
}
