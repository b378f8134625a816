//! Opening lists (PROTOCOL.md §7) and the order in which they are played.
//!
//! One opening per line, `#` starts a comment. "offset" lines are `dx,dy, dx,dy, …`
//! relative to the centre `(width/2, height/2)`; "pos" lines are `h8i9…`. Black first.
//! Every opening is played twice, colours swapped, so that neither brain profits from a
//! lopsided opening.

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use std::path::Path;
use wuzi::types::{parse_pos_sequence, Coord};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpeningFormat {
    Offset,
    Pos,
    /// Decide per line: a line containing a comma is "offset", otherwise "pos".
    Auto,
}

impl OpeningFormat {
    pub fn parse(text: &str) -> Option<OpeningFormat> {
        match text.trim().to_ascii_lowercase().as_str() {
            "offset" => Some(OpeningFormat::Offset),
            "pos" => Some(OpeningFormat::Pos),
            "auto" => Some(OpeningFormat::Auto),
            _ => None,
        }
    }
}

/// One opening: its stones in move order and where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    pub moves: Vec<Coord>,
    /// The source line without its comment, for records and the summary.
    pub text: String,
    /// 1-based line number in the file; 0 for the empty opening.
    pub line: usize,
}

impl Opening {
    /// No stones: black opens with `BEGIN`.
    pub fn empty() -> Opening {
        Opening {
            moves: Vec::new(),
            text: String::new(),
            line: 0,
        }
    }
}

pub use crate::openings::parse_offset_line;

/// Parses a "pos" line such as `h8i9j10`.
pub fn parse_pos_line(text: &str) -> Result<Vec<Coord>, String> {
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    match parse_pos_sequence(&compact) {
        Some(moves) if !moves.is_empty() => Ok(moves),
        _ => Err(format!("not a pos sequence: {:?}", text)),
    }
}

/// Parses a whole opening file. Every stone must be on the board and no point used twice;
/// whether the position is legal under the rule is checked by the match before it starts.
pub fn parse_openings(
    text: &str,
    format: OpeningFormat,
    width: usize,
    height: usize,
) -> Result<Vec<Opening>, String> {
    let mut openings = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let content = raw.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        let as_offset = match format {
            OpeningFormat::Offset => true,
            OpeningFormat::Pos => false,
            OpeningFormat::Auto => content.contains(','),
        };
        let moves = if as_offset {
            parse_offset_line(content, width, height)
        } else {
            parse_pos_line(content)
        }
        .map_err(|e| format!("line {}: {}", line, e))?;
        check_on_board_and_distinct(&moves, width, height)
            .map_err(|e| format!("line {}: {}", line, e))?;
        openings.push(Opening {
            moves,
            text: content.to_string(),
            line,
        });
    }
    Ok(openings)
}

/// Reads and parses an opening file.
pub fn load_openings(
    path: &Path,
    format: OpeningFormat,
    width: usize,
    height: usize,
) -> Result<Vec<Opening>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {}", path.display(), e))?;
    parse_openings(&text, format, width, height).map_err(|e| format!("{}: {}", path.display(), e))
}

fn check_on_board_and_distinct(moves: &[Coord], width: usize, height: usize) -> Result<(), String> {
    for (i, &c) in moves.iter().enumerate() {
        if c.x < 0 || c.y < 0 || c.x >= width as i32 || c.y >= height as i32 {
            return Err(format!(
                "stone {} ({}) is off the {}x{} board",
                i + 1,
                c,
                width,
                height
            ));
        }
        if moves[..i].contains(&c) {
            return Err(format!("stone {} ({}) is on an occupied point", i + 1, c));
        }
    }
    Ok(())
}

/// Which opening each game plays and whether the first engine has black.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pairing {
    pub opening: usize,
    pub first_engine_black: bool,
}

/// The pairing of every game: game `2k` and `2k+1` play the same opening with colours
/// swapped; openings follow the file order, or a shuffled order when a seed is given, and
/// start again from the first when the games outnumber them.
pub fn schedule(opening_count: usize, games: usize, shuffle_seed: Option<u64>) -> Vec<Pairing> {
    let mut order: Vec<usize> = (0..opening_count.max(1)).collect();
    if let Some(seed) = shuffle_seed {
        order.shuffle(&mut StdRng::seed_from_u64(seed));
    }
    (0..games)
        .map(|game| Pairing {
            opening: order[(game / 2) % order.len()],
            first_engine_black: game % 2 == 0,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offset_is_relative_to_the_centre() {
        let moves = parse_offset_line("0,0, 1,-1, -2,3", 15, 15).unwrap();
        assert_eq!(
            moves,
            vec![Coord::new(7, 7), Coord::new(8, 6), Coord::new(5, 10)]
        );
        let rect = parse_offset_line("0,0", 20, 15).unwrap();
        assert_eq!(rect, vec![Coord::new(10, 7)]);
        assert!(parse_offset_line("0,0, 1", 15, 15).is_err());
        assert!(parse_offset_line("0,x", 15, 15).is_err());
    }

    #[test]
    fn pos_line_follows_the_notation() {
        let moves = parse_pos_line("h8i9 a15").unwrap();
        assert_eq!(
            moves,
            vec![Coord::new(7, 7), Coord::new(8, 8), Coord::new(0, 14)]
        );
        assert!(parse_pos_line("8h").is_err());
        assert!(parse_pos_line("").is_err());
    }

    #[test]
    fn file_parsing_skips_comments_and_rejects_bad_stones() {
        let text = "# header\n\n0,0, 1,0 # two stones\nh8\n";
        let openings = parse_openings(text, OpeningFormat::Auto, 15, 15).unwrap();
        assert_eq!(openings.len(), 2);
        assert_eq!(openings[0].moves, vec![Coord::new(7, 7), Coord::new(8, 7)]);
        assert_eq!(openings[0].line, 3);
        assert_eq!(openings[0].text, "0,0, 1,0");
        assert_eq!(openings[1].moves, vec![Coord::new(7, 7)]);
        let off = parse_openings("8,0", OpeningFormat::Offset, 15, 15).unwrap_err();
        assert!(off.contains("line 1") && off.contains("off"), "{}", off);
        let twice = parse_openings("h8h8", OpeningFormat::Pos, 15, 15).unwrap_err();
        assert!(twice.contains("occupied"), "{}", twice);
        assert!(parse_openings("h8", OpeningFormat::Offset, 15, 15).is_err());
    }

    #[test]
    fn schedule_swaps_colours_and_cycles() {
        let s = schedule(2, 5, None);
        let openings: Vec<usize> = s.iter().map(|p| p.opening).collect();
        let black: Vec<bool> = s.iter().map(|p| p.first_engine_black).collect();
        assert_eq!(openings, vec![0, 0, 1, 1, 0]);
        assert_eq!(black, vec![true, false, true, false, true]);
        assert_eq!(schedule(0, 2, None).len(), 2);
    }

    #[test]
    fn shuffled_schedule_is_a_permutation_fixed_by_the_seed() {
        let a = schedule(10, 20, Some(7));
        assert_eq!(a, schedule(10, 20, Some(7)));
        let mut seen: Vec<usize> = a.iter().step_by(2).map(|p| p.opening).collect();
        seen.sort_unstable();
        assert_eq!(seen, (0..10).collect::<Vec<_>>());
        for pair in a.chunks(2) {
            assert_eq!(pair[0].opening, pair[1].opening);
        }
    }
}
