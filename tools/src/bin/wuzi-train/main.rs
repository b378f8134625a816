//! `wuzi-train`: the pipeline that learns the evaluation and the move policy from games.
//!
//! ```text
//! wuzi-train gen --out FILE [--games N] [--nodes N] [--rules LIST] [--big-share F]
//!                [--threads N] [--seed S] [--window V]
//! ```
//! See docs/training.md for the whole pipeline and its figures.

mod dataset;
mod fit;
mod games;
mod hand_set;
mod import;
mod judge;
mod model;
mod policy;
mod progress;
mod selfplay;
mod tune;

use std::process::ExitCode;
use wuzi::types::Rule;

const USAGE: &str = "\
usage: wuzi-train gen --out FILE [--games N] [--nodes N] [--rules freestyle,standard,renju,caro]
                      [--big-share F] [--threads N] [--seed S] [--window V]
           self-play games at N nodes per move from random balanced openings
       wuzi-train fit --data FILE[,FILE…] --rule R [--to-move-cells on|off] [--iters N]
                      [--lr F] [--l2 F] [--result-weight F] [--scale F] [--holdout N]
                      [--policy-iters N] [--tables factored|full] [--colours shared|separate]
                      [--judged-only on|off] [--out FILE]
           fits the evaluation's tables to the games and prints the losses
       wuzi-train judge --data FILE --out FILE --engine CMD [--dir DIR] [--rule R] [--ms N]
                        [--every N] [--limit N]
           values positions of the games by another brain (its last reported value)
       wuzi-train import --out FILE DIR...
           the games of wuzi-match runs (their summary.json) as training data
       wuzi-train hand-set --out DIR [--tempo PER_MILLE] [--combo-to-move V] [--must-defend V]
                           [--[to-move-]TERM V]...
           writes the hand-set evaluation and move ordering as weights files, one per rule;
           TERM is four-three, double-three or a line class (one, two, open-two, three,
           open-three, four, open-four, double-four, five), set for both sides or, after
           to-move-, for the side to move alone
       wuzi-train tune --engine PATH --dir DIR --openings FILE --term NAME=START:STEP:LO:HI...
                       [--rule R] [--nodes N] [--pairs N] [--iterations N] [--lr F] [--seed S]
                       [--threads N]
           tunes hand-set terms (NAME as hand-set's options, a+b for two at once) by SPSA
           over fixed-node games of the engine against itself; resumes from DIR/log.jsonl";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("gen") => parse_gen(&args[1..]).and_then(|o| selfplay::run(&o)),
        Some("fit") => run_fit(&args[1..]),
        Some("hand-set") => run_hand_set(&args[1..]),
        Some("import") => run_import(&args[1..]),
        Some("judge") => parse_judge(&args[1..]).and_then(|o| judge::run(&o)),
        Some("tune") => parse_tune(&args[1..]).and_then(|o| tune::run(&o)),
        Some("help" | "--help" | "-h") => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        _ => Err(format!("unknown or missing subcommand\n{USAGE}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("wuzi-train: {e}");
            ExitCode::from(2)
        }
    }
}

/// `--key value` pairs.
fn pairs(args: &[String]) -> Result<Vec<(&str, &str)>, String> {
    if args.len() % 2 != 0 {
        return Err(format!("options come in pairs (--key value)\n{USAGE}"));
    }
    args.chunks(2)
        .map(|kv| match kv[0].strip_prefix("--") {
            Some(k) => Ok((k, kv[1].as_str())),
            None => Err(format!("expected an option, got {}", kv[0])),
        })
        .collect()
}

fn number<T: std::str::FromStr>(key: &str, v: &str) -> Result<T, String> {
    v.parse().map_err(|_| format!("--{key}: not a number: {v}"))
}

fn parse_rules(v: &str) -> Result<Vec<Rule>, String> {
    v.split(',')
        .map(|r| Rule::parse(r.trim()).ok_or_else(|| format!("unknown rule {r}")))
        .collect()
}

fn parse_gen(args: &[String]) -> Result<selfplay::GenOptions, String> {
    let mut o = selfplay::GenOptions {
        out: String::new(),
        games: 1000,
        nodes: 30_000,
        rules: Rule::ALL.to_vec(),
        big_share: 0.2,
        threads: 2,
        seed: 1,
        window: 200,
    };
    for (k, v) in pairs(args)? {
        match k {
            "out" => o.out = v.to_string(),
            "games" => o.games = number(k, v)?,
            "nodes" => o.nodes = number(k, v)?,
            "rules" => o.rules = parse_rules(v)?,
            "big-share" => o.big_share = number::<f64>(k, v)?.clamp(0.0, 1.0),
            "threads" => o.threads = number(k, v)?,
            "seed" => o.seed = number(k, v)?,
            "window" => o.window = number(k, v)?,
            _ => return Err(format!("unknown option --{k}\n{USAGE}")),
        }
    }
    if o.out.is_empty() {
        return Err(format!("--out is required\n{USAGE}"));
    }
    Ok(o)
}

fn parse_judge(args: &[String]) -> Result<judge::JudgeOptions, String> {
    let mut o = judge::JudgeOptions {
        data: String::new(),
        out: String::new(),
        engine: wuzi_tools::matchrunner::engine::EngineSpec::new(""),
        rule: Rule::Freestyle,
        turn_ms: 50,
        every: 3,
        limit: usize::MAX,
    };
    let mut command = String::new();
    let mut dir = None;
    for (k, v) in pairs(args)? {
        match k {
            "data" => o.data = v.to_string(),
            "out" => o.out = v.to_string(),
            "engine" => command = v.to_string(),
            "dir" => dir = Some(std::path::PathBuf::from(v)),
            "rule" => o.rule = parse_rules(v)?.first().copied().unwrap_or(Rule::Freestyle),
            "ms" => o.turn_ms = number(k, v)?,
            "every" => o.every = number(k, v)?,
            "limit" => o.limit = number(k, v)?,
            _ => return Err(format!("unknown option --{k}\n{USAGE}")),
        }
    }
    let mut words = command.split_whitespace();
    let Some(program) = words.next() else {
        return Err(format!("--engine is required\n{USAGE}"));
    };
    if o.data.is_empty() || o.out.is_empty() {
        return Err(format!("--data and --out are required\n{USAGE}"));
    }
    o.engine = wuzi_tools::matchrunner::engine::EngineSpec::new(program);
    o.engine.args = words.map(str::to_string).collect();
    o.engine.dir = dir;
    Ok(o)
}

fn load_games(list: &str) -> Result<Vec<games::Game>, String> {
    let mut all = Vec::new();
    for path in list.split(',') {
        let mut f = std::fs::File::open(path).map_err(|e| format!("{path}: {e}"))?;
        all.extend(games::read_games(&mut f).map_err(|e| format!("{path}: {e}"))?);
    }
    Ok(all)
}

fn run_fit(args: &[String]) -> Result<(), String> {
    let mut data = String::new();
    let mut rule = Rule::Freestyle;
    let mut model = model::Model {
        full: false,
        to_move_cells: true,
        per_colour: false,
    };
    let mut holdout = 10usize;
    let mut out = String::new();
    let mut policy_iterations = 300usize;
    let mut judged_only = false;
    let mut o = fit::FitOptions {
        scale: 0.0,
        result_weight: 0.5,
        search_scale: 0.0,
        iterations: 600,
        learning_rate: 2.0,
        l2: 0.0,
        threads: 2,
    };
    for (k, v) in pairs(args)? {
        match k {
            "data" => data = v.to_string(),
            "rule" => rule = parse_rules(v)?.first().copied().unwrap_or(Rule::Freestyle),
            "to-move-cells" => model.to_move_cells = v == "on",
            "tables" => model.full = v == "full",
            "colours" => model.per_colour = v == "separate",
            "iters" => o.iterations = number(k, v)?,
            "lr" => o.learning_rate = number(k, v)?,
            "l2" => o.l2 = number(k, v)?,
            "result-weight" => o.result_weight = number(k, v)?,
            "scale" => o.scale = number(k, v)?,
            "holdout" => holdout = number(k, v)?,
            "threads" => o.threads = number(k, v)?,
            "out" => out = v.to_string(),
            "policy-iters" => policy_iterations = number(k, v)?,
            "judged-only" => judged_only = v == "on",
            _ => return Err(format!("unknown option --{k}\n{USAGE}")),
        }
    }
    let games = load_games(&data)?;
    let d = dataset::build(&games, rule, &model, holdout, judged_only);
    let held = d.held_out.iter().filter(|&&h| h).count();
    eprintln!(
        "{} positions ({} held out) from {} games",
        d.len(),
        held,
        games.len()
    );
    let (k_search, l_search) = fit::best_scale(&d, &d.search);
    let (k_base, l_base) = fit::best_scale(&d, &d.baseline);
    eprintln!("search values: scale {k_search:.1}, held-out loss vs result {l_search:.5}");
    eprintln!("hand-set evaluation: scale {k_base:.1}, held-out loss vs result {l_base:.5}");
    o.search_scale = k_search;
    if o.scale <= 0.0 {
        // The hand-set evaluation's own scale keeps the fitted values in the units the
        // search's margins were set in; where it predicts nothing (a loss of ln 2, as on
        // positions chosen so that no side has a mate), that scale is meaningless and
        // the evaluation's nominal unit is used instead.
        o.scale = if l_base < std::f64::consts::LN_2 - 0.005 {
            k_base
        } else {
            eprintln!("hand-set scale meaningless here: fitting at the nominal {NOMINAL_SCALE}");
            NOMINAL_SCALE
        };
    }
    let mut w = vec![0.0; model.len()];
    fit::fit(&d, &mut w, &o);
    eprint!("{}", model.describe(&w));
    let mut pw = vec![0.0; policy::LEN];
    init_policy_from_hand_set(&mut pw, rule);
    let (l0, t0) = policy::loss(&d, &pw, true);
    eprintln!(
        "policy start (hand-set ordering): held-out {l0:.4} (top-1 {:.1}%)",
        100.0 * t0
    );
    policy::fit(&d, &mut pw, policy_iterations, 0.05, 1e-6, o.threads);
    if !out.is_empty() {
        let mut weights = model.export(rule, &w);
        export_policy(&mut weights, &pw);
        std::fs::write(&out, weights.to_bytes()).map_err(|e| format!("{out}: {e}"))?;
        eprintln!("wrote {out}");
    }
    Ok(())
}

/// Evaluation units per unit of log-odds of winning, as the engine defines them.
const NOMINAL_SCALE: f64 = 600.0;

/// Evaluation units of a policy table entry per unit of logit.
const POLICY_UNITS: f64 = 100.0;

fn init_policy_from_hand_set(pw: &mut [f64], rule: Rule) {
    use wuzi::eval::pcode::PCODE_COUNT;
    let hand = hand_set::from_hand_set(rule, &hand_set::Weights::default_for(rule));
    for stm in 0..2 {
        for side in 0..2 {
            for pc in 0..PCODE_COUNT {
                pw[policy::index(stm, side, pc)] =
                    f64::from(hand.policy[stm][side][pc]) / POLICY_UNITS;
            }
        }
    }
}

fn export_policy(out: &mut wuzi::eval::weights::LearnedWeights, pw: &[f64]) {
    use wuzi::eval::pcode::PCODE_COUNT;
    let round = |x: f64| x.round().clamp(f64::from(i16::MIN), f64::from(i16::MAX)) as i16;
    for us in 0..2 {
        for side in 0..2 {
            for pc in 0..PCODE_COUNT {
                out.policy[us][side][pc] = round(POLICY_UNITS * pw[policy::index(us, side, pc)]);
            }
        }
    }
}

fn run_hand_set(args: &[String]) -> Result<(), String> {
    let options = pairs(args)?;
    let dir = options
        .iter()
        .find(|(k, _)| *k == "out")
        .map(|(_, v)| v.to_string())
        .ok_or_else(|| format!("--out is required\n{USAGE}"))?;
    let terms: Vec<(&str, &str)> = options.into_iter().filter(|(k, _)| *k != "out").collect();
    // Every rule's weights are made, and so every option checked, before anything is written.
    let weights = Rule::ALL
        .into_iter()
        .map(|rule| hand_set_weights(rule, &terms).map(|w| (rule, w)))
        .collect::<Result<Vec<_>, String>>()?;
    std::fs::create_dir_all(&dir).map_err(|e| format!("{dir}: {e}"))?;
    for (rule, weights) in weights {
        let w = hand_set::from_hand_set(rule, &weights);
        let path = std::path::Path::new(&dir).join(format!("{}.wzev", rule.name()));
        std::fs::write(&path, w.to_bytes()).map_err(|e| format!("{}: {e}", path.display()))?;
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}

/// The hand-set weights of `rule` with the terms the options name replaced, in the
/// order given: `tempo`, `combo-to-move`, `must-defend`; `four-three`, `double-three`
/// and a line class's name (`two`, `open-three`, …) for both sides; the same with
/// `to-move-` in front for the side to move alone.
fn hand_set_weights(rule: Rule, terms: &[(&str, &str)]) -> Result<hand_set::Weights, String> {
    let mut w = hand_set::Weights::default_for(rule);
    for &(k, v) in terms {
        let (to_move_only, term) = match k.strip_prefix("to-move-") {
            Some(term) => (true, term),
            None => (false, k),
        };
        match (to_move_only, term) {
            (false, "tempo") => w.tempo_per_mille = number(k, v)?,
            (false, "combo-to-move") => w.combo_to_move = number(k, v)?,
            (false, "must-defend") => w.must_defend = number(k, v)?,
            (_, "four-three") => {
                w.four_three_to_move = number(k, v)?;
                if !to_move_only {
                    w.four_three = w.four_three_to_move;
                }
            }
            (_, "double-three") => {
                w.double_three_to_move = number(k, v)?;
                if !to_move_only {
                    w.double_three = w.double_three_to_move;
                }
            }
            _ => {
                let class = hand_set::class_of_option(term)
                    .ok_or_else(|| format!("unknown option --{k}\n{USAGE}"))?
                    as usize;
                w.class_to_move[class] = number(k, v)?;
                if !to_move_only {
                    w.class[class] = w.class_to_move[class];
                }
            }
        }
    }
    Ok(w)
}

fn parse_tune(args: &[String]) -> Result<tune::TuneOptions, String> {
    let mut o = tune::TuneOptions {
        engine: std::path::PathBuf::new(),
        rule: Rule::Freestyle,
        nodes: 40_000,
        openings: std::path::PathBuf::new(),
        pairs: 2,
        iterations: 400,
        lr: 0.05,
        seed: 1,
        concurrency: 2,
        dir: std::path::PathBuf::new(),
        terms: Vec::new(),
    };
    for (k, v) in pairs(args)? {
        match k {
            "engine" => o.engine = v.into(),
            "dir" => o.dir = v.into(),
            "openings" => o.openings = v.into(),
            "term" => o.terms.push(tune::Term::parse(v)?),
            "rule" => {
                o.rule = Rule::parse(v).ok_or_else(|| format!("unknown rule {v}"))?;
            }
            "nodes" => o.nodes = number(k, v)?,
            "pairs" => o.pairs = number(k, v)?,
            "iterations" => o.iterations = number(k, v)?,
            "lr" => o.lr = number(k, v)?,
            "seed" => o.seed = number(k, v)?,
            "threads" => o.concurrency = number(k, v)?,
            _ => return Err(format!("unknown option --{k}\n{USAGE}")),
        }
    }
    let missing = [
        ("engine", o.engine.as_os_str().is_empty()),
        ("dir", o.dir.as_os_str().is_empty()),
        ("openings", o.openings.as_os_str().is_empty()),
        ("term", o.terms.is_empty()),
    ];
    if let Some((name, _)) = missing.iter().find(|(_, m)| *m) {
        return Err(format!("--{name} is required\n{USAGE}"));
    }
    if o.pairs == 0 || o.concurrency == 0 {
        return Err("--pairs and --threads must be at least 1".into());
    }
    Ok(o)
}

fn run_import(args: &[String]) -> Result<(), String> {
    let (out, dirs) = match args {
        [flag, out, dirs @ ..] if flag == "--out" && !dirs.is_empty() => (out, dirs),
        _ => {
            return Err(format!(
                "usage: wuzi-train import --out FILE DIR...\n{USAGE}"
            ))
        }
    };
    let n = import::run(dirs, out)?;
    eprintln!("wrote {n} games to {out}");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use wuzi::pattern::Pattern;

    #[test]
    fn hand_set_options_replace_one_term_each() {
        let d = hand_set::Weights::default_for(Rule::Renju);
        let w =
            hand_set_weights(Rule::Renju, &[("tempo", "1300"), ("must-defend", "300")]).unwrap();
        assert_eq!((w.tempo_per_mille, w.must_defend), (1300, 300));
        assert_eq!(
            (w.four_three, w.combo_to_move, w.class),
            (d.four_three, d.combo_to_move, d.class)
        );
        let w = hand_set_weights(Rule::Renju, &[("four-three", "800")]).unwrap();
        assert_eq!((w.four_three, w.four_three_to_move), (800, 800));
        assert_eq!(w.tempo_per_mille, d.tempo_per_mille);
        assert!(hand_set_weights(Rule::Renju, &[("tempo", "fast")]).is_err());
        // A class for both sides, then for the side to move alone; later options win.
        let w = hand_set_weights(
            Rule::Freestyle,
            &[
                ("open-two", "7"),
                ("to-move-open-two", "11"),
                ("to-move-four-three", "500"),
            ],
        )
        .unwrap();
        let open_two = Pattern::OpenTwo as usize;
        assert_eq!((w.class[open_two], w.class_to_move[open_two]), (7, 11));
        assert_eq!((w.four_three, w.four_three_to_move), (d.four_three, 500));
        assert_eq!(
            w.class[Pattern::Three as usize],
            d.class[Pattern::Three as usize]
        );
        assert!(hand_set_weights(Rule::Renju, &[("to-move-tempo", "1")]).is_err());
        assert!(hand_set_weights(Rule::Renju, &[("open-twos", "1")]).is_err());
        assert!(hand_set_weights(Rule::Renju, &[("tempo-to-move", "1")]).is_err());
    }

    #[test]
    fn without_options_the_hand_set_files_are_the_compiled_in_weights() {
        let compiled: [&[u8]; 4] = [
            include_bytes!("../../../../weights/freestyle.wzev"),
            include_bytes!("../../../../weights/standard.wzev"),
            include_bytes!("../../../../weights/renju.wzev"),
            include_bytes!("../../../../weights/caro.wzev"),
        ];
        for (rule, bytes) in Rule::ALL.into_iter().zip(compiled) {
            let w = hand_set::from_hand_set(rule, &hand_set_weights(rule, &[]).unwrap());
            assert!(w.to_bytes() == bytes, "{rule}");
        }
    }
}
