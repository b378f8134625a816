//! Progress of a long match on stderr: games done, running score, Elo and ETA. On a
//! terminal an `indicatif` bar at the bottom, with the line of each game scrolling above
//! it on stdout; elsewhere (a log file, a batch job) a plain line after the first game,
//! then at most one per interval, and one after the last game.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use wuzi_tools::matchrunner::report::progress_status;
use wuzi_tools::matchrunner::tournament::{MatchConfig, MatchState};

/// How often a plain progress line is written when stderr is not a terminal.
const LINE_INTERVAL: Duration = Duration::from_secs(30);

enum Display {
    Off,
    Bar(ProgressBar),
    Lines {
        interval: Duration,
        /// When the last line was written; `None` before the first.
        last: Mutex<Option<Instant>>,
    },
}

pub struct Progress {
    display: Display,
    started: Instant,
}

impl Progress {
    /// A bar when stderr is a terminal, lines otherwise; nothing when `quiet`.
    pub fn new(config: &MatchConfig, quiet: bool) -> Progress {
        let display = if quiet {
            Display::Off
        } else if std::io::stderr().is_terminal() {
            let bar = ProgressBar::new(config.game_indices().len() as u64);
            if let Ok(style) =
                ProgressStyle::with_template("{bar:30.cyan/blue} {pos}/{len} games, {msg}")
            {
                bar.set_style(style.progress_chars("=> "));
            }
            Display::Bar(bar)
        } else {
            Display::lines(LINE_INTERVAL)
        };
        Progress {
            display,
            started: Instant::now(),
        }
    }

    /// After each game: prints its `line` on stdout (if any) and updates the display.
    pub fn game_done(&self, config: &MatchConfig, state: &MatchState, line: Option<String>) {
        let status = || progress_status(config, state, self.started.elapsed());
        match &self.display {
            Display::Off => print_line(line),
            Display::Bar(bar) => {
                bar.suspend(|| print_line(line));
                bar.set_position(state.games.len() as u64);
                bar.set_message(status());
            }
            Display::Lines { .. } => {
                print_line(line);
                let planned = config.game_indices().len();
                if self.display.line_due(state.games.len() >= planned) {
                    eprintln!(
                        "progress: {}/{} games, {}",
                        state.games.len(),
                        planned,
                        status()
                    );
                }
            }
        }
    }

    /// Removes the bar before the final table is printed.
    pub fn finish(&self) {
        if let Display::Bar(bar) = &self.display {
            bar.finish_and_clear();
        }
    }
}

impl Display {
    fn lines(interval: Duration) -> Display {
        Display::Lines {
            interval,
            last: Mutex::new(None),
        }
    }

    /// Whether a plain line is due now: the first, the last, or one `interval` after the
    /// previous.
    fn line_due(&self, is_last: bool) -> bool {
        let Display::Lines { interval, last } = self else {
            return false;
        };
        let Ok(mut last) = last.lock() else {
            return false;
        };
        let due = is_last || last.is_none_or(|t| t.elapsed() >= *interval);
        if due {
            *last = Some(Instant::now());
        }
        due
    }
}

fn print_line(line: Option<String>) {
    if let Some(line) = line {
        println!("{line}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_come_first_last_and_once_per_interval() {
        let lines = Display::lines(Duration::from_secs(3600));
        assert!(lines.line_due(false));
        assert!(!lines.line_due(false));
        assert!(lines.line_due(true));
        let often = Display::lines(Duration::ZERO);
        assert!(often.line_due(false) && often.line_due(false));
        assert!(!Display::Off.line_due(true));
    }
}
