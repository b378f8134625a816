//! `report.html`: the match as a page to look at, one self-contained file (inline CSS,
//! SVG and a few lines of script, nothing loaded from elsewhere). It holds the result
//! table, Elo and its interval as the games came in, the SPRT's log-likelihood ratio
//! against its bounds, the time per move, and the boards of the decisive games.
//!
//! Written after every match and every merge from the same `MatchConfig` and
//! `MatchResult` as the printed table, so the two always agree.

use super::elo::{estimate, estimate_pairs, PairTally, Tally};
use super::game::EndReason;
use super::report::{clock_use, pair_tally, signed, standings};
use super::svg::{self, escape, Band, BoardMarks, Chart, Level, Line};
use super::tournament::{GameReport, MatchConfig, MatchResult};
use std::collections::BTreeMap;
use std::fmt::Write;
use wuzi::types::Color;

/// At most this many boards are drawn; games lost by a fault come first.
const MAX_BOARDS: usize = 48;
/// At most about this many points per curve.
const MAX_POINTS: usize = 1000;
/// The Elo axis never reaches further than this either way.
const ELO_AXIS_LIMIT: f64 = 800.0;

const STYLE: &str = "
body { font-family: system-ui, sans-serif; margin: 24px; color: #222; max-width: 1100px; }
h1 { font-size: 1.5em; margin-bottom: 4px; }
h2 { font-size: 1.15em; margin-top: 28px; border-bottom: 1px solid #ccc; }
.meta { color: #555; margin: 2px 0; }
table { border-collapse: collapse; margin: 8px 0; }
th, td { border: 1px solid #ccc; padding: 3px 9px; text-align: right; }
th:first-child, td:first-child { text-align: left; }
.figures p { margin: 4px 0; }
.chart { width: 100%; max-width: 720px; height: auto; display: block; }
.chart .grid { stroke: #e4e4e4; }
.chart .frame { fill: none; stroke: #888; }
.chart .tick, .chart .level { font-size: 11px; fill: #555; }
.chart .axis { font-size: 12px; fill: #333; }
.chart polyline { fill: none; stroke-width: 2; }
.elo { stroke: #1f5fa8; }
.band { fill: #1f5fa8; fill-opacity: 0.15; stroke: none; }
.pairs { stroke: #b35c00; stroke-dasharray: 5 3; }
.pairband { fill: #b35c00; fill-opacity: 0.12; stroke: none; }
.llr { stroke: #6a3d9a; }
.zero { stroke: #999; }
.upper { stroke: #2e8b3d; stroke-dasharray: 6 3; }
.lower { stroke: #c0392b; stroke-dasharray: 6 3; }
.limit { stroke: #c0392b; stroke-width: 1.5; stroke-dasharray: 4 3; }
.engine0 { fill: #1f5fa8; } .engine1 { fill: #e08a1e; }
.key0 { color: #1f5fa8; } .key1 { color: #e08a1e; }
.boards { display: flex; flex-wrap: wrap; gap: 18px; }
figure { margin: 0; width: 340px; }
figcaption { font-size: 13px; margin-top: 4px; }
.board { width: 340px; height: auto; }
.board .wood { fill: #e8c47c; }
.board .gridline { stroke: #7a5a1e; stroke-width: 0.8; }
.board .coord { font-size: 9px; fill: #5a4010; }
.board .stone.black { fill: #111; }
.board .stone.white { fill: #fafafa; stroke: #333; stroke-width: 0.8; }
.board .number { font-size: 9px; font-weight: bold; }
.board .on-black { fill: #fff; } .board .on-white { fill: #111; }
.board .opening { font-style: italic; opacity: 0.55; }
.board .last { fill: none; stroke: #e02020; stroke-width: 2.2; }
.board .previous { fill: none; stroke: #e02020; stroke-width: 1.2; stroke-dasharray: 2 2; }
.board .win { stroke: #e02020; stroke-width: 3; stroke-opacity: 0.55; stroke-linecap: round; }
.no-numbers .board .number { display: none; }
.warning { color: #a00; }
";

/// Marks the page as scripted (the report test reads the mark) and lets the reader hide
/// the move numbers on the boards.
const SCRIPT: &str = "
(function () {
  var box = document.getElementById('numbers');
  function apply() { document.body.classList.toggle('no-numbers', !box.checked); }
  if (box) { box.addEventListener('change', apply); apply(); }
  document.documentElement.setAttribute('data-script', 'ok');
})();
";

pub fn report_html(config: &MatchConfig, result: &MatchResult) -> String {
    let names = [&config.engines[0].name, &config.engines[1].name];
    let title = format!("{} vs {}", names[0], names[1]);
    let mut page = format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>wuzi-match: {}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n\
         <h1>wuzi-match: {}</h1>\n",
        escape(&title),
        escape(&title)
    );
    page.push_str(&header(config, result));
    page.push_str(&result_section(config, result));
    page.push_str(&elo_section(config, result));
    if config.sprt.is_some() {
        page.push_str(&sprt_section(config, result));
    }
    page.push_str(&time_section(config, result));
    page.push_str(&boards_section(config, result));
    let _ = write!(page, "<script>{SCRIPT}</script>\n</body>\n</html>\n");
    page
}

/// `2026-06-01 14:03 UTC` for a time in ms since the Unix epoch.
pub fn utc_time(unix_ms: u64) -> String {
    let secs = unix_ms / 1000;
    let days = (secs / 86_400) as i64;
    let (hour, minute) = (secs % 86_400 / 3600, secs % 3600 / 60);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02} {hour:02}:{minute:02} UTC")
}

fn header(config: &MatchConfig, result: &MatchResult) -> String {
    let setup = &config.setup;
    let time = &setup.time;
    let mut clock = format!("{} ms per move", time.turn_ms);
    if time.match_ms > 0 {
        let _ = write!(clock, ", {} ms per game", time.match_ms);
    }
    let mut out = format!(
        "<p class=\"meta\">Rule {}, {}×{} board, {}; {} of {} games played; started {}.</p>\n",
        setup.rule.name(),
        setup.width,
        setup.height,
        clock,
        result.state.games.len(),
        config.games,
        utc_time(result.started_unix_ms)
    );
    for (i, spec) in config.engines.iter().enumerate() {
        let info: Vec<String> = spec.info.iter().map(|(k, v)| format!("{k} {v}")).collect();
        let info = if info.is_empty() {
            String::new()
        } else {
            format!(" (INFO {})", info.join(", "))
        };
        let _ = writeln!(
            out,
            "<p class=\"meta\"><b class=\"key{i}\">{}</b>: {}{}; {}</p>",
            escape(&spec.name),
            escape(&spec.path.display().to_string()),
            escape(&info),
            escape(&result.about[i])
        );
    }
    if let Some(shard) = &config.shard {
        let _ = writeln!(
            out,
            "<p class=\"meta\">Shard {shard} of the match: merge the shards for its result.</p>"
        );
    }
    if !result.merged_from.is_empty() {
        let _ = writeln!(
            out,
            "<p class=\"meta\">Merged from {} shards: {}.</p>",
            result.merged_from.len(),
            escape(&result.merged_from.join(", "))
        );
    }
    for warning in &result.state.warnings {
        let _ = writeln!(out, "<p class=\"warning\">Warning: {}</p>", escape(warning));
    }
    out
}

fn tally_text(t: &Tally) -> String {
    format!("{}-{}-{}", t.wins, t.losses, t.draws)
}

fn reasons_text(reasons: &BTreeMap<EndReason, u32>) -> String {
    if reasons.is_empty() {
        return "none".to_string();
    }
    let parts: Vec<String> = reasons.iter().map(|(r, n)| format!("{r} {n}")).collect();
    parts.join(", ")
}

fn result_section(config: &MatchConfig, result: &MatchResult) -> String {
    let state = &result.state;
    let table = standings(&state.games);
    let mut out = String::from(
        "<h2>Result</h2>\n<table id=\"results\">\n<tr><th>Engine</th><th>Games</th><th>W</th>\
         <th>L</th><th>D</th><th>Score</th><th>Black W-L-D</th><th>White W-L-D</th>\
         <th>Losses by reason</th></tr>\n",
    );
    for (i, (spec, standing)) in config.engines.iter().zip(&table).enumerate() {
        let total = standing.total();
        let _ = writeln!(
            out,
            "<tr id=\"engine-{i}\"><td class=\"key{i}\">{}</td><td>{}</td><td>{}</td><td>{}</td>\
             <td>{}</td><td>{:.1}%</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&spec.name),
            total.games(),
            total.wins,
            total.losses,
            total.draws,
            100.0 * total.score(),
            tally_text(&standing.by_color[Color::Black.index()]),
            tally_text(&standing.by_color[Color::White.index()]),
            reasons_text(&standing.losses_by_reason)
        );
    }
    out.push_str("</table>\n<div class=\"figures\">\n");
    let e = estimate(&state.tally);
    let _ = writeln!(
        out,
        "<p>Elo {} − {}: <b id=\"elo\">{}</b> [<span id=\"elo-lower\">{}</span>, \
         <span id=\"elo-upper\">{}</span>] (95%), LOS {:.1}% (W-L-D <span id=\"tally\">{}</span>)</p>",
        escape(&config.engines[0].name),
        escape(&config.engines[1].name),
        signed(e.elo),
        signed(e.lower),
        signed(e.upper),
        100.0 * e.los,
        tally_text(&state.tally)
    );
    let pairs = pair_tally(&state.games);
    if pairs.pairs() > 0 {
        let p = estimate_pairs(&pairs);
        let counts: Vec<String> = pairs.counts.iter().map(u32::to_string).collect();
        let _ = writeln!(
            out,
            "<p>By pairs ({} openings, colours swapped; {}'s points 0/½/1/1½/2: \
             <span id=\"pentanomial\">{}</span>): <b id=\"elo-pairs\">{}</b> [{}, {}] (95%), LOS {:.1}%</p>",
            pairs.pairs(),
            escape(&config.engines[0].name),
            counts.join(" "),
            signed(p.elo),
            signed(p.lower),
            signed(p.upper),
            100.0 * p.los
        );
    }
    if let Some(sprt) = &config.sprt {
        let (lower, upper) = sprt.bounds();
        let _ = writeln!(
            out,
            "<p>SPRT elo0={} elo1={} α={} β={}: LLR <b id=\"llr\">{:.3}</b> [{:.3}, {:.3}], <b id=\"sprt\">{}</b></p>",
            sprt.elo0,
            sprt.elo1,
            sprt.alpha,
            sprt.beta,
            sprt.llr(&state.tally),
            lower,
            upper,
            sprt.decide(&state.tally).name()
        );
    }
    out.push_str("</div>\n");
    out.push_str(&clock_table(config, result));
    out
}

fn clock_table(config: &MatchConfig, result: &MatchResult) -> String {
    let time = &config.setup.time;
    let mut out = String::from(
        "<table id=\"clocks\">\n<tr><th>Clock</th><th>Moves</th><th>Mean ms</th>\
         <th>Longest move ms</th><th>Most in one game ms</th></tr>\n",
    );
    for (i, (spec, used)) in config
        .engines
        .iter()
        .zip(clock_use(&result.state.games))
        .enumerate()
    {
        let mean = if used.moves > 0 {
            used.total.as_secs_f64() * 1000.0 / used.moves as f64
        } else {
            0.0
        };
        let share = |ms: u128, limit: u64| {
            if limit == 0 {
                String::new()
            } else {
                format!(" ({:.0}%)", 100.0 * ms as f64 / limit as f64)
            }
        };
        let longest = used.longest_move.as_millis();
        let most = used.most_in_a_game.as_millis();
        let _ = writeln!(
            out,
            "<tr><td class=\"key{i}\">{}</td><td>{}</td><td>{:.1}</td><td>{}{}</td><td>{}{}</td></tr>",
            escape(&spec.name),
            used.moves,
            mean,
            longest,
            share(longest, time.turn_ms),
            most,
            share(most, time.match_ms)
        );
    }
    out.push_str("</table>\n");
    out
}

/// Keeps about `MAX_POINTS` of `n` points, the last always.
fn keep_point(i: usize, n: usize) -> bool {
    let step = n.div_ceil(MAX_POINTS).max(1);
    i.is_multiple_of(step) || i + 1 == n
}

/// Elo with its interval after each game (finishing order), per game and by pairs.
struct EloCurves {
    elo: Vec<(f64, f64)>,
    lower: Vec<(f64, f64)>,
    upper: Vec<(f64, f64)>,
    pairs: Vec<(f64, f64)>,
    pairs_lower: Vec<(f64, f64)>,
    pairs_upper: Vec<(f64, f64)>,
}

fn elo_curves(games: &[GameReport]) -> EloCurves {
    let mut curves = EloCurves {
        elo: Vec::new(),
        lower: Vec::new(),
        upper: Vec::new(),
        pairs: Vec::new(),
        pairs_lower: Vec::new(),
        pairs_upper: Vec::new(),
    };
    let mut tally = Tally::default();
    let mut pair_tally = PairTally::default();
    let mut open_pairs: BTreeMap<usize, usize> = BTreeMap::new();
    for (i, game) in games.iter().enumerate() {
        let half_points = match game.winner_engine() {
            Some(0) => {
                tally.wins += 1;
                2
            }
            Some(_) => {
                tally.losses += 1;
                0
            }
            None => {
                tally.draws += 1;
                1
            }
        };
        if let Some(first) = open_pairs.remove(&(game.index / 2)) {
            pair_tally.counts[first + half_points] += 1;
        } else {
            open_pairs.insert(game.index / 2, half_points);
        }
        if !keep_point(i, games.len()) {
            continue;
        }
        let x = (i + 1) as f64;
        let e = estimate(&tally);
        curves.elo.push((x, e.elo));
        curves.lower.push((x, e.lower));
        curves.upper.push((x, e.upper));
        if pair_tally.pairs() > 0 {
            let p = estimate_pairs(&pair_tally);
            curves.pairs.push((x, p.elo));
            curves.pairs_lower.push((x, p.lower));
            curves.pairs_upper.push((x, p.upper));
        }
    }
    curves
}

/// An axis range holding the finite values (and zero), within ±`limit`, padded.
fn value_range<'a>(values: impl Iterator<Item = &'a f64>, limit: f64) -> (f64, f64) {
    let (mut low, mut high) = (0.0f64, 0.0f64);
    for &v in values.filter(|v| v.is_finite()) {
        low = low.min(v.max(-limit));
        high = high.max(v.min(limit));
    }
    let pad = ((high - low) * 0.05).max(1.0);
    (low - pad, high + pad)
}

fn elo_section(config: &MatchConfig, result: &MatchResult) -> String {
    let games = &result.state.games;
    let mut out = String::from("<h2>Elo as the games came in</h2>\n");
    if games.is_empty() {
        out.push_str("<p>No games.</p>\n");
        return out;
    }
    let c = elo_curves(games);
    let all = c.lower.iter().chain(&c.upper).chain(&c.elo).map(|(_, v)| v);
    let y_range = value_range(all, ELO_AXIS_LIMIT);
    let chart = Chart {
        title: "Elo and its 95% interval after each game".into(),
        x_label: "games finished".into(),
        y_label: format!("Elo of {}", config.engines[0].name),
        x_range: (0.0, games.len() as f64),
        y_range,
        bands: vec![
            Band {
                class: "band",
                lower: c.lower,
                upper: c.upper,
            },
            Band {
                class: "pairband",
                lower: c.pairs_lower,
                upper: c.pairs_upper,
            },
        ],
        lines: vec![
            Line {
                class: "pairs",
                points: c.pairs,
            },
            Line {
                class: "elo",
                points: c.elo,
            },
        ],
        levels: vec![Level {
            class: "zero",
            y: 0.0,
            label: String::new(),
        }],
    };
    out.push_str(&svg::line_chart(&chart));
    out.push_str(
        "\n<p class=\"meta\">Blue: Elo per game with its 95% interval (shaded); orange, dashed: \
         Elo by pairs of games with colours swapped, with its interval. Infinite values \
         (all won or all lost) are drawn at the edge.</p>\n",
    );
    out
}

fn sprt_section(config: &MatchConfig, result: &MatchResult) -> String {
    let Some(sprt) = &config.sprt else {
        return String::new();
    };
    let games = &result.state.games;
    let mut tally = Tally::default();
    let mut points = vec![(0.0, 0.0)];
    for (i, game) in games.iter().enumerate() {
        match game.winner_engine() {
            Some(0) => tally.wins += 1,
            Some(_) => tally.losses += 1,
            None => tally.draws += 1,
        }
        if keep_point(i, games.len()) {
            points.push(((i + 1) as f64, sprt.llr(&tally)));
        }
    }
    let (lower, upper) = sprt.bounds();
    let values: Vec<f64> = points.iter().map(|p| p.1).chain([lower, upper]).collect();
    let (low, high) = value_range(values.iter(), f64::MAX);
    let chart = Chart {
        title: "SPRT log-likelihood ratio".into(),
        x_label: "games finished".into(),
        y_label: "LLR".into(),
        x_range: (0.0, games.len().max(1) as f64),
        y_range: (low.min(lower - 0.3), high.max(upper + 0.3)),
        bands: Vec::new(),
        lines: vec![Line {
            class: "llr",
            points,
        }],
        levels: vec![
            Level {
                class: "upper",
                y: upper,
                label: format!("H1 (elo1 = {}) at {:.2}", sprt.elo1, upper),
            },
            Level {
                class: "zero",
                y: 0.0,
                label: String::new(),
            },
            Level {
                class: "lower",
                y: lower,
                label: format!("H0 (elo0 = {}) at {:.2}", sprt.elo0, lower),
            },
        ],
    };
    format!(
        "<h2>SPRT</h2>\n{}\n<p class=\"meta\">The test stops at a bound: above the upper one \
         the difference is elo1 or more, below the lower one elo0 or less.</p>\n",
        svg::line_chart(&chart)
    )
}

/// The thinking time of every move each engine made (opening stones excluded), in ms.
fn move_times(games: &[GameReport]) -> [Vec<f64>; 2] {
    let mut times = [Vec::new(), Vec::new()];
    for game in games {
        for m in game.outcome.moves.iter().filter(|m| !m.from_opening) {
            times[game.engine_of(m.color)].push(m.time.as_secs_f64() * 1000.0);
        }
    }
    times
}

fn time_section(config: &MatchConfig, result: &MatchResult) -> String {
    let times = move_times(&result.state.games);
    let mut out = String::from("<h2>Time per move</h2>\n");
    let longest = times.iter().flatten().copied().fold(0.0, f64::max);
    if times.iter().all(Vec::is_empty) {
        out.push_str("<p>No moves.</p>\n");
        return out;
    }
    const BINS: usize = 25;
    // The turn limit is drawn when the moves come near it.
    let turn = config.setup.time.turn_ms as f64;
    let marks: Vec<(f64, String)> = if turn > 0.0 && turn <= 1.5 * longest {
        vec![(turn, format!("turn limit {} ms", config.setup.time.turn_ms))]
    } else {
        Vec::new()
    };
    let top = marks.iter().map(|m| m.0).fold(longest, f64::max);
    let step = svg::ticks(0.0, top.max(1.0), BINS)
        .windows(2)
        .map(|w| w[1] - w[0])
        .next()
        .unwrap_or(1.0);
    let bins = ((top / step).floor() as usize + 1).max(1);
    let edges: Vec<f64> = (0..=bins).map(|i| i as f64 * step).collect();
    let mut counts = vec![vec![0u64; 2]; bins];
    for (engine, list) in times.iter().enumerate() {
        for &ms in list {
            counts[((ms / step) as usize).min(bins - 1)][engine] += 1;
        }
    }
    out.push_str(&svg::histogram(
        "Moves by thinking time",
        "thinking time per move, ms",
        &edges,
        &counts,
        &["engine0", "engine1"],
        &marks,
    ));
    let _ = writeln!(
        out,
        "\n<p class=\"meta\">Bars of {} ms: <b class=\"key0\">{}</b> left, <b class=\"key1\">{}</b> right; \
         the turn limit is {} ms{}.</p>",
        step,
        escape(&config.engines[0].name),
        escape(&config.engines[1].name),
        config.setup.time.turn_ms,
        if config.setup.time.match_ms > 0 {
            format!(", the game limit {} ms", config.setup.time.match_ms)
        } else {
            String::new()
        }
    );
    out
}

/// The decisive games to draw, by game number: faults first when there are too many.
fn boards_to_draw(games: &[GameReport]) -> (Vec<&GameReport>, usize) {
    let mut decisive: Vec<&GameReport> = games
        .iter()
        .filter(|g| g.outcome.winner.is_some())
        .collect();
    decisive.sort_by_key(|g| (!g.outcome.reason.is_fault(), g.index));
    let total = decisive.len();
    decisive.truncate(MAX_BOARDS);
    decisive.sort_by_key(|g| g.index);
    (decisive, total)
}

fn boards_section(config: &MatchConfig, result: &MatchResult) -> String {
    let (shown, total) = boards_to_draw(&result.state.games);
    let mut out = format!("<h2>Decisive games ({total})</h2>\n");
    if total == 0 {
        out.push_str("<p>No decisive games.</p>\n");
        return out;
    }
    out.push_str(
        "<p class=\"meta\"><label><input type=\"checkbox\" id=\"numbers\" checked> move numbers</label>; \
         the last move ringed in red, the one before it dashed; opening stones' numbers pale.</p>\n",
    );
    if shown.len() < total {
        let _ = writeln!(
            out,
            "<p class=\"meta\">The first {} are drawn (games lost by a fault first); the others are in the records.</p>",
            shown.len()
        );
    }
    out.push_str("<div class=\"boards\">\n");
    for game in shown {
        out.push_str(&board_figure(config, game));
    }
    out.push_str("</div>\n");
    out
}

fn board_figure(config: &MatchConfig, game: &GameReport) -> String {
    let setup = &config.setup;
    let stones: Vec<_> = game.outcome.moves.iter().map(|m| m.coord).collect();
    let opening_stones = game.outcome.moves.iter().filter(|m| m.from_opening).count();
    let winning_line = if game.outcome.reason == EndReason::Five {
        svg::line_through_last(&stones)
    } else {
        Vec::new()
    };
    let picture = svg::board(
        setup.width,
        setup.height,
        &stones,
        &BoardMarks {
            opening_stones,
            winning_line: &winning_line,
        },
    );
    let black = &config.engines[game.black_engine].name;
    let white = &config.engines[1 - game.black_engine].name;
    let (winner, result) = match game.outcome.winner {
        Some(Color::Black) => (black, "1-0"),
        _ => (white, "0-1"),
    };
    let last_stone = match stones.last() {
        Some(c) if c.x < 26 => format!(" (last stone {})", c.to_pos_notation()),
        _ => String::new(),
    };
    let opening = if game.opening.line > 0 {
        format!(", opening line {}", game.opening.line)
    } else {
        String::new()
    };
    format!(
        "<figure id=\"game-{}\">{picture}<figcaption><b>Game {}</b>: {} (black) – {} (white) {result}, \
         {} wins; {}: {}{}; {} stones; rule {}{}.</figcaption></figure>\n",
        game.index + 1,
        game.index + 1,
        escape(black),
        escape(white),
        escape(winner),
        game.outcome.reason,
        escape(&game.outcome.detail),
        last_stone,
        stones.len(),
        setup.rule.name(),
        opening
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matchrunner::engine::EngineSpec;
    use crate::matchrunner::game::{GameOutcome, PlayedMove};
    use crate::matchrunner::opening::{Opening, Pairing};
    use crate::matchrunner::sprt::SprtParams;
    use crate::matchrunner::tournament::MatchState;
    use std::time::Duration;
    use wuzi::types::Coord;

    fn game(index: usize, winner: Option<Color>, reason: EndReason) -> GameReport {
        // Black's five on row 0 against white on row 1, 9 stones.
        let moves = (0..9)
            .map(|i| PlayedMove {
                coord: Coord::new((i / 2) as i32, (i % 2) as i32),
                color: Color::BOTH[i % 2],
                time: Duration::from_millis(10 * i as u64),
                from_opening: i < 2,
            })
            .collect();
        GameReport {
            index,
            pairing: Pairing {
                opening: 0,
                first_engine_black: index.is_multiple_of(2),
            },
            black_engine: index % 2,
            opening: Opening::empty(),
            outcome: GameOutcome {
                winner,
                reason,
                detail: "winning move <4,0>".into(),
                moves,
                logs: [Vec::new(), Vec::new()],
            },
            wall: Duration::from_millis(100),
            finished_at: Duration::from_millis(100 * index as u64),
        }
    }

    fn sample() -> (MatchConfig, MatchResult) {
        let mut config = MatchConfig::new(EngineSpec::new("a<b"), EngineSpec::new("c"));
        config.games = 4;
        config.sprt = Some(SprtParams::default());
        let games = vec![
            game(0, Some(Color::Black), EndReason::Five),
            game(1, Some(Color::White), EndReason::Timeout),
            game(2, None, EndReason::MoveCap),
        ];
        let state = MatchState {
            games,
            tally: Tally {
                wins: 2,
                losses: 0,
                draws: 1,
            },
            sprt: None,
            llr: None,
            warnings: vec!["disk full".into()],
        };
        let result = MatchResult {
            state,
            about: ["about a".into(), "about c".into()],
            started_unix_ms: 1_780_000_000_000,
            wall: Duration::from_secs(1),
            worker_time: Duration::from_secs(1),
            stopped_early: true,
            merged_from: Vec::new(),
        };
        (config, result)
    }

    #[test]
    fn the_page_holds_every_section_and_nothing_external() {
        let (config, result) = sample();
        let page = report_html(&config, &result);
        assert!(page.starts_with("<!DOCTYPE html>"));
        for part in [
            "id=\"results\"",
            "id=\"elo\">+279.6</b>",
            "id=\"tally\">2-0-1</span>",
            "id=\"llr\">",
            "<h2>SPRT</h2>",
            "<h2>Time per move</h2>",
            "<h2>Decisive games (2)</h2>",
            "id=\"game-1\"",
            "id=\"game-2\"",
            "Warning: disk full",
            "a&lt;b",
            "winning move &lt;4,0&gt;",
            "class=\"win\"",
        ] {
            assert!(page.contains(part), "{part} missing");
        }
        assert!(!page.contains("id=\"game-3\""), "a draw has no board");
        assert!(!page.contains("a<b"));
        for external in ["http://", "https://", "src=", "href=", "@import", "url("] {
            assert!(!page.contains(external), "{external}");
        }
    }

    #[test]
    fn dates_are_utc() {
        assert_eq!(utc_time(0), "1970-01-01 00:00 UTC");
        assert_eq!(utc_time(951_782_400_000), "2000-02-29 00:00 UTC");
        assert_eq!(utc_time(1_780_000_000_000), "2026-05-28 20:26 UTC");
    }

    #[test]
    fn curves_follow_the_finishing_order_and_are_thinned() {
        let games: Vec<GameReport> = (0..4)
            .map(|i| game(i, Some(Color::Black), EndReason::Five))
            .collect();
        let c = elo_curves(&games);
        assert_eq!(c.elo.len(), 4);
        // Engine 0 had black in games 0 and 2: +inf, 0, then +Elo(2/3), 0.
        assert_eq!(c.elo[0].1, f64::INFINITY);
        assert_eq!(c.elo[1].1, 0.0);
        assert_eq!(c.pairs.len(), 3);
        assert!((0..2500).filter(|&i| keep_point(i, 2500)).count() <= MAX_POINTS + 1);
        assert!(keep_point(2499, 2500));
    }

    #[test]
    fn faults_are_drawn_first_when_boards_are_too_many() {
        let mut games: Vec<GameReport> = (0..60)
            .map(|i| game(i, Some(Color::Black), EndReason::Five))
            .collect();
        games[59].outcome.reason = EndReason::Crash;
        let (shown, total) = boards_to_draw(&games);
        assert_eq!((shown.len(), total), (MAX_BOARDS, 60));
        assert_eq!(shown.last().map(|g| g.index), Some(59));
        assert!(shown.windows(2).all(|w| w[0].index < w[1].index));
    }
}
