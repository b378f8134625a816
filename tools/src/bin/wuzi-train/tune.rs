//! `wuzi-train tune`: the hand-set evaluation's terms tuned by matches (SPSA).
//!
//! Fits to game outcomes or to a stronger engine's values have lost in play against the
//! hand-set tables (docs/experiments.md, "Evaluation weights"): what predicts a result is
//! not what the search needs at its leaves. Matches measure that directly. Each iteration
//! moves every term by ±its step at random (simultaneous perturbation), writes the two
//! weight sets, plays them against each other at a fixed node budget from a few balanced
//! openings with colours swapped, and moves the terms along the result: a term whose
//! `+` side won more goes up, by `lr` steps per game won. Openings whose two games each
//! side won with the same colour (the opening decided, not the terms) are drawn less
//! often afterwards. Every iteration appends a line to `DIR/log.jsonl`; a run started
//! again on the same directory goes on from its last line. The terms to keep are the
//! average over the second half of the run, printed as `wuzi-train hand-set` options.

use crate::hand_set;
use crate::progress::Progress;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use wuzi::types::Rule;
use wuzi_tools::matchrunner::engine::EngineSpec;
use wuzi_tools::matchrunner::game::GameSetup;
use wuzi_tools::matchrunner::opening::{load_openings, Opening, OpeningFormat};
use wuzi_tools::matchrunner::tournament::{run_match, MatchConfig};

/// One tuned term: a `wuzi-train hand-set` option name (names joined by `+` move
/// together), where it starts, its perturbation step and its bounds.
#[derive(Clone, Debug, PartialEq)]
pub struct Term {
    pub name: String,
    pub start: f64,
    pub step: f64,
    pub lo: f64,
    pub hi: f64,
}

impl Term {
    /// `NAME=START:STEP:LO:HI`.
    pub fn parse(text: &str) -> Result<Term, String> {
        let bad = || format!("--term: expected NAME=START:STEP:LO:HI, got {text:?}");
        let (name, numbers) = text.split_once('=').ok_or_else(bad)?;
        let n: Vec<f64> = numbers
            .split(':')
            .map(|v| v.trim().parse::<f64>())
            .collect::<Result<_, _>>()
            .map_err(|_| bad())?;
        let [start, step, lo, hi] = n[..] else {
            return Err(bad());
        };
        if name.is_empty() || step <= 0.0 || lo > hi || !(lo..=hi).contains(&start) {
            return Err(bad());
        }
        Ok(Term {
            name: name.to_string(),
            start,
            step,
            lo,
            hi,
        })
    }

    fn clamp(&self, v: f64) -> f64 {
        v.clamp(self.lo, self.hi)
    }
}

pub struct TuneOptions {
    pub engine: PathBuf,
    pub rule: Rule,
    pub nodes: u64,
    pub openings: PathBuf,
    /// Openings per iteration, each played twice with colours swapped.
    pub pairs: usize,
    pub iterations: usize,
    pub lr: f64,
    pub seed: u64,
    pub concurrency: usize,
    pub dir: PathBuf,
    pub terms: Vec<Term>,
}

/// One line of the log: the state after an iteration.
#[derive(Serialize, Deserialize)]
struct LogLine {
    k: usize,
    /// Games the `+` side won minus the games it lost.
    r: i32,
    theta: Vec<f64>,
    /// Draw weights of the openings met so far (by their text), 1 when absent.
    opening_weights: BTreeMap<String, f64>,
}

pub fn run(o: &TuneOptions) -> Result<(), String> {
    let setup = GameSetup {
        rule: o.rule,
        ..GameSetup::default()
    };
    let openings = load_openings(&o.openings, OpeningFormat::Auto, setup.width, setup.height)?;
    if openings.len() < o.pairs {
        return Err(format!(
            "{}: fewer openings than --pairs",
            o.openings.display()
        ));
    }
    // Every term must be one `hand-set` accepts before any game is played.
    let start: Vec<f64> = o.terms.iter().map(|t| t.start).collect();
    weights_file(o, &start)?;
    std::fs::create_dir_all(&o.dir).map_err(|e| format!("{}: {e}", o.dir.display()))?;
    let log_path = o.dir.join("log.jsonl");
    let mut history = read_log(&log_path, o.terms.len())?;
    let (mut theta, mut weights) = match history.last() {
        Some(last) => (last.theta.clone(), last.opening_weights.clone()),
        None => (start, BTreeMap::new()),
    };
    let mut log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log_path)
        .map_err(|e| format!("{}: {e}", log_path.display()))?;
    let progress = Progress::new("tune", o.iterations as u64);
    for k in history.len()..o.iterations {
        let mut rng = StdRng::seed_from_u64(o.seed ^ (k as u64).wrapping_mul(0x9E37_79B9));
        let signs: Vec<f64> = o
            .terms
            .iter()
            .map(|_| if rng.gen::<bool>() { 1.0 } else { -1.0 })
            .collect();
        let side = |sign: f64| -> Vec<f64> {
            o.terms
                .iter()
                .zip(&theta)
                .zip(&signs)
                .map(|((t, &v), &s)| t.clamp(v + sign * s * t.step).round())
                .collect()
        };
        let configs = [
            write_side(o, "plus", &side(1.0))?,
            write_side(o, "minus", &side(-1.0))?,
        ];
        let chosen = draw_openings(&openings, &weights, o.pairs, &mut rng);
        let (r, pairs) = play(o, &setup, &configs, &chosen)?;
        for (opening, winners) in pairs {
            let w = weights.entry(opening).or_insert(1.0);
            match winners {
                [Some(a), Some(b)] if a == b => *w = (*w * 1.5).min(3.0),
                [Some(_), Some(_)] => *w *= 0.4,
                _ => {}
            }
        }
        for ((v, t), s) in theta.iter_mut().zip(&o.terms).zip(&signs) {
            *v = t.clamp(*v + o.lr * t.step * f64::from(r) * s);
        }
        let line = LogLine {
            k,
            r,
            theta: theta.clone(),
            opening_weights: weights.clone(),
        };
        let text = serde_json::to_string(&line).map_err(|e| e.to_string())?;
        writeln!(log, "{text}").map_err(|e| format!("{}: {e}", log_path.display()))?;
        history.push(line);
        progress.update(k as u64 + 1, &format!("r {r:+}"));
    }
    progress.finish(history.len() as u64, "");
    report(o, &history);
    Ok(())
}

/// The log of an earlier run on this directory, if any.
fn read_log(path: &Path, terms: usize) -> Result<Vec<LogLine>, String> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Ok(Vec::new());
    };
    let lines: Vec<LogLine> = text
        .lines()
        .map(|l| serde_json::from_str(l).map_err(|e| format!("{}: {e}", path.display())))
        .collect::<Result<_, _>>()?;
    if lines.iter().any(|l| l.theta.len() != terms) {
        return Err(format!("{}: written for other terms", path.display()));
    }
    Ok(lines)
}

/// The `hand-set` options that set the terms to `values`.
fn hand_set_options(o: &TuneOptions, values: &[f64]) -> Vec<(String, String)> {
    o.terms
        .iter()
        .zip(values)
        .flat_map(|(t, v)| {
            t.name
                .split('+')
                .map(move |n| (n.to_string(), format!("{v}")))
        })
        .collect()
}

/// The rule's weights file with the terms at `values`.
fn weights_file(o: &TuneOptions, values: &[f64]) -> Result<Vec<u8>, String> {
    let options = hand_set_options(o, values);
    let terms: Vec<(&str, &str)> = options
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let w = crate::hand_set_weights(o.rule, &terms)?;
    Ok(hand_set::from_hand_set(o.rule, &w).to_bytes())
}

/// Writes one side's weights and the configuration that loads them (the default
/// configuration with only the rule's weights path set); returns the configuration's path.
fn write_side(o: &TuneOptions, side: &str, values: &[f64]) -> Result<PathBuf, String> {
    let weights = o.dir.join(format!("{side}.wzev"));
    std::fs::write(&weights, weights_file(o, values)?)
        .map_err(|e| format!("{}: {e}", weights.display()))?;
    let config = o.dir.join(format!("{side}.conf"));
    let text = config_with_weights(o.rule, &weights);
    std::fs::write(&config, text).map_err(|e| format!("{}: {e}", config.display()))?;
    Ok(config)
}

/// The default configuration with `eval.weights.<rule>` set to `path`.
fn config_with_weights(rule: Rule, path: &Path) -> String {
    let mut in_section = false;
    let mut out = String::new();
    for line in wuzi::config::DEFAULT_TEXT.lines() {
        if line.starts_with('[') {
            in_section = line.trim() == "[eval.weights]";
        }
        let key = line.split('=').next().unwrap_or("").trim();
        if in_section && key == rule.name() && line.contains('=') {
            out.push_str(&format!("{} = {}\n", rule.name(), path.display()));
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// `count` distinct openings, drawn by their weights (rand's weighted sampling without
/// replacement; uniformly should the weights ever be unusable).
fn draw_openings(
    openings: &[Opening],
    weights: &BTreeMap<String, f64>,
    count: usize,
    rng: &mut StdRng,
) -> Vec<Opening> {
    let weight = |op: &Opening| weights.get(&op.text).copied().unwrap_or(1.0);
    match openings.choose_multiple_weighted(rng, count, weight) {
        Ok(drawn) => drawn.cloned().collect(),
        Err(_) => openings.choose_multiple(rng, count).cloned().collect(),
    }
}

/// Winners of the two games of one opening (`true`: the `+` side), by the opening's text.
type PairResult = (String, [Option<bool>; 2]);

/// Plays the `+` side (`configs[0]`) against the `-` side from each opening, colours
/// swapped; returns the `+` side's wins less losses and each opening's two results.
fn play(
    o: &TuneOptions,
    setup: &GameSetup,
    configs: &[PathBuf; 2],
    chosen: &[Opening],
) -> Result<(i32, Vec<PairResult>), String> {
    let spec = |name: &str, config: &Path| EngineSpec {
        path: o.engine.clone(),
        args: Vec::new(),
        dir: None,
        name: name.to_string(),
        info: vec![("max_node".to_string(), o.nodes.to_string())],
        env: vec![(
            wuzi::config::ENV_VAR.to_string(),
            config.display().to_string(),
        )],
    };
    let mut config = MatchConfig::new(spec("plus", &configs[0]), spec("minus", &configs[1]));
    config.setup = setup.clone();
    // A fixed node budget decides the moves; the clock only guards against a hang.
    config.setup.time.turn_ms = 20_000;
    config.openings = chosen.to_vec();
    config.games = 2 * chosen.len();
    config.concurrency = o.concurrency;
    let result = run_match(&config, &|_, _| {})?;
    let tally = result.state.tally;
    let mut pairs: Vec<PairResult> = chosen
        .iter()
        .map(|op| (op.text.clone(), [None; 2]))
        .collect();
    for g in &result.state.games {
        let slot = usize::from(g.black_engine == 1);
        if let Some(pair) = pairs.get_mut(g.pairing.opening) {
            pair.1[slot] = g.winner_engine().map(|e| e == 0);
        }
    }
    Ok((tally.wins as i32 - tally.losses as i32, pairs))
}

/// Prints the terms averaged over the second half of the run, as `hand-set` options.
fn report(o: &TuneOptions, history: &[LogLine]) {
    let half = &history[history.len() / 2..];
    if half.is_empty() {
        return;
    }
    let avg: Vec<f64> = (0..o.terms.len())
        .map(|i| half.iter().map(|l| l.theta[i]).sum::<f64>() / half.len() as f64)
        .collect();
    let won: i32 = history.iter().map(|l| l.r).sum();
    println!(
        "{} iterations ({won:+} for the + sides), averaged over the last {}:",
        history.len(),
        half.len()
    );
    for (t, v) in o.terms.iter().zip(&avg) {
        println!(
            "  {:24} {:8.1} -> {:8.1} ({:+.2} steps)",
            t.name,
            t.start,
            v,
            (v - t.start) / t.step
        );
    }
    let options: Vec<String> =
        hand_set_options(o, &avg.iter().map(|v| v.round()).collect::<Vec<_>>())
            .into_iter()
            .map(|(k, v)| format!("--{k} {v}"))
            .collect();
    println!("wuzi-train hand-set options: {}", options.join(" "));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_term_is_read_with_its_step_and_bounds() {
        let t = Term::parse("open-four+double-four=348:50:50:1500").unwrap();
        assert_eq!(t.name, "open-four+double-four");
        assert_eq!((t.start, t.step, t.lo, t.hi), (348.0, 50.0, 50.0, 1500.0));
        assert_eq!(t.clamp(2000.0), 1500.0);
        for bad in [
            "tempo",
            "tempo=1:2:3",
            "tempo=5:1:0:4",
            "tempo=1:0:0:4",
            "=1:1:0:4",
        ] {
            assert!(Term::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_config_loads_the_weights_and_keeps_every_other_setting() {
        let text = config_with_weights(Rule::Renju, Path::new("/w/plus.wzev"));
        let config = wuzi::config::Config::from_text(&text, wuzi::config::ConfigSource::Embedded);
        let default = wuzi::config::Config::from_text(
            wuzi::config::DEFAULT_TEXT,
            wuzi::config::ConfigSource::Embedded,
        );
        assert_eq!(config.get("eval.weights.renju"), Some("/w/plus.wzev"));
        for key in default.keys().filter(|&k| k != "eval.weights.renju") {
            assert_eq!(config.get(key), default.get(key), "{key}");
        }
    }

    #[test]
    fn joined_names_set_every_term_they_name() {
        let o = TuneOptions {
            engine: PathBuf::new(),
            rule: Rule::Freestyle,
            nodes: 1,
            openings: PathBuf::new(),
            pairs: 1,
            iterations: 0,
            lr: 0.0,
            seed: 0,
            concurrency: 1,
            dir: PathBuf::new(),
            terms: vec![Term::parse("open-four+double-four=348:50:50:1500").unwrap()],
        };
        let set = |v: f64| {
            crate::hand_set_weights(
                Rule::Freestyle,
                &hand_set_options(&o, &[v])
                    .iter()
                    .map(|(k, v)| (k.as_str(), v.as_str()))
                    .collect::<Vec<_>>(),
            )
            .unwrap()
        };
        let w = set(400.0);
        use wuzi::pattern::Pattern;
        for class in [Pattern::OpenFour, Pattern::DoubleFour] {
            assert_eq!(w.class[class as usize], 400);
            assert_eq!(w.class_to_move[class as usize], 400);
        }
        assert_ne!(
            weights_file(&o, &[400.0]).unwrap(),
            weights_file(&o, &[348.0]).unwrap()
        );
    }

    #[test]
    fn openings_are_drawn_distinct_and_by_weight() {
        let openings: Vec<Opening> = (0..4)
            .map(|i| Opening {
                text: format!("o{i}"),
                ..Opening::empty()
            })
            .collect();
        let weights: BTreeMap<String, f64> =
            [("o0".to_string(), 1e-9), ("o1".to_string(), 1e-9)].into();
        let mut rng = StdRng::seed_from_u64(3);
        for _ in 0..50 {
            let mut drawn: Vec<String> = draw_openings(&openings, &weights, 2, &mut rng)
                .into_iter()
                .map(|op| op.text)
                .collect();
            drawn.sort();
            assert_eq!(drawn, ["o2", "o3"]);
        }
    }
}
