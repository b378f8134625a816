//! The soak's running totals and what it prints: one line per game and the summary.

use super::procfs::mib;
use super::report::{Ending, Events, FaultKind, GameReport, MoveTiming};
use std::collections::BTreeMap;
use std::time::Duration;
use wuzi::types::{Color, Rule};

/// Results of the games of one rule and board size.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Results {
    pub black: usize,
    pub white: usize,
    pub full: usize,
    pub faulted: usize,
}

#[derive(Clone, Debug, Default)]
pub struct Tally {
    pub games: usize,
    /// Move answers judged.
    pub moves: usize,
    pub faults: BTreeMap<FaultKind, usize>,
    /// Numbers of the games with a fault.
    pub failed_games: Vec<usize>,
    pub events: Events,
    pub match_clock_games: usize,
    /// By rule (its index, as in `Rule::ALL`) and board size.
    pub results: BTreeMap<(usize, usize), Results>,
    /// The highest `VmHWM` of any brain process: bytes, game, brain.
    pub peak_rss: Option<(u64, usize, usize)>,
    /// The move nearest its limit, and its game.
    pub closest: Option<(MoveTiming, usize)>,
    /// Late moves the busy machine explains, with their games.
    pub busy_late: Vec<(MoveTiming, usize)>,
    /// The longest wait for a move after `YXSTOP`, ms, and its game.
    pub stop_answer: Option<(u64, usize)>,
    pub info_notes: usize,
    pub elapsed: Duration,
}

impl Tally {
    pub fn add(&mut self, r: &GameReport) {
        self.games += 1;
        self.moves += r.moves;
        for f in &r.faults {
            *self.faults.entry(f.kind).or_default() += 1;
        }
        if !r.faults.is_empty() {
            self.failed_games.push(r.plan.number);
        }
        self.events.add(&r.events);
        self.match_clock_games += usize::from(r.plan.match_ms > 0);
        let results = self
            .results
            .entry((r.plan.rule.index(), r.plan.size))
            .or_default();
        match r.ending {
            Ending::Five(Color::Black) => results.black += 1,
            Ending::Five(Color::White) => results.white += 1,
            Ending::BoardFull => results.full += 1,
            Ending::Fault => results.faulted += 1,
        }
        for (brain, peak) in r.peak_rss.iter().enumerate() {
            if let Some(bytes) = *peak {
                if self.peak_rss.is_none_or(|(most, _, _)| bytes > most) {
                    self.peak_rss = Some((bytes, r.plan.number, brain));
                }
            }
        }
        if let Some(c) = &r.closest {
            if self
                .closest
                .as_ref()
                .is_none_or(|(most, _)| c.share() > most.share())
            {
                self.closest = Some((c.clone(), r.plan.number));
            }
        }
        let number = r.plan.number;
        self.busy_late
            .extend(r.busy_late.iter().map(|t| (t.clone(), number)));
        if let Some(ms) = r.stop_answer_ms {
            if self.stop_answer.is_none_or(|(most, _)| ms > most) {
                self.stop_answer = Some((ms, r.plan.number));
            }
        }
        self.info_notes += r.info_notes.len();
    }

    pub fn count(&self, kind: FaultKind) -> usize {
        self.faults.get(&kind).copied().unwrap_or(0)
    }

    /// No fault, and the peak memory (when measured) under `memory_limit` bytes.
    pub fn passed(&self, memory_limit: u64) -> bool {
        self.failed_games.is_empty() && self.peak_rss.is_none_or(|(b, _, _)| b < memory_limit)
    }

    /// The summary: the verdict line first, then memory, time, disturbances and results.
    pub fn summary(&self, memory_limit: u64) -> Vec<String> {
        let counts: Vec<String> = FaultKind::ALL
            .iter()
            .map(|&k| format!("{} {}", self.count(k), k.counted()))
            .collect();
        let mut lines = vec![format!(
            "soak: {} games, {} moves: {}",
            self.games,
            self.moves,
            counts.join(", ")
        )];
        lines.push(match self.peak_rss {
            Some((bytes, game, brain)) => format!(
                "peak memory: VmHWM {} (game {game}, brain {brain}), {} the limit of {}",
                mib(bytes),
                if bytes < memory_limit {
                    "under"
                } else {
                    "NOT under"
                },
                mib(memory_limit)
            ),
            None => "peak memory: not measured (no /proc)".to_string(),
        });
        if let Some((c, game)) = &self.closest {
            lines.push(format!("time: nearest its limit, game {game} {c}"));
        }
        if !self.busy_late.is_empty() {
            lines.push(format!(
                "late on the busy machine (in time without the waits for a CPU; not time \
                 losses): {}",
                self.busy_late.len()
            ));
            for (t, game) in &self.busy_late {
                lines.push(format!("  game {game} {t}"));
            }
        }
        let e = &self.events;
        let stop = match self.stop_answer {
            Some((ms, game)) => format!(" (the slowest answer {ms} ms after it, game {game})"),
            None => String::new(),
        };
        lines.push(format!(
            "disturbances: TAKEBACK {}, RESTART {}, INFO change {}, YXSTOP while thinking \
             {}{stop}, YXSTOP just after the move {}, BOARD instead of TURN {}; match-clock \
             games {}; processes started {}",
            e.takebacks,
            e.restarts,
            e.infos,
            e.stops,
            e.late_stops,
            e.resyncs,
            self.match_clock_games,
            e.launches
        ));
        if self.info_notes > 0 {
            lines.push(format!("INFO notes from the brains: {}", self.info_notes));
        }
        for (&(rule, size), r) in &self.results {
            let rule = Rule::ALL[rule];
            lines.push(format!(
                "  {rule:<9} {size}x{size}: games {}: black won {}, white won {}, board full {}, \
                 ended by a fault {}",
                r.black + r.white + r.full + r.faulted,
                r.black,
                r.white,
                r.full,
                r.faulted
            ));
        }
        if !self.failed_games.is_empty() {
            let list: Vec<String> = self.failed_games.iter().map(|n| n.to_string()).collect();
            lines.push(format!("games with a fault: {}", list.join(" ")));
        }
        lines.push(format!("wall time {}", duration_text(self.elapsed)));
        lines
    }
}

/// A move that takes more than this share of what it is allowed is shown in its game's
/// lines.
const NEAR_THE_LIMIT: f64 = 0.8;

/// One line for a game: `game 12: renju 15x15, …: 57 plies, white won; 1 takeback … ok`,
/// then one indented line per fault.
pub fn game_lines(r: &GameReport) -> Vec<String> {
    let ending = match r.ending {
        Ending::Five(color) => format!("{} won", color_name(color)),
        Ending::BoardFull => "board full".to_string(),
        Ending::Fault => "ended by a fault".to_string(),
    };
    let e = &r.events;
    let mut extras = Vec::new();
    for (n, what) in [
        (e.takebacks, "takeback"),
        (e.restarts, "restart"),
        (e.infos, "info"),
        (e.stops + e.late_stops, "yxstop"),
        (e.resyncs, "board"),
    ] {
        if n > 0 {
            extras.push(format!("{n} {what}"));
        }
    }
    let extras = if extras.is_empty() {
        String::new()
    } else {
        format!(" [{}]", extras.join(", "))
    };
    let verdict = if r.faults.is_empty() { "ok" } else { "FAIL" };
    let mut lines = vec![format!(
        "game {}: {}: {} plies, {ending}{extras}, {:.1} s: {verdict}",
        r.plan.number,
        r.plan.describe(),
        r.plies,
        r.elapsed.as_secs_f64()
    )];
    lines.extend(r.faults.iter().map(|f| format!("    {f}")));
    lines.extend(
        r.busy_late
            .iter()
            .map(|t| format!("    late on the busy machine: {t}")),
    );
    let late = |c: &&MoveTiming| c.share() > 1.0;
    if let Some(c) = r
        .closest
        .as_ref()
        .filter(|c| c.share() > NEAR_THE_LIMIT && !late(c))
    {
        lines.push(format!("    near the limit: {c}"));
    }
    lines.extend(r.info_notes.iter().map(|n| format!("    note: {n}")));
    lines
}

/// What a game with a fault leaves for whoever reproduces it: its lines and both
/// brains' protocol transcripts.
pub fn transcript_text(r: &GameReport, seed: u64) -> String {
    let mut text = game_lines(r).join("\n");
    text.push_str(&format!(
        "\nseed {seed}; transcripts (ms since the process started, > sent, < stdout, ! stderr):\n"
    ));
    for line in &r.transcript {
        text.push_str(line);
        text.push('\n');
    }
    text
}

/// `42 s` under two minutes, `27.5 min` above.
pub fn duration_text(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s < 120.0 {
        format!("{s:.0} s")
    } else {
        format!("{:.1} min", s / 60.0)
    }
}

fn color_name(color: Color) -> &'static str {
    match color {
        Color::Black => "black",
        Color::White => "white",
    }
}
