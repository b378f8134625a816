//! The session fuzz target: arbitrary bytes as the input of a whole protocol session
//! (`protocol::run`, the engine and its reader thread as in the brain), with the
//! engine thinking a few milliseconds and at most a thousand nodes per move so that an
//! input runs in well under a second. A referee reads the same input as the session
//! reads it and follows the replies: each command gets the replies the protocol
//! promises (one `OK`/`ERROR`/`UNKNOWN`, or `MESSAGE` lines and then a move), every move
//! of the brain is legal on the referee's board (on it, empty, not a renju foul), a
//! `TAKEBACK` is accepted exactly when it names the last stone, a position is accepted
//! exactly when it is one, and nothing is written after `END`. Every reply line has a
//! known form and no control character.
//!
//! `INFO` lines that would make a move slow or touch the disk (long times, deep or
//! unbounded searches, many threads, large tables, `folder`) are blanked before the
//! session sees them. When the input holds an `END`, which the reader sees at once and
//! which silences any search still to come, the referee follows the replies only up to
//! the first command that searches; the form of every line is still checked.

use std::collections::VecDeque;
use std::io::Cursor;
use wuzi::board::Board;
use wuzi::config::{Config, ConfigSource};
use wuzi::engine::{Engine, Settings};
use wuzi::protocol::command::{
    is_done, looks_like_command, parse_command, parse_coord, parse_stone_line, Command,
};
use wuzi::rules::{self, judge_move, Verdict};
use wuzi::types::{Color, Coord};

/// Longer inputs are skipped: a session of a few thousand bytes already plays many
/// moves.
pub const MAX_INPUT: usize = 4096;

/// The longest reply line: a `MESSAGE` with a principal variation stays well below.
const MAX_LINE_CHARS: usize = 1024;
/// `ERROR` and `UNKNOWN` quote at most 64 characters of the input.
const MAX_ERROR_CHARS: usize = 250;

/// Runs one input; panics on a finding.
pub fn run(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    let input = tame(data);
    let mut output = Vec::new();
    wuzi::protocol::run(fuzz_engine(), Cursor::new(input.clone()), &mut output);
    let text = match String::from_utf8(output) {
        Ok(text) => text,
        Err(e) => panic!("the replies are not UTF-8: {e}"),
    };
    assert!(
        text.is_empty() || text.ends_with('\n'),
        "the last reply has no line end: {text:?}"
    );
    let replies: Vec<&str> = text.lines().collect();
    for reply in &replies {
        check_form(reply);
    }
    let lines = input_lines(&input);
    Referee {
        end_in_input: lines.iter().any(|l| first_word(l) == "END"),
        lines: lines.into(),
        replies: &replies,
        next_reply: 0,
        board: None,
        settings: Settings::default(),
        in_abandoned_block: false,
        read: Vec::new(),
    }
    .follow();
}

/// The engine of the brain with a small hash table, short moves and no opening book:
/// reading the books and scanning them for a swap2 opening would take most of each run
/// (`tests/book.rs` tests the brain's book moves).
fn fuzz_engine() -> Engine {
    let config = Config::from_text(
        "[engine]\nhash_mb = 1\n[book]\nenabled = false\n",
        ConfigSource::Embedded,
    );
    let mut engine = Engine::with_config(config);
    let settings = engine.settings_mut();
    settings.timeout_turn = 20;
    settings.max_node = Some(1000);
    settings.max_depth = Some(6);
    engine
}

/// `data` with the `INFO` lines that would make moves slow or write files blanked (line
/// ends kept). Values that are not numbers stay: the engine refuses them.
fn tame(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len());
    for piece in data.split_inclusive(|&b| b == b'\n' || b == b'\r') {
        let (content, end) = match piece.last() {
            Some(b'\n' | b'\r') => piece.split_at(piece.len() - 1),
            _ => (piece, &[][..]),
        };
        if let Ok(Command::Info { key, value }) = parse_command(&String::from_utf8_lossy(content)) {
            if !harmless_info(&key, &value) {
                out.extend_from_slice(end);
                continue;
            }
        }
        out.extend_from_slice(piece);
    }
    out
}

fn harmless_info(key: &str, value: &str) -> bool {
    let Ok(n) = value.trim().parse::<i64>() else {
        return key != "folder";
    };
    match key {
        "folder" => false,
        "timeout_turn" | "timeout_match" | "time_left" => n <= 50,
        // 0 lifts the limit.
        "max_node" => n < 0 || (1..=2000).contains(&n),
        "max_depth" => n < 0 || (1..=6).contains(&n),
        "thread_num" => n <= 2,
        "hash_size" => n <= 4096,
        _ => true,
    }
}

/// The lines of `input` as the protocol's reader delivers them: ended by LF, CR or CR
/// LF; bytes that are not UTF-8 replaced.
fn input_lines(input: &[u8]) -> Vec<String> {
    let mut lines = Vec::new();
    let mut current = Vec::new();
    let mut last_was_cr = false;
    for &b in input {
        match b {
            b'\n' if last_was_cr => {}
            b'\n' | b'\r' => {
                lines.push(String::from_utf8_lossy(&std::mem::take(&mut current)).into_owned())
            }
            _ => current.push(b),
        }
        last_was_cr = b == b'\r';
    }
    if !current.is_empty() {
        lines.push(String::from_utf8_lossy(&current).into_owned());
    }
    lines
}

fn first_word(line: &str) -> String {
    line.split_whitespace()
        .next()
        .unwrap_or("")
        .to_ascii_uppercase()
}

/// A move reply `x,y`: two decimal numbers, nothing else.
fn parse_move(text: &str) -> Option<Coord> {
    let (x, y) = text.split_once(',')?;
    let digits = |s: &str| !s.is_empty() && s.len() <= 3 && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(x) || !digits(y) {
        return None;
    }
    Some(Coord::new(x.parse().ok()?, y.parse().ok()?))
}

/// Every reply line: a known reply word, the `ABOUT` line or moves; no control
/// characters; short.
fn check_form(line: &str) {
    assert!(
        line.chars().count() <= MAX_LINE_CHARS,
        "a reply of {} characters: {line:?}",
        line.chars().count()
    );
    assert!(
        !line.chars().any(char::is_control),
        "a control character in the reply {line:?}"
    );
    if line.starts_with("ERROR ") || line.starts_with("UNKNOWN ") {
        assert!(
            line.chars().count() <= MAX_ERROR_CHARS,
            "a long rejection: {line:?}"
        );
    }
    const WORDS: [&str; 7] = [
        "ERROR ", "UNKNOWN ", "MESSAGE ", "DEBUG ", "SUGGEST ", "INFO ", "FORBID ",
    ];
    let known = line == "OK"
        || line == "SWAP"
        || line.starts_with("name=\"")
        || WORDS.iter().any(|w| line.starts_with(w))
        || (!line.is_empty() && line.split(' ').all(|m| parse_move(m).is_some()));
    assert!(known, "a reply of no known form: {line:?}");
}

/// How a block of lines ended.
enum Block {
    Done(Vec<String>),
    /// A command came before `DONE`.
    Abandoned,
    /// `END` came before `DONE` (and is read next).
    End,
    Eof,
}

/// Whether the referee goes on following the replies.
#[derive(PartialEq)]
enum Flow {
    Go,
    Stop,
}

struct Referee<'a> {
    lines: VecDeque<String>,
    replies: &'a [&'a str],
    next_reply: usize,
    /// The position the brain should hold, with its rule.
    board: Option<Board>,
    /// The settings `INFO` gave (the referee reads only the rule).
    settings: Settings,
    in_abandoned_block: bool,
    end_in_input: bool,
    /// The input lines read so far, for failure messages.
    read: Vec<String>,
}

impl Referee<'_> {
    fn fail(&self, why: &str) -> ! {
        let shown = |lines: &[&str]| {
            lines
                .iter()
                .map(|l| format!("  {l:?}"))
                .collect::<Vec<_>>()
                .join("\n")
        };
        let read: Vec<&str> = self.read.iter().map(String::as_str).collect();
        panic!(
            "{why}\ninput read so far:\n{}\nreplies (next is {}):\n{}\nboard:\n{}",
            shown(&read),
            self.next_reply,
            shown(self.replies),
            self.board
                .as_ref()
                .map_or("none".to_string(), |b| b.to_string())
        );
    }

    fn next_line(&mut self) -> Option<String> {
        let line = self.lines.pop_front()?;
        self.read.push(line.clone());
        Some(line)
    }

    fn reply(&mut self, to: &str) -> String {
        let Some(&reply) = self.replies.get(self.next_reply) else {
            self.fail(&format!("no reply to {to:?}"));
        };
        self.next_reply += 1;
        reply.to_string()
    }

    /// The one reply of a command that answers `OK` or `ERROR`: whether it was `OK`.
    fn ok_or_error(&mut self, to: &str) -> bool {
        let reply = self.reply(to);
        match reply.as_str() {
            "OK" => true,
            r if r.starts_with("ERROR ") => false,
            r => self.fail(&format!("{to:?} got {r:?}, not OK or ERROR")),
        }
    }

    fn expect_error(&mut self, to: &str) {
        let reply = self.reply(to);
        if !reply.starts_with("ERROR ") {
            self.fail(&format!("{to:?} got {reply:?}, not an ERROR"));
        }
    }

    /// The last reply of a search: the `MESSAGE` lines before it are skipped (one that
    /// tells of an internal error is a finding).
    fn after_messages(&mut self, to: &str) -> String {
        loop {
            let reply = self.reply(to);
            if reply.contains("internal error") {
                self.fail(&format!("{to:?}: {reply:?}"));
            }
            if !reply.starts_with("MESSAGE ") {
                return reply;
            }
        }
    }

    /// Judges a move of the brain on `board` (for the side to move) and plays it.
    fn brain_move(&self, board: &mut Board, c: Coord, to: &str) {
        match judge_move(board, c) {
            Verdict::Normal | Verdict::Win => {}
            verdict => self.fail(&format!("{to:?}: the brain's move {c} is {verdict:?}")),
        }
        if board.play(c).is_err() {
            self.fail(&format!("{to:?}: the brain's move {c} cannot be played"));
        }
    }

    fn follow(mut self) {
        while let Some(line) = self.next_line() {
            if line.trim().is_empty() {
                continue;
            }
            if self.in_abandoned_block {
                if !looks_like_command(&line) {
                    continue;
                }
                self.in_abandoned_block = false;
                if is_done(&line) {
                    continue;
                }
            }
            let flow = match parse_command(&line) {
                Ok(Command::End) => break,
                Ok(Command::Info { key, value }) => {
                    self.info(&key, &value);
                    Flow::Go
                }
                Ok(command) => self.command(command, &line),
                Err(e) => {
                    let reply = self.reply(&line);
                    let word = if e.is_unknown() { "UNKNOWN " } else { "ERROR " };
                    if !reply.starts_with(word) {
                        self.fail(&format!("{line:?} got {reply:?}, not {word}…"));
                    }
                    Flow::Go
                }
            };
            if flow == Flow::Stop {
                return;
            }
        }
        if self.next_reply != self.replies.len() {
            self.fail("replies after END or the end of input");
        }
    }

    fn info(&mut self, key: &str, value: &str) {
        let _ = self.settings.apply(key, value);
        if key != "rule" {
            return;
        }
        // The brain keeps its stones under the new rule.
        let rule = self.settings.rule;
        if let Some(old) = self.board.take() {
            let mut board = Board::new(old.width(), old.height(), rule).expect("same shape");
            for &p in old.history() {
                let color = old.stone_at(old.coord(p)).unwrap_or(Color::Black);
                board.place(p, color);
            }
            self.board = Some(board);
        }
    }

    fn command(&mut self, command: Command, line: &str) -> Flow {
        let searches = matches!(
            command,
            Command::Begin
                | Command::Turn(_)
                | Command::YxNbest(_)
                | Command::Board
                | Command::Swap2Board
        );
        if searches && self.end_in_input {
            return Flow::Stop;
        }
        match command {
            Command::Start(n) => self.start(n, n, line),
            Command::RectStart(w, h) => self.start(w, h, line),
            Command::Restart => {
                let ok = self.ok_or_error(line);
                match self.board.take() {
                    Some(b) if ok => {
                        self.board = Some(
                            Board::new(b.width(), b.height(), self.settings.rule)
                                .expect("same shape"),
                        )
                    }
                    None if !ok => {}
                    _ => self.fail(&format!("{line:?}: OK without a board or ERROR with one")),
                }
            }
            Command::Begin => self.move_reply(None, line),
            Command::Turn(c) => self.move_reply(Some(c), line),
            Command::Play(c) => self.play(c, line),
            Command::Takeback(c) => self.takeback(c, line),
            Command::Board | Command::YxBoard => self.position(command == Command::Board, line),
            Command::Swap2Board => self.swap2(line),
            Command::About => {
                let reply = self.reply(line);
                if !reply.starts_with("name=\"") {
                    self.fail(&format!("ABOUT got {reply:?}"));
                }
            }
            Command::Stop | Command::YxHashClear => {}
            Command::Done => self.expect_error(line),
            Command::YxShowForbid => self.show_forbid(line),
            Command::YxShowInfo => {
                for _ in 0..2 {
                    let reply = self.reply(line);
                    if !reply.starts_with("INFO ") {
                        self.fail(&format!("{line:?} got {reply:?}"));
                    }
                }
            }
            Command::YxNbest(_) => self.analysis(line),
            Command::End | Command::Info { .. } => unreachable!("handled by follow"),
        }
        Flow::Go
    }

    fn start(&mut self, width: usize, height: usize, line: &str) {
        let ok = self.ok_or_error(line);
        let valid = (5..=32).contains(&width) && (5..=32).contains(&height);
        if ok != valid {
            self.fail(&format!(
                "{line:?}: OK is {ok} for a {width}x{height} board"
            ));
        }
        if ok {
            self.board = Some(Board::new(width, height, self.settings.rule).expect("valid size"));
        }
    }

    /// `BEGIN` (`turn` None) or `TURN turn`: `MESSAGE` lines and a legal move, or an
    /// `ERROR` (and for a full board after the opponent's stone, that stone is on).
    fn move_reply(&mut self, turn: Option<Coord>, line: &str) {
        let last = self.after_messages(line);
        let Some(mut board) = self.board.take() else {
            if !last.starts_with("ERROR ") {
                self.fail(&format!("{line:?} without a board got {last:?}"));
            }
            return;
        };
        if last.starts_with("ERROR ") {
            if last == "ERROR the board is full" {
                if let Some(c) = turn {
                    if board.play(c).is_err() || !board.is_full() {
                        self.fail(&format!(
                            "{line:?}: 'board full' but the stone did not fill it"
                        ));
                    }
                }
            }
            self.board = Some(board);
            return;
        }
        let Some(m) = parse_move(&last) else {
            self.fail(&format!("{line:?} got {last:?}, not a move or ERROR"));
        };
        if let Some(c) = turn {
            if judge_move(&board, c) == Verdict::OffBoard || board.play(c).is_err() {
                self.fail(&format!(
                    "{line:?}: a move answered to an opponent's stone that cannot be played"
                ));
            }
        }
        self.brain_move(&mut board, m, line);
        self.board = Some(board);
    }

    fn play(&mut self, c: Coord, line: &str) {
        let reply = self.reply(line);
        if reply.starts_with("ERROR ") {
            return;
        }
        if parse_move(&reply) != Some(c) {
            self.fail(&format!("{line:?} got {reply:?}"));
        }
        let Some(mut board) = self.board.take() else {
            self.fail(&format!("{line:?} accepted without a board"));
        };
        if board.play(c).is_err() {
            self.fail(&format!("{line:?} accepted on an occupied or outside cell"));
        }
        self.board = Some(board);
    }

    fn takeback(&mut self, c: Coord, line: &str) {
        let ok = self.ok_or_error(line);
        let last = self
            .board
            .as_ref()
            .and_then(|b| b.last_move().map(|p| b.coord(p)));
        if ok != (last == Some(c)) {
            self.fail(&format!(
                "{line:?}: OK is {ok} when the last stone is {last:?}"
            ));
        }
        if ok {
            if let Some(b) = self.board.as_mut() {
                b.undo();
            }
        }
    }

    /// The data lines of a block, read as the protocol reads them.
    fn block(&mut self) -> Block {
        let mut lines = Vec::new();
        while let Some(line) = self.next_line() {
            let text = line.trim();
            if text.is_empty() {
                continue;
            }
            if is_done(text) {
                return Block::Done(lines);
            }
            if looks_like_command(text) {
                if parse_command(text) == Ok(Command::End) {
                    self.read.pop();
                    self.lines.push_front(line);
                    return Block::End;
                }
                return Block::Abandoned;
            }
            lines.push(text.to_string());
        }
        Block::Eof
    }

    /// The lines of a block that ended with `DONE`; otherwise its reply is checked here.
    fn block_lines(&mut self, name: &str) -> Option<Vec<String>> {
        match self.block() {
            Block::Done(lines) => Some(lines),
            Block::Abandoned => {
                self.expect_error(name);
                self.in_abandoned_block = true;
                None
            }
            Block::End | Block::Eof => None,
        }
    }

    /// `BOARD` (`asks_move`) or `YXBOARD`: accepted exactly when the lines are stones on
    /// distinct cells of the board in counts a game can have.
    fn position(&mut self, asks_move: bool, line: &str) {
        let Some(lines) = self.block_lines(line) else {
            return;
        };
        let mut stones = Vec::new();
        for text in &lines {
            match parse_stone_line(text) {
                Ok((c, f @ (1 | 2))) => stones.push((c, f == 1)),
                Ok(_) => {}
                Err(_) => return self.expect_error(line),
            }
        }
        let Some(position) = self.position_of(&stones) else {
            return self.expect_error(line);
        };
        self.board = Some(position);
        if !asks_move {
            return;
        }
        let last = self.after_messages(line);
        let mut board = self.board.take().expect("just set");
        if last.starts_with("ERROR ") {
            if !board.is_full() {
                self.fail(&format!(
                    "{line:?}: ERROR on a valid position that is not full"
                ));
            }
        } else if let Some(m) = parse_move(&last) {
            self.brain_move(&mut board, m, line);
        } else {
            self.fail(&format!("{line:?} got {last:?}"));
        }
        self.board = Some(board);
    }

    /// The position of a block's stones (`true` = the brain's own), if it is one.
    fn position_of(&self, stones: &[(Coord, bool)]) -> Option<Board> {
        let current = self.board.as_ref()?;
        let own = stones.iter().filter(|(_, own)| *own).count();
        let opponent = stones.len() - own;
        let own_color = if own == opponent {
            Color::Black
        } else if opponent == own + 1 {
            Color::White
        } else {
            return None;
        };
        let mut board = Board::new(current.width(), current.height(), current.rule()).ok()?;
        for &(c, mine) in stones {
            let p = board.pos(c)?;
            if !board.is_empty(p) {
                return None;
            }
            board.place(
                p,
                if mine {
                    own_color
                } else {
                    own_color.opponent()
                },
            );
        }
        Some(board)
    }

    /// `SWAP2BOARD`: 0 stones get three to place, 3 or 5 get `SWAP` or one stone.
    fn swap2(&mut self, line: &str) {
        let Some(lines) = self.block_lines(line) else {
            return;
        };
        let mut stones = Vec::new();
        for text in &lines {
            match parse_coord(text) {
                Ok(c) => stones.push(c),
                Err(_) => return self.expect_error(line),
            }
        }
        let last = self.after_messages(line);
        let valid = self.board.as_ref().and_then(|current| {
            let mut board = Board::new(current.width(), current.height(), current.rule()).ok()?;
            for &c in &stones {
                board.play(c).ok()?;
            }
            [0, 3, 5].contains(&stones.len()).then_some(board)
        });
        let Some(mut board) = valid else {
            if !last.starts_with("ERROR ") {
                self.fail(&format!("{line:?}: {last:?} for an invalid swap2 position"));
            }
            return;
        };
        if last == "SWAP" && !stones.is_empty() {
            self.board = Some(board);
            return;
        }
        let moves: Option<Vec<Coord>> = last.split(' ').map(parse_move).collect();
        let expected = if stones.is_empty() { 3 } else { 1 };
        match moves {
            Some(moves) if moves.len() == expected => {
                for m in moves {
                    self.brain_move(&mut board, m, line);
                }
                self.board = Some(board);
            }
            _ => self.fail(&format!(
                "{line:?} with {} stones got {last:?}",
                stones.len()
            )),
        }
    }

    /// `YXSHOWFORBID`: black's forbidden points of the position, row by row.
    fn show_forbid(&mut self, line: &str) {
        let reply = self.reply(line);
        let Some(board) = self.board.as_ref() else {
            if !reply.starts_with("ERROR ") {
                self.fail(&format!("{line:?} without a board got {reply:?}"));
            }
            return;
        };
        let expected: String = rules::forbidden_points(board)
            .into_iter()
            .map(|p| {
                let c = board.coord(p);
                format!("{:02}{:02}", c.x, c.y)
            })
            .collect();
        if reply != format!("FORBID {expected}.") {
            self.fail(&format!("{line:?} got {reply:?}, not FORBID {expected}."));
        }
    }

    /// `YXNBEST n`: `MESSAGE` lines and the best move, not played; `ERROR` without a
    /// board or on a full one.
    fn analysis(&mut self, line: &str) {
        let last = self.after_messages(line);
        let legal = self.board.as_ref().map(|board| match parse_move(&last) {
            Some(m) => matches!(judge_move(board, m), Verdict::Normal | Verdict::Win),
            None => last.starts_with("ERROR ") && board.is_full(),
        });
        if legal != Some(true) && !(self.board.is_none() && last.starts_with("ERROR ")) {
            self.fail(&format!("{line:?} got {last:?}"));
        }
    }
}
