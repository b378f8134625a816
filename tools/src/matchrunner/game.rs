//! One game between two running brains, driven the way the managers drive it
//! (PROTOCOL.md §6): `START`/`RECTSTART`, the `INFO` settings, then for every move
//! `INFO time_left` followed by `BEGIN` (empty board), `BOARD … DONE` (a brain's first move
//! after an opening) or `TURN x,y`.

use super::adjudicate::{Referee, Verdict};
use super::clock::{GameClock, TimeControl};
use super::engine::{Engine, EngineFailure};
use std::fmt;
use std::time::{Duration, Instant};
use wuzi::types::{Color, Coord, Rule};

/// Everything about a game except the players and the opening; the same for every game
/// of a match.
#[derive(Clone, Debug)]
pub struct GameSetup {
    pub width: usize,
    pub height: usize,
    pub rule: Rule,
    pub time: TimeControl,
    /// Bytes for `INFO max_memory`; 0 = no limit.
    pub max_memory: u64,
    /// Draw once this many stones are on the board (opening included); 0 = no cap.
    pub max_moves: usize,
    /// How long `START` may take (it is not on the turn clock).
    pub start_timeout: Duration,
}

impl Default for GameSetup {
    /// 15×15 freestyle, 1 s per move, the Gomocup memory limit.
    fn default() -> GameSetup {
        GameSetup {
            width: 15,
            height: 15,
            rule: Rule::Freestyle,
            time: TimeControl::default(),
            max_memory: 350 * 1024 * 1024,
            max_moves: 0,
            start_timeout: Duration::from_secs(10),
        }
    }
}

/// Why a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EndReason {
    /// A winning line under the rule in force.
    Five,
    Timeout,
    /// The process exited, closed its pipes or could not be started.
    Crash,
    OffBoard,
    Occupied,
    /// A renju foul by black.
    Forbidden,
    /// A reply that is neither a move nor `OK` where one was due.
    BadReply,
    BoardFull,
    MoveCap,
    /// The runner could not set the game up (not the brains' fault); counted as a draw.
    Aborted,
}

impl EndReason {
    pub const ALL: [EndReason; 10] = [
        EndReason::Five,
        EndReason::Timeout,
        EndReason::Crash,
        EndReason::OffBoard,
        EndReason::Occupied,
        EndReason::Forbidden,
        EndReason::BadReply,
        EndReason::BoardFull,
        EndReason::MoveCap,
        EndReason::Aborted,
    ];

    pub fn name(self) -> &'static str {
        match self {
            EndReason::Five => "five",
            EndReason::Timeout => "timeout",
            EndReason::Crash => "crash",
            EndReason::OffBoard => "off-board",
            EndReason::Occupied => "occupied",
            EndReason::Forbidden => "forbidden",
            EndReason::BadReply => "bad-reply",
            EndReason::BoardFull => "board-full",
            EndReason::MoveCap => "move-cap",
            EndReason::Aborted => "aborted",
        }
    }

    /// The reason called `name` (the inverse of `name`).
    pub fn from_name(name: &str) -> Option<EndReason> {
        EndReason::ALL.into_iter().find(|r| r.name() == name)
    }

    /// True when the loser lost through its own fault rather than over the board; such a
    /// brain is restarted before its next game.
    pub fn is_fault(self) -> bool {
        !matches!(
            self,
            EndReason::Five | EndReason::BoardFull | EndReason::MoveCap | EndReason::Aborted
        )
    }
}

impl fmt::Display for EndReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One stone of the game record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlayedMove {
    pub coord: Coord,
    pub color: Color,
    /// Thinking time (zero for opening stones), kept exact so that the runner's overhead
    /// can be measured; records round it to ms.
    pub time: Duration,
    pub from_opening: bool,
}

/// How a game ended and what happened on the way.
#[derive(Clone, Debug)]
pub struct GameOutcome {
    /// `None` for a draw.
    pub winner: Option<Color>,
    pub reason: EndReason,
    /// Human-readable detail: the offending reply, the winning move, …
    pub detail: String,
    pub moves: Vec<PlayedMove>,
    /// The protocol transcripts of black and white.
    pub logs: [Vec<String>; 2],
}

impl GameOutcome {
    /// The colour that lost through its own fault, if any (it must be restarted).
    pub fn faulty(&self) -> Option<Color> {
        match self.winner {
            Some(w) if self.reason.is_fault() => Some(w.opponent()),
            _ => None,
        }
    }
}

struct Ended {
    winner: Option<Color>,
    reason: EndReason,
    detail: String,
}

fn loss(loser: Color, reason: EndReason, detail: String) -> Ended {
    Ended {
        winner: Some(loser.opponent()),
        reason,
        detail,
    }
}

/// Plays one game from `opening` (stones in move order, black first); `players[0]` has
/// black. The engines stay running afterwards (the next game starts with a new `START`);
/// the caller restarts the one the outcome names as faulty.
pub fn play_game(
    mut players: [&mut Engine; 2],
    setup: &GameSetup,
    opening: &[Coord],
    mut referee: Referee,
) -> GameOutcome {
    let mut moves = Vec::new();
    let ended = run(&mut players, setup, opening, &mut referee, &mut moves);
    GameOutcome {
        winner: ended.winner,
        reason: ended.reason,
        detail: ended.detail,
        moves,
        logs: [players[0].take_log(), players[1].take_log()],
    }
}

fn run(
    players: &mut [&mut Engine; 2],
    setup: &GameSetup,
    opening: &[Coord],
    referee: &mut Referee,
    moves: &mut Vec<PlayedMove>,
) -> Ended {
    for color in Color::BOTH {
        if let Err(ended) = start(players[color.index()], color, setup) {
            return ended;
        }
    }
    for (i, &c) in opening.iter().enumerate() {
        let color = referee.side_to_move();
        if referee.judge(c) != Verdict::Normal || referee.play(c).is_err() {
            // Openings are validated before the match; reaching this is a runner bug, so
            // nobody is blamed.
            return draw(
                EndReason::Aborted,
                &format!("opening stone {} ({}) is not playable", i + 1, c),
            );
        }
        moves.push(PlayedMove {
            coord: c,
            color,
            time: Duration::ZERO,
            from_opening: true,
        });
    }
    let mut clocks = [GameClock::new(setup.time), GameClock::new(setup.time)];
    let mut has_moved = [false, false];
    loop {
        if referee.is_full() {
            return draw(EndReason::BoardFull, "the board is full");
        }
        if setup.max_moves > 0 && referee.move_count() >= setup.max_moves {
            return draw(EndReason::MoveCap, "move cap reached");
        }
        let color = referee.side_to_move();
        let side = color.index();
        let clock = &mut clocks[side];
        let mut commands = vec![format!("INFO time_left {}", clock.time_left_info())];
        commands.extend(move_request(color, has_moved[side], moves));
        has_moved[side] = true;
        let engine = &mut *players[side];
        let started = Instant::now();
        let reply = send_all(engine, &commands)
            .and_then(|_| engine.read_reply(started + clock.allowance()));
        let elapsed = started.elapsed();
        let reply = match reply {
            Ok(line) => line,
            Err(failure) => return failed(color, failure, "waiting for a move"),
        };
        if !clock.charge(elapsed) {
            return loss(
                color,
                EndReason::Timeout,
                format!("move took {} ms", elapsed.as_millis()),
            );
        }
        let Some(c) = parse_move(&reply) else {
            return loss(color, EndReason::BadReply, format!("reply {:?}", reply));
        };
        let verdict = referee.judge(c);
        let reason = match verdict {
            Verdict::OffBoard => Some(EndReason::OffBoard),
            Verdict::Occupied => Some(EndReason::Occupied),
            Verdict::Forbidden => Some(EndReason::Forbidden),
            Verdict::Win | Verdict::Normal => None,
        };
        if let Some(reason) = reason {
            return loss(color, reason, format!("move {}", c));
        }
        if let Err(e) = referee.play(c) {
            return loss(color, EndReason::BadReply, format!("move {}: {}", c, e));
        }
        moves.push(PlayedMove {
            coord: c,
            color,
            time: elapsed,
            from_opening: false,
        });
        if verdict == Verdict::Win {
            return Ended {
                winner: Some(color),
                reason: EndReason::Five,
                detail: format!("winning move {}", c),
            };
        }
    }
}

fn draw(reason: EndReason, detail: &str) -> Ended {
    Ended {
        winner: None,
        reason,
        detail: detail.to_string(),
    }
}

fn failed(color: Color, failure: EngineFailure, doing: &str) -> Ended {
    match failure {
        EngineFailure::Timeout => loss(color, EndReason::Timeout, format!("no reply {}", doing)),
        EngineFailure::Crashed => loss(color, EndReason::Crash, format!("process gone {}", doing)),
    }
}

/// `START`/`RECTSTART`, expecting `OK`, then the settings.
fn start(engine: &mut Engine, color: Color, setup: &GameSetup) -> Result<(), Ended> {
    let command = if setup.width == setup.height {
        format!("START {}", setup.width)
    } else {
        format!("RECTSTART {},{}", setup.width, setup.height)
    };
    let deadline = Instant::now() + setup.start_timeout;
    let reply = send_all(engine, &[command])
        .and_then(|_| engine.read_reply(deadline))
        .map_err(|f| failed(color, f, "after START"))?;
    if !reply.trim().eq_ignore_ascii_case("OK") {
        return Err(loss(
            color,
            EndReason::BadReply,
            format!("START answered {:?}", reply),
        ));
    }
    let mut infos = vec![
        format!("INFO timeout_turn {}", setup.time.turn_ms),
        format!("INFO timeout_match {}", setup.time.match_ms),
        format!("INFO max_memory {}", setup.max_memory),
        format!("INFO rule {}", setup.rule.info_value()),
        "INFO game_type 1".to_string(),
    ];
    infos.extend(
        engine
            .spec()
            .info
            .iter()
            .map(|(k, v)| format!("INFO {k} {v}")),
    );
    send_all(engine, &infos).map_err(|f| failed(color, f, "sending INFO"))
}

fn send_all(engine: &mut Engine, lines: &[String]) -> Result<(), EngineFailure> {
    lines.iter().try_for_each(|line| engine.send(line))
}

/// The command(s) that ask `color` for its next move.
pub fn move_request(color: Color, has_moved: bool, moves: &[PlayedMove]) -> Vec<String> {
    match moves.last() {
        None => vec!["BEGIN".to_string()],
        Some(last) if has_moved => vec![format!("TURN {}", last.coord)],
        Some(_) => {
            // A brain's first move with stones on the board: the whole position, in move
            // order (renju brains need the order), 1 = own stone, 2 = opponent's.
            let mut lines = vec!["BOARD".to_string()];
            lines.extend(moves.iter().map(|m| {
                let owner = if m.color == color { 1 } else { 2 };
                format!("{},{},{}", m.coord.x, m.coord.y, owner)
            }));
            lines.push("DONE".to_string());
            lines
        }
    }
}

/// Parses a move reply `x,y` (spaces allowed around the numbers).
pub fn parse_move(reply: &str) -> Option<Coord> {
    let (x, y) = reply.trim().split_once(',')?;
    Some(Coord::new(x.trim().parse().ok()?, y.trim().parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stone(x: i32, y: i32, color: Color) -> PlayedMove {
        PlayedMove {
            coord: Coord::new(x, y),
            color,
            time: Duration::ZERO,
            from_opening: true,
        }
    }

    #[test]
    fn move_replies_parse_strictly() {
        assert_eq!(parse_move("7,8"), Some(Coord::new(7, 8)));
        assert_eq!(parse_move(" 7 , 8 "), Some(Coord::new(7, 8)));
        assert_eq!(parse_move("-1,3"), Some(Coord::new(-1, 3)));
        assert_eq!(parse_move("7 8"), None);
        assert_eq!(parse_move("7,8,1"), None);
        assert_eq!(parse_move("OK"), None);
        assert_eq!(parse_move("99999999999,1"), None);
    }

    #[test]
    fn requests_are_begin_board_then_turn() {
        assert_eq!(move_request(Color::Black, false, &[]), vec!["BEGIN"]);
        let moves = [
            stone(7, 7, Color::Black),
            stone(8, 7, Color::White),
            stone(6, 6, Color::Black),
        ];
        assert_eq!(
            move_request(Color::White, false, &moves),
            vec!["BOARD", "7,7,2", "8,7,1", "6,6,2", "DONE"]
        );
        assert_eq!(
            move_request(Color::Black, false, &moves[..2]),
            vec!["BOARD", "7,7,1", "8,7,2", "DONE"]
        );
        assert_eq!(move_request(Color::White, true, &moves), vec!["TURN 6,6"]);
    }

    #[test]
    fn only_faults_mark_the_loser_for_restart() {
        assert!(EndReason::Timeout.is_fault());
        assert!(EndReason::BadReply.is_fault());
        assert!(!EndReason::Five.is_fault());
        assert!(!EndReason::MoveCap.is_fault());
    }

    #[test]
    fn reasons_are_found_by_name() {
        for reason in EndReason::ALL {
            assert_eq!(EndReason::from_name(reason.name()), Some(reason));
        }
        assert_eq!(EndReason::from_name("resigned"), None);
    }
}
