//! `wuzi-train gen`: self-play games at a fixed node budget per move, from random
//! balanced openings, written as training data (see `games.rs`).

use crate::games::{self, Ending, Game, Ply, Result3, NO_VALUE};
use crate::progress::Progress;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use wuzi::board::Board;
use wuzi::eval;
use wuzi::rules::{self, Verdict};
use wuzi::search::{SearchLimits, SearchState};
use wuzi::types::{Color, Coord, Rule};

pub struct GenOptions {
    pub out: String,
    pub games: u64,
    pub nodes: u64,
    pub rules: Vec<Rule>,
    /// Share of games on 20×20 (the rest on 15×15).
    pub big_share: f64,
    pub threads: usize,
    pub seed: u64,
    /// Openings are kept when the side to move's value at depth `BALANCE_DEPTH` is
    /// within ±window.
    pub window: i32,
}

/// Depth of the search that judges an opening's balance.
const BALANCE_DEPTH: i32 = 4;
/// Hash table per game-playing thread.
const TT_BYTES: usize = 16 << 20;

pub fn run(o: &GenOptions) -> Result<(), String> {
    let file = File::create(&o.out).map_err(|e| format!("{}: {e}", o.out))?;
    let mut out = BufWriter::new(file);
    games::write_header(&mut out).map_err(|e| e.to_string())?;
    let out = Mutex::new(out);
    let next = AtomicU64::new(0);
    let done = AtomicU64::new(0);
    let positions = AtomicU64::new(0);
    let failed = Mutex::new(None::<String>);
    let progress = Progress::new("gen", o.games);
    std::thread::scope(|scope| {
        for t in 0..o.threads.max(1) {
            let (out, next, done, positions, failed) = (&out, &next, &done, &positions, &failed);
            scope.spawn(move || {
                let mut rng = StdRng::seed_from_u64(o.seed.wrapping_mul(0x9e37_79b9) ^ t as u64);
                let mut state = SearchState::new();
                state.set_tt_bytes(TT_BYTES);
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= o.games {
                        break;
                    }
                    let rule = o.rules[i as usize % o.rules.len()];
                    let size = if rng.gen_bool(o.big_share) { 20 } else { 15 };
                    let game = loop {
                        if let Some(g) = play_game(&mut rng, &mut state, rule, size, o) {
                            break g;
                        }
                    };
                    let written = out
                        .lock()
                        .map_err(|_| "writer poisoned".to_string())
                        .and_then(|mut w| {
                            // Flushed game by game, so a run stopped early leaves whole games.
                            games::write_game(&mut *w, &game)
                                .and_then(|()| w.flush())
                                .map_err(|e| e.to_string())
                        });
                    if let Err(e) = written {
                        if let Ok(mut f) = failed.lock() {
                            *f = Some(e);
                        }
                        break;
                    }
                    positions.fetch_add(game.plies.len() as u64, Ordering::Relaxed);
                    done.fetch_add(1, Ordering::Relaxed);
                }
            });
        }
        while done.load(Ordering::Relaxed) < o.games
            && failed.lock().map(|f| f.is_none()).unwrap_or(false)
            && next.load(Ordering::Relaxed) < o.games + o.threads as u64
        {
            std::thread::sleep(std::time::Duration::from_millis(250));
            progress.update(
                done.load(Ordering::Relaxed),
                &format!("{} positions", positions.load(Ordering::Relaxed)),
            );
        }
    });
    progress.finish(
        done.load(Ordering::Relaxed),
        &format!("{} positions", positions.load(Ordering::Relaxed)),
    );
    if let Ok(Some(e)) = failed.into_inner() {
        return Err(e);
    }
    out.into_inner()
        .map_err(|_| "writer poisoned".to_string())?
        .flush()
        .map_err(|e| e.to_string())
}

/// A compact random opening of 2 to 6 stones within three cells of the centre, each
/// within two of a stone already placed.
fn draw_opening(rng: &mut StdRng, size: usize) -> Vec<Coord> {
    let c = (size / 2) as i32;
    let n = rng.gen_range(2..=6);
    let mut stones: Vec<Coord> = vec![Coord::new(c, c)];
    while stones.len() < n {
        let anchor = stones[rng.gen_range(0..stones.len())];
        let cand = Coord::new(
            anchor.x + rng.gen_range(-2..=2),
            anchor.y + rng.gen_range(-2..=2),
        );
        if (cand.x - c).abs() <= 3 && (cand.y - c).abs() <= 3 && !stones.contains(&cand) {
            stones.push(cand);
        }
    }
    // The first stone need not be the centre: shift the whole shape a little.
    let (dx, dy) = (rng.gen_range(-1..=1), rng.gen_range(-1..=1));
    stones
        .iter()
        .map(|s| Coord::new(s.x + dx, s.y + dy))
        .collect()
}

/// One game, or `None` when the opening drawn was not balanced.
fn play_game(
    rng: &mut StdRng,
    state: &mut SearchState,
    rule: Rule,
    size: usize,
    o: &GenOptions,
) -> Option<Game> {
    let opening = draw_opening(rng, size);
    let value = wuzi_tools::openings::balance(&opening, rule, size, BALANCE_DEPTH)?;
    let value = value - wuzi_tools::openings::size_offset(rule, size, 15, BALANCE_DEPTH);
    if value.abs() > o.window {
        return None;
    }
    let mut board = Board::new(size, size, rule).ok()?;
    let mut plies: Vec<Ply> = Vec::new();
    for &s in &opening {
        board.play(s).ok()?;
        plies.push(Ply {
            at: s,
            value: NO_VALUE,
        });
    }
    state.clear_hash();
    let stop = AtomicBool::new(false);
    let cap = size * size;
    let (result, ending) = loop {
        if board.is_full() {
            break (Result3::Draw, Ending::Full);
        }
        if plies.len() >= cap {
            break (Result3::Draw, Ending::PlyCap);
        }
        let mut limits = SearchLimits::depth(100);
        limits.max_nodes = o.nodes;
        let outcome = state.evaluate(&mut board, limits, &stop);
        let at = board.coord(outcome.best);
        let us = board.side_to_move();
        let verdict = rules::judge_move(&board, at);
        plies.push(Ply {
            at,
            value: outcome.value.clamp(-i16::MAX as i32, i16::MAX as i32) as i16,
        });
        match verdict {
            Verdict::Win => break (won_by(us), Ending::Five),
            Verdict::Forbidden => break (won_by(Color::White), Ending::Foul),
            Verdict::OffBoard | Verdict::Occupied => return None,
            Verdict::Normal => {}
        }
        board.play(at).ok()?;
        if eval::is_decisive(outcome.value) {
            let winner = if outcome.value > 0 { us } else { us.opponent() };
            break (won_by(winner), Ending::Proven);
        }
    };
    Some(Game {
        rule,
        width: size,
        height: size,
        result,
        opening_plies: opening.len(),
        ending,
        plies,
    })
}

fn won_by(c: Color) -> Result3 {
    match c {
        Color::Black => Result3::BlackWon,
        Color::White => Result3::WhiteWon,
    }
}
