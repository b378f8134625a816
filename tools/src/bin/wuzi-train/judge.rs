//! `wuzi-train judge`: positions of training games valued by another brain — a stronger
//! engine's judgement to fit the evaluation to, in place of our own search's values or
//! the games' results alone. The brain is asked through the Gomocup protocol (`BOARD`
//! with a short turn time); the value is the last one it reports in its `MESSAGE` lines
//! (`Eval N` as Rapfi writes it, `ev N` as ours does).

use crate::games::{self, Game, Ply, NO_VALUE};
use crate::progress::Progress;
use std::io::Write;
use std::time::{Duration, Instant};
use wuzi::board::Board;
use wuzi::types::{Coord, Rule};
use wuzi_tools::matchrunner::engine::{Engine, EngineSpec};

pub struct JudgeOptions {
    pub data: String,
    pub out: String,
    pub engine: EngineSpec,
    pub rule: Rule,
    /// The brain's turn time per position, in milliseconds.
    pub turn_ms: u64,
    /// One position in `every` is judged (consecutive positions say nearly the same).
    pub every: usize,
    /// Positions to judge at most.
    pub limit: usize,
}

/// Judges positions of the games of `o.rule` and writes each judged position to `o.out`
/// as a game of its own: the plies before it are its opening, and its one ply after is
/// the judge's move with the judge's value (no value for a mate score). The policy then
/// learns the judge's choice and the evaluation its value.
pub fn run(o: &JudgeOptions) -> Result<(), String> {
    let mut input = std::fs::File::open(&o.data).map_err(|e| format!("{}: {e}", o.data))?;
    let mut all = games::read_games(&mut input).map_err(|e| format!("{}: {e}", o.data))?;
    all.retain(|g| g.rule == o.rule);
    let file = std::fs::File::create(&o.out).map_err(|e| format!("{}: {e}", o.out))?;
    let mut w = std::io::BufWriter::new(file);
    games::write_header(&mut w).map_err(|e| e.to_string())?;
    let mut brain = Brain::start(o)?;
    let positions: usize = all
        .iter()
        .map(|g| g.plies.len().saturating_sub(g.opening_plies))
        .sum();
    let progress = Progress::new("judge", (positions / o.every.max(1)).min(o.limit) as u64);
    let mut judged = 0usize;
    for (gi, game) in all.iter().enumerate() {
        if judged >= o.limit {
            break;
        }
        for position in judge_game(&mut brain, game, gi, o)? {
            games::write_game(&mut w, &position).map_err(|e| e.to_string())?;
            judged += 1;
        }
        w.flush().map_err(|e| e.to_string())?;
        progress.update(judged as u64, &format!("{} games", gi + 1));
    }
    progress.finish(judged as u64, "positions judged");
    brain.quit();
    Ok(())
}

/// Every `every`-th quiet position of `game` after its opening (offset by the game's
/// index, so all plies get their turn over the file), each as a one-ply game whose ply is
/// the judge's move and value.
fn judge_game(
    brain: &mut Brain,
    game: &Game,
    index: usize,
    o: &JudgeOptions,
) -> Result<Vec<Game>, String> {
    let Ok(mut board) = Board::new(game.width, game.height, game.rule) else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for ply in 0..game.plies.len() {
        let us = board.side_to_move();
        let quiet = !board.has_five_point(us) && !board.has_five_point(us.opponent());
        if ply >= game.opening_plies && quiet && (ply + index) % o.every.max(1) == 0 {
            if let Some((at, value)) = brain.judge(game, ply)? {
                let on_board = board.pos(at).is_some_and(|p| board.is_empty(p));
                if on_board {
                    let mut plies: Vec<Ply> = game.plies[..ply]
                        .iter()
                        .map(|p| Ply {
                            at: p.at,
                            value: NO_VALUE,
                        })
                        .collect();
                    plies.push(Ply { at, value });
                    out.push(Game {
                        plies,
                        opening_plies: ply,
                        ..game.clone()
                    });
                }
            }
        }
        match board.pos(game.plies[ply].at) {
            Some(p) if board.is_empty(p) => board.make(p),
            _ => break,
        }
    }
    Ok(out)
}

/// The judging brain and the board size it was started with.
struct Brain {
    engine: Engine,
    spec: EngineSpec,
    size: Option<(usize, usize)>,
    rule: Rule,
    turn_ms: u64,
}

impl Brain {
    fn start(o: &JudgeOptions) -> Result<Brain, String> {
        let engine = Engine::launch(&o.engine, Duration::from_secs(10))?;
        Ok(Brain {
            engine,
            spec: o.engine.clone(),
            size: None,
            rule: o.rule,
            turn_ms: o.turn_ms,
        })
    }

    fn send(&mut self, line: &str) -> Result<(), String> {
        self.engine
            .send(line)
            .map_err(|e| format!("{}: {e:?} at {line}", self.spec.name))
    }

    /// Starts a game of the board's size when it differs from the last one.
    fn ensure_size(&mut self, width: usize, height: usize) -> Result<(), String> {
        if self.size == Some((width, height)) {
            return Ok(());
        }
        let start = if width == height {
            format!("START {width}")
        } else {
            format!("RECTSTART {width},{height}")
        };
        self.send(&start)?;
        let deadline = Instant::now() + Duration::from_secs(30);
        let reply = self
            .engine
            .read_reply(deadline)
            .map_err(|e| format!("{}: {e:?} after {start}", self.spec.name))?;
        if reply.trim() != "OK" {
            return Err(format!("{}: {reply} after {start}", self.spec.name));
        }
        for info in [
            format!("INFO rule {}", self.rule.info_value()),
            format!("INFO timeout_turn {}", self.turn_ms),
            "INFO timeout_match 0".to_string(),
        ] {
            self.send(&info)?;
        }
        self.size = Some((width, height));
        Ok(())
    }

    /// The brain's move in the position before `game.plies[ply]` and its value for the
    /// side to move (`NO_VALUE` when it reports none or a decided result, a mate score);
    /// `None` when its reply is not a move.
    fn judge(&mut self, game: &Game, ply: usize) -> Result<Option<(Coord, i16)>, String> {
        self.ensure_size(game.width, game.height)?;
        self.send("BOARD")?;
        // Stones of the side to move are the brain's own (1); black moves at even plies.
        let to_move_parity = ply % 2;
        for (j, p) in game.plies[..ply].iter().enumerate() {
            let owner = if j % 2 == to_move_parity { 1 } else { 2 };
            self.send(&format!("{},{},{}", p.at.x, p.at.y, owner))?;
        }
        self.send("DONE")?;
        let deadline = Instant::now() + Duration::from_millis(3 * self.turn_ms + 5_000);
        let mut value = None;
        loop {
            let line = self
                .engine
                .read_line(deadline)
                .map_err(|e| format!("{}: {e:?} while judging", self.spec.name))?;
            if line.starts_with("MESSAGE") {
                if let Some(v) = reported_value(&line) {
                    value = v;
                }
                continue;
            }
            if line.starts_with("DEBUG") || line.starts_with("SUGGEST") {
                continue;
            }
            self.engine.take_log();
            let value = value.map_or(NO_VALUE, |v: i32| {
                v.clamp(-i32::from(i16::MAX), i32::from(i16::MAX)) as i16
            });
            return Ok(parse_move(&line).map(|at| (at, value)));
        }
    }

    fn quit(self) {
        self.engine.quit();
    }
}

/// A move reply `x,y`.
fn parse_move(line: &str) -> Option<Coord> {
    let (x, y) = line.trim().split_once(',')?;
    Some(Coord::new(x.trim().parse().ok()?, y.trim().parse().ok()?))
}

/// The value a `MESSAGE` line reports: `Some(Some(v))` for a number after `Eval` or `ev`,
/// `Some(None)` for a mate score (`Eval M12`, `Eval -M8`), `None` when it reports none.
fn reported_value(line: &str) -> Option<Option<i32>> {
    let mut words = line.split(|c: char| c.is_whitespace() || c == '|');
    while let Some(w) = words.next() {
        if w == "Eval" || w == "ev" {
            let v = words.find(|w| !w.is_empty())?;
            let decided = v.trim_start_matches(['-', '+']).starts_with('M');
            return Some(if decided { None } else { v.parse().ok() });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::{parse_move, reported_value};
    use wuzi::types::Coord;

    #[test]
    fn moves_are_read_from_replies() {
        assert_eq!(parse_move("7,8"), Some(Coord::new(7, 8)));
        assert_eq!(parse_move("MESSAGE 7,8"), None);
    }

    #[test]
    fn values_are_read_from_rapfi_and_wuzi_lines() {
        let rapfi = "MESSAGE Depth 20-38 | Eval -270 | Time 906ms | G9 H10";
        assert_eq!(reported_value(rapfi), Some(Some(-270)));
        assert_eq!(
            reported_value("MESSAGE Depth 12-24 | Eval -M32 | Time 1ms"),
            Some(None)
        );
        assert_eq!(
            reported_value("MESSAGE depth 8-32 ev 308 n 201429"),
            Some(Some(308))
        );
        assert_eq!(
            reported_value("MESSAGE OptiTime 873ms | MaxTime 970ms"),
            None
        );
    }
}
