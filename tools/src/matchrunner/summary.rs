//! The machine-readable match summary, `summary.json` (serde): written after every match
//! and merge, and read back by `wuzi-match merge`.
//!
//! Besides the totals it keeps every game whole (its moves as `[x, y, thinking µs]`, the
//! first `opening_stones` of them the opening's), so that a merge rebuilds the games of
//! its shards and computes the same tables and report as a single match. The layout
//! keeps one line per engine and per game.

use super::elo::{estimate, estimate_pairs, EloEstimate, Tally};
use super::engine::EngineSpec;
use super::game::{EndReason, GameOutcome, GameSetup, PlayedMove};
use super::opening::{Opening, Pairing};
use super::report::{clock_use, pair_tally, standings};
use super::shard::Shard;
use super::sprt::SprtParams;
use super::tournament::{game_file_stem, GameReport, MatchConfig, MatchResult};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::time::Duration;
use wuzi::types::{Color, Coord, Rule};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TallySummary {
    pub wins: u32,
    pub losses: u32,
    pub draws: u32,
}

impl From<Tally> for TallySummary {
    fn from(t: Tally) -> Self {
        TallySummary {
            wins: t.wins,
            losses: t.losses,
            draws: t.draws,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SprtSummary {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
    pub llr: f64,
    pub lower: f64,
    pub upper: f64,
    /// `continue`, `H0` or `H1`.
    pub decision: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EngineSummary {
    pub name: String,
    pub path: String,
    /// The engine's `ABOUT` line.
    pub about: String,
    /// The extra `INFO` settings sent to this engine only (`max_node` and the like).
    #[serde(default)]
    pub info: Vec<(String, String)>,
    /// The environment variables set for this engine's process.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env: Vec<(String, String)>,
    pub total: TallySummary,
    pub black: TallySummary,
    pub white: TallySummary,
    pub losses_by_reason: BTreeMap<String, u32>,
    pub moves: u64,
    pub longest_move_ms: u64,
    pub thinking_ms: u64,
    pub most_in_a_game_ms: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameSummary {
    /// 1-based game number in the whole match.
    pub game: usize,
    pub black: String,
    pub white: String,
    pub opening: String,
    /// The winning engine's name; `null` for a draw.
    pub winner: Option<String>,
    pub reason: String,
    pub detail: String,
    pub stones: usize,
    pub wall_ms: u64,
    pub thinking_ms: u64,
    /// The stem of the game's record files.
    pub record: String,
    /// Which engine (0 = the first `--engine`) had black.
    pub black_engine: usize,
    /// `black`, `white` or `null` for a draw.
    pub winner_color: Option<String>,
    /// The opening's line in its file; 0 for none.
    pub opening_line: usize,
    pub opening_stones: usize,
    /// When the game ended, in ms from the start of the match.
    pub ended_ms: u64,
    /// Every stone in order, black first: `[x, y, thinking time in µs]`.
    pub moves: Vec<(i32, i32, u64)>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub rule: String,
    pub width: usize,
    pub height: usize,
    pub timeout_turn: u64,
    pub timeout_match: u64,
    pub tolerance: u64,
    pub max_memory: u64,
    pub max_moves: usize,
    /// Games of the whole match.
    pub games_planned: usize,
    pub games_played: usize,
    /// The slice of the games this run played (`K/N`); absent for a whole match.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    /// For a merge: the shards merged, as `K/N DIR`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub merged_from: Vec<String>,
    pub concurrency: usize,
    /// When the match started, in ms since the Unix epoch.
    pub started_unix_ms: u64,
    pub wall_ms: u64,
    /// The workers' time for games (see `MatchResult::worker_time`).
    pub worker_ms: u64,
    pub stopped_early: bool,
    pub score: f64,
    pub tally: TallySummary,
    /// Elo values are `null` where infinite (a 100 % or 0 % score).
    pub elo: Option<f64>,
    pub elo_lower: Option<f64>,
    pub elo_upper: Option<f64>,
    pub los: f64,
    /// Game pairs by the first engine's half-points in them (0 … 4).
    pub pairs: [u32; 5],
    pub elo_pairs: Option<f64>,
    pub elo_pairs_lower: Option<f64>,
    pub elo_pairs_upper: Option<f64>,
    pub los_pairs: f64,
    pub sprt: Option<SprtSummary>,
    pub engines: [EngineSummary; 2],
    pub games: Vec<GameSummary>,
    pub warnings: Vec<String>,
}

fn finite(value: f64) -> Option<f64> {
    value.is_finite().then_some(value)
}

fn elo_fields(e: &EloEstimate) -> [Option<f64>; 3] {
    [finite(e.elo), finite(e.lower), finite(e.upper)]
}

fn millis(d: Duration) -> u64 {
    d.as_millis() as u64
}

fn color_name(color: Color) -> &'static str {
    match color {
        Color::Black => "black",
        Color::White => "white",
    }
}

fn game_summary(config: &MatchConfig, g: &GameReport) -> GameSummary {
    let opening_stones = g.outcome.moves.iter().filter(|m| m.from_opening).count();
    GameSummary {
        game: g.index + 1,
        black: config.engines[g.black_engine].name.clone(),
        white: config.engines[1 - g.black_engine].name.clone(),
        opening: g.opening.text.clone(),
        winner: g.winner_engine().map(|e| config.engines[e].name.clone()),
        reason: g.outcome.reason.name().to_string(),
        detail: g.outcome.detail.clone(),
        stones: g.outcome.moves.len(),
        wall_ms: millis(g.wall),
        thinking_ms: millis(g.thinking()),
        record: game_file_stem(g.index),
        black_engine: g.black_engine,
        winner_color: g.outcome.winner.map(|c| color_name(c).to_string()),
        opening_line: g.opening.line,
        opening_stones,
        ended_ms: millis(g.finished_at),
        moves: g
            .outcome
            .moves
            .iter()
            .map(|m| (m.coord.x, m.coord.y, m.time.as_micros() as u64))
            .collect(),
    }
}

impl Summary {
    pub fn new(config: &MatchConfig, result: &MatchResult) -> Summary {
        let state = &result.state;
        let table = standings(&state.games);
        let clocks = clock_use(&state.games);
        let engine = |i: usize| {
            let (spec, standing, clock) = (&config.engines[i], &table[i], &clocks[i]);
            EngineSummary {
                name: spec.name.clone(),
                path: spec.path.display().to_string(),
                about: result.about[i].clone(),
                info: spec.info.clone(),
                env: spec.env.clone(),
                total: standing.total().into(),
                black: standing.by_color[Color::Black.index()].into(),
                white: standing.by_color[Color::White.index()].into(),
                losses_by_reason: standing
                    .losses_by_reason
                    .iter()
                    .map(|(r, &n)| (r.name().to_string(), n))
                    .collect(),
                moves: clock.moves,
                longest_move_ms: millis(clock.longest_move),
                thinking_ms: millis(clock.total),
                most_in_a_game_ms: millis(clock.most_in_a_game),
            }
        };
        let mut games: Vec<&GameReport> = state.games.iter().collect();
        games.sort_by_key(|g| g.index);
        let e = estimate(&state.tally);
        let pairs = pair_tally(&state.games);
        let by_pairs = estimate_pairs(&pairs);
        let [elo, elo_lower, elo_upper] = elo_fields(&e);
        let [elo_pairs, elo_pairs_lower, elo_pairs_upper] = elo_fields(&by_pairs);
        let setup = &config.setup;
        Summary {
            rule: setup.rule.name().to_string(),
            width: setup.width,
            height: setup.height,
            timeout_turn: setup.time.turn_ms,
            timeout_match: setup.time.match_ms,
            tolerance: setup.time.tolerance_ms,
            max_memory: setup.max_memory,
            max_moves: setup.max_moves,
            games_planned: config.games,
            games_played: state.games.len(),
            shard: config.shard,
            merged_from: result.merged_from.clone(),
            concurrency: config.concurrency,
            started_unix_ms: result.started_unix_ms,
            wall_ms: millis(result.wall),
            worker_ms: millis(result.worker_time),
            stopped_early: result.stopped_early,
            score: state.tally.score(),
            tally: state.tally.into(),
            elo,
            elo_lower,
            elo_upper,
            los: e.los,
            pairs: pairs.counts,
            elo_pairs,
            elo_pairs_lower,
            elo_pairs_upper,
            los_pairs: by_pairs.los,
            sprt: config.sprt.map(|p| {
                let (lower, upper) = p.bounds();
                SprtSummary {
                    elo0: p.elo0,
                    elo1: p.elo1,
                    alpha: p.alpha,
                    beta: p.beta,
                    llr: p.llr(&state.tally),
                    lower,
                    upper,
                    decision: p.decide(&state.tally).name().to_string(),
                }
            }),
            engines: [engine(0), engine(1)],
            games: games.iter().map(|g| game_summary(config, g)).collect(),
            warnings: state.warnings.clone(),
        }
    }

    /// The summary as JSON: one line per key, per engine and per game.
    pub fn to_json(&self) -> String {
        let value = match serde_json::to_value(self) {
            Ok(value) => value,
            // Every field serialises; an error here is a bug in this module.
            Err(e) => return format!("{{\"error\": {:?}}}\n", e.to_string()),
        };
        let serde_json::Value::Object(fields) = value else {
            return String::new();
        };
        let lines: Vec<String> = fields
            .iter()
            .map(|(key, value)| format!("  {}: {}", compact(&key.as_str().into()), spread(value)))
            .collect();
        format!("{{\n{}\n}}\n", lines.join(",\n"))
    }

    pub fn from_json(text: &str) -> Result<Summary, String> {
        serde_json::from_str(text).map_err(|e| e.to_string())
    }

    /// The match as far as a summary tells it: the engines, the rule, the clocks and
    /// limits, the planned games and the SPRT; no openings (the games carry theirs).
    pub fn config(&self) -> Result<MatchConfig, String> {
        let engine = |e: &EngineSummary| EngineSpec {
            path: e.path.clone().into(),
            args: Vec::new(),
            dir: None,
            name: e.name.clone(),
            info: e.info.clone(),
            env: e.env.clone(),
        };
        let mut config = MatchConfig::new(engine(&self.engines[0]), engine(&self.engines[1]));
        config.setup = GameSetup {
            width: self.width,
            height: self.height,
            rule: Rule::parse(&self.rule).ok_or_else(|| format!("unknown rule {:?}", self.rule))?,
            max_memory: self.max_memory,
            max_moves: self.max_moves,
            ..GameSetup::default()
        };
        config.setup.time.turn_ms = self.timeout_turn;
        config.setup.time.match_ms = self.timeout_match;
        config.setup.time.tolerance_ms = self.tolerance;
        config.games = self.games_planned;
        config.concurrency = self.concurrency;
        config.shard = self.shard;
        config.sprt = self.sprt.as_ref().map(|s| SprtParams {
            elo0: s.elo0,
            elo1: s.elo1,
            alpha: s.alpha,
            beta: s.beta,
        });
        Ok(config)
    }

    /// The games rebuilt from the summary, by game number (their protocol logs are not
    /// kept here but in the records beside it).
    pub fn game_reports(&self) -> Result<Vec<GameReport>, String> {
        self.games.iter().map(game_report).collect()
    }
}

fn parse_color(name: &str) -> Result<Color, String> {
    Color::from_name(name).ok_or_else(|| format!("unknown colour {name:?}"))
}

fn game_report(g: &GameSummary) -> Result<GameReport, String> {
    let context = |e: String| format!("game {}: {}", g.game, e);
    if g.game == 0 || g.black_engine > 1 || g.opening_stones > g.moves.len() {
        return Err(context("inconsistent numbers".to_string()));
    }
    let reason = EndReason::from_name(&g.reason)
        .ok_or_else(|| context(format!("unknown end reason {:?}", g.reason)))?;
    let winner = g
        .winner_color
        .as_deref()
        .map(parse_color)
        .transpose()
        .map_err(context)?;
    let moves: Vec<PlayedMove> = g
        .moves
        .iter()
        .enumerate()
        .map(|(i, &(x, y, micros))| PlayedMove {
            coord: Coord::new(x, y),
            // Stones alternate from black, openings included.
            color: Color::BOTH[i % 2],
            time: Duration::from_micros(micros),
            from_opening: i < g.opening_stones,
        })
        .collect();
    let opening = Opening {
        moves: moves[..g.opening_stones].iter().map(|m| m.coord).collect(),
        text: g.opening.clone(),
        line: g.opening_line,
    };
    Ok(GameReport {
        index: g.game - 1,
        pairing: Pairing {
            // The opening's place in its file is not kept; its line identifies it.
            opening: g.opening_line,
            first_engine_black: g.black_engine == 0,
        },
        black_engine: g.black_engine,
        opening,
        outcome: GameOutcome {
            winner,
            reason,
            detail: g.detail.clone(),
            moves,
            logs: [Vec::new(), Vec::new()],
        },
        wall: Duration::from_millis(g.wall_ms),
        finished_at: Duration::from_millis(g.ended_ms),
    })
}

/// Writes JSON on one line with a space after every `:` and `,`.
struct Spaced;

impl serde_json::ser::Formatter for Spaced {
    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        if first {
            Ok(())
        } else {
            writer.write_all(b", ")
        }
    }

    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.begin_array_value(writer, first)
    }

    fn begin_object_value<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
    ) -> std::io::Result<()> {
        writer.write_all(b": ")
    }
}

fn compact(value: &serde_json::Value) -> String {
    let mut out = Vec::new();
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, Spaced);
    match value.serialize(&mut serializer) {
        Ok(()) => String::from_utf8_lossy(&out).into_owned(),
        Err(_) => "null".to_string(),
    }
}

/// A list of objects with one element per line, anything else on one line.
fn spread(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::Array(items)
            if !items.is_empty() && items.iter().all(|i| i.is_object()) =>
        {
            let lines: Vec<String> = items
                .iter()
                .map(|i| format!("    {}", compact(i)))
                .collect();
            format!("[\n{}\n  ]", lines.join(",\n"))
        }
        _ => compact(value),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matchrunner::tournament::MatchState;

    fn played(color: Color, x: i32, y: i32, micros: u64, from_opening: bool) -> PlayedMove {
        PlayedMove {
            coord: Coord::new(x, y),
            color,
            time: Duration::from_micros(micros),
            from_opening,
        }
    }

    fn sample() -> (MatchConfig, MatchResult) {
        let mut config = MatchConfig::new(EngineSpec::new("/x/alpha"), EngineSpec::new("beta"));
        config.engines[0].info = vec![("max_node".into(), "700".into())];
        config.games = 4;
        config.sprt = Some(SprtParams::default());
        let game =
            |index: usize, black_engine, winner, reason, moves: Vec<PlayedMove>| GameReport {
                index,
                pairing: Pairing {
                    opening: 3,
                    first_engine_black: black_engine == 0,
                },
                black_engine,
                opening: Opening {
                    moves: moves
                        .iter()
                        .filter(|m| m.from_opening)
                        .map(|m| m.coord)
                        .collect(),
                    text: "0,0".to_string(),
                    line: 3,
                },
                outcome: GameOutcome {
                    winner,
                    reason,
                    detail: "a \"quoted\"\nline".to_string(),
                    moves,
                    logs: [Vec::new(), Vec::new()],
                },
                wall: Duration::from_millis(1500),
                finished_at: Duration::from_millis(1500 * (index as u64 + 1)),
            };
        let games = vec![
            game(
                1,
                1,
                Some(Color::White),
                EndReason::Timeout,
                vec![
                    played(Color::Black, 7, 7, 0, true),
                    played(Color::White, 8, 8, 123_456, false),
                    played(Color::Black, 9, 9, 2_000_001, false),
                ],
            ),
            game(
                0,
                0,
                None,
                EndReason::MoveCap,
                vec![played(Color::Black, 7, 7, 0, true)],
            ),
        ];
        let mut state = MatchState {
            games,
            ..MatchState::default()
        };
        state.tally = Tally {
            wins: 1,
            losses: 0,
            draws: 1,
        };
        let result = MatchResult {
            state,
            about: ["alpha 1.0".into(), "beta".into()],
            started_unix_ms: 1_700_000_000_000,
            wall: Duration::from_millis(3000),
            worker_time: Duration::from_millis(3000),
            stopped_early: true,
            merged_from: Vec::new(),
        };
        (config, result)
    }

    #[test]
    fn json_keeps_one_line_per_game_and_reads_back_the_same() {
        let (config, result) = sample();
        let summary = Summary::new(&config, &result);
        let json = summary.to_json();
        assert!(json.contains("\n  \"games_played\": 2,\n"), "{json}");
        assert!(
            json.contains("\"losses_by_reason\": {\"timeout\": 1}"),
            "{json}"
        );
        assert!(
            json.contains("\"info\": [[\"max_node\", \"700\"]]"),
            "{json}"
        );
        // Games by number, one per line; the winner engine 0 had white in game 2.
        let game_lines: Vec<&str> = json.lines().filter(|l| l.contains("\"game\": ")).collect();
        assert_eq!(game_lines.len(), 2);
        assert!(game_lines[0].starts_with("    {\"game\": 1,"), "{json}");
        assert!(game_lines[1].contains("\"winner\": \"alpha\""), "{json}");
        assert!(game_lines[1].contains("\"moves\": [[7, 7, 0], [8, 8, 123456], [9, 9, 2000001]]"));
        let back = Summary::from_json(&json).unwrap();
        assert_eq!(back, summary);
        assert_eq!(back.sprt.as_ref().unwrap().decision, "continue");
    }

    #[test]
    fn games_and_config_are_rebuilt_from_the_summary() {
        let (config, result) = sample();
        let summary = Summary::from_json(&Summary::new(&config, &result).to_json()).unwrap();
        let rebuilt = summary.game_reports().unwrap();
        let mut original = result.state.games.clone();
        original.sort_by_key(|g| g.index);
        for (a, b) in original.iter().zip(&rebuilt) {
            assert_eq!(a.index, b.index);
            assert_eq!(a.black_engine, b.black_engine);
            assert_eq!(a.outcome.winner, b.outcome.winner);
            assert_eq!(a.outcome.reason, b.outcome.reason);
            assert_eq!(a.outcome.detail, b.outcome.detail);
            assert_eq!(a.outcome.moves, b.outcome.moves);
            assert_eq!(a.opening.moves, b.opening.moves);
            assert_eq!(a.finished_at, b.finished_at);
        }
        let c = summary.config().unwrap();
        assert_eq!(c.engines[0].name, "alpha");
        assert_eq!(c.engines[0].info, config.engines[0].info);
        assert_eq!(c.setup.time, config.setup.time);
        assert_eq!(c.sprt, config.sprt);
        assert_eq!(c.games, 4);
    }

    #[test]
    fn infinite_elo_is_null_and_bad_summaries_are_errors() {
        let (config, mut result) = sample();
        result.state.tally = Tally {
            wins: 2,
            losses: 0,
            draws: 0,
        };
        let summary = Summary::new(&config, &result);
        assert_eq!(summary.elo, None);
        assert!(summary.to_json().contains("\"elo\": null"));
        assert!(Summary::from_json("{\"rule\": 1}").is_err());
        let mut bad = summary.clone();
        bad.games[0].reason = "resigned".into();
        assert!(bad.game_reports().unwrap_err().contains("resigned"));
    }
}
