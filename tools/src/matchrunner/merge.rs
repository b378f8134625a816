//! `wuzi-match merge`: the summaries of a match's shards combined into the match.
//!
//! The games are rebuilt from each shard's summary.json and the whole match is computed
//! from them as if it had been played here: standings, losses by reason, Elo per game and
//! by pairs, the SPRT over the games in the order they ended (the shards' clocks are
//! aligned by their start times), and clock use.

use super::elo::Tally;
use super::summary::Summary;
use super::tournament::{GameReport, MatchConfig, MatchResult, MatchState};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Reads `DIR/summary.json`.
pub fn load_summary(dir: &Path) -> Result<Summary, String> {
    let path = dir.join("summary.json");
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read {}: {}", path.display(), e))?;
    Summary::from_json(&text).map_err(|e| format!("{}: {}", path.display(), e))
}

/// What must be equal for two summaries to be parts of one match.
fn match_identity(s: &Summary) -> impl PartialEq + std::fmt::Debug {
    (
        (s.rule.clone(), s.width, s.height),
        (s.timeout_turn, s.timeout_match, s.tolerance, s.max_moves),
        s.games_planned,
        [s.engines[0].name.clone(), s.engines[1].name.clone()],
        [s.engines[0].info.clone(), s.engines[1].info.clone()],
        s.sprt.as_ref().map(|p| [p.elo0, p.elo1, p.alpha, p.beta]),
    )
}

/// Checks the parts belong to one match and name each shard once; lists missing shards.
fn check_parts(parts: &[(PathBuf, Summary)]) -> Result<Vec<String>, String> {
    let (first_dir, first) = parts.first().ok_or("nothing to merge")?;
    let identity = match_identity(first);
    for (dir, summary) in &parts[1..] {
        if match_identity(summary) != identity {
            return Err(format!(
                "{} and {} are not parts of one match: engines, rule, board, clocks, game count and SPRT must agree",
                first_dir.display(),
                dir.display()
            ));
        }
    }
    let count = first.shard.map(|s| s.count);
    let mut seen = BTreeMap::new();
    for (dir, summary) in parts {
        if summary.shard.map(|s| s.count) != count {
            return Err(format!(
                "{}: shard {} does not match {} of {}",
                dir.display(),
                summary.shard.map_or("none".to_string(), |s| s.to_string()),
                count.map_or("no shard".to_string(), |n| format!("a split in {n}")),
                first_dir.display()
            ));
        }
        if let Some(shard) = summary.shard {
            if let Some(other) = seen.insert(shard.index, dir) {
                return Err(format!(
                    "shard {} twice: {} and {}",
                    shard,
                    other.display(),
                    dir.display()
                ));
            }
        }
    }
    let missing = match count {
        Some(n) => (1..=n)
            .filter(|k| !seen.contains_key(k))
            .map(|k| format!("shard {k}/{n} is missing: its games are not counted"))
            .collect(),
        None => Vec::new(),
    };
    Ok(missing)
}

/// The match made of the given parts, each `(its directory, its summary)`.
pub fn merge(parts: &[(PathBuf, Summary)]) -> Result<(MatchConfig, MatchResult), String> {
    let mut warnings = check_parts(parts)?;
    let mut config = parts[0].1.config()?;
    config.shard = None;
    let start = parts
        .iter()
        .map(|(_, s)| s.started_unix_ms)
        .min()
        .unwrap_or(0);
    let mut games: Vec<GameReport> = Vec::new();
    let mut owner: BTreeMap<usize, &Path> = BTreeMap::new();
    let mut end = Duration::ZERO;
    let mut worker_time = Duration::ZERO;
    let mut about = [String::new(), String::new()];
    let mut merged_from = Vec::new();
    for (dir, summary) in parts {
        let offset = Duration::from_millis(summary.started_unix_ms - start);
        for mut game in summary
            .game_reports()
            .map_err(|e| format!("{}: {}", dir.display(), e))?
        {
            if let Some(other) = owner.insert(game.index, dir) {
                return Err(format!(
                    "game {} is in both {} and {}",
                    game.index + 1,
                    other.display(),
                    dir.display()
                ));
            }
            game.finished_at += offset;
            games.push(game);
        }
        end = end.max(offset + Duration::from_millis(summary.wall_ms));
        worker_time += Duration::from_millis(summary.worker_ms);
        for (slot, engine) in about.iter_mut().zip(&summary.engines) {
            if slot.is_empty() {
                *slot = engine.about.clone();
            }
        }
        let shard = summary.shard.map_or("whole".to_string(), |s| s.to_string());
        merged_from.push(format!("{} {}", shard, dir.display()));
        warnings.extend(
            summary
                .warnings
                .iter()
                .map(|w| format!("{}: {}", dir.display(), w)),
        );
    }
    // As the games came in: by the time they ended, ties by game number.
    games.sort_by_key(|g| (g.finished_at, g.index));
    let state = state_of(&config, games, warnings);
    let stopped_early = state.games.len() < config.games;
    let result = MatchResult {
        state,
        about,
        started_unix_ms: start,
        wall: end,
        worker_time,
        stopped_early,
        merged_from,
    };
    Ok((config, result))
}

/// The tally and SPRT state after all `games`, from the first engine's side.
fn state_of(config: &MatchConfig, games: Vec<GameReport>, warnings: Vec<String>) -> MatchState {
    let mut tally = Tally::default();
    for game in &games {
        match game.winner_engine() {
            Some(0) => tally.wins += 1,
            Some(_) => tally.losses += 1,
            None => tally.draws += 1,
        }
    }
    MatchState {
        games,
        tally,
        sprt: config.sprt.map(|p| p.decide(&tally)),
        llr: config.sprt.map(|p| p.llr(&tally)),
        warnings,
    }
}

/// Reads the summaries in `dirs` and merges them.
pub fn merge_dirs(dirs: &[PathBuf]) -> Result<(MatchConfig, MatchResult), String> {
    let parts = dirs
        .iter()
        .map(|dir| load_summary(dir).map(|s| (dir.clone(), s)))
        .collect::<Result<Vec<_>, _>>()?;
    merge(&parts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matchrunner::engine::EngineSpec;
    use crate::matchrunner::game::{EndReason, GameOutcome};
    use crate::matchrunner::opening::{Opening, Pairing};
    use crate::matchrunner::shard::Shard;
    use wuzi::types::Color;

    fn game(index: usize, winner_engine: Option<usize>, finished_ms: u64) -> GameReport {
        let black_engine = index % 2;
        GameReport {
            index,
            pairing: Pairing {
                opening: 0,
                first_engine_black: black_engine == 0,
            },
            black_engine,
            opening: Opening::empty(),
            outcome: GameOutcome {
                winner: winner_engine.map(|e| {
                    if e == black_engine {
                        Color::Black
                    } else {
                        Color::White
                    }
                }),
                reason: if winner_engine.is_some() {
                    EndReason::Five
                } else {
                    EndReason::MoveCap
                },
                detail: String::new(),
                moves: Vec::new(),
                logs: [Vec::new(), Vec::new()],
            },
            wall: Duration::from_millis(10),
            finished_at: Duration::from_millis(finished_ms),
        }
    }

    /// The summary of shard `shard` of a 6-game match holding `games`.
    fn part(shard: Option<Shard>, start_ms: u64, games: Vec<GameReport>) -> (PathBuf, Summary) {
        let mut config = MatchConfig::new(EngineSpec::new("a"), EngineSpec::new("b"));
        config.games = 6;
        config.shard = shard;
        let state = state_of(&config, games, Vec::new());
        let result = MatchResult {
            state,
            about: ["A".into(), "B".into()],
            started_unix_ms: start_ms,
            wall: Duration::from_millis(1000),
            worker_time: Duration::from_millis(1000),
            stopped_early: false,
            merged_from: Vec::new(),
        };
        let name = shard.map_or("whole".to_string(), |s| format!("s{}", s.index));
        (PathBuf::from(name), Summary::new(&config, &result))
    }

    fn shard(index: usize) -> Option<Shard> {
        Some(Shard { index, count: 2 })
    }

    #[test]
    fn shards_merge_into_the_match_in_the_order_the_games_ended() {
        // Shard 2 started 500 ms after shard 1.
        let one = part(
            shard(1),
            10_000,
            vec![game(0, Some(0), 100), game(1, Some(0), 900)],
        );
        let two = part(
            shard(2),
            10_500,
            vec![
                game(2, Some(1), 100),
                game(3, None, 200),
                game(4, Some(0), 300),
                game(5, Some(0), 600),
            ],
        );
        let (config, result) = merge(&[two, one]).unwrap();
        assert_eq!(config.games, 6);
        assert_eq!(config.shard, None);
        let t = result.state.tally;
        assert_eq!((t.wins, t.losses, t.draws), (4, 1, 1));
        let order: Vec<usize> = result.state.games.iter().map(|g| g.index).collect();
        assert_eq!(order, [0, 2, 3, 4, 1, 5]);
        assert_eq!(result.wall, Duration::from_millis(1500));
        assert_eq!(result.worker_time, Duration::from_millis(2000));
        assert_eq!(result.about, ["A".to_string(), "B".to_string()]);
        assert_eq!(result.merged_from, ["2/2 s2", "1/2 s1"]);
        assert!(result.state.warnings.is_empty());
        assert!(!result.stopped_early);
    }

    #[test]
    fn parts_of_different_matches_or_repeated_shards_are_refused() {
        let one = part(shard(1), 0, vec![game(0, Some(0), 1)]);
        let mut other = part(shard(2), 0, vec![game(2, Some(0), 1)]);
        other.1.timeout_turn = 5;
        assert!(merge(&[one.clone(), other])
            .unwrap_err()
            .contains("not parts of one match"));
        let again = part(shard(1), 0, vec![game(1, Some(0), 1)]);
        assert!(merge(&[one.clone(), again]).unwrap_err().contains("twice"));
        let whole = part(None, 0, vec![game(0, Some(0), 1)]);
        assert!(merge(&[one.clone(), whole]).is_err());
        let clash = part(shard(2), 0, vec![game(0, Some(0), 1)]);
        assert!(merge(&[one, clash])
            .unwrap_err()
            .contains("game 1 is in both"));
    }

    #[test]
    fn a_missing_shard_is_a_warning() {
        let (_, result) = merge(&[part(shard(2), 0, vec![game(2, Some(0), 1)])]).unwrap();
        assert_eq!(
            result.state.warnings,
            ["shard 1/2 is missing: its games are not counted"]
        );
        assert!(result.stopped_early);
    }
}
