//! The Piskvork/Gomocup protocol front end (PROTOCOL.md §2–3) with the Yixin subset.
//!
//! The loop turns each input line into a command, calls the engine facade and writes
//! the reply. A malformed or impossible command gets exactly one `ERROR …` (or
//! `UNKNOWN …`) line and leaves the engine as it was. Nothing is written at start-up.

pub mod command;
pub mod output;
pub mod reader;

use crate::engine::{Engine, EngineError, Owner, Swap2Reply};
use crate::eval::Value;
use crate::rules;
use crate::search::{SearchEvent, SearchReport};
use crate::types::{Coord, Rule};
use command::{
    is_done, looks_like_command, parse_command, parse_coord, parse_stone_line, Command, ParseError,
};
use output::Output;
use reader::{Line, Signals};
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
        out: Output::new(output, Arc::clone(&signals)),
        signals,
        lines,
        replay: VecDeque::new(),
        notes: Vec::new(),
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
    /// Problems found in `INFO` values, reported as `MESSAGE` before the next reply
    /// (managers do not read replies to `INFO`).
    notes: Vec<String>,
}

impl<W: Write> Session<W> {
    fn run(&mut self) {
        while let Some(line) = self.next_line() {
            if line.text.trim().is_empty() {
                continue;
            }
            match parse_command(&line.text) {
                Ok(Command::End) => return,
                Ok(Command::Info { key, value }) => self.info(&key, &value),
                Ok(cmd) => {
                    self.flush_notes();
                    self.handle_guarded(cmd, &line);
                }
                Err(e) => {
                    self.flush_notes();
                    self.reject(&e);
                }
            }
            if self.signals.end.load(Ordering::SeqCst) && self.replay.is_empty() {
                // END was read while we worked: quit without writing more.
                return;
            }
        }
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
    /// The command gets one `ERROR` instead of its reply. (A move search has its own
    /// guard that still plays a move.)
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
            Command::Begin => self.move_reply(line),
            Command::Turn(c) => match self.engine.play(c) {
                Ok(()) => self.move_reply(line),
                Err(e) => self.out.error(&e.to_string()),
            },
            Command::Play(c) => match self.engine.play(c) {
                Ok(()) => self.out.line(&format!("{},{}", c.x, c.y)),
                Err(e) => self.out.error(&e.to_string()),
            },
            Command::Takeback(c) => {
                let result = self.engine.takeback(c);
                self.reply_ok(result);
            }
            Command::Board => {
                if self.position_block() {
                    self.move_reply(line);
                }
            }
            Command::YxBoard => {
                self.position_block();
            }
            Command::Swap2Board => self.swap2_block(line),
            Command::About => self.out.line(&about()),
            Command::Stop | Command::Done => {} // nothing to stop or finish now
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
        let searched = self.guarded_search(line, |engine, stop, report| {
            engine.analyse(lines, line.read_at, stop, report)
        });
        match searched {
            Ok(Ok(c)) => self.out.line(&format!("{},{}", c.x, c.y)),
            Ok(Err(e)) => self.out.error(&e.to_string()),
            Err(_) => self
                .out
                .error("internal error: the analysis search panicked"),
        }
    }

    /// Runs a search for the command read as `line`, reporting as it goes (realtime lines
    /// when `show_detail` asks), with a panic caught rather than ending the process.
    fn guarded_search(
        &mut self,
        line: &Line,
        search: impl FnOnce(
            &mut Engine,
            &AtomicBool,
            &mut dyn FnMut(&SearchEvent),
        ) -> Result<Coord, EngineError>,
    ) -> std::thread::Result<Result<Coord, EngineError>> {
        self.signals.arm_for(line.stops_before);
        let realtime = self.engine.settings().show_detail;
        let out = &mut self.out;
        let engine = &mut self.engine;
        let stop = &self.signals.stop;
        catch_unwind(AssertUnwindSafe(|| {
            search(engine, stop, &mut |event: &SearchEvent| {
                report_event(out, event, realtime)
            })
        }))
    }

    /// Searches, plays and prints our move for the command read as `line`.
    fn move_reply(&mut self, line: &Line) {
        if self.engine.board().is_none() {
            self.out.error("no board: send START first");
            return;
        }
        let searched = self.guarded_search(line, |engine, stop, report| {
            engine.think(line.read_at, stop, report)
        });
        // A bug in the search must not cost the game: an illegal reply (occupied,
        // off-board, a renju foul) or none at all loses it, any legal cell may not.
        let choice = match searched {
            Ok(Ok(c)) if self.is_legal(c) => Ok(c),
            Ok(Ok(c)) => self.fallback_move(&format!("the search chose the illegal move {c}")),
            Ok(Err(e)) => Err(e.to_string()),
            Err(_) => self.fallback_move("the search panicked"),
        };
        match choice.and_then(|c| self.engine.play(c).map(|_| c).map_err(|e| e.to_string())) {
            Ok(c) => self.out.line(&format!("{},{}", c.x, c.y)),
            Err(e) => self.out.error(&e),
        }
    }

    /// Whether the side to move may play `c` (empty, on the board, not a renju foul).
    fn is_legal(&self, c: Coord) -> bool {
        let Some(b) = self.engine.board() else {
            return false;
        };
        b.pos(c)
            .is_some_and(|p| rules::is_legal_for(&mut b.clone(), p, b.side_to_move()))
    }

    /// The legal cell nearest the centre (an empty one if every empty cell is a foul),
    /// played because of the bug `what`. The bug is logged and shown in a `MESSAGE`, so
    /// a fallback move never goes unnoticed (the protocol tests fail on it).
    fn fallback_move(&mut self, what: &str) -> Result<Coord, String> {
        log::error!("{what}; playing a fallback move");
        self.out
            .message(&format!("internal error: {what}; playing a fallback move"));
        let b = self.engine.board().ok_or("no board: send START first")?;
        crate::movegen::nearest_to_centre(b)
            .map(|p| b.coord(p))
            .ok_or_else(|| "internal error and no empty cell".to_string())
    }

    /// Reads a `BOARD`/`YXBOARD` block and sets the position. Returns whether it did;
    /// on any problem one `ERROR` is written and the position is unchanged.
    fn position_block(&mut self) -> bool {
        let lines = match self.read_block() {
            Some(lines) => lines,
            None => {
                self.out.error("position block interrupted before DONE");
                return false;
            }
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
        match self.engine.set_position(&stones) {
            Ok(()) => true,
            Err(e) => {
                self.out.error(&e.to_string());
                false
            }
        }
    }

    fn swap2_block(&mut self, line: &Line) {
        let Some(lines) = self.read_block() else {
            self.out.error("SWAP2BOARD block interrupted before DONE");
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
        self.signals.arm_for(line.stops_before);
        match self.engine.swap2(&stones, line.read_at, &self.signals.stop) {
            Ok(Swap2Reply::Swap) => self.out.line("SWAP"),
            Ok(Swap2Reply::Place(moves)) => {
                let text: Vec<String> = moves.iter().map(|c| format!("{},{}", c.x, c.y)).collect();
                self.out.line(&text.join(" "));
            }
            Err(e) => self.out.error(&e.to_string()),
        }
    }

    /// The data lines of a block up to `DONE`, or `None` if input ended or a command
    /// interrupted it (that command is then processed next).
    fn read_block(&mut self) -> Option<Vec<String>> {
        let mut lines = Vec::new();
        while let Some(line) = self.next_line() {
            let text = line.text.trim();
            if text.is_empty() {
                continue;
            }
            if is_done(text) {
                return Some(lines);
            }
            if looks_like_command(text) {
                self.replay.push_back(line);
                return None;
            }
            lines.push(text.to_string());
        }
        None
    }

    fn info(&mut self, key: &str, value: &str) {
        if key.is_empty() {
            self.notes.push("ignored INFO without a key".to_string());
            return;
        }
        let number = value.trim().parse::<i64>();
        let mut bad = |what: &str| {
            self.notes
                .push(format!("ignored INFO {key} '{value}': {what}"))
        };
        let settings = self.engine.settings_mut();
        match (key, number) {
            ("timeout_turn", Ok(v)) if v >= 0 => settings.timeout_turn = v as u64,
            ("timeout_match", Ok(v)) if v >= 0 => settings.timeout_match = v as u64,
            ("time_left", Ok(v)) => settings.time_left = Some(v),
            ("max_memory", Ok(v)) if v >= 0 => settings.max_memory = v as u64,
            ("game_type", Ok(v)) => settings.game_type = v,
            ("thread_num", Ok(v)) if v >= 1 => settings.thread_num = v as usize,
            ("hash_size", Ok(v)) if v >= 0 => settings.hash_size_kb = v as u64,
            ("max_depth", Ok(v)) => settings.max_depth = (v > 0).then_some(v.min(1000) as u32),
            ("max_node", Ok(v)) => settings.max_node = (v > 0).then_some(v as u64),
            ("show_detail", Ok(v)) => settings.show_detail = v != 0,
            ("pondering", Ok(_)) => {} // no pondering: GomocupJudge suspends us between moves
            ("rule", Ok(v)) => self.engine.set_rule(Rule::from_info(v)),
            ("folder", _) => {
                settings.folder = Some(value.to_string());
                if let Some(warning) = crate::logging::use_info_folder(std::path::Path::new(value))
                {
                    self.notes.push(warning);
                }
            }
            ("evaluate", _) => {} // debug only: never answered on stdout
            (
                "timeout_turn" | "timeout_match" | "time_left" | "max_memory" | "game_type"
                | "thread_num" | "hash_size" | "max_depth" | "max_node" | "show_detail"
                | "pondering" | "rule",
                _,
            ) => bad("not a valid number"),
            _ => {} // unknown keys are ignored, as the protocol asks
        }
    }
}

/// The `ABOUT` line.
pub fn about() -> String {
    format!(
        "name=\"wuzi\", version=\"{}\", author=\"Wuzi team\", country=\"International\", www=\"https://example.invalid/wuzi\", email=\"wuzi@example.invalid\"",
        env!("CARGO_PKG_VERSION")
    )
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
