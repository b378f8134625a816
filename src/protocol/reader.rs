//! The stdin reader thread.
//!
//! It keeps reading while the engine thinks, so `STOP`/`YXSTOP` can end a search and
//! `END` can end the process. Lines may end in CR LF, LF or a lone CR. Each line is
//! stamped with the time it was read (the turn clock starts there) and with the number
//! of stop requests seen before it, so a stop that arrives right after a move command is
//! never lost to the search starting late.

use std::io::Read;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;
use std::thread;
use std::time::Instant;

/// Longest line kept: no command comes near it, and a longer line (garbage, or a
/// manager gone wrong) must not grow the reader's memory without bound. The rest of
/// such a line is counted and dropped; the line still gets one short answer.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// Flags shared between the reader and the protocol loop.
#[derive(Default)]
pub struct Signals {
    /// Polled by the search: stop now and answer with the best move so far.
    pub stop: AtomicBool,
    /// Stop requests seen so far.
    pub stop_requests: AtomicU64,
    /// `END` was read: a search stops and writes no move; the commands read before `END`
    /// are still answered, then the process exits.
    pub end: AtomicBool,
}

impl Signals {
    /// Arms the stop flag for a search started by a command read after `seen_stops`
    /// stop requests: a stop that came after that command stops the search at once.
    pub fn arm_for(&self, seen_stops: u64) {
        self.stop.store(false, Ordering::SeqCst);
        if self.stop_requests.load(Ordering::SeqCst) > seen_stops {
            self.stop.store(true, Ordering::SeqCst);
        }
    }
}

/// One input line with its arrival stamp.
pub struct Line {
    /// The line without its end, at most [`MAX_LINE_BYTES`] of it; bytes that are not
    /// UTF-8 become U+FFFD.
    pub text: String,
    /// The length of the whole line as sent, in bytes.
    pub bytes: usize,
    pub read_at: Instant,
    pub stops_before: u64,
}

impl Line {
    /// Whether the line was longer than [`MAX_LINE_BYTES`] and `text` holds only its start.
    pub fn is_cut(&self) -> bool {
        self.bytes > MAX_LINE_BYTES
    }
}

/// Starts the reader thread on `input`. The channel closes at end of input.
pub fn spawn<R: Read + Send + 'static>(input: R, signals: Arc<Signals>) -> Receiver<Line> {
    let (tx, rx) = channel();
    thread::spawn(move || read_lines(input, &signals, &tx));
    rx
}

fn read_lines<R: Read>(mut input: R, signals: &Signals, tx: &Sender<Line>) {
    let mut pending: Vec<u8> = Vec::new();
    let mut line_bytes = 0usize;
    let mut buf = [0u8; 4096];
    let mut last_was_cr = false;
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        for &byte in &buf[..n] {
            match byte {
                b'\n' if last_was_cr => {} // the LF of a CR LF pair
                b'\n' | b'\r' => {
                    if !deliver(&pending, line_bytes, signals, tx) {
                        return;
                    }
                    pending.clear();
                    line_bytes = 0;
                }
                _ => {
                    if pending.len() < MAX_LINE_BYTES {
                        pending.push(byte);
                    }
                    line_bytes = line_bytes.saturating_add(1);
                }
            }
            last_was_cr = byte == b'\r';
        }
    }
    if !pending.is_empty() {
        deliver(&pending, line_bytes, signals, tx);
    }
}

/// Sends one line on (`kept` of its `bytes`); returns false when the protocol loop is
/// gone.
fn deliver(kept: &[u8], bytes: usize, signals: &Signals, tx: &Sender<Line>) -> bool {
    let text = String::from_utf8_lossy(kept).into_owned();
    let word = text
        .split_whitespace()
        .next()
        .unwrap_or("")
        .to_ascii_uppercase();
    let stops_before = signals.stop_requests.load(Ordering::SeqCst);
    match word.as_str() {
        "STOP" | "YXSTOP" => {
            signals.stop_requests.fetch_add(1, Ordering::SeqCst);
            signals.stop.store(true, Ordering::SeqCst);
        }
        "END" => {
            signals.end.store(true, Ordering::SeqCst);
            signals.stop_requests.fetch_add(1, Ordering::SeqCst);
            signals.stop.store(true, Ordering::SeqCst);
        }
        _ => {}
    }
    tx.send(Line {
        text,
        bytes,
        read_at: Instant::now(),
        stops_before,
    })
    .is_ok()
}
