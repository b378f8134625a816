//! What a soak game yields: its ending, the faults found (by the kinds the soak
//! counts), the disturbances sent, timing and memory.

use super::plan::GamePlan;
use super::procfs::CpuTimes;
use std::fmt;
use std::time::Duration;
use wuzi::types::Color;

/// What went wrong, by the kinds the soak counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FaultKind {
    /// The process exited, or gave no answer within its limit + `HANG_MS`.
    Crash,
    /// A move off the board or on a stone.
    Illegal,
    /// A renju move forbidden for black (the brain promises never to play one).
    Foul,
    /// A move later than its limit + `LATE_PERCENT` % + `SoakConfig::late_ms`.
    TimeLoss,
    /// A line that does not answer the command: not `OK`, not a move, a stray line, or
    /// anything on stderr (Piskvork merges it into the protocol).
    Protocol,
    /// The brain's own report of a bug (`MESSAGE internal error …`, a fallback move).
    Internal,
    /// More resident memory after a move than the `max_memory` in force.
    OverMemory,
}

impl FaultKind {
    pub const ALL: [FaultKind; 7] = [
        FaultKind::Crash,
        FaultKind::Illegal,
        FaultKind::Foul,
        FaultKind::TimeLoss,
        FaultKind::Protocol,
        FaultKind::Internal,
        FaultKind::OverMemory,
    ];

    /// The plural used in the summary: `0 crashes`.
    pub fn counted(self) -> &'static str {
        match self {
            FaultKind::Crash => "crashes",
            FaultKind::Illegal => "illegal moves",
            FaultKind::Foul => "renju fouls",
            FaultKind::TimeLoss => "time losses",
            FaultKind::Protocol => "protocol errors",
            FaultKind::Internal => "internal errors",
            FaultKind::OverMemory => "over max_memory",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            FaultKind::Crash => "crash",
            FaultKind::Illegal => "illegal move",
            FaultKind::Foul => "renju foul",
            FaultKind::TimeLoss => "time loss",
            FaultKind::Protocol => "protocol error",
            FaultKind::Internal => "internal error",
            FaultKind::OverMemory => "over max_memory",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    pub kind: FaultKind,
    /// 0 or 1.
    pub brain: usize,
    pub detail: String,
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} by brain {}: {}",
            self.kind.name(),
            self.brain,
            self.detail
        )
    }
}

pub fn fault(kind: FaultKind, brain: usize, detail: impl Into<String>) -> Fault {
    Fault {
        kind,
        brain,
        detail: detail.into(),
    }
}

/// How the game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// A winning five by this colour.
    Five(Color),
    BoardFull,
    /// A fault ended it (the first of `GameReport::faults`).
    Fault,
}

/// How often each disturbance happened.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Events {
    pub takebacks: usize,
    pub restarts: usize,
    pub infos: usize,
    /// `YXSTOP` sent while the brain thought.
    pub stops: usize,
    /// `YXSTOP` sent just after the brain had answered (it must change nothing).
    pub late_stops: usize,
    pub resyncs: usize,
    /// Brain processes started.
    pub launches: usize,
}

impl Events {
    pub fn add(&mut self, other: &Events) {
        self.takebacks += other.takebacks;
        self.restarts += other.restarts;
        self.infos += other.infos;
        self.stops += other.stops;
        self.late_stops += other.late_stops;
        self.resyncs += other.resyncs;
        self.launches += other.launches;
    }
}

/// One move's time against what it was allowed.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveTiming {
    /// The move's number in the game (opening stones included).
    pub number: usize,
    /// How it was asked for: `BEGIN`, `TURN` or `BOARD`.
    pub request: String,
    pub elapsed_ms: u64,
    pub allowed_ms: u64,
    /// What set the limit: `turn 120 ms`, `time_left 800 ms`, `YXSTOP at 90 ms`.
    pub limit: String,
    /// The brain's time on a CPU and waiting for one during the move.
    pub cpu: Option<CpuTimes>,
}

impl MoveTiming {
    pub fn share(&self) -> f64 {
        self.elapsed_ms as f64 / self.allowed_ms.max(1) as f64
    }
}

impl fmt::Display for MoveTiming {
    /// `move 57 (TURN) took 126 ms of the 129 ms allowed (turn 72 ms; 30 ms on a CPU,
    /// 80 ms waiting for one)`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "move {} ({}) took {} ms of the {} ms allowed ({}",
            self.number, self.request, self.elapsed_ms, self.allowed_ms, self.limit
        )?;
        if let Some(cpu) = self.cpu {
            write!(
                f,
                "; {} ms on a CPU, {} ms waiting for one",
                cpu.running.as_millis(),
                cpu.waiting.as_millis()
            )?;
        }
        f.write_str(")")
    }
}

/// Everything the soak learnt from one game.
#[derive(Clone, Debug)]
pub struct GameReport {
    pub plan: GamePlan,
    /// Stones on the board at the end (after the last restart, if any).
    pub plies: usize,
    /// Move answers judged.
    pub moves: usize,
    pub ending: Ending,
    pub faults: Vec<Fault>,
    pub events: Events,
    /// The move that came nearest to being late.
    pub closest: Option<MoveTiming>,
    /// The longest wait for a move after `YXSTOP`.
    pub stop_answer_ms: Option<u64>,
    /// Each brain's peak resident memory (`VmHWM`) since its process started.
    pub peak_rss: [Option<u64>; 2],
    /// `MESSAGE` lines about settings not taken as sent (the soak sends only valid ones).
    pub info_notes: Vec<String>,
    pub elapsed: Duration,
    /// Both brains' protocol transcripts, kept when the game had a fault.
    pub transcript: Vec<String>,
}

impl GameReport {
    /// The report of game `plan` before it is played: no move, no fault.
    pub fn new(plan: &GamePlan) -> GameReport {
        GameReport {
            plan: plan.clone(),
            plies: 0,
            moves: 0,
            ending: Ending::Fault,
            faults: Vec::new(),
            events: Events::default(),
            closest: None,
            stop_answer_ms: None,
            peak_rss: [None, None],
            info_notes: Vec::new(),
            elapsed: Duration::ZERO,
            transcript: Vec::new(),
        }
    }
}
