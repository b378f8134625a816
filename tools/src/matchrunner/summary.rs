//! The machine-readable match summary (JSON, written by hand).

use super::elo::{estimate, estimate_pairs, Tally};
use super::report::{clock_use, pair_tally, standings};
use super::tournament::{game_file_stem, MatchConfig, MatchResult};
use wuzi::types::Color;

/// A JSON string literal.
pub fn json_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for ch in text.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A JSON number; infinities (a 100% score) become `null`.
pub fn json_number(value: f64) -> String {
    if value.is_finite() {
        format!("{}", value)
    } else {
        "null".to_string()
    }
}

fn tally_json(t: &Tally) -> String {
    format!(
        "{{\"wins\": {}, \"losses\": {}, \"draws\": {}}}",
        t.wins, t.losses, t.draws
    )
}

pub fn summary_json(config: &MatchConfig, result: &MatchResult) -> String {
    let state = &result.state;
    let table = standings(&state.games);
    let clocks = clock_use(&state.games);
    let mut engines = Vec::new();
    for (i, (spec, standing)) in config.engines.iter().zip(&table).enumerate() {
        let clock = &clocks[i];
        let reasons: Vec<String> = standing
            .losses_by_reason
            .iter()
            .map(|(r, n)| format!("{}: {}", json_string(r.name()), n))
            .collect();
        engines.push(format!(
            "    {{\"name\": {}, \"path\": {}, \"about\": {}, \"total\": {}, \"black\": {}, \"white\": {}, \"losses_by_reason\": {{{}}}, \"moves\": {}, \"longest_move_ms\": {}, \"thinking_ms\": {}, \"most_in_a_game_ms\": {}}}",
            json_string(&spec.name),
            json_string(&spec.path.display().to_string()),
            json_string(&result.about[i]),
            tally_json(&standing.total()),
            tally_json(&standing.by_color[Color::Black.index()]),
            tally_json(&standing.by_color[Color::White.index()]),
            reasons.join(", "),
            clock.moves,
            clock.longest_move.as_millis(),
            clock.total.as_millis(),
            clock.most_in_a_game.as_millis(),
        ));
    }
    let mut games: Vec<&_> = state.games.iter().collect();
    games.sort_by_key(|g| g.index);
    let games: Vec<String> = games
        .iter()
        .map(|g| {
            let winner = match g.winner_engine() {
                Some(e) => json_string(&config.engines[e].name),
                None => "null".to_string(),
            };
            format!(
                "    {{\"game\": {}, \"black\": {}, \"white\": {}, \"opening\": {}, \"winner\": {}, \"reason\": {}, \"detail\": {}, \"stones\": {}, \"wall_ms\": {}, \"thinking_ms\": {}, \"record\": {}}}",
                g.index + 1,
                json_string(&config.engines[g.black_engine].name),
                json_string(&config.engines[1 - g.black_engine].name),
                json_string(&g.opening.text),
                winner,
                json_string(g.outcome.reason.name()),
                json_string(&g.outcome.detail),
                g.outcome.moves.len(),
                g.wall.as_millis(),
                g.thinking().as_millis(),
                json_string(&game_file_stem(g.index)),
            )
        })
        .collect();
    let e = estimate(&state.tally);
    let pairs = pair_tally(&state.games);
    let by_pairs = estimate_pairs(&pairs);
    let sprt = match &config.sprt {
        None => "null".to_string(),
        Some(p) => {
            let (lower, upper) = p.bounds();
            format!(
                "{{\"elo0\": {}, \"elo1\": {}, \"alpha\": {}, \"beta\": {}, \"llr\": {}, \"lower\": {}, \"upper\": {}, \"decision\": {}}}",
                json_number(p.elo0),
                json_number(p.elo1),
                json_number(p.alpha),
                json_number(p.beta),
                json_number(p.llr(&state.tally)),
                json_number(lower),
                json_number(upper),
                json_string(p.decide(&state.tally).name())
            )
        }
    };
    format!(
        "{{\n  \"rule\": {},\n  \"width\": {},\n  \"height\": {},\n  \"timeout_turn\": {},\n  \"timeout_match\": {},\n  \"tolerance\": {},\n  \"games_planned\": {},\n  \"games_played\": {},\n  \"wall_ms\": {},\n  \"score\": {},\n  \"tally\": {},\n  \"elo\": {},\n  \"elo_lower\": {},\n  \"elo_upper\": {},\n  \"los\": {},\n  \"pairs\": {:?},\n  \"elo_pairs\": {},\n  \"elo_pairs_lower\": {},\n  \"elo_pairs_upper\": {},\n  \"los_pairs\": {},\n  \"sprt\": {},\n  \"engines\": [\n{}\n  ],\n  \"games\": [\n{}\n  ]\n}}\n",
        json_string(config.setup.rule.name()),
        config.setup.width,
        config.setup.height,
        config.setup.time.turn_ms,
        config.setup.time.match_ms,
        config.setup.time.tolerance_ms,
        config.games,
        state.games.len(),
        result.wall.as_millis(),
        json_number(state.tally.score()),
        tally_json(&state.tally),
        json_number(e.elo),
        json_number(e.lower),
        json_number(e.upper),
        json_number(e.los),
        pairs.counts,
        json_number(by_pairs.elo),
        json_number(by_pairs.lower),
        json_number(by_pairs.upper),
        json_number(by_pairs.los),
        sprt,
        engines.join(",\n"),
        games.join(",\n"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_and_numbers_are_valid_json() {
        assert_eq!(json_string("a\"b\\c\nd\u{1}"), "\"a\\\"b\\\\c\\nd\\u0001\"");
        assert_eq!(json_number(1.5), "1.5");
        assert_eq!(json_number(f64::INFINITY), "null");
    }
}
