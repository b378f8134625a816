//! One brain process: launch, write commands, read reply lines with a deadline, quit.
//!
//! Each engine's stdout and stderr are read by their own threads and funnelled into one
//! channel, so waiting for a reply is a `recv_timeout`: a brain that hangs, floods or dies
//! can never block the runner. stderr lines are kept for the game log but are never taken
//! as replies (unlike Piskvork, which merges the two pipes).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::thread;
use std::time::{Duration, Instant};

/// How to start a brain: executable, arguments, working directory and display name.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineSpec {
    pub path: PathBuf,
    pub args: Vec<String>,
    pub dir: Option<PathBuf>,
    pub name: String,
    /// Extra `INFO key value` settings sent to this engine only, after the common ones
    /// (e.g. `max_node` for matches whose result must not depend on machine load).
    pub info: Vec<(String, String)>,
    /// Environment variables set for this engine's process (e.g. `WUZI_CONFIG`, so two
    /// builds of one executable play with different configurations).
    pub env: Vec<(String, String)>,
}

impl EngineSpec {
    /// A spec whose name is the executable's file stem.
    pub fn new(path: impl Into<PathBuf>) -> EngineSpec {
        let path = path.into();
        let name = default_name(&path);
        EngineSpec {
            path,
            args: Vec::new(),
            dir: None,
            name,
            info: Vec::new(),
            env: Vec::new(),
        }
    }
}

/// The executable's file stem, or the whole path when it has none.
pub fn default_name(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

/// Why an engine failed to produce the next line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineFailure {
    /// Nothing arrived before the deadline.
    Timeout,
    /// The process closed its stdout or its stdin could not be written: it is gone.
    Crashed,
}

enum Event {
    Stdout(String),
    Stderr(String),
    Closed,
}

/// A running brain process.
pub struct Engine {
    spec: EngineSpec,
    child: Child,
    stdin: ChildStdin,
    events: Receiver<Event>,
    about: String,
    /// Transcript since the last `take_log`: `> ` sent, `< ` stdout, `! ` stderr.
    log: Vec<String>,
    started: Instant,
    closed: bool,
}

impl Engine {
    /// Starts the process, sends `ABOUT` and reads its answer: the first line that is not
    /// `MESSAGE`, `DEBUG` or `SUGGEST` (Rapfi reports loading its configuration first, and
    /// Piskvork takes such lines at any time). Any other banner is taken as the answer, as
    /// c-gomoku-cli does, and the real answer will then be a bad reply to `START`.
    pub fn launch(spec: &EngineSpec, about_timeout: Duration) -> Result<Engine, String> {
        let mut command = Command::new(program_path(spec));
        command
            .args(&spec.args)
            .envs(spec.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(dir) = &spec.dir {
            command.current_dir(dir);
        }
        let mut child = command
            .spawn()
            .map_err(|e| format!("cannot start {}: {}", spec.path.display(), e))?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("{}: pipes not available", spec.path.display()));
        };
        let (sender, events) = channel();
        spawn_line_reader(stdout, sender.clone(), Event::Stdout, true);
        spawn_line_reader(stderr, sender, Event::Stderr, false);
        let mut engine = Engine {
            spec: spec.clone(),
            child,
            stdin,
            events,
            about: String::new(),
            log: Vec::new(),
            started: Instant::now(),
            closed: false,
        };
        let deadline = Instant::now() + about_timeout;
        let about = engine
            .send("ABOUT")
            .and_then(|_| engine.read_reply(deadline))
            .map_err(|e| format!("{}: no answer to ABOUT ({:?})", spec.name, e))?;
        engine.about = about;
        Ok(engine)
    }

    pub fn spec(&self) -> &EngineSpec {
        &self.spec
    }

    pub fn name(&self) -> &str {
        &self.spec.name
    }

    /// The process id, for reading its memory from `/proc`.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The line read after `ABOUT` at launch.
    pub fn about(&self) -> &str {
        &self.about
    }

    /// Writes one command line (LF-terminated, flushed).
    pub fn send(&mut self, line: &str) -> Result<(), EngineFailure> {
        self.note('>', line);
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        // One write per line: some brains split commands at pipe-read boundaries.
        self.stdin
            .write_all(&bytes)
            .and_then(|_| self.stdin.flush())
            .map_err(|_| EngineFailure::Crashed)
    }

    /// The next non-empty stdout line, waiting at most until `deadline`.
    pub fn read_line(&mut self, deadline: Instant) -> Result<String, EngineFailure> {
        loop {
            if self.closed {
                return Err(EngineFailure::Crashed);
            }
            let wait = deadline.saturating_duration_since(Instant::now());
            match self.events.recv_timeout(wait) {
                Ok(Event::Stdout(line)) => {
                    self.note('<', &line);
                    return Ok(line);
                }
                Ok(Event::Stderr(line)) => self.note('!', &line),
                Ok(Event::Closed) | Err(RecvTimeoutError::Disconnected) => self.closed = true,
                Err(RecvTimeoutError::Timeout) => return Err(EngineFailure::Timeout),
            }
        }
    }

    /// The next line that answers a command: `MESSAGE`, `DEBUG` and `SUGGEST` lines may come
    /// at any time before the answer; they go to the log and are skipped.
    pub fn read_reply(&mut self, deadline: Instant) -> Result<String, EngineFailure> {
        loop {
            let line = self.read_line(deadline)?;
            if !is_informational(&line) {
                return Ok(line);
            }
        }
    }

    /// False once the process is known to have exited or closed its stdout.
    ///
    /// Pending output is deliberately left unread: a stray line (a banner, a second reply)
    /// must surface as a bad reply to the next command, as it would under a manager,
    /// instead of being silently thrown away.
    pub fn is_alive(&mut self) -> bool {
        !self.closed && matches!(self.child.try_wait(), Ok(None))
    }

    /// The transcript since the previous call.
    pub fn take_log(&mut self) -> Vec<String> {
        std::mem::take(&mut self.log)
    }

    /// Sends `END`, gives the brain a moment to exit, then kills it.
    pub fn quit(mut self) {
        let _ = self.send("END");
        let deadline = Instant::now() + QUIT_GRACE;
        while Instant::now() < deadline {
            if !matches!(self.child.try_wait(), Ok(None)) {
                return;
            }
            thread::sleep(Duration::from_millis(10));
        }
        // Drop kills it.
    }

    fn note(&mut self, direction: char, line: &str) {
        let ms = self.started.elapsed().as_millis();
        self.log.push(format!("{:>8} {} {}", ms, direction, line));
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

/// The program to start. A relative path such as `target/release/pbrain-wuzi` means
/// relative to our working directory even when the brain runs elsewhere (whether the OS
/// resolves it against the parent's or the child's directory is platform-specific).
/// A bare name is left for the PATH lookup.
fn program_path(spec: &EngineSpec) -> PathBuf {
    let relative_path = spec.path.is_relative() && spec.path.components().count() > 1;
    if spec.dir.is_some() && relative_path {
        if let Ok(cwd) = std::env::current_dir() {
            return cwd.join(&spec.path);
        }
    }
    spec.path.clone()
}

/// How long a brain may take to exit after `END` (managers allow 0.5–1 s).
const QUIT_GRACE: Duration = Duration::from_millis(1000);

/// Lines a brain may send at any time; never an answer.
pub fn is_informational(line: &str) -> bool {
    let word = line.split_whitespace().next().unwrap_or("");
    ["MESSAGE", "DEBUG", "SUGGEST"]
        .iter()
        .any(|w| word.eq_ignore_ascii_case(w))
}

/// Reads `source` and sends every non-empty line. Lines may end in LF, CR LF or a lone
/// CR; bytes that are not UTF-8 are replaced, never fatal.
fn spawn_line_reader<R: Read + Send + 'static>(
    mut source: R,
    sender: Sender<Event>,
    wrap: fn(String) -> Event,
    report_close: bool,
) {
    thread::spawn(move || {
        let mut splitter = LineSplitter::default();
        let mut chunk = [0u8; 4096];
        loop {
            let n = match source.read(&mut chunk) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            for line in splitter.push(&chunk[..n]) {
                if sender.send(wrap(line)).is_err() {
                    return;
                }
            }
        }
        if let Some(line) = splitter.finish() {
            let _ = sender.send(wrap(line));
        }
        if report_close {
            let _ = sender.send(Event::Closed);
        }
    });
}

/// Splits a byte stream into lines at LF, CR or CR LF, dropping empty lines.
#[derive(Default)]
pub struct LineSplitter {
    pending: Vec<u8>,
}

impl LineSplitter {
    pub fn push(&mut self, bytes: &[u8]) -> Vec<String> {
        let mut lines = Vec::new();
        for &b in bytes {
            if b == b'\n' || b == b'\r' {
                if let Some(line) = self.take() {
                    lines.push(line);
                }
            } else {
                self.pending.push(b);
            }
        }
        lines
    }

    pub fn finish(&mut self) -> Option<String> {
        self.take()
    }

    fn take(&mut self) -> Option<String> {
        let line = String::from_utf8_lossy(&self.pending).trim().to_string();
        self.pending.clear();
        (!line.is_empty()).then_some(line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitter_accepts_every_line_ending_and_partial_chunks() {
        let mut s = LineSplitter::default();
        assert_eq!(s.push(b"OK\r\n7,"), vec!["OK".to_string()]);
        assert_eq!(s.push(b"7\rMESSAGE hi\n\n"), vec!["7,7", "MESSAGE hi"]);
        assert_eq!(s.push(b"tail"), Vec::<String>::new());
        assert_eq!(s.finish(), Some("tail".to_string()));
        assert_eq!(s.finish(), None);
    }

    #[test]
    fn informational_lines_are_recognised_case_insensitively() {
        assert!(is_informational("MESSAGE depth 3"));
        assert!(is_informational("debug x"));
        assert!(is_informational("SUGGEST 7,7"));
        assert!(!is_informational("7,7"));
        assert!(!is_informational("MESSAGES"));
        assert!(!is_informational(""));
    }
}
