//! A deliberately misbehaving Piskvork brain for the match runner's tests.
//!
//! usage: wuzi-testbrain MODE [after=N] [ms=M] [log=FILE]
//!   legal     plays the first empty point, row by row from the top left
//!   slow      sleeps M ms (default 3000) before each move
//!   crash     exits without answering
//!   offboard  answers a point just outside the board
//!   occupied  answers the last stone on the board
//!   garbage   answers a line that is not a move
//!   chatty    sends MESSAGE, DEBUG, SUGGEST and a stderr line before every move, and a
//!             MESSAGE before its ABOUT answer (as Rapfi does)
//!   banner    prints a line at start-up, before ABOUT is asked
//!   scripted  plays `moves=x,y/x,y/…` in order, whether legal or not, then as `legal`
//! The misbehaviour starts with the move request after the first N (default 0) legal
//! moves. `log=FILE` appends every command received, for tests that check the protocol.
//! The `ABOUT` answer's version is `WUZI_TESTBRAIN_VERSION` from the environment (default
//! 1), for tests of what environment a runner gives each brain.

use std::collections::HashSet;
use std::io::{BufRead, Write};
use std::time::Duration;

struct Brain {
    mode: String,
    after: usize,
    sleep_ms: u64,
    width: i32,
    height: i32,
    stones: Vec<(i32, i32)>,
    answered: usize,
    script: Vec<(i32, i32)>,
}

impl Brain {
    fn first_empty(&self) -> (i32, i32) {
        let taken: HashSet<(i32, i32)> = self.stones.iter().copied().collect();
        for y in 0..self.height {
            for x in 0..self.width {
                if !taken.contains(&(x, y)) {
                    return (x, y);
                }
            }
        }
        (0, 0)
    }

    /// The reply to a move request, or `None` to exit on the spot.
    fn answer(&mut self) -> Option<String> {
        let misbehave = self.answered >= self.after;
        self.answered += 1;
        let mut out = String::new();
        let mut legal = true;
        if let Some(&(x, y)) = self.script.get(self.answered - 1) {
            self.stones.push((x, y));
            return Some(format!("{},{}", x, y));
        }
        if misbehave {
            match self.mode.as_str() {
                "slow" => std::thread::sleep(Duration::from_millis(self.sleep_ms)),
                "crash" => return None,
                "offboard" => {
                    legal = false;
                    out = format!("{},{}", self.width, 0);
                }
                "occupied" if !self.stones.is_empty() => {
                    legal = false;
                    let (x, y) = self.stones[self.stones.len() - 1];
                    out = format!("{},{}", x, y);
                }
                "garbage" => {
                    legal = false;
                    out = "hello there".to_string();
                }
                "chatty" => {
                    eprintln!("thinking hard");
                    out = "MESSAGE thinking\nDEBUG depth 1\nSUGGEST 0,0\n".to_string();
                }
                _ => {}
            }
        }
        if legal {
            let (x, y) = self.first_empty();
            self.stones.push((x, y));
            out.push_str(&format!("{},{}", x, y));
        }
        Some(out)
    }
}

fn parse_point(text: &str) -> Option<(i32, i32)> {
    let mut parts = text.split(',').map(|p| p.trim().parse::<i32>());
    Some((parts.next()?.ok()?, parts.next()?.ok()?))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut brain = Brain {
        mode: args.first().cloned().unwrap_or_else(|| "legal".to_string()),
        after: 0,
        sleep_ms: 3000,
        width: 15,
        height: 15,
        stones: Vec::new(),
        answered: 0,
        script: Vec::new(),
    };
    let mut log_path = None;
    for arg in args.iter().skip(1) {
        match arg.split_once('=') {
            Some(("after", v)) => brain.after = v.parse().unwrap_or(0),
            Some(("ms", v)) => brain.sleep_ms = v.parse().unwrap_or(3000),
            Some(("log", v)) => log_path = Some(v.to_string()),
            Some(("moves", v)) => brain.script = v.split('/').filter_map(parse_point).collect(),
            _ => {}
        }
    }
    let stdout = std::io::stdout();
    let say = |text: &str| {
        let mut out = stdout.lock();
        let _ = writeln!(out, "{}", text);
        let _ = out.flush();
    };
    if brain.mode == "banner" {
        say("wuzi-testbrain starting up");
    }
    let mut log = log_path.and_then(|p| {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(p)
            .ok()
    });
    let mut in_board = false;
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        let line = line.trim().to_string();
        if let Some(file) = log.as_mut() {
            let _ = writeln!(file, "{}", line);
        }
        let upper = line.to_ascii_uppercase();
        let (word, rest) = upper.split_once(' ').unwrap_or((upper.as_str(), ""));
        if in_board {
            if upper == "DONE" {
                in_board = false;
                match brain.answer() {
                    Some(reply) => say(&reply),
                    None => std::process::exit(3),
                }
            } else if let Some((x, y)) = parse_point(&line) {
                brain.stones.push((x, y));
            }
            continue;
        }
        match word {
            "ABOUT" => {
                if brain.mode == "chatty" {
                    say("MESSAGE loading the configuration");
                }
                let version =
                    std::env::var("WUZI_TESTBRAIN_VERSION").unwrap_or_else(|_| "1".into());
                say(&format!(
                    "name=\"wuzi-testbrain\", version=\"{version}\", author=\"wuzi\""
                ))
            }
            "START" | "RECTSTART" => {
                let size: Vec<i32> = rest
                    .split(',')
                    .filter_map(|v| v.trim().parse().ok())
                    .collect();
                match size.as_slice() {
                    [n] => (brain.width, brain.height) = (*n, *n),
                    [w, h] => (brain.width, brain.height) = (*w, *h),
                    _ => {}
                }
                brain.stones.clear();
                say("OK");
            }
            "RESTART" => {
                brain.stones.clear();
                say("OK");
            }
            "INFO" => {}
            "BEGIN" | "TURN" => {
                if let Some(point) = parse_point(rest) {
                    brain.stones.push(point);
                }
                match brain.answer() {
                    Some(reply) => say(&reply),
                    None => std::process::exit(3),
                }
            }
            "BOARD" => {
                brain.stones.clear();
                in_board = true;
            }
            "END" => break,
            _ => say("UNKNOWN"),
        }
    }
}
