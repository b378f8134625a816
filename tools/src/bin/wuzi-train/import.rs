//! `wuzi-train import`: the games of `wuzi-match` runs (their `summary.json`) as
//! training data — games against outside engines, whose moves carry no search value of
//! ours: their positions are labelled by the result alone, and the policy learns from the
//! moves of the side that won.

use crate::games::{self, Ending, Game, Ply, Result3, NO_VALUE};
use std::io::Write;
use std::path::Path;
use wuzi::types::{Coord, Rule};
use wuzi_tools::matchrunner::merge::load_summary;

/// Reads the match directories and writes their decided and drawn games to `out`.
/// Returns how many games were written.
pub fn run(dirs: &[String], out: &str) -> Result<usize, String> {
    let file = std::fs::File::create(out).map_err(|e| format!("{out}: {e}"))?;
    let mut w = std::io::BufWriter::new(file);
    games::write_header(&mut w).map_err(|e| e.to_string())?;
    let mut written = 0;
    for dir in dirs {
        let summary = load_summary(Path::new(dir))?;
        let rule =
            Rule::parse(&summary.rule).ok_or_else(|| format!("{dir}: rule {}", summary.rule))?;
        for g in &summary.games {
            let Some(game) = to_game(rule, summary.width, summary.height, g) else {
                continue;
            };
            games::write_game(&mut w, &game).map_err(|e| e.to_string())?;
            written += 1;
        }
    }
    w.flush().map_err(|e| e.to_string())?;
    Ok(written)
}

/// A game of the summary, when it ended on the board (a five, a foul, a full board):
/// games lost on time, by a crash or a bad reply say nothing about the position.
fn to_game(
    rule: Rule,
    width: usize,
    height: usize,
    g: &wuzi_tools::matchrunner::summary::GameSummary,
) -> Option<Game> {
    let (result, ending) = match (g.winner_color.as_deref(), g.reason.as_str()) {
        (Some("black"), "five") => (Result3::BlackWon, Ending::Five),
        (Some("white"), "five") => (Result3::WhiteWon, Ending::Five),
        (Some("white"), "forbidden") => (Result3::WhiteWon, Ending::Foul),
        (None, "board-full" | "move-cap") => (Result3::Draw, Ending::Full),
        _ => return None,
    };
    if g.moves.is_empty() || g.moves.len() > u16::MAX as usize {
        return None;
    }
    let plies = g
        .moves
        .iter()
        .map(|&(x, y, _)| Ply {
            at: Coord::new(x, y),
            value: NO_VALUE,
        })
        .collect();
    Some(Game {
        rule,
        width,
        height,
        result,
        opening_plies: g.opening_stones,
        ending,
        plies,
    })
}
