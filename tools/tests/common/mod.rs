//! Helpers shared by the tests that run whole matches through the `wuzi-match` binary:
//! the brain, scratch folders, a small repeatable fixed-node match and the comparison of
//! two summaries' results.

#![allow(dead_code)]

use serde_json::Value;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

pub const WUZI_MATCH: &str = env!("CARGO_BIN_EXE_wuzi-match");
/// The scriptable test brain (`tools/src/bin/wuzi-testbrain.rs`).
pub const TESTBRAIN: &str = env!("CARGO_BIN_EXE_wuzi-testbrain");

/// The test brain under `name`, started with `args` (its behaviour and options).
pub fn testbrain(name: &str, args: &[&str]) -> wuzi_tools::matchrunner::engine::EngineSpec {
    wuzi_tools::matchrunner::engine::EngineSpec {
        path: PathBuf::from(TESTBRAIN),
        args: args.iter().map(|a| a.to_string()).collect(),
        dir: None,
        name: name.to_string(),
        info: Vec::new(),
        env: Vec::new(),
    }
}

/// The brain, the workspace root package's binary, from the folder cargo put
/// `wuzi-match` in (`cargo test` at the root builds it there).
pub fn pbrain_wuzi() -> PathBuf {
    let name = format!("pbrain-wuzi{}", std::env::consts::EXE_SUFFIX);
    let path = Path::new(WUZI_MATCH).with_file_name(name);
    assert!(
        path.is_file(),
        "{} not built: run `cargo test` at the workspace root",
        path.display()
    );
    path
}

/// Says on the terminal that a test is skipped and why. Written to the stderr handle
/// itself, which the test harness does not capture, so the message shows in a plain
/// `cargo test` run.
pub fn skip(test: &str, why: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "SKIPPED {test}: {why}");
}

/// A fresh, empty scratch directory under the target directory.
pub fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Games of the small fixed-node match: 8 openings, both colours.
pub const FIXED_NODE_GAMES: usize = 16;

/// The two engines of the small fixed-node match, each as one `--engine` word list.
pub fn fixed_node_engines() -> [String; 2] {
    let brain = pbrain_wuzi();
    [
        format!("cmd={} name=n1000 nodes=1000", brain.display()),
        format!("cmd={} name=n600 nodes=600", brain.display()),
    ]
}

pub fn fixed_node_openings() -> PathBuf {
    workspace().join("openings/freestyle-15-240.txt")
}

/// The rest of the small fixed-node match: fresh brains for every game (so that games
/// depend only on their opening), a small hash table (quick to make), and an SPRT to
/// report (it stops nothing in shards, and it cannot decide in this short a match).
pub fn fixed_node_options() -> Vec<String> {
    [
        "--turn",
        "10000",
        "--max-memory",
        "120000000",
        "--fresh",
        "--sprt",
        "elo0=0",
        "elo1=5",
        "--quiet",
    ]
    .map(String::from)
    .into()
}

/// The whole command line of the small fixed-node match, without `--out`.
pub fn fixed_node_match_args() -> Vec<String> {
    let mut args = Vec::new();
    for engine in fixed_node_engines() {
        args.push("--engine".to_string());
        args.extend(engine.split_whitespace().map(String::from));
    }
    args.push("--openings".into());
    args.push(fixed_node_openings().display().to_string());
    args.push("--games".into());
    args.push(FIXED_NODE_GAMES.to_string());
    args.extend(fixed_node_options());
    args
}

/// Runs `command` with its output captured, killing it when it takes longer than
/// `limit`. The pipes are drained while it runs (a long output would fill them).
pub fn run_with_timeout(command: &mut Command, limit: Duration) -> Output {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {command:?}: {e}"));
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let stdout = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let stderr = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            panic!("{command:?} did not finish within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    Output {
        status,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    }
}

/// Runs `wuzi-match` with the brain's fixed-node configuration.
pub fn wuzi_match(args: &[String]) -> Output {
    let output = Command::new(WUZI_MATCH)
        .args(args)
        .env("WUZI_CONFIG", data("fixed-node.conf"))
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "wuzi-match {:?}:\n{}\n{}",
        args,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

pub fn summary(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join("summary.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The results of a summary, without its times: totals, standings, pairs, Elo, SPRT, and
/// every game's players, moves and end.
pub fn results(summary: &Value) -> Value {
    let mut totals = serde_json::Map::new();
    for key in [
        "games_planned",
        "games_played",
        "tally",
        "score",
        "elo",
        "elo_lower",
        "elo_upper",
        "los",
        "pairs",
        "elo_pairs",
        "elo_pairs_lower",
        "elo_pairs_upper",
        "los_pairs",
        "sprt",
    ] {
        totals.insert(key.into(), summary[key].clone());
    }
    let engines: Vec<Value> = summary["engines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            serde_json::json!({
                "name": e["name"], "total": e["total"], "black": e["black"],
                "white": e["white"], "losses_by_reason": e["losses_by_reason"],
                "moves": e["moves"],
            })
        })
        .collect();
    let games: Vec<Value> = summary["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            let stones: Vec<Value> = g["moves"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| serde_json::json!([m[0], m[1]]))
                .collect();
            serde_json::json!({
                "game": g["game"], "black": g["black"], "white": g["white"],
                "opening": g["opening"], "winner": g["winner"], "reason": g["reason"],
                "detail": g["detail"], "stones": stones,
            })
        })
        .collect();
    totals.insert("engines".into(), Value::Array(engines));
    totals.insert("games".into(), Value::Array(games));
    Value::Object(totals)
}

/// Asserts two summaries hold the same results, naming the first difference.
pub fn assert_same_results(unsharded: &Value, merged: &Value) {
    let (a, b) = (results(unsharded), results(merged));
    for (key, value) in a.as_object().unwrap() {
        assert_eq!(
            value, &b[key],
            "{key} differs: unsharded {value} merged {}",
            b[key]
        );
    }
}
