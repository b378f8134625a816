//! One soak game: two running brains play each other under the game's plan while the
//! soak disturbs them as managers and users do (`TAKEBACK`, `RESTART`, `YXSTOP`, `INFO`
//! changes, a `BOARD` where a `TURN` would do), and every answer is judged: a move by the
//! referee board (`wuzi::rules` through the match runner's `Referee`) and against the
//! clock, every other line against what the command asks for.
//!
//! A fault ends the game (a manager would forfeit it) and the brain at fault is started
//! anew before the next one.

use super::plan::{draw_max_memory, GamePlan};
use super::procfs::{self, CpuTimes};
use super::report::{fault, Ending, Fault, FaultKind, GameReport, Lateness, MoveTiming};
use super::SoakConfig;
use crate::matchrunner::adjudicate::{Referee, Verdict};
use crate::matchrunner::engine::{Engine, EngineFailure, EngineSpec};
use crate::matchrunner::game::{move_request, parse_move, PlayedMove};
use rand::rngs::StdRng;
use rand::Rng;
use std::time::{Duration, Instant};
use wuzi::types::{Color, Coord};

/// A move is late when it comes after its limit plus this share of the limit, plus
/// `SoakConfig::late_ms`.
pub const LATE_PERCENT: u64 = 10;
/// No move this long after the limit: the brain hangs, which counts as a crash.
pub const HANG_MS: u64 = 2000;
/// How long `ABOUT`, `START`, `RESTART` and `TAKEBACK` may take to be answered.
const REPLY_TIMEOUT: Duration = Duration::from_secs(10);
/// How long the soak looks for stray lines once a game is over.
const DRAIN_WAIT: Duration = Duration::from_millis(30);
/// The protocol's "no match clock" value of `time_left`.
const UNLIMITED_TIME_LEFT: i64 = 2_147_483_647;

/// A brain process of a worker, kept from game to game.
struct Brain {
    engine: Engine,
    /// The board size of its last `START`, for a `RESTART` to begin the next game.
    size: Option<usize>,
}

/// The two brains one worker plays with.
pub struct Pair {
    specs: [EngineSpec; 2],
    brains: [Option<Brain>; 2],
}

impl Pair {
    pub fn new(specs: [EngineSpec; 2]) -> Pair {
        Pair {
            specs,
            brains: [None, None],
        }
    }

    /// Sends both brains `END` and waits for them to exit.
    pub fn quit(&mut self) {
        for brain in self.brains.iter_mut() {
            if let Some(b) = brain.take() {
                b.engine.quit();
            }
        }
    }
}

/// What one brain has been told in this game, and its clocks.
#[derive(Clone, Debug)]
struct Side {
    /// How many of the game's moves (a prefix) it knows.
    known: usize,
    turn_ms: u64,
    /// `timeout_match`; 0 = none.
    match_ms: u64,
    /// Its match clock: what is left, ms (may go negative).
    left_ms: i64,
    max_memory: u64,
}

/// A `YXSTOP` planned for a move request.
#[derive(Clone, Copy, Debug)]
struct StopPlan {
    /// Sent this long after the request, if no move came before.
    after: Duration,
    /// The turn time was raised for this move, so that only the stop ends it.
    long_turn: bool,
}

/// A move answer and its timing.
struct Answer {
    line: String,
    elapsed: Duration,
    /// When `YXSTOP` went out (after the request), if it did before the answer.
    stopped: Option<Duration>,
    /// The brain's CPU times over the move.
    brain: Option<CpuTimes>,
    /// The soak's own.
    soak: Option<CpuTimes>,
}

/// Plays game `plan` with the brains of `pair` (launched if needed), `rng` deciding the
/// disturbances.
pub fn play(pair: &mut Pair, plan: &GamePlan, config: &SoakConfig, rng: StdRng) -> GameReport {
    let started = Instant::now();
    let side = Side {
        known: 0,
        turn_ms: plan.turn_ms,
        match_ms: plan.match_ms,
        left_ms: plan.match_ms as i64,
        max_memory: plan.max_memory,
    };
    let referee = match Referee::new(plan.size, plan.size, plan.rule) {
        Ok(r) => r,
        Err(e) => return unplayable(plan, e),
    };
    let mut game = Game {
        pair,
        plan,
        config,
        rng,
        referee,
        moves: Vec::new(),
        sides: [side.clone(), side],
        report: GameReport::new(plan),
    };
    match game.run() {
        Ok(ending) => game.report.ending = ending,
        Err(f) => game.report.faults.push(f),
    }
    game.finish();
    game.report.plies = game.moves.len();
    game.report.elapsed = started.elapsed();
    game.report
}

/// The report of a game whose board cannot be made: the run's settings are wrong, which
/// the first game shows as a fault of nobody's making.
fn unplayable(plan: &GamePlan, why: String) -> GameReport {
    let mut report = GameReport::new(plan);
    report
        .faults
        .push(fault(FaultKind::Protocol, 0, format!("no board: {why}")));
    report
}

struct Game<'a> {
    pair: &'a mut Pair,
    plan: &'a GamePlan,
    config: &'a SoakConfig,
    rng: StdRng,
    referee: Referee,
    /// The game's stones in move order, black first.
    moves: Vec<Coord>,
    /// By brain.
    sides: [Side; 2],
    report: GameReport,
}

impl Game<'_> {
    fn run(&mut self) -> Result<Ending, Fault> {
        if self.plan.fresh {
            self.pair.quit();
        }
        for b in 0..2 {
            self.launch(b)?;
            self.begin(b)?;
        }
        for &c in &self.plan.opening {
            self.referee
                .play(c)
                .map_err(|e| fault(FaultKind::Protocol, 0, format!("opening stone {c}: {e}")))?;
            self.moves.push(c);
        }
        loop {
            if self.referee.is_full() {
                return Ok(Ending::BoardFull);
            }
            self.disturb()?;
            if let Some(ending) = self.next_move()? {
                return Ok(ending);
            }
        }
    }

    /// The brain that plays `color` in this game.
    fn brain_of(&self, color: Color) -> usize {
        match color {
            Color::Black => self.plan.black,
            Color::White => 1 - self.plan.black,
        }
    }

    fn engine(&mut self, b: usize) -> Result<&mut Engine, Fault> {
        self.pair.brains[b]
            .as_mut()
            .map(|brain| &mut brain.engine)
            .ok_or_else(|| fault(FaultKind::Crash, b, "the process is not running"))
    }

    fn send(&mut self, b: usize, line: &str) -> Result<(), Fault> {
        self.engine(b)?.send(line).map_err(|_| {
            fault(
                FaultKind::Crash,
                b,
                format!("process gone when sent {line:?}"),
            )
        })
    }

    /// Sends `command` and expects `OK`.
    fn expect_ok(&mut self, b: usize, command: &str) -> Result<(), Fault> {
        self.send(b, command)?;
        let deadline = Instant::now() + REPLY_TIMEOUT;
        match self.engine(b)?.read_reply(deadline) {
            Ok(line) if line.trim().eq_ignore_ascii_case("OK") => Ok(()),
            Ok(line) => Err(fault(
                FaultKind::Protocol,
                b,
                format!("{command} answered {line:?}, not OK"),
            )),
            Err(failure) => Err(crash(b, failure, command, REPLY_TIMEOUT)),
        }
    }

    /// Starts brain `b`'s process unless it runs.
    fn launch(&mut self, b: usize) -> Result<(), Fault> {
        if self.pair.brains[b].is_some() {
            return Ok(());
        }
        self.report.events.launches += 1;
        let engine = Engine::launch(&self.pair.specs[b], REPLY_TIMEOUT)
            .map_err(|e| fault(FaultKind::Crash, b, e))?;
        let about = engine.about().to_string();
        self.pair.brains[b] = Some(Brain { engine, size: None });
        if !about.to_ascii_lowercase().starts_with("name=") {
            return Err(fault(
                FaultKind::Protocol,
                b,
                format!("ABOUT answered {about:?}"),
            ));
        }
        Ok(())
    }

    /// `START n` (or `RESTART` on a board of the same size) and the settings, the
    /// settings before or after it (managers do both).
    fn begin(&mut self, b: usize) -> Result<(), Fault> {
        let size = self.plan.size;
        let same_size = self.pair.brains[b].as_ref().and_then(|x| x.size) == Some(size);
        let command = if same_size && self.rng.gen_bool(self.config.mix.restart_to_begin) {
            "RESTART".to_string()
        } else {
            format!("START {size}")
        };
        let side = &self.sides[b];
        let infos = [
            format!("INFO timeout_turn {}", side.turn_ms),
            format!("INFO timeout_match {}", side.match_ms),
            format!("INFO max_memory {}", side.max_memory),
            format!("INFO rule {}", self.plan.rule.info_value()),
            "INFO game_type 1".to_string(),
        ];
        let infos_first = self.rng.gen_bool(0.5);
        if infos_first {
            infos.iter().try_for_each(|line| self.send(b, line))?;
        }
        self.expect_ok(b, &command)?;
        if !infos_first {
            infos.iter().try_for_each(|line| self.send(b, line))?;
        }
        if let Some(brain) = self.pair.brains[b].as_mut() {
            brain.size = Some(size);
        }
        Ok(())
    }

    /// At most one disturbance before the next move request, by the mix's chances.
    fn disturb(&mut self) -> Result<(), Fault> {
        let mix = &self.config.mix;
        let r: f64 = self.rng.gen();
        if r < mix.takeback {
            if !self.moves.is_empty() {
                self.take_back()?;
            }
        } else if r < mix.takeback + mix.restart {
            self.restart()?;
        } else if r < mix.takeback + mix.restart + mix.info {
            self.change_info()?;
        }
        Ok(())
    }

    /// Undoes the last one or two stones: each brain gets a `TAKEBACK` for every stone
    /// it knows of them, last first, and answers `OK`.
    fn take_back(&mut self) -> Result<(), Fault> {
        let count = self.rng.gen_range(1..=2).min(self.moves.len());
        let keep = self.moves.len() - count;
        for b in 0..2 {
            while self.sides[b].known > keep {
                let c = self.moves[self.sides[b].known - 1];
                self.expect_ok(b, &format!("TAKEBACK {c}"))?;
                self.sides[b].known -= 1;
            }
        }
        for _ in 0..count {
            self.referee.undo();
            self.moves.pop();
        }
        self.report.events.takebacks += 1;
        Ok(())
    }

    /// `RESTART` for both brains mid-game: the game goes on from an empty board with
    /// fresh match clocks.
    fn restart(&mut self) -> Result<(), Fault> {
        for b in 0..2 {
            self.expect_ok(b, "RESTART")?;
            let side = &mut self.sides[b];
            side.known = 0;
            side.left_ms = side.match_ms as i64;
        }
        self.referee = Referee::new(self.plan.size, self.plan.size, self.plan.rule)
            .map_err(|e| fault(FaultKind::Protocol, 0, e))?;
        self.moves.clear();
        self.report.events.restarts += 1;
        Ok(())
    }

    /// One brain's `INFO` change: a new `timeout_turn` or `max_memory`, or its match
    /// clock started (`timeout_match`, `time_left` from then on) or ended.
    fn change_info(&mut self) -> Result<(), Fault> {
        let b = self.rng.gen_range(0..2);
        let line = match self.rng.gen_range(0..3) {
            0 => {
                let ms = self.rng.gen_range(self.config.ranges.turn_ms.clone());
                self.sides[b].turn_ms = ms;
                format!("INFO timeout_turn {ms}")
            }
            1 => {
                let bytes = draw_max_memory(&mut self.rng);
                self.sides[b].max_memory = bytes;
                format!("INFO max_memory {bytes}")
            }
            _ if self.sides[b].match_ms == 0 => {
                let ms = self.rng.gen_range(self.config.ranges.match_ms.clone());
                self.sides[b].match_ms = ms;
                self.sides[b].left_ms = ms as i64;
                format!("INFO timeout_match {ms}")
            }
            _ => {
                self.sides[b].match_ms = 0;
                "INFO timeout_match 0".to_string()
            }
        };
        self.send(b, &line)?;
        self.report.events.infos += 1;
        Ok(())
    }

    /// The lines that ask brain `b` for its move: `BEGIN` when it knows every stone (an
    /// empty board, or after a takeback), `TURN` with the one stone it lacks, else (or
    /// sometimes instead of `TURN`) the whole position as `BOARD`.
    fn request(&mut self, b: usize, color: Color) -> Vec<String> {
        let known = self.sides[b].known;
        let len = self.moves.len();
        if known == len {
            return vec!["BEGIN".to_string()];
        }
        if known + 1 == len {
            if !self.rng.gen_bool(self.config.mix.resync) {
                return vec![format!("TURN {}", self.moves[len - 1])];
            }
            self.report.events.resyncs += 1;
        }
        let played: Vec<PlayedMove> = self
            .moves
            .iter()
            .enumerate()
            .map(|(i, &coord)| PlayedMove {
                coord,
                color: if i % 2 == 0 {
                    Color::Black
                } else {
                    Color::White
                },
                time: Duration::ZERO,
                from_opening: true,
            })
            .collect();
        move_request(color, false, &played)
    }

    /// Asks the side to move for its move and judges the answer. `Some` when the game
    /// is over.
    fn next_move(&mut self) -> Result<Option<Ending>, Fault> {
        let color = self.referee.side_to_move();
        let b = self.brain_of(color);
        let request = self.request(b, color);
        let stop = self
            .rng
            .gen_bool(self.config.mix.stop)
            .then(|| self.plan_stop(b));
        let side = self.sides[b].clone();
        let turn_ms = match stop {
            Some(s) if s.long_turn => (side.turn_ms * 10).max(1000),
            _ => side.turn_ms,
        };
        if turn_ms != side.turn_ms {
            self.send(b, &format!("INFO timeout_turn {turn_ms}"))?;
        }
        let time_left = if side.match_ms > 0 {
            side.left_ms
        } else {
            UNLIMITED_TIME_LEFT
        };
        self.send(b, &format!("INFO time_left {time_left}"))?;
        let pid = self.engine(b)?.pid();
        let soak_pid = std::process::id();
        let cpu_before = procfs::cpu_times(pid).zip(procfs::cpu_times(soak_pid));
        request.iter().try_for_each(|line| self.send(b, line))?;
        let (limit_ms, limit) = if side.match_ms > 0 && side.left_ms.max(0) as u64 <= turn_ms {
            let left = side.left_ms.max(0) as u64;
            (left, format!("time_left {left} ms"))
        } else {
            (turn_ms, format!("turn {turn_ms} ms"))
        };
        let mut answer = self.await_move(b, limit_ms, stop)?;
        let cpu_after = procfs::cpu_times(pid).zip(procfs::cpu_times(soak_pid));
        if let Some(((brain, soak), (brain_after, soak_after))) = cpu_before.zip(cpu_after) {
            answer.brain = Some(brain_after.since(brain));
            answer.soak = Some(soak_after.since(soak));
        }
        if turn_ms != side.turn_ms {
            self.send(b, &format!("INFO timeout_turn {}", side.turn_ms))?;
        }
        if side.match_ms > 0 {
            self.sides[b].left_ms -= answer.elapsed.as_millis() as i64;
        }
        let request_word = request[0].clone();
        self.check_time(b, &answer, &request_word, (limit_ms, limit))?;
        self.judge(b, &answer.line)
    }

    fn plan_stop(&mut self, b: usize) -> StopPlan {
        let turn = self.sides[b].turn_ms.max(4);
        let long_turn = self.rng.gen_bool(0.5);
        // Early enough that the brain is usually still thinking; the rest of the time
        // the stop crosses the move, as a manager's may.
        let after_ms = if long_turn {
            self.rng.gen_range(turn / 4..=turn * 2)
        } else {
            self.rng.gen_range(turn / 8..=turn / 2)
        };
        StopPlan {
            after: Duration::from_millis(after_ms),
            long_turn,
        }
    }

    /// Waits for brain `b`'s move, sending the planned `YXSTOP` when its time comes (or
    /// just after the move, when the move came first, as a manager's stop may cross it).
    fn await_move(
        &mut self,
        b: usize,
        limit_ms: u64,
        stop: Option<StopPlan>,
    ) -> Result<Answer, Fault> {
        let sent = Instant::now();
        let hang = Duration::from_millis(limit_ms + HANG_MS);
        let mut stopped = None;
        if let Some(plan) = stop {
            match self.engine(b)?.read_reply(sent + plan.after.min(hang)) {
                Ok(line) => {
                    let elapsed = sent.elapsed();
                    self.send(b, "YXSTOP")?;
                    self.report.events.late_stops += 1;
                    return Ok(Answer {
                        line,
                        elapsed,
                        stopped: None,
                        brain: None,
                        soak: None,
                    });
                }
                Err(EngineFailure::Timeout) => {
                    self.send(b, "YXSTOP")?;
                    stopped = Some(sent.elapsed());
                    self.report.events.stops += 1;
                }
                Err(failure) => return Err(crash(b, failure, "a move request", hang)),
            }
        }
        let line = self
            .engine(b)?
            .read_reply(sent + hang)
            .map_err(|failure| crash(b, failure, "a move request", hang))?;
        let elapsed = sent.elapsed();
        if let Some(at) = stopped {
            let waited = elapsed.saturating_sub(at).as_millis() as u64;
            let longest = self.report.stop_answer_ms.get_or_insert(0);
            *longest = (*longest).max(waited);
        }
        Ok(Answer {
            line,
            elapsed,
            stopped,
            brain: None,
            soak: None,
        })
    }

    /// A time loss when the answer came later than its limit (or the `YXSTOP`, if
    /// sooner) + [`LATE_PERCENT`] % + `late_ms`, unless the busy machine explains it
    /// (see [`Lateness`]). `limit`: ms and what set them.
    fn check_time(
        &mut self,
        b: usize,
        answer: &Answer,
        request: &str,
        limit: (u64, String),
    ) -> Result<(), Fault> {
        let (limit_ms, limit) = match answer.stopped {
            Some(at) if (at.as_millis() as u64) < limit.0 => {
                let at = at.as_millis() as u64;
                (at, format!("YXSTOP at {at} ms"))
            }
            _ => limit,
        };
        let timing = MoveTiming {
            number: self.moves.len() + 1,
            request: request.split(' ').next().unwrap_or("").to_string(),
            elapsed_ms: answer.elapsed.as_millis() as u64,
            limit_ms,
            allowed_ms: limit_ms + limit_ms * LATE_PERCENT / 100 + self.config.late_ms,
            limit,
            brain: answer.brain,
            soak: answer.soak,
        };
        self.report.moves += 1;
        let lateness = timing.lateness();
        let detail = timing.to_string();
        if lateness == Lateness::BusyMachine {
            self.report.busy_late.push(timing.clone());
        }
        if (self.report.closest.as_ref()).is_none_or(|c| timing.share() > c.share()) {
            self.report.closest = Some(timing);
        }
        if lateness == Lateness::Late {
            return Err(fault(FaultKind::TimeLoss, b, detail));
        }
        Ok(())
    }

    /// Judges and plays brain `b`'s answer `line`. `Some` when it won.
    fn judge(&mut self, b: usize, line: &str) -> Result<Option<Ending>, Fault> {
        let n = self.moves.len() + 1;
        let Some(c) = parse_move(line) else {
            return Err(fault(
                FaultKind::Protocol,
                b,
                format!("move {n}: answer {line:?} is not a move"),
            ));
        };
        let verdict = self.referee.judge(c);
        let kind = match verdict {
            Verdict::OffBoard | Verdict::Occupied => Some(FaultKind::Illegal),
            Verdict::Forbidden => Some(FaultKind::Foul),
            Verdict::Win | Verdict::Normal => None,
        };
        if let Some(kind) = kind {
            return Err(fault(kind, b, format!("move {n}: {c} ({verdict:?})")));
        }
        let color = self.referee.side_to_move();
        self.referee
            .play(c)
            .map_err(|e| fault(FaultKind::Illegal, b, format!("move {n}: {c}: {e}")))?;
        self.moves.push(c);
        self.sides[b].known = self.moves.len();
        self.check_memory(b, n)?;
        Ok((verdict == Verdict::Win).then_some(Ending::Five(color)))
    }

    /// Brain `b`'s resident memory after its move `n`, against the `max_memory` in force.
    fn check_memory(&mut self, b: usize, n: usize) -> Result<(), Fault> {
        let limit = self.sides[b].max_memory;
        let pid = self.engine(b)?.pid();
        match procfs::rss(pid) {
            Some(rss) if limit > 0 && rss > limit => Err(fault(
                FaultKind::OverMemory,
                b,
                format!(
                    "after move {n}: VmRSS {} over max_memory {}",
                    procfs::mib(rss),
                    procfs::mib(limit)
                ),
            )),
            _ => Ok(()),
        }
    }

    /// After the game: stray lines, stderr, the brains' own reports of bugs and notes,
    /// peak memory; a brain with a fault is stopped, to be started anew.
    fn finish(&mut self) {
        let ended_by_fault = !self.report.faults.is_empty();
        let mut logs: [Vec<String>; 2] = Default::default();
        let mut alive = [false, false];
        for b in 0..2 {
            let Some(brain) = self.pair.brains[b].as_mut() else {
                continue;
            };
            let engine = &mut brain.engine;
            let mut stray = Vec::new();
            if !ended_by_fault {
                let deadline = Instant::now() + DRAIN_WAIT;
                while let Ok(line) = engine.read_reply(deadline) {
                    stray.push(format!("stray line after the game: {line:?}"));
                }
            }
            self.report.peak_rss[b] = procfs::peak_rss(engine.pid());
            logs[b] = engine.take_log();
            alive[b] = engine.is_alive();
            for detail in stray {
                self.report
                    .faults
                    .push(fault(FaultKind::Protocol, b, detail));
            }
            let (faults, notes) = transcript_findings(b, &logs[b]);
            self.report.faults.extend(faults);
            self.report.info_notes.extend(notes);
        }
        for (b, alive) in alive.into_iter().enumerate() {
            let at_fault = self.report.faults.iter().any(|f| f.brain == b);
            let running = self.pair.brains[b].is_some();
            if running && !alive && !at_fault {
                let detail = "the process exited after the game";
                self.report.faults.push(fault(FaultKind::Crash, b, detail));
            }
            if !alive || at_fault {
                self.pair.brains[b] = None;
            }
        }
        if !self.report.faults.is_empty() {
            for (b, log) in logs.iter().enumerate() {
                let name = &self.pair.specs[b].name;
                self.report
                    .transcript
                    .extend(log.iter().map(|l| format!("brain {b} ({name}) {l}")));
            }
        }
    }
}

/// Faults and notes in brain `b`'s transcript (`<ms> <direction> <line>`, `!` for
/// stderr): writing on stderr at all (one fault, quoting the first line), each
/// `MESSAGE internal error …`; and the `MESSAGE INFO …` notes.
fn transcript_findings(b: usize, log: &[String]) -> (Vec<Fault>, Vec<String>) {
    let (mut faults, mut notes, mut stderr) = (Vec::new(), Vec::new(), Vec::new());
    for entry in log {
        let mut parts = entry.trim_start().splitn(3, ' ');
        let (_, direction, line) = (parts.next(), parts.next(), parts.next().unwrap_or(""));
        let upper = line.to_ascii_uppercase();
        if direction == Some("!") {
            stderr.push(line);
        } else if direction != Some("<") {
            continue;
        } else if upper.starts_with("MESSAGE INTERNAL ERROR") {
            faults.push(fault(FaultKind::Internal, b, line));
        } else if upper.starts_with("MESSAGE INFO ") {
            notes.push(format!("brain {b}: {line}"));
        }
    }
    if let Some(first) = stderr.first() {
        let detail = format!("{} lines on stderr, the first {first:?}", stderr.len());
        faults.push(fault(FaultKind::Protocol, b, detail));
    }
    (faults, notes)
}

fn crash(b: usize, failure: EngineFailure, waiting_for: &str, waited: Duration) -> Fault {
    let detail = match failure {
        EngineFailure::Crashed => format!("process gone while answering {waiting_for}"),
        EngineFailure::Timeout => {
            format!(
                "no answer to {waiting_for} within {} ms",
                waited.as_millis()
            )
        }
    };
    fault(FaultKind::Crash, b, detail)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stderr_and_reported_bugs_are_faults_and_info_notes_are_kept() {
        let log: Vec<String> = [
            "       3 > START 15",
            "       5 < OK",
            "      90 < MESSAGE depth 3-5 ev 12 n 900",
            "     120 < MESSAGE internal error: the search panicked; playing a fallback move",
            "     121 ! thread 'main' panicked",
            "     122 ! note: run with RUST_BACKTRACE=1",
            "     130 < MESSAGE INFO max_memory 'x': not a number; 367001600 used",
            "     131 > MESSAGE internal error (sent, not received)",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let (faults, notes) = transcript_findings(1, &log);
        let kinds: Vec<FaultKind> = faults.iter().map(|f| f.kind).collect();
        assert_eq!(kinds, vec![FaultKind::Internal, FaultKind::Protocol]);
        assert!(faults.iter().all(|f| f.brain == 1));
        assert!(faults[1].detail.starts_with("2 lines on stderr"));
        assert!(faults[1].detail.contains("panicked"));
        assert_eq!(notes.len(), 1);
        assert!(notes[0].contains("max_memory"));
    }
}
