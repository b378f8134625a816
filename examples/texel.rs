//! Fits the static evaluation's weights to game results (Texel-style tuning).
//!
//! ```text
//! cargo run --release --example texel -- [options] DIR_OR_SGF...
//!   --model tempo|split   tempo: the engine's form, one weight per class scaled by
//!                         tempo_per_mille for the side to move; split: the side to move
//!                         and the opponent get their own weight per class   [split]
//!   --skip N              positions before ply N are not sampled                [8]
//!   --holdout N           openings (first three moves) are numbered as first met;
//!                         the games of every N-th are held out of the fit and only
//!                         scored                                             [5]
//!   --iters N             full-batch Adam steps                              [3000]
//!   --tie NAME,...        split model: these classes keep one weight for both sides
//!                         (e.g. `one,two`: the many pairs on open space then add
//!                         nothing that flips sign with the side to move)
//!   --rule NAME           the games' rule: freestyle, standard, renju, caro [freestyle]
//!   --freeze NAME,...     these weights keep their starting values (e.g.
//!                         `tempo_per_mille`; split model: `them_<class>` for the
//!                         opponent's)
//! ```
//!
//! It reads the SGF records the match runner writes (folders are searched recursively),
//! keeps the 15x15 games of one rule decided by a five or drawn, drops repeated games (same
//! moves), replays each and samples every quiet position from ply `--skip` on: neither
//! side can make five, so the side to move neither wins at once nor must answer a four.
//! Each position yields the counts the evaluation reads (src/eval.rs) for the side to
//! move and for the opponent, and is labelled with the game's result for the side to
//! move (1 win, 0.5 draw, 0 loss).
//!
//! The fit is logistic: P(win) = sigmoid(K * value). K is chosen first, to best predict
//! the results from the default evaluation, and then held fixed, so the fitted weights
//! stay in the evaluation's units. The loss is the mean cross-entropy; the held-out
//! games show whether a gain over the default weights is real. Weights are printed as
//! `[eval]` config lines.
//!
//! Not part of the engine: a side tool, like the match runner.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};

use wuzi::board::Board;
use wuzi::eval::{self, can_four, Weights};
use wuzi::pattern::Pattern;
use wuzi::types::{Color, Coord, Rule};

/// The line classes with a weight to fit: one .. double four. Dead and overline weigh
/// nothing in freestyle, and quiet positions have no five points.
const CLASSES: [Pattern; 8] = [
    Pattern::One,
    Pattern::Two,
    Pattern::OpenTwo,
    Pattern::Three,
    Pattern::OpenThree,
    Pattern::Four,
    Pattern::OpenFour,
    Pattern::DoubleFour,
];
/// Counts per colour: the eight classes, then four-three and double-three cells.
const PER_SIDE: usize = CLASSES.len() + 2;
/// The config keys of the counts, in order (they name the printed weights).
fn names() -> [&'static str; PER_SIDE] {
    let mut names = [""; PER_SIDE];
    for (name, &class) in names.iter_mut().zip(&CLASSES) {
        *name = eval::class_key(class);
    }
    names[PER_SIDE - 2] = "four_three";
    names[PER_SIDE - 1] = "double_three";
    names
}

/// One sampled position, from the side to move's point of view.
struct Sample {
    us: [f64; PER_SIDE],
    them: [f64; PER_SIDE],
    /// The side to move has a combination cell and the opponent cannot four.
    combo: f64,
    /// The opponent has an open three or four-three point and we cannot four.
    must: f64,
    /// Result for the side to move: 1 win, 0.5 draw, 0 loss.
    result: f64,
}

struct Game {
    moves: Vec<Coord>,
    /// 1 black won, 0 white won, 0.5 draw.
    black_score: f64,
}

/// Parses one SGF record of the match runner; None for other rules, sizes or endings
/// (forfeits and time losses say nothing about the position).
fn parse_sgf(text: &str, rule: Rule) -> Option<Game> {
    let prop = |name: &str| -> Option<&str> {
        let start = text.find(&format!("{name}["))? + name.len() + 1;
        let len = text[start..].find(']')?;
        Some(&text[start..start + len])
    };
    if prop("RU")? != rule.name() || prop("SZ")? != "15" {
        return None;
    }
    let black_score = match prop("RE")? {
        "B+" => 1.0,
        "W+" => 0.0,
        "0" => 0.5,
        _ => return None,
    };
    let mut moves = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i + 5 < bytes.len() {
        if bytes[i] == b';'
            && (bytes[i + 1] == b'B' || bytes[i + 1] == b'W')
            && bytes[i + 2] == b'['
        {
            let x = bytes[i + 3].checked_sub(b'a')?;
            let y = bytes[i + 4].checked_sub(b'a')?;
            moves.push(Coord::new(x as i32, y as i32));
            i += 5;
        } else {
            i += 1;
        }
    }
    Some(Game { moves, black_score })
}

fn collect_sgf(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_dir() {
        if let Ok(entries) = fs::read_dir(path) {
            let mut paths: Vec<PathBuf> =
                entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
            paths.sort();
            for p in paths {
                collect_sgf(&p, out);
            }
        }
    } else if path.extension().is_some_and(|e| e == "sgf") {
        out.push(path.to_path_buf());
    }
}

fn side_counts(board: &Board, color: Color) -> [f64; PER_SIDE] {
    let mut c = [0.0; PER_SIDE];
    for (i, &class) in CLASSES.iter().enumerate() {
        c[i] = board.pattern_count(color, class) as f64;
    }
    c[CLASSES.len()] = board.four_three_cells(color) as f64;
    c[CLASSES.len() + 1] = board.double_three_cells(color) as f64;
    c
}

/// The quiet positions of one game, or None if its moves do not replay.
fn samples(game: &Game, rule: Rule, skip: usize) -> Option<Vec<Sample>> {
    let mut board = Board::new(15, 15, rule).ok()?;
    let mut out = Vec::new();
    for (ply, &mv) in game.moves.iter().enumerate() {
        if ply >= skip {
            let us = board.side_to_move();
            let them = us.opponent();
            let quiet = board.pattern_count(us, Pattern::Five) == 0
                && board.pattern_count(them, Pattern::Five) == 0;
            if quiet {
                let u = side_counts(&board, us);
                let t = side_counts(&board, them);
                let combo = (u[8] + u[9] > 0.0 && !can_four(&board, them)) as u8 as f64;
                let must = ((board.pattern_count(them, Pattern::OpenFour)
                    + board.pattern_count(them, Pattern::DoubleFour)
                    + board.four_three_cells(them)
                    > 0)
                    && !can_four(&board, us)) as u8 as f64;
                let result = if us == Color::Black {
                    game.black_score
                } else {
                    1.0 - game.black_score
                };
                let s = Sample {
                    us: u,
                    them: t,
                    combo,
                    must,
                    result,
                };
                // The features must reproduce the engine's evaluation exactly.
                let d = Weights::default_for(rule);
                let engine = d.evaluate(&board) as f64;
                let mine = Model::from_engine(&d).value(&s);
                assert!(
                    (engine - mine).abs() <= 1.0,
                    "feature mismatch: {engine} vs {mine}"
                );
                out.push(s);
            }
        }
        board.play(mv).ok()?;
    }
    Some(out)
}

/// Evaluation parameters in evaluation units.
#[derive(Clone, Debug)]
struct Model {
    split: bool,
    /// Split model: classes whose two weights are one.
    tied: [bool; PER_SIDE],
    /// Side to move's weights (tempo model: the shared weights).
    us: [f64; PER_SIDE],
    /// Opponent's weights (split model only).
    them: [f64; PER_SIDE],
    tempo: f64,
    combo: f64,
    must: f64,
}

impl Model {
    /// The engine's weights: the tempo model when the side to move's weights equal the
    /// opponent's, else the split model with the tempo factor folded in.
    fn from_engine(w: &Weights) -> Model {
        let side = |class: &[i32; Pattern::COUNT], four_three: i32, double_three: i32| {
            let mut c = [0.0; PER_SIDE];
            for (i, &p) in CLASSES.iter().enumerate() {
                c[i] = class[p as usize] as f64;
            }
            c[8] = four_three as f64;
            c[9] = double_three as f64;
            c
        };
        let us = side(
            &w.class_to_move,
            w.four_three_to_move,
            w.double_three_to_move,
        );
        let them = side(&w.class, w.four_three, w.double_three);
        let tempo = w.tempo_per_mille as f64 / 1000.0;
        let split = us != them;
        Model {
            split,
            tied: [false; PER_SIDE],
            us: if split { us.map(|x| x * tempo) } else { us },
            them,
            tempo: if split { 1.0 } else { tempo },
            combo: w.combo_to_move as f64,
            must: w.must_defend as f64,
        }
    }

    fn to_split(&self) -> Model {
        let mut m = self.clone();
        if !self.split {
            m.split = true;
            m.them = self.us;
            m.us = self.us.map(|w| w * self.tempo);
            m.tempo = 1.0;
        }
        m
    }

    fn value(&self, s: &Sample) -> f64 {
        let dot = |w: &[f64; PER_SIDE], c: &[f64; PER_SIDE]| -> f64 {
            w.iter().zip(c).map(|(a, b)| a * b).sum()
        };
        let (us, them) = if self.split {
            (dot(&self.us, &s.us), dot(&self.them, &s.them))
        } else {
            (self.tempo * dot(&self.us, &s.us), dot(&self.us, &s.them))
        };
        us - them + self.combo * s.combo - self.must * s.must
    }

    /// Parameters as one vector (for the optimiser): us, them (split only), tempo
    /// (tempo model only), combo, must.
    fn params(&self) -> Vec<f64> {
        let mut p = self.us.to_vec();
        if self.split {
            p.extend_from_slice(&self.them);
        } else {
            p.push(self.tempo);
        }
        p.push(self.combo);
        p.push(self.must);
        p
    }

    /// The names of `params`, as printed (split model: the opponent's get `them_`).
    fn param_names(&self) -> Vec<String> {
        let mut n: Vec<String> = names().iter().map(|s| s.to_string()).collect();
        if self.split {
            n.extend(names().iter().map(|s| format!("them_{s}")));
        } else {
            n.push("tempo_per_mille".to_string());
        }
        n.push("combo_to_move".to_string());
        n.push("must_defend".to_string());
        n
    }

    fn set_params(&mut self, p: &[f64]) {
        self.us.copy_from_slice(&p[..PER_SIDE]);
        let mut i = PER_SIDE;
        if self.split {
            self.them.copy_from_slice(&p[i..i + PER_SIDE]);
            i += PER_SIDE;
        } else {
            self.tempo = p[i];
            i += 1;
        }
        self.combo = p[i];
        self.must = p[i + 1];
    }

    /// d value / d params, in the order of `params`.
    fn gradient(&self, s: &Sample, g: &mut [f64]) {
        if self.split {
            for i in 0..PER_SIDE {
                if self.tied[i] {
                    g[i] = s.us[i] - s.them[i];
                    g[PER_SIDE + i] = g[i];
                } else {
                    g[i] = s.us[i];
                    g[PER_SIDE + i] = -s.them[i];
                }
            }
            g[2 * PER_SIDE] = s.combo;
            g[2 * PER_SIDE + 1] = -s.must;
        } else {
            let mut us_sum = 0.0;
            for (i, gi) in g[..PER_SIDE].iter_mut().enumerate() {
                *gi = self.tempo * s.us[i] - s.them[i];
                us_sum += self.us[i] * s.us[i];
            }
            g[PER_SIDE] = us_sum;
            g[PER_SIDE + 1] = s.combo;
            g[PER_SIDE + 2] = -s.must;
        }
    }
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// Mean cross-entropy of the results given P(win) = sigmoid(k * value).
fn loss(model: &Model, k: f64, data: &[Sample]) -> f64 {
    let eps = 1e-12;
    let total: f64 = data
        .iter()
        .map(|s| {
            let p = sigmoid(k * model.value(s)).clamp(eps, 1.0 - eps);
            -(s.result * p.ln() + (1.0 - s.result) * (1.0 - p).ln())
        })
        .sum();
    total / data.len() as f64
}

/// The K that best predicts the results from `model`: golden-section search on ln K.
fn fit_k(model: &Model, data: &[Sample]) -> f64 {
    let (mut lo, mut hi) = ((1e-5f64).ln(), (1e-1f64).ln());
    let phi = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..60 {
        let a = hi - phi * (hi - lo);
        let b = lo + phi * (hi - lo);
        if loss(model, a.exp(), data) < loss(model, b.exp(), data) {
            hi = b;
        } else {
            lo = a;
        }
    }
    ((lo + hi) / 2.0).exp()
}

/// Full-batch Adam on the mean cross-entropy with K fixed. Step sizes are relative to
/// each starting weight's size, since the weights span three orders of magnitude.
fn fit(
    model: &Model,
    k: f64,
    data: &[Sample],
    test: &[Sample],
    iters: usize,
    frozen: &[String],
) -> Model {
    let mut m = model.clone();
    let mut p = m.params();
    let n = p.len();
    let lr: Vec<f64> = p
        .iter()
        .zip(m.param_names())
        .map(|(w, name)| {
            if frozen.contains(&name) {
                0.0
            } else {
                0.002 * w.abs().max(1.0)
            }
        })
        .collect();
    let (b1, b2, eps) = (0.9, 0.999, 1e-12);
    let mut mom = vec![0.0; n];
    let mut vel = vec![0.0; n];
    let mut g = vec![0.0; n];
    let mut grad = vec![0.0; n];
    for t in 1..=iters {
        grad.iter_mut().for_each(|x| *x = 0.0);
        for s in data {
            let err = sigmoid(k * m.value(s)) - s.result;
            m.gradient(s, &mut g);
            for i in 0..n {
                grad[i] += k * err * g[i];
            }
        }
        for i in 0..n {
            let gi = grad[i] / data.len() as f64;
            mom[i] = b1 * mom[i] + (1.0 - b1) * gi;
            vel[i] = b2 * vel[i] + (1.0 - b2) * gi * gi;
            let mh = mom[i] / (1.0 - b1.powi(t as i32));
            let vh = vel[i] / (1.0 - b2.powi(t as i32));
            p[i] -= lr[i] * mh / (vh.sqrt() + eps);
            // Weights stay non-negative (the engine's config keys are).
            p[i] = p[i].max(0.0);
        }
        m.set_params(&p);
        if t % 1000 == 0 {
            println!(
                "step {t}: train loss {:.5}, held-out loss {:.5}",
                loss(&m, k, data),
                loss(&m, k, test)
            );
        }
    }
    m
}

fn print_model(name: &str, m: &Model) {
    println!("# {name}");
    if m.split {
        println!("{:<14} {:>9} {:>9}", "class", "to_move", "opponent");
        for (i, name) in names().iter().enumerate() {
            println!("{:<14} {:>9.2} {:>9.2}", name, m.us[i], m.them[i]);
        }
    } else {
        for (name, w) in names().iter().zip(&m.us) {
            println!("{name} = {w:.2}");
        }
        println!("tempo_per_mille = {:.0}", m.tempo * 1000.0);
    }
    println!("combo_to_move = {:.1}", m.combo);
    println!("must_defend = {:.1}", m.must);
}

/// The names of a comma-separated option value (`one,two`).
fn name_list(value: Option<String>) -> Vec<String> {
    value
        .unwrap_or_default()
        .split(',')
        .map(str::to_string)
        .collect()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut split, mut skip, mut holdout, mut iters) = (true, 8usize, 5u64, 3000usize);
    let mut inputs = Vec::new();
    let mut tie: Vec<String> = Vec::new();
    let mut rule = Rule::Freestyle;
    let mut frozen: Vec<String> = Vec::new();
    while let Some(a) = args.next() {
        let mut number = |name: &str| -> u64 {
            match args.next().and_then(|v| v.parse().ok()) {
                Some(v) => v,
                None => {
                    eprintln!("{name} needs a number");
                    std::process::exit(2);
                }
            }
        };
        match a.as_str() {
            "--model" => match args.next().as_deref() {
                Some("tempo") => split = false,
                Some("split") => split = true,
                _ => {
                    eprintln!("--model tempo|split");
                    std::process::exit(2);
                }
            },
            "--skip" => skip = number("--skip") as usize,
            "--holdout" => holdout = number("--holdout").max(1),
            "--iters" => iters = number("--iters") as usize,
            "--freeze" => frozen = name_list(args.next()),
            "--rule" => match args.next().as_deref().and_then(Rule::parse) {
                Some(r) => rule = r,
                None => {
                    eprintln!("--rule freestyle|standard|renju|caro");
                    std::process::exit(2);
                }
            },
            "--tie" => tie = name_list(args.next()),
            _ => inputs.push(PathBuf::from(a)),
        }
    }
    let mut files = Vec::new();
    for i in &inputs {
        collect_sgf(i, &mut files);
    }
    let mut seen = HashSet::new();
    let (mut train, mut test) = (Vec::new(), Vec::new());
    let (mut games_train, mut games_test) = (0, 0);
    let mut openings: HashMap<Vec<Coord>, u64> = HashMap::new();
    for f in &files {
        let Some(game) = fs::read_to_string(f)
            .ok()
            .as_deref()
            .and_then(|t| parse_sgf(t, rule))
        else {
            continue;
        };
        if game.moves.len() < 3 || !seen.insert(game.moves.clone()) {
            continue;
        }
        // Hold out whole openings: games from one opening are alike.
        let next = openings.len() as u64;
        let opening = *openings.entry(game.moves[..3].to_vec()).or_insert(next);
        let Some(s) = samples(&game, rule, skip) else {
            continue;
        };
        if opening.is_multiple_of(holdout) {
            games_test += 1;
            test.extend(s);
        } else {
            games_train += 1;
            train.extend(s);
        }
    }
    println!(
        "{} records, {} distinct games ({} openings): fit on {} games / {} positions, held out {} games / {} positions",
        files.len(),
        seen.len(),
        openings.len(),
        games_train,
        train.len(),
        games_test,
        test.len()
    );
    if train.is_empty() || test.is_empty() {
        eprintln!("no data");
        std::process::exit(1);
    }
    println!(
        "{:<14} {:>9} {:>9}   (mean count per training position)",
        "class", "to_move", "opponent"
    );
    for (i, name) in names().iter().enumerate() {
        let mean =
            |f: &dyn Fn(&Sample) -> f64| train.iter().map(f).sum::<f64>() / train.len() as f64;
        println!(
            "{:<14} {:>9.3} {:>9.3}",
            name,
            mean(&|s| s.us[i]),
            mean(&|s| s.them[i])
        );
    }
    let engine = Model::from_engine(&Weights::default_for(rule));
    let k = fit_k(&engine, &train);
    println!("K = {k:.6} (per evaluation unit)");
    println!(
        "default weights: train loss {:.5}, held-out loss {:.5}",
        loss(&engine, k, &train),
        loss(&engine, k, &test)
    );
    let mut start = if split { engine.to_split() } else { engine };
    for (i, name) in names().iter().enumerate() {
        if tie.iter().any(|t| t == name) {
            start.tied[i] = true;
            start.us[i] = start.them[i];
        }
    }
    if let Some(unknown) = frozen.iter().find(|f| !start.param_names().contains(f)) {
        eprintln!("--freeze: no weight named '{unknown}'");
        std::process::exit(2);
    }
    let fitted = fit(&start, k, &train, &test, iters, &frozen);
    println!(
        "fitted weights:  train loss {:.5}, held-out loss {:.5}",
        loss(&fitted, k, &train),
        loss(&fitted, k, &test)
    );
    print_model("fitted", &fitted);
}
