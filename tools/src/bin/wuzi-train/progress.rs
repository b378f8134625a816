//! Progress on stderr: a bar redrawn in place on a terminal, a line every ten seconds
//! otherwise (a log file or a pipe).

use std::io::{IsTerminal, Write};
use std::sync::Mutex;
use std::time::{Duration, Instant};

pub struct Progress {
    what: String,
    total: u64,
    started: Instant,
    last_line: Mutex<Instant>,
    terminal: bool,
}

impl Progress {
    pub fn new(what: &str, total: u64) -> Progress {
        Progress {
            what: what.to_string(),
            total,
            started: Instant::now(),
            last_line: Mutex::new(Instant::now()),
            terminal: std::io::stderr().is_terminal(),
        }
    }

    fn text(&self, done: u64, extra: &str) -> String {
        let secs = self.started.elapsed().as_secs_f64();
        let rate = done as f64 / secs.max(1e-9);
        let eta = if done > 0 && self.total > done {
            format_duration(Duration::from_secs_f64((self.total - done) as f64 / rate))
        } else {
            "-".into()
        };
        let width = 30usize;
        let filled = if self.total > 0 {
            (width as u64 * done.min(self.total) / self.total) as usize
        } else {
            0
        };
        format!(
            "{} [{}{}] {done}/{} {extra} {:.1}/s elapsed {} eta {eta}",
            self.what,
            "#".repeat(filled),
            ".".repeat(width - filled),
            self.total,
            rate,
            format_duration(self.started.elapsed()),
        )
    }

    pub fn update(&self, done: u64, extra: &str) {
        let mut err = std::io::stderr().lock();
        if self.terminal {
            let _ = write!(err, "\r{}\x1b[K", self.text(done, extra));
            let _ = err.flush();
        } else if let Ok(mut last) = self.last_line.lock() {
            if last.elapsed() >= Duration::from_secs(10) {
                *last = Instant::now();
                let _ = writeln!(err, "{}", self.text(done, extra));
            }
        }
    }

    pub fn finish(&self, done: u64, extra: &str) {
        let mut err = std::io::stderr().lock();
        if self.terminal {
            let _ = writeln!(err, "\r{}\x1b[K", self.text(done, extra));
        } else {
            let _ = writeln!(err, "{}", self.text(done, extra));
        }
    }
}

/// Elapsed and remaining times read like the match runner's.
pub use wuzi_tools::matchrunner::report::short_duration as format_duration;
