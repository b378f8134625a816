//! What the user reads: a progress line per finished game and the final table.

use super::elo::{estimate, estimate_pairs, PairTally, Tally};
use super::game::EndReason;
use super::tournament::{GameReport, MatchConfig, MatchResult, MatchState};
use std::collections::BTreeMap;
use std::time::Duration;
use wuzi::types::Color;

/// One engine's results, split by colour, and its losses by reason.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EngineStanding {
    /// Indexed by `Color::index()`.
    pub by_color: [Tally; 2],
    pub losses_by_reason: BTreeMap<EndReason, u32>,
}

impl EngineStanding {
    pub fn total(&self) -> Tally {
        let [b, w] = self.by_color;
        Tally {
            wins: b.wins + w.wins,
            losses: b.losses + w.losses,
            draws: b.draws + w.draws,
        }
    }
}

/// How one engine used its clock over a match (opening stones excluded).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClockUse {
    pub moves: u64,
    /// The slowest single move.
    pub longest_move: Duration,
    pub total: Duration,
    /// The most thinking time the engine spent in one game.
    pub most_in_a_game: Duration,
}

/// Clock use of both engines over the given games.
pub fn clock_use(games: &[GameReport]) -> [ClockUse; 2] {
    let mut table = [ClockUse::default(); 2];
    for game in games {
        let mut in_this_game = [Duration::ZERO; 2];
        for m in game.outcome.moves.iter().filter(|m| !m.from_opening) {
            let engine = game.engine_of(m.color);
            let used = &mut table[engine];
            used.moves += 1;
            used.longest_move = used.longest_move.max(m.time);
            used.total += m.time;
            in_this_game[engine] += m.time;
        }
        for (used, spent) in table.iter_mut().zip(in_this_game) {
            used.most_in_a_game = used.most_in_a_game.max(spent);
        }
    }
    table
}

/// One engine's thinking time per move over the given games (opening stones excluded),
/// shortest first: the distribution a time manager is judged by.
fn move_times(games: &[GameReport], engine: usize) -> Vec<Duration> {
    let mut times: Vec<Duration> = games
        .iter()
        .flat_map(|game| {
            game.outcome
                .moves
                .iter()
                .filter(move |m| !m.from_opening && game.engine_of(m.color) == engine)
                .map(|m| m.time)
        })
        .collect();
    times.sort_unstable();
    times
}

/// The value below which `share` (0–1) of the sorted `times` lie (nearest rank).
fn quantile(times: &[Duration], share: f64) -> Duration {
    if times.is_empty() {
        return Duration::ZERO;
    }
    let rank = (share * times.len() as f64).ceil() as usize;
    times[rank.clamp(1, times.len()) - 1]
}

/// `as share of limit` for a limit in ms (nothing for no limit).
fn share_of(used: Duration, limit_ms: u64) -> String {
    if limit_ms == 0 {
        return String::new();
    }
    format!(
        " ({:.0}% of {} ms)",
        100.0 * used.as_secs_f64() * 1000.0 / limit_ms as f64,
        limit_ms
    )
}

/// The finished game pairs (games 2k and 2k+1 play one opening with colours swapped, see
/// `opening::schedule`) by the first engine's points in each; a pair with a game not
/// played (a match stopped early) is left out.
pub fn pair_tally(games: &[GameReport]) -> PairTally {
    // Pair number -> (games finished, the first engine's half-points in them).
    let mut pairs: BTreeMap<usize, (u32, usize)> = BTreeMap::new();
    for game in games {
        let half_points = match game.winner_engine() {
            Some(0) => 2,
            Some(_) => 0,
            None => 1,
        };
        let pair = pairs.entry(game.index / 2).or_default();
        pair.0 += 1;
        pair.1 += half_points;
    }
    let mut tally = PairTally::default();
    for &(finished, half_points) in pairs.values() {
        if finished == 2 {
            tally.counts[half_points] += 1;
        }
    }
    tally
}

/// Standings of both engines over the given games.
pub fn standings(games: &[GameReport]) -> [EngineStanding; 2] {
    let mut table: [EngineStanding; 2] = Default::default();
    for game in games {
        for color in Color::BOTH {
            let standing = &mut table[game.engine_of(color)];
            let tally = &mut standing.by_color[color.index()];
            match game.outcome.winner {
                None => tally.draws += 1,
                Some(w) if w == color => tally.wins += 1,
                Some(_) => {
                    tally.losses += 1;
                    *standing
                        .losses_by_reason
                        .entry(game.outcome.reason)
                        .or_insert(0) += 1;
                }
            }
        }
    }
    table
}

fn result_text(game: &GameReport) -> &'static str {
    match game.winner_engine() {
        None => "1/2-1/2",
        Some(0) => "1-0",
        Some(_) => "0-1",
    }
}

/// `game  3/20: alpha (black) vs beta: 1-0 five, 41 stones, 8.2 s [score 2-1-0]`
pub fn progress_line(config: &MatchConfig, game: &GameReport, state: &MatchState) -> String {
    let names = [&config.engines[0].name, &config.engines[1].name];
    let first_colour = if game.black_engine == 0 {
        "black"
    } else {
        "white"
    };
    let opening = if game.opening.line == 0 {
        String::new()
    } else {
        format!(", opening line {}", game.opening.line)
    };
    let t = &state.tally;
    let llr = state
        .llr
        .map(|llr| format!(" LLR {:.2}", llr))
        .unwrap_or_default();
    format!(
        "game {:>3}/{}: {} ({}) vs {}{}: {} {} ({}), {} stones, {:.1} s [{}-{}-{}{}]",
        game.index + 1,
        config.games,
        names[0],
        first_colour,
        names[1],
        opening,
        result_text(game),
        game.outcome.reason,
        game.outcome.detail,
        game.outcome.moves.len(),
        game.wall.as_secs_f64(),
        t.wins,
        t.losses,
        t.draws,
        llr
    )
}

/// `1h02m`, `3m10s` or `12s`.
pub fn short_duration(d: Duration) -> String {
    let secs = d.as_secs();
    match secs {
        0..=59 => format!("{secs}s"),
        60..=3599 => format!("{}m{:02}s", secs / 60, secs % 60),
        _ => format!("{}h{:02}m", secs / 3600, secs % 3600 / 60),
    }
}

/// How the match stands after a game, for the progress display:
/// `score 5-4-3 (54.2%), Elo +29.0 [-40.1, +98.5], LLR 0.52, ETA 3m10s`. The ETA assumes
/// the games still to play take as long as those played (all planned games: an SPRT
/// may stop earlier).
pub fn progress_status(config: &MatchConfig, state: &MatchState, elapsed: Duration) -> String {
    let t = &state.tally;
    let e = estimate(t);
    let done = state.games.len();
    let planned = config.game_indices().len();
    let llr = state
        .llr
        .map(|llr| format!(", LLR {:.2}", llr))
        .unwrap_or_default();
    let eta = if done == 0 {
        String::new()
    } else if done >= planned {
        format!(", done in {}", short_duration(elapsed))
    } else {
        let left = elapsed.mul_f64(planned.saturating_sub(done) as f64 / done as f64);
        format!(", ETA {}", short_duration(left))
    };
    format!(
        "score {}-{}-{} ({:.1}%), Elo {} [{}, {}]{}{}",
        t.wins,
        t.losses,
        t.draws,
        100.0 * t.score(),
        signed(e.elo),
        signed(e.lower),
        signed(e.upper),
        llr,
        eta
    )
}

/// An Elo value with its sign, one decimal, or `+inf`/`-inf`.
pub fn signed(value: f64) -> String {
    if value.is_infinite() {
        if value > 0.0 { "+inf" } else { "-inf" }.to_string()
    } else {
        // Adding 0.0 turns −0.0 into +0.0.
        format!("{:+.1}", value + 0.0)
    }
}

/// The final table: W/L/D per engine and colour, losses by reason, Elo, SPRT, timing.
pub fn final_table(config: &MatchConfig, result: &MatchResult) -> String {
    let mut out = result_lines(config, &result.state);
    out.push_str(&elo_lines(config, &result.state));
    out.push_str(&clock_lines(config, &result.state));
    out.push_str(&time_lines(config, result));
    for warning in &result.state.warnings {
        out.push_str(&format!("Warning: {}\n", warning));
    }
    out
}

/// The table of W/L/D per engine and colour, the losses of each by reason and the draws.
fn result_lines(config: &MatchConfig, state: &MatchState) -> String {
    let table = standings(&state.games);
    let width = config
        .engines
        .iter()
        .map(|e| e.name.len())
        .max()
        .unwrap_or(6)
        .max(6);
    let mut out = format!(
        "{:<width$} {:>5} {:>4} {:>4} {:>4} {:>6}   {:>11}   {:>11}\n",
        "Engine", "Games", "W", "L", "D", "Score", "Black W-L-D", "White W-L-D"
    );
    for (spec, standing) in config.engines.iter().zip(&table) {
        let total = standing.total();
        let [b, w] = standing.by_color;
        out.push_str(&format!(
            "{:<width$} {:>5} {:>4} {:>4} {:>4} {:>5.1}%   {:>11}   {:>11}\n",
            spec.name,
            total.games(),
            total.wins,
            total.losses,
            total.draws,
            100.0 * total.score(),
            format!("{}-{}-{}", b.wins, b.losses, b.draws),
            format!("{}-{}-{}", w.wins, w.losses, w.draws),
        ));
    }
    for (spec, standing) in config.engines.iter().zip(&table) {
        let reasons: Vec<String> = standing
            .losses_by_reason
            .iter()
            .map(|(reason, n)| format!("{} {}", reason, n))
            .collect();
        let reasons = if reasons.is_empty() {
            "none".to_string()
        } else {
            reasons.join(", ")
        };
        out.push_str(&format!("Losses of {}: {}\n", spec.name, reasons));
    }
    let draws: Vec<String> = EndReason::ALL
        .iter()
        .filter_map(|&r| {
            let n = state
                .games
                .iter()
                .filter(|g| g.outcome.winner.is_none() && g.outcome.reason == r)
                .count();
            (n > 0).then(|| format!("{} {}", r, n))
        })
        .collect();
    if !draws.is_empty() {
        out.push_str(&format!("Draws: {}\n", draws.join(", ")));
    }
    out
}

/// Elo per game and by pairs with their intervals, and the SPRT's state.
fn elo_lines(config: &MatchConfig, state: &MatchState) -> String {
    let mut out = String::new();
    let e = estimate(&state.tally);
    out.push_str(&format!(
        "Elo {} - {}: {} [{}, {}] (95%), LOS {:.1}%\n",
        config.engines[0].name,
        config.engines[1].name,
        signed(e.elo),
        signed(e.lower),
        signed(e.upper),
        100.0 * e.los
    ));
    let pairs = pair_tally(&state.games);
    if pairs.pairs() > 0 {
        let e = estimate_pairs(&pairs);
        let [a, b, c, d, f] = pairs.counts;
        out.push_str(&format!(
            "Elo by pairs ({} openings with colours swapped; {}'s points 0/0.5/1/1.5/2: {} {} {} {} {}): {} [{}, {}] (95%), LOS {:.1}%\n",
            pairs.pairs(),
            config.engines[0].name,
            a,
            b,
            c,
            d,
            f,
            signed(e.elo),
            signed(e.lower),
            signed(e.upper),
            100.0 * e.los
        ));
    }
    if let Some(sprt) = &config.sprt {
        let (lower, upper) = sprt.bounds();
        out.push_str(&format!(
            "SPRT elo0={} elo1={} alpha={} beta={}: LLR {:.3} [{:.3}, {:.3}] {}\n",
            sprt.elo0,
            sprt.elo1,
            sprt.alpha,
            sprt.beta,
            sprt.llr(&state.tally),
            lower,
            upper,
            sprt.decide(&state.tally).name()
        ));
    }
    out
}

/// How each engine used its clock.
fn clock_lines(config: &MatchConfig, state: &MatchState) -> String {
    let mut out = String::new();
    // The figures a time manager is judged by: its slowest move against the turn limit
    // and its busiest game against the match clock.
    let time = &config.setup.time;
    for (engine, (spec, used)) in config
        .engines
        .iter()
        .zip(clock_use(&state.games))
        .enumerate()
    {
        let mean_ms = if used.moves > 0 {
            used.total.as_secs_f64() * 1000.0 / used.moves as f64
        } else {
            0.0
        };
        out.push_str(&format!(
            "Clock of {}: longest move {} ms{}, mean {:.0} ms over {} moves, most in one game {} ms{}\n",
            spec.name,
            used.longest_move.as_millis(),
            share_of(used.longest_move, time.turn_ms),
            mean_ms,
            used.moves,
            used.most_in_a_game.as_millis(),
            share_of(used.most_in_a_game, time.match_ms),
        ));
        let times = move_times(&state.games, engine);
        let ms = |share: f64| quantile(&times, share).as_millis();
        out.push_str(&format!(
            "Time per move of {}: quartiles {} / {} / {} ms, 90th percentile {} ms\n",
            spec.name,
            ms(0.25),
            ms(0.5),
            ms(0.75),
            ms(0.9),
        ));
    }
    out
}

/// Where the time went; the shard or the merged shards; an early stop.
fn time_lines(config: &MatchConfig, result: &MatchResult) -> String {
    let state = &result.state;
    let mut out = String::new();
    let thinking: f64 = state.games.iter().map(|g| g.thinking().as_secs_f64()).sum();
    // Overhead: the share of the workers' time not spent waiting for moves (launching
    // brains, START, records, quitting). With -j N it assumes all N workers stay busy.
    let busy = result.worker_time.as_secs_f64();
    let overhead = if busy > 0.0 {
        100.0 * (1.0 - thinking / busy)
    } else {
        0.0
    };
    if result.merged_from.is_empty() {
        out.push_str(&format!(
            "Time: {} games in {:.1} s wall ({} at once), engines thinking {:.1} s, overhead {:.1}%\n",
            state.games.len(),
            result.wall.as_secs_f64(),
            config.workers(),
            thinking,
            overhead
        ));
    } else {
        out.push_str(&format!(
            "Merged {} shards: {}\n",
            result.merged_from.len(),
            result.merged_from.join(", ")
        ));
        out.push_str(&format!(
            "Time: {} games, {:.1} s wall from the first start to the last game, workers {:.1} s, engines thinking {:.1} s, overhead {:.1}%\n",
            state.games.len(),
            result.wall.as_secs_f64(),
            busy,
            thinking,
            overhead
        ));
    }
    let planned = config.game_indices();
    if let Some(shard) = &config.shard {
        let games = if planned.is_empty() {
            "no games".to_string()
        } else {
            format!("games {}-{}", planned.start + 1, planned.end)
        };
        out.push_str(&format!(
            "Shard {} of a match of {} games: {}; `wuzi-match merge` gives the match's result\n",
            shard, config.games, games
        ));
    }
    if result.stopped_early {
        out.push_str(&format!(
            "Stopped after {} of {} games.\n",
            state.games.len(),
            planned.len()
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matchrunner::game::GameOutcome;
    use crate::matchrunner::opening::{Opening, Pairing};
    use std::time::Duration;

    fn game(
        index: usize,
        black_engine: usize,
        winner: Option<Color>,
        reason: EndReason,
    ) -> GameReport {
        GameReport {
            index,
            pairing: Pairing {
                opening: 0,
                first_engine_black: black_engine == 0,
            },
            black_engine,
            opening: Opening::empty(),
            outcome: GameOutcome {
                winner,
                reason,
                detail: String::new(),
                moves: Vec::new(),
                logs: [Vec::new(), Vec::new()],
            },
            wall: Duration::ZERO,
            finished_at: Duration::ZERO,
        }
    }

    #[test]
    fn progress_status_gives_score_elo_and_eta() {
        use crate::matchrunner::engine::EngineSpec;
        let mut config = MatchConfig::new(EngineSpec::new("a"), EngineSpec::new("b"));
        config.games = 10;
        let state = MatchState {
            games: vec![
                game(0, 0, Some(Color::Black), EndReason::Five),
                game(1, 1, None, EndReason::BoardFull),
            ],
            tally: Tally {
                wins: 1,
                losses: 0,
                draws: 1,
            },
            sprt: None,
            llr: Some(0.123),
            warnings: Vec::new(),
        };
        // Two games in 30 s: eight more take two minutes.
        assert_eq!(
            progress_status(&config, &state, Duration::from_secs(30)),
            "score 1-0-1 (75.0%), Elo +190.8 [-67.9, +inf], LLR 0.12, ETA 2m00s"
        );
        config.games = 2;
        assert!(
            progress_status(&config, &state, Duration::from_secs(30)).ends_with(", done in 30s")
        );
        assert_eq!(short_duration(Duration::from_secs(3725)), "1h02m");
        assert_eq!(short_duration(Duration::from_secs(59)), "59s");
    }

    #[test]
    fn clock_use_counts_each_engine_s_own_moves() {
        use crate::matchrunner::game::PlayedMove;
        use wuzi::types::Coord;
        let mv = |color, ms, from_opening| PlayedMove {
            coord: Coord::new(0, 0),
            color,
            time: Duration::from_millis(ms),
            from_opening,
        };
        let mut g0 = game(0, 0, Some(Color::Black), EndReason::Five);
        g0.outcome.moves = vec![
            mv(Color::Black, 0, true),
            mv(Color::White, 300, false),
            mv(Color::Black, 500, false),
            mv(Color::White, 100, false),
        ];
        let mut g1 = game(1, 1, None, EndReason::BoardFull);
        g1.outcome.moves = vec![mv(Color::Black, 700, false), mv(Color::White, 50, false)];
        let games = [g0, g1];
        let [first, second] = clock_use(&games);
        // Engine 0: black in game 0 (500), white in game 1 (50).
        assert_eq!(first.moves, 2);
        assert_eq!(first.longest_move, Duration::from_millis(500));
        assert_eq!(first.most_in_a_game, Duration::from_millis(500));
        // Engine 1: white in game 0 (300 + 100), black in game 1 (700).
        assert_eq!(second.moves, 3);
        assert_eq!(second.total, Duration::from_millis(1100));
        assert_eq!(second.longest_move, Duration::from_millis(700));
        assert_eq!(second.most_in_a_game, Duration::from_millis(700));
        let ms = |v: &[u64]| {
            v.iter()
                .map(|&t| Duration::from_millis(t))
                .collect::<Vec<_>>()
        };
        assert_eq!(move_times(&games, 0), ms(&[50, 500]));
        let second_times = move_times(&games, 1);
        assert_eq!(second_times, ms(&[100, 300, 700]));
        // Nearest rank: the median of three is the second, the 90th percentile the third.
        assert_eq!(quantile(&second_times, 0.5), Duration::from_millis(300));
        assert_eq!(quantile(&second_times, 0.9), Duration::from_millis(700));
        assert_eq!(quantile(&second_times, 0.25), Duration::from_millis(100));
        assert_eq!(quantile(&[], 0.5), Duration::ZERO);
    }

    #[test]
    fn pairs_count_the_first_engine_s_points_per_opening() {
        let games = [
            // Pair 0: engine 0 wins as black, loses as white: 1 point.
            game(0, 0, Some(Color::Black), EndReason::Five),
            game(1, 1, Some(Color::Black), EndReason::Five),
            // Pair 1: engine 0 wins as white, draws as black: 1.5 points.
            game(3, 1, Some(Color::White), EndReason::Five),
            game(2, 0, None, EndReason::BoardFull),
            // Pair 2: engine 1 wins both (one by a timeout): 0 points.
            game(4, 0, Some(Color::White), EndReason::Timeout),
            game(5, 1, Some(Color::Black), EndReason::Five),
            // Pair 3: its second game was not played.
            game(6, 0, Some(Color::Black), EndReason::Five),
        ];
        assert_eq!(pair_tally(&games).counts, [1, 0, 1, 1, 0]);
        assert_eq!(pair_tally(&[]).pairs(), 0);
    }

    #[test]
    fn standings_split_by_engine_colour_and_reason() {
        let games = [
            game(0, 0, Some(Color::Black), EndReason::Five),
            game(1, 1, Some(Color::Black), EndReason::Timeout),
            game(2, 0, None, EndReason::BoardFull),
            game(3, 1, Some(Color::White), EndReason::Crash),
        ];
        let [first, second] = standings(&games);
        let tally = |wins, losses, draws| Tally {
            wins,
            losses,
            draws,
        };
        // Engine 0: black in games 0 and 2 (win, draw), white in 1 and 3 (loss, win).
        assert_eq!(first.by_color, [tally(1, 0, 1), tally(1, 1, 0)]);
        assert_eq!(first.losses_by_reason.get(&EndReason::Timeout), Some(&1));
        assert_eq!(first.total(), tally(2, 1, 1));
        assert_eq!(second.by_color, [tally(1, 1, 0), tally(0, 1, 1)]);
        assert_eq!(second.losses_by_reason.get(&EndReason::Five), Some(&1));
        assert_eq!(second.losses_by_reason.get(&EndReason::Crash), Some(&1));
        assert_eq!(second.losses_by_reason.len(), 2);
    }
}
