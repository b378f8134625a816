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
    /// A move later than its limit + `LATE_PERCENT` % + `SoakConfig::late_ms` that the
    /// busy machine does not explain (`Lateness::Late`).
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
    /// The limit: the turn, the match time left, or when `YXSTOP` was sent.
    pub limit_ms: u64,
    pub allowed_ms: u64,
    /// What set the limit: `turn 120 ms`, `time_left 800 ms`, `YXSTOP at 90 ms`.
    pub limit: String,
    /// The brain's time on a CPU and waiting for one during the move.
    pub brain: Option<CpuTimes>,
    /// The same for the soak's own threads (they read the answer).
    pub soak: Option<CpuTimes>,
}

/// Whether a move came in time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lateness {
    OnTime,
    /// Late, but in time once the time the brain and the soak were kept waiting for a
    /// CPU is taken off, and the brain did not compute beyond its limit: the machine
    /// was too busy to tell. Counted apart, not a fault.
    BusyMachine,
    /// A time loss.
    Late,
}

impl MoveTiming {
    pub fn share(&self) -> f64 {
        self.elapsed_ms as f64 / self.allowed_ms.max(1) as f64
    }

    pub fn lateness(&self) -> Lateness {
        if self.elapsed_ms <= self.allowed_ms {
            return Lateness::OnTime;
        }
        let (Some(brain), Some(soak)) = (self.brain, self.soak) else {
            return Lateness::Late;
        };
        let computed_ms = brain.running.as_millis() as u64;
        let kept_waiting_ms = (brain.waiting + soak.waiting).as_millis() as u64;
        if computed_ms <= self.limit_ms
            && self.elapsed_ms.saturating_sub(kept_waiting_ms) <= self.allowed_ms
        {
            Lateness::BusyMachine
        } else {
            Lateness::Late
        }
    }
}

impl fmt::Display for MoveTiming {
    /// `move 57 (TURN) took 126 ms of the 129 ms allowed (turn 72 ms; brain 30 ms on a
    /// CPU, 80 ms waiting for one; soak 2 ms waiting)`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "move {} ({}) took {} ms of the {} ms allowed ({}",
            self.number, self.request, self.elapsed_ms, self.allowed_ms, self.limit
        )?;
        if let Some(cpu) = self.brain {
            write!(
                f,
                "; brain {} ms on a CPU, {} ms waiting for one",
                cpu.running.as_millis(),
                cpu.waiting.as_millis()
            )?;
        }
        if let Some(cpu) = self.soak {
            write!(f, "; soak {} ms waiting", cpu.waiting.as_millis())?;
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
    /// Late moves that the busy machine explains (`Lateness::BusyMachine`).
    pub busy_late: Vec<MoveTiming>,
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
            busy_late: Vec::new(),
            stop_answer_ms: None,
            peak_rss: [None, None],
            info_notes: Vec::new(),
            elapsed: Duration::ZERO,
            transcript: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cpu(running_ms: u64, waiting_ms: u64) -> Option<CpuTimes> {
        Some(CpuTimes {
            running: Duration::from_millis(running_ms),
            waiting: Duration::from_millis(waiting_ms),
        })
    }

    /// A move at a 100 ms limit (160 ms allowed) that took `elapsed_ms`.
    fn timing(elapsed_ms: u64, brain: Option<CpuTimes>, soak: Option<CpuTimes>) -> MoveTiming {
        MoveTiming {
            number: 9,
            request: "TURN".to_string(),
            elapsed_ms,
            limit_ms: 100,
            allowed_ms: 160,
            limit: "turn 100 ms".to_string(),
            brain,
            soak,
        }
    }

    #[test]
    fn only_the_waits_for_a_cpu_excuse_a_late_move() {
        assert_eq!(timing(160, None, None).lateness(), Lateness::OnTime);
        assert_eq!(timing(161, None, None).lateness(), Lateness::Late);
        // 400 ms, of which the brain waited 250 and the soak 10 for a CPU: 140 ms left.
        let starved = timing(400, cpu(60, 250), cpu(1, 10));
        assert_eq!(starved.lateness(), Lateness::BusyMachine);
        // The same, but the brain computed past its limit: its own fault.
        assert_eq!(
            timing(400, cpu(120, 250), cpu(1, 10)).lateness(),
            Lateness::Late
        );
        // Waits too short to explain it.
        assert_eq!(
            timing(400, cpu(60, 100), cpu(1, 10)).lateness(),
            Lateness::Late
        );
        assert_eq!(timing(400, cpu(60, 250), None).lateness(), Lateness::Late);
        assert!(starved
            .to_string()
            .contains("brain 60 ms on a CPU, 250 ms waiting"));
    }
}
