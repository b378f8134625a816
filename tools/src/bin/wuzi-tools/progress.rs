//! Progress of a long `wuzi-tools` command on stderr, since stdout (or the output file)
//! carries what it makes: on a terminal an `indicatif` bar; elsewhere (a pipe, a log
//! file, a batch job) a plain `progress:` line after the first step, then at most one
//! per interval, and one at the end.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::time::{Duration, Instant};
use wuzi_tools::matchrunner::report::short_duration as format_duration;

/// How often a plain progress line is written when stderr is not a terminal.
const LINE_INTERVAL: Duration = Duration::from_secs(10);

enum Display {
    Bar(ProgressBar),
    Lines {
        interval: Duration,
        /// When the last line was written; `None` before the first.
        last: Option<Instant>,
    },
}

pub struct Progress {
    display: Display,
    /// What is counted, e.g. "positions expanded".
    what: &'static str,
    total: u64,
    started: Instant,
}

impl Progress {
    /// A bar when stderr is a terminal, lines otherwise, counting `what` up to `total`.
    pub fn new(what: &'static str, total: u64) -> Progress {
        let display = if std::io::stderr().is_terminal() {
            let bar = ProgressBar::new(total);
            let template =
                format!("{{bar:30.cyan/blue}} {{pos}}/{{len}} {what}, {{msg}} (eta {{eta}})");
            if let Ok(style) = ProgressStyle::with_template(&template) {
                bar.set_style(style.progress_chars("=> "));
            }
            Display::Bar(bar)
        } else {
            Display::Lines {
                interval: LINE_INTERVAL,
                last: None,
            }
        };
        Progress {
            display,
            what,
            total,
            started: Instant::now(),
        }
    }

    /// `done` of the total so far; `detail` (may be empty) says more, e.g. how many
    /// were tried.
    pub fn update(&mut self, done: u64, detail: &str) {
        match &mut self.display {
            Display::Bar(bar) => {
                bar.set_position(done);
                bar.set_message(detail.to_string());
            }
            Display::Lines { .. } => {
                if self.display.line_due() {
                    eprintln!("{}", self.line(done, detail));
                }
            }
        }
    }

    /// The end, with the final count (which may fall short of the total).
    pub fn finish(&mut self, done: u64, detail: &str) {
        if let Display::Bar(bar) = &self.display {
            bar.finish_and_clear();
        }
        eprintln!("{}", self.line(done, detail));
    }

    fn line(&self, done: u64, detail: &str) -> String {
        let elapsed = self.started.elapsed();
        let eta = if done > 0 && done < self.total {
            let left = elapsed.mul_f64((self.total - done) as f64 / done as f64);
            format!(", eta {}", format_duration(left))
        } else {
            String::new()
        };
        let detail = if detail.is_empty() {
            String::new()
        } else {
            format!(", {detail}")
        };
        format!(
            "progress: {done}/{} {}{detail}, {} elapsed{eta}",
            self.total,
            self.what,
            format_duration(elapsed)
        )
    }
}

impl Display {
    /// Whether a plain line is due now: the first, or one `interval` after the previous.
    fn line_due(&mut self) -> bool {
        let Display::Lines { interval, last } = self else {
            return false;
        };
        let due = last.is_none_or(|t| t.elapsed() >= *interval);
        if due {
            *last = Some(Instant::now());
        }
        due
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(interval: Duration) -> Display {
        Display::Lines {
            interval,
            last: None,
        }
    }

    #[test]
    fn a_line_says_how_far_and_what() {
        let p = Progress {
            display: lines(Duration::ZERO),
            what: "things done",
            total: 10,
            started: Instant::now(),
        };
        let line = p.line(3, "12 tried");
        assert!(
            line.starts_with("progress: 3/10 things done, 12 tried, "),
            "{line}"
        );
        assert!(line.contains(" elapsed, eta "), "{line}");
        assert!(!p.line(10, "x").contains("eta"));
        assert!(p.line(4, "").starts_with("progress: 4/10 things done, 0"));
        assert_eq!(format_duration(Duration::from_secs(3725)), "1h02m");
        assert_eq!(format_duration(Duration::from_secs(185)), "3m05s");
    }

    #[test]
    fn lines_come_first_then_once_per_interval() {
        let mut rare = lines(Duration::from_secs(3600));
        assert!(rare.line_due());
        assert!(!rare.line_due());
        let mut often = lines(Duration::ZERO);
        assert!(often.line_due() && often.line_due());
    }
}
