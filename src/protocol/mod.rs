//! The Piskvork/Gomocup protocol front end (PROTOCOL.md §2–3) with the Yixin subset.
//!
//! The loop turns each input line into a command, calls the engine facade and writes
//! the reply. A malformed or impossible command gets exactly one `ERROR …` (or
//! `UNKNOWN …`) line and leaves the engine as it was. Nothing is written at start-up.
//!
//! Notes for the user (configuration warnings, `INFO` problems) wait for the next reply
//! that is a move, and go out just before it: managers read `MESSAGE` lines there, as
//! the search writes its own, whereas some read exactly one line as the reply to
//! `ABOUT` or `START`.

pub mod command;
pub mod output;
pub mod reader;

use crate::engine::{Engine, EngineError, Identity, Owner, Swap2Reply};
use crate::eval::Value;
use crate::search::{SearchEvent, SearchReport};
use crate::types::Coord;
use command::{
    command_word, is_done, looks_like_command, parse_command, parse_coord, parse_stone_line, quote,
    quote_start, Command, ParseError,
};
use output::Output;
use reader::{Line, Signals, MAX_LINE_BYTES};
use std::collections::VecDeque;
use std::io::{Read, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Receiver;
use std::sync::Arc;

/// Runs the protocol for `engine` on `input`/`output` until `END` or end of input.
pub fn run<R: Read + Send + 'static, W: Write>(engine: Engine, input: R, output: W) {
    let signals = Arc::new(Signals::default());
    let lines = reader::spawn(input, Arc::clone(&signals));
    let mut session = Session {
        engine,
        out: Output::new(output),
        signals,
        lines,
        replay: VecDeque::new(),
        notes: Vec::new(),
        in_abandoned_block: false,
    };
    session.run();
}

struct Session<W: Write> {
    engine: Engine,
    out: Output<W>,
    signals: Arc<Signals>,
    lines: Receiver<Line>,
    /// Lines to process again (a command that interrupted a block).
    replay: VecDeque<Line>,
    /// Problems found in `INFO` values, reported as `MESSAGE` before the next move
    /// (managers do not read replies to `INFO`).
    notes: Vec<String>,
    /// A block was abandoned (a command came before its `DONE`): its remaining data
    /// lines and its `DONE` are dropped without a word, up to the next command.
    in_abandoned_block: bool,
}

impl<W: Write> Session<W> {
    fn run(&mut self) {
        while let Some(line) = self.next_line() {
            if line.text.trim().is_empty() || self.skip_abandoned(&line.text) {
                continue;
            }
            if line.is_cut() {
                if self.cut_line(&line) {
                    return;
                }
                continue;
            }
            match parse_command(&line.text) {
                Ok(Command::End) => return,
                Ok(Command::Info { key, value }) => self.info(&key, &value),
                Ok(cmd) => self.handle_guarded(cmd, &line),
                Err(e) => self.reject(&e),
            }
        }
    }

    /// Whether `END` has been read (the reader sees it at once, however many commands
    /// are queued before it). The commands before it are still answered in order, but
    /// a search it stopped writes nothing: the manager is about to kill the process and
    /// no longer waits for a move.
    fn end_read(&self) -> bool {
        self.signals.end.load(Ordering::SeqCst)
    }

    /// A line over the reader's limit, of which only the start was kept, is never
    /// carried out: one short reply (a note for an `INFO`, which gets no reply). Returns
    /// whether it was `END`, which still ends the session.
    fn cut_line(&mut self, line: &Line) -> bool {
        let problem = format!(
            "a line of {} bytes (over the limit of {MAX_LINE_BYTES}) ignored: {}",
            line.bytes,
            quote_start(&line.text)
        );
        match parse_command(&line.text) {
            Ok(Command::End) => return true,
            Ok(Command::Info { .. }) => self.notes.push(problem),
            Err(e) if e.is_unknown() => self.out.line(&format!("UNKNOWN {problem}")),
            _ => self.out.error(&problem),
        }
        false
    }

    /// Whether `text` is the rest of an abandoned block (see `in_abandoned_block`).
    fn skip_abandoned(&mut self, text: &str) -> bool {
        if !self.in_abandoned_block {
            return false;
        }
        if !looks_like_command(text) {
            return true;
        }
        self.in_abandoned_block = false;
        is_done(text)
    }

    fn next_line(&mut self) -> Option<Line> {
        self.replay.pop_front().or_else(|| self.lines.recv().ok())
    }

    fn reject(&mut self, e: &ParseError) {
        if e.is_unknown() {
            self.out.line(&format!("UNKNOWN {e}"));
        } else {
            self.out.error(&e.to_string());
        }
    }

    /// Writes the pending notes; called only right before a search, whose reply is a move.
    fn flush_notes(&mut self) {
        if let Some(notice) = self.engine.take_notice() {
            self.notes.push(notice);
        }
        for note in std::mem::take(&mut self.notes) {
            self.out.message(&note);
        }
    }

    /// `handle`, surviving a bug: a panic anywhere in a command (the swap2 search, a
    /// position check) must not end the process, which would lose every game to come.
    /// The command gets one `ERROR` instead of its reply. (The engine guards the choice
    /// of a move itself, and still plays one.)
    fn handle_guarded(&mut self, cmd: Command, line: &Line) {
        if catch_unwind(AssertUnwindSafe(|| self.handle(&cmd, line))).is_err() {
            log::error!("panic while handling {cmd:?}");
            self.out
                .error(&format!("internal error while handling {cmd:?}"));
        }
    }

    fn handle(&mut self, cmd: &Command, line: &Line) {
        match *cmd {
            Command::Start(n) => {
                let result = self.engine.start(n, n);
                self.reply_ok(result);
            }
            Command::RectStart(w, h) => {
                let result = self.engine.start(w, h);
                self.reply_ok(result);
            }
            Command::Restart => {
                let result = self.engine.restart();
                self.reply_ok(result);
            }
            // Normally on an empty board; Yixin-Board also sends it after `YXBOARD` to
            // ask for a move on that position: either way we move for the side to move.
            Command::Begin => match self.engine.begin() {
                Ok(()) => self.move_reply(line),
                Err(e) => self.out.error(&e.to_string()),
            },
            Command::Turn(c) => match self.engine.opponent_plays(c) {
                Ok(()) => self.move_reply(line),
                Err(e) => self.out.error(&e.to_string()),
            },
            Command::Play(c) => match self.engine.impose(c) {
                Ok(()) => self.out.line(&format!("{},{}", c.x, c.y)),
                Err(e) => self.out.error(&e.to_string()),
            },
            Command::Takeback(c) => {
                let result = self.engine.takeback(c);
                self.reply_ok(result);
            }
            Command::Board => {
                if self.position_block("BOARD") {
                    self.move_reply(line);
                }
            }
            Command::YxBoard => {
                self.position_block("YXBOARD");
            }
            Command::Swap2Board => self.swap2_block(line),
            Command::About => self.out.line(&about_line(&self.engine.identity())),
            Command::Stop => {} // nothing to stop now
            Command::Done => self
                .out
                .error("DONE without a BOARD, YXBOARD or SWAP2BOARD block to end"),
            Command::YxShowForbid => match self.engine.forbidden_points() {
                Ok(points) => {
                    let list: String = points
                        .iter()
                        .map(|c| format!("{:02}{:02}", c.x, c.y))
                        .collect();
                    self.out.line(&format!("FORBID {list}."));
                }
                Err(e) => self.out.error(&e.to_string()),
            },
            Command::YxHashClear => self.engine.clear_hash(),
            Command::YxShowInfo => {
                self.out.line(&format!(
                    "INFO MAX_THREAD_NUM {}",
                    crate::search::MAX_THREADS
                ));
                self.out.line("INFO MAX_HASH_SIZE 22");
            }
            Command::YxNbest(n) => self.analysis_reply(n, line),
            // Handled in `run` before dispatch.
            Command::End | Command::Info { .. } => {}
        }
    }

    fn reply_ok(&mut self, result: Result<(), EngineError>) {
        match result {
            Ok(()) => self.out.line("OK"),
            Err(e) => self.out.error(&e.to_string()),
        }
    }

    /// `YXNBEST n`: searches the `n` best moves of the position (Yixin-Board's analysis),
    /// reports their lines and prints the best move without playing it.
    fn analysis_reply(&mut self, lines: usize, line: &Line) {
        let analysed = self.search(line, |engine, stop, report| {
            engine.analyse(lines, line.read_at, stop, report)
        });
        if self.end_read() {
            return;
        }
        match analysed {
            Ok(c) => self.out.line(&format!("{},{}", c.x, c.y)),
            Err(e) => self.out.error(&e.to_string()),
        }
    }

    /// Our move for the command read as `line`: the engine chooses a legal move and
    /// plays it; the protocol prints it.
    fn move_reply(&mut self, line: &Line) {
        let chosen = self.search(line, |engine, stop, report| {
            engine.choose_move(line.read_at, stop, report)
        });
        if self.end_read() {
            return;
        }
        match chosen {
            Ok(c) => self.out.line(&format!("{},{}", c.x, c.y)),
            Err(e) => self.out.error(&e.to_string()),
        }
    }

    /// Runs a search of the engine for the command read as `line`, with the stop flag
    /// armed for it, printing what the search reports as it goes (realtime lines when
    /// `show_detail` asks) until `END` is read.
    fn search(
        &mut self,
        line: &Line,
        search: impl FnOnce(
            &mut Engine,
            &AtomicBool,
            &mut dyn FnMut(&SearchEvent),
        ) -> Result<Coord, EngineError>,
    ) -> Result<Coord, EngineError> {
        self.flush_notes();
        self.signals.arm_for(line.stops_before);
        let realtime = self.engine.settings().show_detail;
        let out = &mut self.out;
        let stop = &self.signals.stop;
        let end = &self.signals.end;
        search(&mut self.engine, stop, &mut |event: &SearchEvent| {
            if !end.load(Ordering::SeqCst) {
                report_event(out, event, realtime)
            }
        })
    }

    /// Reads a `BOARD`/`YXBOARD` block (`name`) and sets the position. Returns whether
    /// it did; on any problem one `ERROR` is written and the position is unchanged.
    fn position_block(&mut self, name: &str) -> bool {
        let Some(lines) = self.read_block(name) else {
            return false;
        };
        let mut stones = Vec::with_capacity(lines.len());
        for text in &lines {
            match parse_stone_line(text) {
                Ok((c, 1)) => stones.push((c, Owner::Own)),
                Ok((c, 2)) => stones.push((c, Owner::Opponent)),
                Ok(_) => {} // 3: a continuous-game marker, not a stone
                Err(e) => {
                    self.out.error(&e.to_string());
                    return false;
                }
            }
        }
        let set = if name == "YXBOARD" {
            self.engine.set_analysis_position(&stones)
        } else {
            self.engine.set_position(&stones)
        };
        match set {
            Ok(()) => true,
            Err(e) => {
                self.out.error(&e.to_string());
                false
            }
        }
    }

    fn swap2_block(&mut self, line: &Line) {
        let Some(lines) = self.read_block("SWAP2BOARD") else {
            return;
        };
        let mut stones = Vec::new();
        for text in &lines {
            match parse_coord(text) {
                Ok(c) => stones.push(c),
                Err(e) => {
                    self.out.error(&e.to_string());
                    return;
                }
            }
        }
        self.flush_notes();
        self.signals.arm_for(line.stops_before);
        let reply = self.engine.swap2(&stones, line.read_at, &self.signals.stop);
        if self.end_read() {
            return;
        }
        match reply {
            Ok(Swap2Reply::Swap) => self.out.line("SWAP"),
            Ok(Swap2Reply::Place(moves)) => {
                let text: Vec<String> = moves.iter().map(|c| format!("{},{}", c.x, c.y)).collect();
                self.out.line(&text.join(" "));
            }
            Err(e) => self.out.error(&e.to_string()),
        }
    }

    /// The data lines of the block `name` up to `DONE`, or `None` when it did not end
    /// so. A command before `DONE` abandons the block as a whole: one `ERROR`, and
    /// neither the block nor that command is carried out (a manager that sends it has
    /// lost track of the exchange; playing the command would answer a question it did
    /// not mean to ask). `END` ends the block silently and is processed next; at the end
    /// of input nobody is left to answer.
    fn read_block(&mut self, name: &str) -> Option<Vec<String>> {
        let mut lines = Vec::new();
        while let Some(line) = self.next_line() {
            let text = line.text.trim();
            if text.is_empty() {
                continue;
            }
            if line.is_cut() {
                // Bad data of the block, named by its length in the block's ERROR.
                lines.push(format!("(a line of {} bytes)", line.bytes));
                continue;
            }
            if is_done(text) {
                return Some(lines);
            }
            if looks_like_command(text) {
                if parse_command(text) == Ok(Command::End) {
                    self.replay.push_back(line);
                } else {
                    self.out.error(&format!(
                        "{name} abandoned: {} came before DONE; neither is carried out",
                        command_word(text)
                    ));
                    self.in_abandoned_block = true;
                }
                return None;
            }
            lines.push(text.to_string());
        }
        None
    }

    /// `INFO key value`: the engine's settings read and check the value; a value not
    /// taken as sent, or a note on what it implies, is reported before the next move
    /// (one `MESSAGE` each; a manager that repeats the same INFO gets it once per move).
    fn info(&mut self, key: &str, value: &str) {
        let note = match self.engine.apply_info(key, value) {
            Ok(None) => return,
            Ok(Some(note)) => note,
            Err(problem) => problem.describe(quote),
        };
        if !self.notes.contains(&note) {
            self.notes.push(note);
        }
    }
}

/// The `ABOUT` line: `name="…", version="…", author="…", country="…", www="…",
/// email="…"`. Each field is cut to 100 characters, with its double quotes turned into
/// single ones so that the line still splits into its fields.
pub fn about_line(id: &Identity) -> String {
    let fields = [
        ("name", &id.name),
        ("version", &id.version),
        ("author", &id.author),
        ("country", &id.country),
        ("www", &id.www),
        ("email", &id.email),
    ];
    let shown: Vec<String> = fields
        .iter()
        .map(|(key, value)| {
            let value: String = value
                .chars()
                .take(100)
                .map(|c| if c == '"' { '\'' } else { c })
                .collect();
            format!("{key}=\"{value}\"")
        })
        .collect();
    shown.join(", ")
}

/// One `MESSAGE` line per finished iteration.
/// Writes what the search reports: a `MESSAGE` per iteration (one per line of a multi-PV
/// search) and notes; with `realtime` (`INFO show_detail`) also Yixin-Board's live lines
/// `MESSAGE REALTIME POS|DONE|LOSE|BEST x,y` for the root moves.
fn report_event<W: Write>(out: &mut Output<W>, event: &SearchEvent, realtime: bool) {
    match event {
        SearchEvent::Iteration(r) if r.lines.len() > 1 => {
            for (rank, l) in r.lines.iter().enumerate() {
                out.message(&format!(
                    "line {} {}",
                    rank + 1,
                    describe(r, l.value, &l.pv)
                ));
            }
        }
        SearchEvent::Iteration(r) => out.message(&describe(r, r.value, &r.pv)),
        SearchEvent::Note(text) => out.message(text),
        SearchEvent::RootMoveStarted(c) if realtime => {
            out.line(&format!("MESSAGE REALTIME POS {},{}", c.x, c.y))
        }
        SearchEvent::RootMoveDone { coord: c, value } if realtime => {
            // Only a proven loss is worth marking: other values may be bounds.
            let what = if *value <= -crate::eval::WIN_THRESHOLD {
                "LOSE"
            } else {
                "DONE"
            };
            out.line(&format!("MESSAGE REALTIME {what} {},{}", c.x, c.y))
        }
        SearchEvent::NewBest(c) if realtime => {
            out.line(&format!("MESSAGE REALTIME BEST {},{}", c.x, c.y))
        }
        SearchEvent::RootMoveStarted(_)
        | SearchEvent::RootMoveDone { .. }
        | SearchEvent::NewBest(_) => {}
    }
}

fn describe(r: &SearchReport, value: Value, pv: &[Coord]) -> String {
    use crate::eval::{plies_to_end, WIN_THRESHOLD};
    let value = if value >= WIN_THRESHOLD {
        format!("+M{}", plies_to_end(value))
    } else if value <= -WIN_THRESHOLD {
        format!("-M{}", plies_to_end(value))
    } else {
        value.to_string()
    };
    let ms = r.elapsed.as_millis().max(1) as u64;
    let pv: Vec<String> = pv.iter().map(|c| format!("{},{}", c.x, c.y)).collect();
    format!(
        "depth {}-{} ev {} n {} n/s {} tm {} pv {}",
        r.depth,
        r.seldepth,
        value,
        r.nodes,
        r.nodes * 1000 / ms,
        ms,
        pv.join(" ")
    )
}
