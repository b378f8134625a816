//! A whole match: the schedule, `-j N` worker threads each owning its two brain processes,
//! restarts after faults, records, the running tally and the SPRT stop.

use super::adjudicate::{Referee, Verdict};
use super::elo::Tally;
use super::engine::{Engine, EngineSpec};
use super::game::{play_game, EndReason, GameOutcome, GameSetup};
use super::opening::{schedule, Opening, Pairing};
use super::record::{to_psq, to_sgf, RecordInfo};
use super::shard::Shard;
use super::sprt::{SprtDecision, SprtParams};
use std::ops::Range;
use std::path::PathBuf;
use std::sync::Mutex;
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use wuzi::types::Color;

/// Everything a match needs.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    pub engines: [EngineSpec; 2],
    /// Board, rule, clocks and limits; `start_timeout` also limits the `ABOUT` answer.
    pub setup: GameSetup,
    /// Empty: every game starts from the empty board.
    pub openings: Vec<Opening>,
    /// Games of the whole match (a shard plays its slice of them).
    pub games: usize,
    pub shuffle_seed: Option<u64>,
    pub concurrency: usize,
    /// Play only this slice of the games; its SPRT state is reported but stops nothing
    /// (the decision belongs to the merged match).
    pub shard: Option<Shard>,
    /// Quit both brains after every game and start them anew for the next.
    pub fresh_engines: bool,
    pub sprt: Option<SprtParams>,
    /// Where records, protocol logs and the summary go; `None` writes nothing.
    pub out_dir: Option<PathBuf>,
}

impl MatchConfig {
    /// A config with the usual defaults: 15×15 freestyle, 1 s per move, two games.
    pub fn new(first: EngineSpec, second: EngineSpec) -> MatchConfig {
        MatchConfig {
            engines: [first, second],
            setup: GameSetup::default(),
            openings: Vec::new(),
            games: 2,
            shuffle_seed: None,
            concurrency: 1,
            shard: None,
            fresh_engines: false,
            sprt: None,
            out_dir: None,
        }
    }

    /// The 0-based numbers of the games this run plays: all, or its shard's.
    pub fn game_indices(&self) -> Range<usize> {
        match &self.shard {
            Some(shard) => shard.games(self.games),
            None => 0..self.games,
        }
    }

    /// How many games run at once: `concurrency`, but never more than there are games.
    pub fn workers(&self) -> usize {
        self.concurrency.clamp(1, self.game_indices().len().max(1))
    }
}

/// One finished game.
#[derive(Clone, Debug)]
pub struct GameReport {
    /// 0-based game number.
    pub index: usize,
    pub pairing: Pairing,
    /// Index into `MatchConfig::engines` of the brain that had black.
    pub black_engine: usize,
    pub opening: Opening,
    pub outcome: GameOutcome,
    pub wall: Duration,
    /// When the game ended, counted from the start of the match.
    pub finished_at: Duration,
}

impl GameReport {
    /// Index of the winning engine, `None` for a draw.
    pub fn winner_engine(&self) -> Option<usize> {
        self.outcome.winner.map(|c| self.engine_of(c))
    }

    pub fn engine_of(&self, color: Color) -> usize {
        if color == Color::Black {
            self.black_engine
        } else {
            1 - self.black_engine
        }
    }

    /// Thinking time of all moves (opening stones count zero).
    pub fn thinking(&self) -> Duration {
        self.outcome.moves.iter().map(|m| m.time).sum()
    }
}

/// The state of the match as it stands (also what the progress callback sees).
#[derive(Clone, Debug, Default)]
pub struct MatchState {
    /// Finished games in finishing order.
    pub games: Vec<GameReport>,
    /// From the first engine's point of view.
    pub tally: Tally,
    pub sprt: Option<SprtDecision>,
    pub llr: Option<f64>,
    /// Problems that did not stop the match (a record that could not be written).
    pub warnings: Vec<String>,
}

/// The finished match.
#[derive(Clone, Debug)]
pub struct MatchResult {
    pub state: MatchState,
    /// The `ABOUT` line of each engine, from its first launch.
    pub about: [String; 2],
    /// When the match started, in ms since the Unix epoch (orders the games of shards
    /// played apart when they are merged).
    pub started_unix_ms: u64,
    pub wall: Duration,
    /// The time the workers had for games: the wall time times the workers at once (for
    /// a merge, the sum over the shards); the runner's overhead is what the engines did
    /// not spend thinking of it.
    pub worker_time: Duration,
    /// True when the SPRT stopped the match before all games were played.
    pub stopped_early: bool,
    /// For a merge: each shard merged, as `K/N DIR`; empty for a match played here.
    pub merged_from: Vec<String>,
}

/// Checks every opening is a legal, undecided position under the rule in force.
pub fn validate_openings(config: &MatchConfig) -> Result<(), String> {
    for opening in &config.openings {
        let mut board = Referee::new(config.setup.width, config.setup.height, config.setup.rule)?;
        for (i, &c) in opening.moves.iter().enumerate() {
            let verdict = board.judge(c);
            if verdict != Verdict::Normal {
                return Err(format!(
                    "opening on line {} ({}): stone {} at {} is {:?}",
                    opening.line,
                    opening.text,
                    i + 1,
                    c,
                    verdict
                ));
            }
            board.play(c)?;
        }
    }
    Ok(())
}

struct Shared {
    next: usize,
    stop: bool,
    state: MatchState,
    about: [String; 2],
}

/// Plays the match. `on_game` is called after every game, in finishing order, with the
/// report and the state including it (for progress lines).
pub fn run_match(
    config: &MatchConfig,
    on_game: &(dyn Fn(&GameReport, &MatchState) + Sync),
) -> Result<MatchResult, String> {
    // Fails early on a board size the rules do not support.
    Referee::new(config.setup.width, config.setup.height, config.setup.rule)?;
    if let Some(sprt) = &config.sprt {
        sprt.validate()?;
    }
    validate_openings(config)?;
    if let Some(dir) = &config.out_dir {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {}", dir.display(), e))?;
    }
    let pairings = schedule(config.openings.len(), config.games, config.shuffle_seed);
    let indices: Vec<usize> = config.game_indices().collect();
    let shared = Mutex::new(Shared {
        next: 0,
        stop: false,
        state: MatchState::default(),
        about: [String::new(), String::new()],
    });
    let started = Instant::now();
    let started_unix_ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0);
    let workers = config.workers();
    thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| worker(config, &pairings, &indices, &shared, on_game, started));
        }
    });
    let shared = shared
        .into_inner()
        .map_err(|_| "a worker panicked".to_string())?;
    let stopped_early = shared.state.games.len() < indices.len();
    let wall = started.elapsed();
    Ok(MatchResult {
        state: shared.state,
        about: shared.about,
        started_unix_ms,
        wall,
        worker_time: wall * workers as u32,
        stopped_early,
        merged_from: Vec::new(),
    })
}

fn worker(
    config: &MatchConfig,
    pairings: &[Pairing],
    indices: &[usize],
    shared: &Mutex<Shared>,
    on_game: &(dyn Fn(&GameReport, &MatchState) + Sync),
    match_start: Instant,
) {
    let mut engines: [Option<Engine>; 2] = [None, None];
    loop {
        let index = {
            let Ok(mut s) = shared.lock() else { return };
            if s.stop || s.next >= indices.len() {
                break;
            }
            s.next += 1;
            indices[s.next - 1]
        };
        let pairing = pairings[index];
        let opening = config
            .openings
            .get(pairing.opening)
            .cloned()
            .unwrap_or_else(Opening::empty);
        let black_engine = if pairing.first_engine_black { 0 } else { 1 };
        let began = Instant::now();
        let outcome = play_one(config, &mut engines, black_engine, &opening, shared);
        let report = GameReport {
            index,
            pairing,
            black_engine,
            opening,
            outcome,
            wall: began.elapsed(),
            finished_at: match_start.elapsed(),
        };
        // A brain that lost through its own fault may be hung or confused: start afresh.
        if let Some(color) = report.outcome.faulty() {
            engines[report.engine_of(color)] = None;
        }
        if config.fresh_engines {
            for engine in engines.iter_mut().filter_map(Option::take) {
                engine.quit();
            }
        }
        let warning = save_game(config, &report).err();
        let Ok(mut s) = shared.lock() else { return };
        let state = &mut s.state;
        state.warnings.extend(warning);
        match report.winner_engine() {
            Some(0) => state.tally.wins += 1,
            Some(_) => state.tally.losses += 1,
            None => state.tally.draws += 1,
        }
        if let Some(sprt) = &config.sprt {
            let decision = sprt.decide(&state.tally);
            state.llr = Some(sprt.llr(&state.tally));
            state.sprt = Some(decision);
            if decision != SprtDecision::Continue && config.shard.is_none() {
                s.stop = true;
            }
        }
        s.state.games.push(report);
        if let Some(last) = s.state.games.last() {
            on_game(last, &s.state);
        }
    }
    for engine in engines.into_iter().flatten() {
        engine.quit();
    }
}

/// Makes sure both brains run (launching or relaunching as needed) and plays the game.
fn play_one(
    config: &MatchConfig,
    engines: &mut [Option<Engine>; 2],
    black_engine: usize,
    opening: &Opening,
    shared: &Mutex<Shared>,
) -> GameOutcome {
    let colors = if black_engine == 0 {
        [Color::Black, Color::White]
    } else {
        [Color::White, Color::Black]
    };
    for (i, slot) in engines.iter_mut().enumerate() {
        if slot.as_mut().is_some_and(|e| e.is_alive()) {
            continue;
        }
        match Engine::launch(&config.engines[i], config.setup.start_timeout) {
            Ok(engine) => {
                if let Ok(mut s) = shared.lock() {
                    if s.about[i].is_empty() {
                        s.about[i] = engine.about().to_string();
                    }
                }
                *slot = Some(engine);
            }
            Err(e) => {
                *slot = None;
                return forfeit(colors[i], EndReason::Crash, e);
            }
        }
    }
    let setup = &config.setup;
    let board = match Referee::new(config.setup.width, config.setup.height, config.setup.rule) {
        Ok(board) => board,
        Err(e) => return forfeit_nobody(e),
    };
    let [first, second] = engines;
    match (first.as_mut(), second.as_mut()) {
        (Some(a), Some(b)) if black_engine == 0 => play_game([a, b], setup, &opening.moves, board),
        (Some(a), Some(b)) => play_game([b, a], setup, &opening.moves, board),
        _ => forfeit_nobody("engines not running".to_string()),
    }
}

fn forfeit(loser: Color, reason: EndReason, detail: String) -> GameOutcome {
    GameOutcome {
        winner: Some(loser.opponent()),
        reason,
        detail,
        moves: Vec::new(),
        logs: [Vec::new(), Vec::new()],
    }
}

/// A game the runner itself could not set up: recorded, nobody blamed.
fn forfeit_nobody(detail: String) -> GameOutcome {
    GameOutcome {
        winner: None,
        reason: EndReason::Aborted,
        detail,
        moves: Vec::new(),
        logs: [Vec::new(), Vec::new()],
    }
}

/// File stem of a game's records: `game-0001`.
pub fn game_file_stem(index: usize) -> String {
    format!("game-{:04}", index + 1)
}

/// Writes the SGF, the `.psq` and the protocol transcript of one game.
fn save_game(config: &MatchConfig, report: &GameReport) -> Result<(), String> {
    let Some(dir) = &config.out_dir else {
        return Ok(());
    };
    let info = RecordInfo {
        black: &config.engines[report.black_engine].name,
        white: &config.engines[1 - report.black_engine].name,
        width: config.setup.width,
        height: config.setup.height,
        rule: config.setup.rule,
        round: report.index + 1,
        outcome: &report.outcome,
    };
    let stem = dir.join(game_file_stem(report.index));
    let mut log = String::new();
    for (color, lines) in Color::BOTH.iter().zip(&report.outcome.logs) {
        log.push_str(&format!(
            "== {:?}: {}\n",
            color,
            if *color == Color::Black {
                info.black
            } else {
                info.white
            }
        ));
        for line in lines {
            log.push_str(line);
            log.push('\n');
        }
    }
    let write = |ext: &str, text: &str| {
        let path = stem.with_extension(ext);
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {}", path.display(), e))
    };
    write("sgf", &to_sgf(&info))?;
    write("psq", &to_psq(&info))?;
    write("log", &log)
}
