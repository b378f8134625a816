//! Drives the real `pbrain-wuzi` binary as a manager would: a child process on pipes.
//!
//! Every line the brain writes (stdout and stderr alike: Piskvork merges the two) goes
//! through one channel, so a test reads replies in order with a timeout and any stray
//! line shows up as a failure that quotes it.

#![allow(dead_code)] // each test binary uses a different part of the helper

pub mod parallel;

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::thread;
use std::time::{Duration, Instant};
use wuzi::board::Board;
use wuzi::rules::{judge_move, Verdict};
use wuzi::types::{parse_pos_sequence, Coord, Rule};

/// How lines sent to the brain end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Eol {
    /// Bare LF (c-gomoku-cli, qpiskvork).
    Lf,
    /// CR LF (Piskvork, GomocupJudge).
    CrLf,
    /// A lone CR.
    Cr,
}

impl Eol {
    fn as_str(self) -> &'static str {
        match self {
            Eol::Lf => "\n",
            Eol::CrLf => "\r\n",
            Eol::Cr => "\r",
        }
    }
}

/// Something the brain wrote.
#[derive(Debug)]
enum Output {
    Stdout(String),
    Stderr(String),
    /// stdout was closed.
    Closed,
}

/// Generous bound for a reply that should come at once (no search involved); only a
/// hung brain ever waits this long.
pub const QUICK: Duration = Duration::from_secs(5);

/// The brain as a child process.
pub struct Brain {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Output>,
    /// Line end used by `send`.
    pub eol: Eol,
    /// Everything sent and received, quoted in failure messages.
    transcript: Vec<String>,
}

impl Brain {
    /// Starts the brain with bare LF line ends.
    pub fn spawn() -> Brain {
        Brain::spawn_with(Eol::Lf)
    }

    pub fn spawn_with(eol: Eol) -> Brain {
        Brain::spawn_with_config(eol, None)
    }

    /// Starts the brain with the configuration file `config` (through `WUZI_CONFIG`), or
    /// with its usual lookup when `None`.
    pub fn spawn_with_config(eol: Eol, config: Option<&std::path::Path>) -> Brain {
        let mut command = Command::new(env!("CARGO_BIN_EXE_pbrain-wuzi"));
        match config {
            Some(path) => command.env("WUZI_CONFIG", path),
            None => command.env_remove("WUZI_CONFIG"),
        };
        let mut child = command
            // A temporary working directory, as Piskvork uses: the brain must not need
            // its files in the CWD.
            .current_dir(std::env::temp_dir())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("cannot start pbrain-wuzi");
        let (tx, rx) = channel();
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr = child.stderr.take().expect("piped stderr");
        forward(stdout, tx.clone(), Output::Stdout, true);
        forward(stderr, tx, Output::Stderr, false);
        let stdin = child.stdin.take();
        Brain {
            child,
            stdin,
            lines: rx,
            eol,
            transcript: Vec::new(),
        }
    }

    /// Sends one line with the brain's current line end.
    pub fn send(&mut self, line: &str) {
        let eol = self.eol;
        self.send_with(line, eol);
    }

    /// Sends one line with the given line end.
    pub fn send_with(&mut self, line: &str, eol: Eol) {
        self.send_raw(format!("{line}{}", eol.as_str()).as_bytes());
    }

    /// Sends bytes as they are (garbage, partial lines).
    pub fn send_raw(&mut self, bytes: &[u8]) {
        self.transcript
            .push(format!("> {}", String::from_utf8_lossy(bytes).trim_end()));
        let stdin = self.stdin.as_mut().expect("stdin already closed");
        if let Err(e) = stdin.write_all(bytes).and_then(|_| stdin.flush()) {
            self.fail(&format!("cannot write to the brain: {e}"));
        }
    }

    /// Sends several lines in one write, as managers batch `INFO` lines.
    pub fn send_lines(&mut self, lines: &[&str]) {
        let eol = self.eol.as_str();
        let text: String = lines.iter().map(|l| format!("{l}{eol}")).collect();
        self.send_raw(text.as_bytes());
    }

    /// Closes the brain's stdin (the manager went away).
    pub fn close_stdin(&mut self) {
        self.transcript.push("> (end of input)".to_string());
        self.stdin = None;
    }

    /// Panics with the transcript so far.
    pub fn fail(&self, why: &str) -> ! {
        let tail: Vec<&String> = self.transcript.iter().rev().take(40).rev().collect();
        let tail: Vec<&str> = tail.iter().map(|s| s.as_str()).collect();
        panic!(
            "{why}\n--- last lines of the session ---\n{}",
            tail.join("\n")
        );
    }

    /// The next line the brain writes on stdout, within `timeout`. A stderr line, end
    /// of output or a timeout fails the test.
    pub fn line_within(&mut self, timeout: Duration) -> String {
        match self.lines.recv_timeout(timeout) {
            Ok(Output::Stdout(line)) => {
                self.transcript.push(format!("< {line}"));
                line
            }
            Ok(Output::Stderr(line)) => self.fail(&format!("the brain wrote on stderr: {line:?}")),
            Ok(Output::Closed) | Err(RecvTimeoutError::Disconnected) => {
                self.fail("the brain closed stdout (exited?) while a reply was expected")
            }
            Err(RecvTimeoutError::Timeout) => {
                self.fail(&format!("no reply within {} ms", timeout.as_millis()))
            }
        }
    }

    /// The next line, expected at once.
    pub fn line(&mut self) -> String {
        self.line_within(QUICK)
    }

    /// Expects exactly this line next.
    pub fn expect(&mut self, expected: &str) {
        let got = self.line();
        if got != expected {
            self.fail(&format!("expected {expected:?}, got {got:?}"));
        }
    }

    /// The next line that is not `MESSAGE …`/`DEBUG …` (which a brain may write any
    /// time before a reply). A `MESSAGE internal error…` (the brain covering a bug of
    /// its own with a fallback move) fails the test.
    pub fn reply_within(&mut self, timeout: Duration) -> String {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self.line_within(left);
            if line.starts_with("MESSAGE internal error") {
                self.fail(&format!("the brain reported a bug of its own: {line:?}"));
            }
            if !is_info_line(&line) {
                return line;
            }
        }
    }

    /// Expects a move `x,y` (after any `MESSAGE`/`DEBUG` lines) within `timeout`.
    pub fn move_within(&mut self, timeout: Duration) -> Coord {
        let line = self.reply_within(timeout);
        match parse_move(&line) {
            Some(c) => c,
            None => self.fail(&format!("expected a move 'x,y', got {line:?}")),
        }
    }

    /// Expects one `ERROR …` or `UNKNOWN …` line, at once.
    pub fn expect_rejection(&mut self, after: &str) {
        let line = self.line();
        if !(line.starts_with("ERROR") || line.starts_with("UNKNOWN")) {
            self.fail(&format!(
                "expected one ERROR/UNKNOWN line after {after:?}, got {line:?}"
            ));
        }
    }

    /// Expects that nothing at all is written for `period`.
    pub fn expect_silence(&mut self, period: Duration) {
        match self.lines.recv_timeout(period) {
            Err(RecvTimeoutError::Timeout) => {}
            Ok(Output::Stdout(line)) => self.fail(&format!("unexpected output: {line:?}")),
            Ok(Output::Stderr(line)) => self.fail(&format!("unexpected stderr: {line:?}")),
            Ok(Output::Closed) | Err(RecvTimeoutError::Disconnected) => {
                self.fail("the brain exited unexpectedly")
            }
        }
    }

    /// Checks that no reply has come yet (the brain is still thinking): only
    /// `MESSAGE`/`DEBUG` lines may have been written so far.
    pub fn expect_still_thinking(&mut self) {
        while let Ok(out) = self.lines.try_recv() {
            match out {
                Output::Stdout(line) if is_info_line(&line) => {
                    self.transcript.push(format!("< {line}"))
                }
                Output::Stdout(line) => {
                    self.fail(&format!("replied {line:?} before it was told to stop"))
                }
                Output::Stderr(line) => self.fail(&format!("unexpected stderr: {line:?}")),
                Output::Closed => self.fail("the brain exited while thinking"),
            }
        }
    }

    /// Sends `ABOUT` and expects the identity line next: a cheap way to prove that
    /// nothing else is pending in the output (every command before it answered with
    /// exactly the lines read so far).
    pub fn sync(&mut self) {
        self.send("ABOUT");
        let line = self.line();
        if !line.starts_with("name=\"") {
            self.fail(&format!(
                "expected the ABOUT line (nothing else pending), got {line:?}"
            ));
        }
    }

    /// Waits for the process to exit within `timeout` and checks that it wrote nothing
    /// more (`MESSAGE`/`DEBUG` lines allowed when `allow_info`: a search may report an
    /// iteration just before it reads `END`). Returns how long it took.
    pub fn expect_exit_within(&mut self, timeout: Duration, allow_info: bool) -> Duration {
        let started = Instant::now();
        loop {
            match self.child.try_wait() {
                Ok(Some(_)) => break,
                Ok(None) if started.elapsed() < timeout => thread::sleep(Duration::from_millis(5)),
                Ok(None) => self.fail(&format!(
                    "the brain did not exit within {} ms",
                    timeout.as_millis()
                )),
                Err(e) => self.fail(&format!("cannot wait for the brain: {e}")),
            }
        }
        let took = started.elapsed();
        // The readers end with the pipes; anything still queued was written after the
        // command that should have been the last.
        loop {
            match self.lines.recv_timeout(QUICK) {
                Ok(Output::Closed) | Err(RecvTimeoutError::Disconnected) => break,
                Ok(Output::Stdout(line)) if allow_info && is_info_line(&line) => {}
                Ok(Output::Stdout(line)) => {
                    self.fail(&format!("the brain wrote {line:?} before exiting"))
                }
                Ok(Output::Stderr(line)) => self.fail(&format!(
                    "the brain wrote {line:?} on stderr before exiting"
                )),
                Err(RecvTimeoutError::Timeout) => self.fail("stdout not closed after exit"),
            }
        }
        took
    }

    /// Sends a position with `BOARD` (or `YXBOARD` when `command` says so): `moves` in
    /// move order, black first; the brain owns the stones of the side to move (f = 1),
    /// the opponent's stones get f = 2, so the last stone is always 2.
    pub fn send_position(&mut self, command: &str, moves: &[Coord]) {
        let mut lines = vec![command.to_string()];
        lines.extend(position_lines(moves));
        lines.push("DONE".to_string());
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        self.send_lines(&refs);
    }
}

impl Drop for Brain {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The stone lines `x,y,f` of a position in move order, from the side to move's view.
pub fn position_lines(moves: &[Coord]) -> Vec<String> {
    let black_to_move = moves.len().is_multiple_of(2);
    moves
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let black_stone = i % 2 == 0;
            let f = if black_stone == black_to_move { 1 } else { 2 };
            format!("{},{},{f}", c.x, c.y)
        })
        .collect()
}

fn forward<R: Read + Send + 'static>(
    pipe: R,
    tx: Sender<Output>,
    wrap: fn(String) -> Output,
    report_close: bool,
) {
    thread::spawn(move || {
        let mut reader = BufReader::new(pipe);
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match reader.read_until(b'\n', &mut buf) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    let text = String::from_utf8_lossy(&buf);
                    let line = text.trim_end_matches(['\n', '\r']).to_string();
                    if tx.send(wrap(line)).is_err() {
                        return;
                    }
                }
            }
        }
        if report_close {
            let _ = tx.send(Output::Closed);
        }
    });
}

/// `MESSAGE`/`DEBUG` lines may come any time before a reply.
pub fn is_info_line(line: &str) -> bool {
    line.starts_with("MESSAGE") || line.starts_with("DEBUG")
}

/// Parses a move reply `x,y` strictly: two decimal numbers, no spaces.
pub fn parse_move(line: &str) -> Option<Coord> {
    let (x, y) = line.split_once(',')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(x) || !digits(y) {
        return None;
    }
    Some(Coord::new(x.parse().ok()?, y.parse().ok()?))
}

/// A position from "pos" notation (`h8h9…`, black first).
pub fn pos_moves(text: &str) -> Vec<Coord> {
    parse_pos_sequence(text).unwrap_or_else(|| panic!("bad pos notation {text:?}"))
}

/// How a referee game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameEnd {
    BrainWon,
    TesterWon,
    Draw,
}

/// The referee's board: every move is judged by the library's rules before it is
/// played.
pub struct Referee {
    pub board: Board,
}

impl Referee {
    pub fn new(width: usize, height: usize, rule: Rule) -> Referee {
        let board = Board::new(width, height, rule).expect("referee board");
        Referee { board }
    }

    pub fn from_moves(size: usize, rule: Rule, moves: &[Coord]) -> Referee {
        let mut r = Referee::new(size, size, rule);
        for &c in moves {
            r.board.play(c).expect("position move");
        }
        r
    }

    /// Judges and plays the brain's move. Fails the test (quoting the brain's session)
    /// on an off-board, occupied or (renju black) forbidden move.
    pub fn brain_plays(&mut self, brain: &Brain, c: Coord) -> Verdict {
        let verdict = judge_move(&self.board, c);
        match verdict {
            Verdict::OffBoard | Verdict::Occupied | Verdict::Forbidden => brain.fail(&format!(
                "illegal move {c} by the brain: {verdict:?} (move {} of the game, {:?} to move)",
                self.board.move_count() + 1,
                self.board.side_to_move()
            )),
            Verdict::Win | Verdict::Normal => {}
        }
        self.board.play(c).expect("judged legal");
        verdict
    }

    /// The tester's move: a five if it has one, else a block of the brain's five
    /// point, else the first empty legal cell nearest the last move (ties by row,
    /// then column). Deterministic.
    pub fn tester_move(&self) -> Option<Coord> {
        let b = &self.board;
        let empties: Vec<Coord> = b
            .positions()
            .filter(|&p| b.is_empty(p))
            .map(|p| b.coord(p))
            .collect();
        let legal: Vec<Coord> = empties
            .iter()
            .copied()
            .filter(|&c| judge_move(b, c) != Verdict::Forbidden)
            .collect();
        if let Some(&c) = legal.iter().find(|&&c| judge_move(b, c) == Verdict::Win) {
            return Some(c);
        }
        // The brain's five points: where a stone of the other colour would win.
        let opponent = b.side_to_move().opponent();
        if let Some(&c) = legal.iter().find(|&&c| {
            let p = b.pos(c).expect("on board");
            wuzi::rules::is_winning_move(b, p, opponent)
        }) {
            return Some(c);
        }
        let last = b
            .last_move()
            .map(|p| b.coord(p))
            .unwrap_or(Coord::new(b.width() as i32 / 2, b.height() as i32 / 2));
        legal
            .into_iter()
            .min_by_key(|c| ((c.x - last.x).abs().max((c.y - last.y).abs()), c.y, c.x))
    }

    /// Judges and plays the tester's move; returns it and whether it won.
    pub fn tester_plays(&mut self, c: Coord) -> Verdict {
        let verdict = judge_move(&self.board, c);
        assert!(
            matches!(verdict, Verdict::Normal | Verdict::Win),
            "tester move {c} is {verdict:?}"
        );
        self.board.play(c).expect("tester move legal");
        verdict
    }
}

/// Writes `text` to a configuration file of its own under the system temp dir (named
/// after `name` and this process) and returns its path.
pub fn temp_config(name: &str, text: &str) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!("wuzi-test-{}-{name}.conf", std::process::id()));
    std::fs::write(&path, text).expect("the temp dir is writable");
    path
}
