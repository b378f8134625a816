//! Balanced opening lists: generation, the "offset" file format, and validation.
//!
//! An opening is a few stones near the centre in move order, black first. A list is made
//! by drawing compact random openings from a seeded generator and keeping those whose
//! value, by the engine's own fixed-depth search from the side to move, lies within a
//! balance window and is not a proven result; openings equal under a symmetry of the
//! board are kept once. The file format is c-gomoku-cli's "offset" format (PROTOCOL.md
//! §7): `dx,dy, dx,dy, …` relative to the centre `(size/2, size/2)`.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::BTreeSet;
use std::sync::atomic::AtomicBool;
use wuzi::board::Board;
use wuzi::eval::{self, Value};
use wuzi::search::{SearchLimits, SearchState};
use wuzi::threat;
use wuzi::types::{Coord, Rule};

/// How a list is generated.
#[derive(Clone, Debug)]
pub struct GenerateOptions {
    pub rule: Rule,
    pub size: usize,
    pub count: usize,
    pub seed: u64,
    /// Fixed search depth of the balance check.
    pub depth: i32,
    /// Keep openings whose value is within ±window (evaluation units).
    pub window: Value,
    pub min_stones: usize,
    pub max_stones: usize,
    /// Values are measured against a board of this size (see [`size_offset`]); the
    /// board's own size unless asked otherwise.
    pub reference_size: usize,
}

impl GenerateOptions {
    pub fn new(rule: Rule, size: usize) -> GenerateOptions {
        GenerateOptions {
            rule,
            size,
            count: 50,
            seed: 1,
            depth: 6,
            window: 80,
            min_stones: 3,
            max_stones: 8,
            reference_size: size,
        }
    }
}

/// One accepted opening with the value that admitted it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    pub stones: Vec<Coord>,
    /// Value for the side to move at the generation depth.
    pub value: Value,
}

/// Generates a balanced list. Gives up after a bounded number of draws, so the list can
/// be shorter than asked for (the caller reports it). `progress` hears, after each
/// opening searched, how many were kept and how many drawn so far.
pub fn generate(options: &GenerateOptions, progress: &mut dyn FnMut(usize, usize)) -> Vec<Opening> {
    let mut rng = StdRng::seed_from_u64(options.seed);
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    let max_draws = options.count * 200;
    for draws in 1..=max_draws {
        if out.len() >= options.count {
            break;
        }
        let n = rng.gen_range(options.min_stones..=options.max_stones);
        let Some(stones) = draw(&mut rng, options.size, n) else {
            continue;
        };
        let key = canonical(&stones, options.size);
        if !seen.insert(key) {
            continue;
        }
        let value = balance(&stones, options.rule, options.size, options.depth).map(|v| {
            v - size_offset(
                options.rule,
                options.size,
                options.reference_size,
                options.depth,
            )
        });
        if let Some(value) = value {
            if value.abs() <= options.window {
                out.push(Opening { stones, value });
            }
        }
        progress(out.len(), draws);
    }
    out
}

/// A compact random opening: each stone within two cells of the centre or of a stone
/// already placed, alternating colours.
fn draw(rng: &mut StdRng, size: usize, n: usize) -> Option<Vec<Coord>> {
    let c = (size / 2) as i32;
    let mut stones: Vec<Coord> = Vec::with_capacity(n);
    for _ in 0..n {
        let mut placed = false;
        for _try in 0..50 {
            let anchor = if stones.is_empty() {
                Coord::new(c, c)
            } else {
                stones[rng.gen_range(0..stones.len())]
            };
            let cand = Coord::new(
                anchor.x + rng.gen_range(-2..=2),
                anchor.y + rng.gen_range(-2..=2),
            );
            let inside =
                cand.x >= 0 && cand.y >= 0 && (cand.x as usize) < size && (cand.y as usize) < size;
            let near_centre = (cand.x - c).abs() <= 3 && (cand.y - c).abs() <= 3;
            if inside && near_centre && !stones.contains(&cand) {
                stones.push(cand);
                placed = true;
                break;
            }
        }
        if !placed {
            return None;
        }
    }
    Some(stones)
}

/// Threat-search nodes spent per side when checking that an opening is undecided.
const DECIDED_CHECK_NODES: u64 = 50_000;

/// The fixed-depth value of an opening for the side to move, or `None` when the
/// position is illegal (a renju foul), already decided by the search, or when the
/// threat-space search (VCT, bounded) finds a forced win for the side to move, or one
/// for the other side that no move stops.
pub fn balance(stones: &[Coord], rule: Rule, size: usize, depth: i32) -> Option<Value> {
    let mut board = undecided_position(stones, rule, size)?;
    search_value(&mut board, depth)
}

/// The board after `stones`, when they are legal moves and the bounded threat-space
/// search finds no forced result: the first half of [`balance`].
pub fn undecided_position(stones: &[Coord], rule: Rule, size: usize) -> Option<Board> {
    let mut board = Board::new(size, size, rule).ok()?;
    for &s in stones {
        if wuzi::rules::judge_move(&board, s) != wuzi::rules::Verdict::Normal {
            return None; // fouls and fives make no opening
        }
        board.play(s).ok()?;
    }
    let vct = threat::Limits {
        level: threat::Level::Vct,
        max_nodes: DECIDED_CHECK_NODES,
        max_depth: 30,
        deadline: None,
        stop: None,
    };
    // Decided: the side to move wins by threats, or the other side would and no move
    // stops it. A threat that can be answered decides nothing (a stronger threat search
    // finds more of these; they are sharp openings, not decided ones).
    let us = board.side_to_move();
    if threat::find_win(&mut board, us, &vct).is_some() {
        return None;
    }
    if threat::find_win(&mut board, us.opponent(), &vct).is_some()
        && threat::defences(&mut board, us, &vct).is_some_and(|d| d.is_empty())
    {
        return None;
    }
    Some(board)
}

/// The value of a fixed-depth search of `board` for the side to move, from an empty
/// table, unless it is decisive: the second half of [`balance`].
pub fn search_value(board: &mut Board, depth: i32) -> Option<Value> {
    let mut state = SearchState::new();
    state.set_tt_bytes(4 << 20);
    let stop = AtomicBool::new(false);
    // The main search alone: the threat check of `undecided_position` is the bounded,
    // explicit one.
    let mut limits = SearchLimits::depth(depth);
    limits.options.threat_search = false;
    let outcome = state.evaluate(board, limits, &stop);
    (!eval::is_decisive(outcome.value)).then_some(outcome.value)
}

/// How much more the fixed-depth value of an opening is on a `size` board than on a
/// `reference` board, for the same stones.
///
/// The static evaluation scales every pattern of the side to move by the tempo factor,
/// and that includes the "one" which every empty (cell, line) pair with room for a five
/// counts, so an empty board is worth more to the side to move the larger it is. Larger
/// boards thus add a constant for whoever moves at the search's leaves: the same opening
/// searched to an even depth is worth more to the side to move on 20×20 than on 15×15,
/// and that much less at an odd depth, whose leaves belong to the opponent, and a balance
/// window would judge the board size instead of the position. Subtracting the difference
/// of the empty boards' static values makes the values of different sizes comparable; 0
/// when the sizes are equal.
pub fn size_offset(rule: Rule, size: usize, reference: usize, depth: i32) -> Value {
    let empty = |n| Board::new(n, n, rule).map_or(0, |b| eval::evaluate(&b));
    let difference = empty(size) - empty(reference);
    if depth % 2 == 0 {
        difference
    } else {
        -difference
    }
}

/// The smallest of the eight symmetric images of an opening (as a set of coloured
/// offsets), so symmetric duplicates compare equal.
fn canonical(stones: &[Coord], size: usize) -> Vec<(i32, i32, bool)> {
    let c = (size / 2) as i32;
    (0..8)
        .map(|sym| {
            let mut image: Vec<(i32, i32, bool)> = stones
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    let (mut dx, mut dy) = (s.x - c, s.y - c);
                    if sym & 1 != 0 {
                        dx = -dx;
                    }
                    if sym & 2 != 0 {
                        dy = -dy;
                    }
                    if sym & 4 != 0 {
                        std::mem::swap(&mut dx, &mut dy);
                    }
                    (dx, dy, i % 2 == 0)
                })
                .collect();
            image.sort();
            image
        })
        .min()
        .unwrap_or_default()
}

/// One opening as an "offset" line.
pub fn to_offset_line(stones: &[Coord], size: usize) -> String {
    let c = (size / 2) as i32;
    stones
        .iter()
        .map(|s| format!("{},{}", s.x - c, s.y - c))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Parses an "offset" line for a board of the given size.
pub fn parse_offset_line(text: &str, width: usize, height: usize) -> Result<Vec<Coord>, String> {
    let numbers: Vec<&str> = text
        .split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .collect();
    if numbers.is_empty() || !numbers.len().is_multiple_of(2) {
        return Err(format!("expected pairs dx,dy: {:?}", text));
    }
    let (cx, cy) = ((width / 2) as i32, (height / 2) as i32);
    numbers
        .chunks(2)
        .map(|pair| {
            let dx: i32 = pair[0]
                .parse()
                .map_err(|_| format!("not a number: {:?}", pair[0]))?;
            let dy: i32 = pair[1]
                .parse()
                .map_err(|_| format!("not a number: {:?}", pair[1]))?;
            Ok(Coord::new(cx + dx, cy + dy))
        })
        .collect()
}

/// The openings of a list file: non-comment, non-empty lines.
pub fn parse_list(text: &str, size: usize) -> Result<Vec<Vec<Coord>>, String> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .map(|(n, l)| parse_offset_line(l, size, size).map_err(|e| format!("line {}: {e}", n + 1)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offset_lines_round_trip() {
        let stones = vec![Coord::new(7, 7), Coord::new(8, 6), Coord::new(5, 9)];
        let line = to_offset_line(&stones, 15);
        assert_eq!(line, "0,0, 1,-1, -2,2");
        assert_eq!(parse_offset_line(&line, 15, 15), Ok(stones));
        assert!(parse_offset_line("1,2,3", 15, 15).is_err());
        assert!(parse_offset_line("a,b", 15, 15).is_err());
    }

    #[test]
    fn symmetric_openings_share_a_canonical_form() {
        let a = [Coord::new(7, 7), Coord::new(8, 7), Coord::new(7, 9)];
        let mirrored = [Coord::new(7, 7), Coord::new(6, 7), Coord::new(7, 9)];
        let rotated = [Coord::new(7, 7), Coord::new(7, 8), Coord::new(9, 7)];
        assert_eq!(canonical(&a, 15), canonical(&mirrored, 15));
        assert_eq!(canonical(&a, 15), canonical(&rotated, 15));
        // Swapping colours is not a symmetry.
        let recoloured = [Coord::new(8, 7), Coord::new(7, 7), Coord::new(7, 9)];
        assert_ne!(canonical(&a, 15), canonical(&recoloured, 15));
    }

    #[test]
    fn generated_openings_are_compact_distinct_and_within_the_window() {
        let mut opts = GenerateOptions::new(Rule::Freestyle, 15);
        opts.count = 5;
        opts.depth = 3;
        let mut reports = 0;
        let list = generate(&opts, &mut |_, _| reports += 1);
        assert!(reports >= list.len(), "{reports} progress reports");
        assert_eq!(list.len(), 5);
        for o in &list {
            assert!((3..=8).contains(&o.stones.len()));
            assert!(o.value.abs() <= opts.window);
            assert!(o
                .stones
                .iter()
                .all(|s| (s.x - 7).abs() <= 3 && (s.y - 7).abs() <= 3));
        }
        let keys: BTreeSet<_> = list.iter().map(|o| canonical(&o.stones, 15)).collect();
        assert_eq!(keys.len(), list.len());
    }
}
