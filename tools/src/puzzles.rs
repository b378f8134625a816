//! Test positions with known answers (shared/positions/ format): parsing, and playing
//! each through the engine facade exactly as a manager's `BOARD` would, at a fixed time
//! per move.

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};
use wuzi::engine::{Engine, Owner};
use wuzi::search::SearchEvent;
use wuzi::types::{parse_pos_sequence, Coord, Rule};

/// What a puzzle asks of the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Play one of the answers (a winning move).
    Win,
    /// Play one of the answers (a move that holds).
    Defend,
    /// Do not play any of the answers (a forbidden point).
    Avoid,
}

#[derive(Clone, Debug)]
pub struct Puzzle {
    pub id: String,
    pub rule: Rule,
    pub size: usize,
    pub kind: Kind,
    pub moves: Vec<Coord>,
    pub answers: Vec<Coord>,
}

impl Puzzle {
    /// The same puzzle turned or mirrored by one of the eight symmetries of its square
    /// board (see [`Coord::transformed`]; 0 is the identity), with the symmetry in its id.
    /// Every rule is symmetric, so the answers are the images of the answers. The
    /// engine's move ordering, tie-breaks and node caps are not: a puzzle solved in one
    /// orientation only was solved by luck, and a held-out puzzle can come in any.
    pub fn transformed(&self, sym: u8) -> Puzzle {
        let image = |cells: &[Coord]| -> Vec<Coord> {
            cells
                .iter()
                .map(|c| c.transformed(self.size, sym))
                .collect()
        };
        Puzzle {
            id: if sym == 0 {
                self.id.clone()
            } else {
                format!("{}/s{sym}", self.id)
            },
            moves: image(&self.moves),
            answers: image(&self.answers),
            ..self.clone()
        }
    }

    /// Whether `reply` solves the puzzle.
    pub fn accepts(&self, reply: Coord) -> bool {
        let listed = self.answers.contains(&reply);
        match self.kind {
            Kind::Avoid => !listed,
            Kind::Win | Kind::Defend => listed,
        }
    }
}

/// Parses a puzzle file: tab-separated `id rule size kind moves answers [note]`, `#`
/// comments. Returns the puzzles, or the first bad line with its number.
pub fn parse(text: &str) -> Result<Vec<Puzzle>, String> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim_end();
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = |what: &str| format!("line {}: {what}: {line}", n + 1);
        let cols: Vec<&str> = line.split('\t').collect();
        if cols.len() < 6 {
            return Err(bad("expected at least 6 tab-separated columns"));
        }
        let rule = cols[1]
            .parse::<i64>()
            .map(Rule::from_info)
            .map_err(|_| bad("bad rule"))?;
        let size = cols[2].parse::<usize>().map_err(|_| bad("bad size"))?;
        let kind = match cols[3] {
            "win" => Kind::Win,
            "defend" => Kind::Defend,
            "avoid" => Kind::Avoid,
            _ => return Err(bad("bad kind")),
        };
        let moves = parse_pos_sequence(cols[4]).ok_or_else(|| bad("bad moves"))?;
        let answers = cols[5]
            .split(',')
            .map(|a| Coord::from_pos_notation(a.trim()).ok_or_else(|| bad("bad answer")))
            .collect::<Result<Vec<_>, _>>()?;
        out.push(Puzzle {
            id: cols[0].to_string(),
            rule,
            size,
            kind,
            moves,
            answers,
        });
    }
    Ok(out)
}

/// The outcome of one puzzle.
#[derive(Clone, Debug)]
pub struct Attempt {
    pub reply: Option<Coord>,
    pub solved: bool,
    pub elapsed: Duration,
}

/// Plays `puzzle` through a fresh engine given `turn_ms` per move, the position imposed
/// as a `BOARD` in move order (our stones are the side to move's). `on_event` sees the
/// search's reports (iterations, notes) as they come.
///
/// The clock starts after `START`, as a manager's turn clock does: `START` makes the
/// transposition table, which a timed `BOARD` never pays for.
pub fn attempt(puzzle: &Puzzle, turn_ms: u64, on_event: &mut dyn FnMut(&SearchEvent)) -> Attempt {
    let mut engine = Engine::new();
    engine.set_rule(puzzle.rule);
    engine.settings_mut().timeout_turn = turn_ms;
    let mover_is_black = puzzle.moves.len().is_multiple_of(2);
    let stones: Vec<(Coord, Owner)> = puzzle
        .moves
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            let black = i % 2 == 0;
            (
                c,
                if black == mover_is_black {
                    Owner::Own
                } else {
                    Owner::Opponent
                },
            )
        })
        .collect();
    let stop = AtomicBool::new(false);
    let started_game = engine.start(puzzle.size, puzzle.size);
    let started = Instant::now();
    let reply = started_game
        .and_then(|_| engine.set_position(&stones))
        .and_then(|_| engine.think(started, &stop, on_event))
        .ok();
    Attempt {
        reply,
        solved: reply.is_some_and(|r| puzzle.accepts(r)),
        elapsed: started.elapsed(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_shared_format() {
        let text =
            "# comment\nx1\t4\t15\tavoid\th8h9i7\tg9\tnote here\nx2\t0\t15\twin\th8\tg8,l8\n";
        let p = parse(text).unwrap();
        assert_eq!(p.len(), 2);
        assert_eq!(p[0].rule, Rule::Renju);
        assert_eq!(p[0].kind, Kind::Avoid);
        assert!(!p[0].accepts(Coord::new(6, 8)));
        assert!(p[0].accepts(Coord::new(0, 0)));
        assert!(p[1].accepts(Coord::new(11, 7)));
        assert!(parse("bad\tline").is_err());
    }

    #[test]
    fn the_eight_symmetries_turn_moves_and_answers_alike() {
        // Black's four d4 e5 f6 g7 (a diagonal) with its five points c3 and h8.
        let text = "p\t0\t15\twin\td4a1e5a2f6a3g7\tc3,h8\n";
        let p = &parse(text).unwrap()[0];
        let images: Vec<Puzzle> = (0..8).map(|sym| p.transformed(sym)).collect();
        assert_eq!(images[0].moves, p.moves);
        assert_eq!(images[0].id, "p");
        // Mirroring x (sym 1) sends d4 (3, 3) to (11, 3) = l4, and c3 to m3.
        assert_eq!(images[1].id, "p/s1");
        assert_eq!(images[1].moves[0], Coord::new(11, 3));
        assert!(images[1].accepts(Coord::new(12, 2)));
        assert!(!images[1].accepts(Coord::new(2, 2)));
        // Every image is a different arrangement of the same stones.
        for (i, a) in images.iter().enumerate() {
            let mut cells = a.moves.clone();
            cells.sort();
            cells.dedup();
            assert_eq!(cells.len(), p.moves.len(), "sym {i} keeps the stones apart");
            for b in &images[i + 1..] {
                assert_ne!(a.moves, b.moves, "{} and {}", a.id, b.id);
            }
        }
    }
}
