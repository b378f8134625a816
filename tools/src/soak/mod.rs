//! The soak behind `wuzi-tools soak`: a brain plays many short games against a second
//! copy of itself under every rule and board size, while the soak sends what managers
//! and users send besides moves (`TAKEBACK`, `RESTART`, `YXSTOP`, `INFO` changes, a
//! match clock running down) and judges every answer. It counts crashes, illegal moves,
//! renju fouls, time losses, protocol errors, the brain's own reports of bugs, and
//! measures each process's peak memory.
//!
//! It reuses the match runner's parts: `Engine` (the process and its pipes),
//! `Referee` (the library's rules judge each move) and the `BOARD`/`TURN` requests.
//! Files: `plan` (a game's setting), `game` (one game), `report` (what a game yields), `tally` (totals and what is
//! printed), `procfs` (memory and CPU time from `/proc`).

pub mod game;
pub mod plan;
pub mod procfs;
pub mod report;
pub mod tally;

use crate::matchrunner::engine::EngineSpec;
use game::Pair;
use plan::{GamePlan, Mix, Ranges};
use report::GameReport;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::channel;
use std::thread;
use std::time::Instant;
use tally::Tally;

/// The peak memory a brain process must stay under: Gomocup's 350 MiB less the 32 MiB
/// margin `scripts/memory-check.sh` keeps (its judge measures the process tree).
pub const MEMORY_LIMIT: u64 = (350 - 32) << 20;

/// The default of `SoakConfig::late_ms`: pipes and scheduling on a shared machine.
pub const LATE_MS: u64 = 50;

#[derive(Clone, Debug)]
pub struct SoakConfig {
    /// The two players (usually the same brain twice).
    pub brains: [EngineSpec; 2],
    pub games: usize,
    /// The number of the first game (to play a game of an earlier run again: same
    /// seed, `first` its number, one game).
    pub first: usize,
    pub seed: u64,
    /// Games played at once, each worker with its own two processes.
    pub jobs: usize,
    pub ranges: Ranges,
    pub mix: Mix,
    pub memory_limit: u64,
    /// A move is late after its limit + `game::LATE_PERCENT` % + this many ms.
    pub late_ms: u64,
}

impl SoakConfig {
    /// `games` games of `brain` against itself with the standard mix and ranges.
    pub fn new(brain: EngineSpec, games: usize) -> SoakConfig {
        let mut second = brain.clone();
        second.name = format!("{}-2", brain.name);
        SoakConfig {
            brains: [brain, second],
            games,
            first: 1,
            seed: 1,
            jobs: 1,
            ranges: Ranges::default(),
            mix: Mix::standard(),
            memory_limit: MEMORY_LIMIT,
            late_ms: LATE_MS,
        }
    }
}

/// Plays the soak; `on_game` sees each game's report as it ends (in the order games
/// end) with the totals so far.
pub fn run(config: &SoakConfig, on_game: &mut dyn FnMut(&GameReport, &Tally)) -> Tally {
    let started = Instant::now();
    let next = AtomicUsize::new(config.first);
    let end = config.first + config.games;
    let mut tally = Tally::default();
    let (sender, reports) = channel();
    thread::scope(|scope| {
        for _ in 0..config.jobs.max(1) {
            let sender = sender.clone();
            let next = &next;
            scope.spawn(move || {
                let mut pair = Pair::new(config.brains.clone());
                loop {
                    let number = next.fetch_add(1, Ordering::SeqCst);
                    if number >= end {
                        break;
                    }
                    let report = play_one(config, &mut pair, number);
                    if sender.send(report).is_err() {
                        break;
                    }
                }
                pair.quit();
            });
        }
        drop(sender);
        for report in reports {
            tally.add(&report);
            tally.elapsed = started.elapsed();
            on_game(&report, &tally);
        }
    });
    tally.elapsed = started.elapsed();
    tally
}

fn play_one(config: &SoakConfig, pair: &mut Pair, number: usize) -> GameReport {
    let mut rng = GamePlan::rng(config.seed, number);
    let plan = GamePlan::draw(number, &config.ranges, &config.mix, &mut rng);
    game::play(pair, &plan, config, rng)
}
