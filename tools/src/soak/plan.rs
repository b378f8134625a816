//! What a soak game will be: its rule, board, clocks, memory limit and opening, drawn
//! from a generator seeded by the run's seed and the game's number, so that a game's
//! setting is the same whatever the number of games played at once. (The moves are not:
//! the brains think on a clock.)

use crate::matchrunner::adjudicate::{Referee, Verdict};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::ops::RangeInclusive;
use wuzi::types::{Coord, Rule};

/// Gomocup's memory limit, 350 MiB, as `INFO max_memory` sends it.
pub const GOMOCUP_MAX_MEMORY: u64 = 350 << 20;

/// The `max_memory` values a game starts with or changes to: Gomocup's limit most
/// often, no limit, and smaller ones that make the brain shrink its hash table.
const MAX_MEMORY_CHOICES: [u64; 6] = [
    GOMOCUP_MAX_MEMORY,
    GOMOCUP_MAX_MEMORY,
    GOMOCUP_MAX_MEMORY,
    0,
    64 << 20,
    128 << 20,
];

/// How often each disturbance happens. Per-ply chances are drawn before each move
/// request, at most one of `takeback`, `restart` and `info` per ply.
#[derive(Clone, Debug, PartialEq)]
pub struct Mix {
    /// `TAKEBACK` of the last one or two stones.
    pub takeback: f64,
    /// `RESTART` of both brains mid-game: the game goes on from an empty board.
    pub restart: f64,
    /// An `INFO` change: `timeout_turn`, `max_memory`, or a match clock started or ended.
    pub info: f64,
    /// `YXSTOP` while the brain thinks (half of the time on a turn made long for it).
    pub stop: f64,
    /// The whole position as `BOARD` instead of `TURN`.
    pub resync: f64,
    /// Per game: new processes for both brains (otherwise they are kept from game to game).
    pub fresh: f64,
    /// Per game: a match clock (`timeout_match`, `time_left` falling) beside the turn time.
    pub match_clock: f64,
    /// Per game and brain, when the board size has not changed: `RESTART` instead of
    /// `START` to begin.
    pub restart_to_begin: f64,
}

impl Mix {
    /// The mix of `wuzi-tools soak`.
    pub fn standard() -> Mix {
        Mix {
            takeback: 0.02,
            restart: 0.002,
            info: 0.03,
            stop: 0.04,
            resync: 0.02,
            fresh: 0.1,
            match_clock: 0.25,
            restart_to_begin: 0.4,
        }
    }

    /// Plain games: no disturbance, processes kept, `START` every game, no match clock
    /// (for brains that speak only the core protocol).
    pub fn none() -> Mix {
        Mix {
            takeback: 0.0,
            restart: 0.0,
            info: 0.0,
            stop: 0.0,
            resync: 0.0,
            fresh: 0.0,
            match_clock: 0.0,
            restart_to_begin: 0.0,
        }
    }
}

/// The settings games are drawn from.
#[derive(Clone, Debug)]
pub struct Ranges {
    pub rules: Vec<Rule>,
    pub sizes: Vec<usize>,
    /// `timeout_turn` in ms.
    pub turn_ms: RangeInclusive<u64>,
    /// `timeout_match` in ms, for the games with a match clock.
    pub match_ms: RangeInclusive<u64>,
    /// Random opening stones placed before the brains play (BOARD); 0 = BEGIN on an
    /// empty board.
    pub opening_stones: RangeInclusive<usize>,
}

impl Default for Ranges {
    /// Every rule at sizes 15 and 20, a short clock.
    fn default() -> Ranges {
        Ranges {
            rules: Rule::ALL.to_vec(),
            sizes: vec![15, 20],
            turn_ms: 50..=200,
            match_ms: 2000..=6000,
            opening_stones: 0..=4,
        }
    }
}

/// One game's setting.
#[derive(Clone, Debug, PartialEq)]
pub struct GamePlan {
    /// Counted from 1.
    pub number: usize,
    pub rule: Rule,
    pub size: usize,
    pub turn_ms: u64,
    /// `timeout_match`; 0 = none.
    pub match_ms: u64,
    pub max_memory: u64,
    /// Stones in move order, black first: each a legal, non-winning move.
    pub opening: Vec<Coord>,
    /// New processes for both brains before the game.
    pub fresh: bool,
    /// The brain that plays black (0 or 1): they alternate.
    pub black: usize,
}

impl GamePlan {
    /// The generator of game `number` of the run seeded `seed`; the plan is its first draw
    /// and the game's disturbances its later ones.
    pub fn rng(seed: u64, number: usize) -> StdRng {
        StdRng::seed_from_u64(seed ^ (number as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15))
    }

    pub fn draw(number: usize, ranges: &Ranges, mix: &Mix, rng: &mut StdRng) -> GamePlan {
        let rule = ranges.rules[rng.gen_range(0..ranges.rules.len())];
        let size = ranges.sizes[rng.gen_range(0..ranges.sizes.len())];
        let match_ms = if rng.gen_bool(mix.match_clock) {
            rng.gen_range(ranges.match_ms.clone())
        } else {
            0
        };
        GamePlan {
            number,
            rule,
            size,
            turn_ms: rng.gen_range(ranges.turn_ms.clone()),
            match_ms,
            max_memory: draw_max_memory(rng),
            opening: draw_opening(
                rule,
                size,
                rng.gen_range(ranges.opening_stones.clone()),
                rng,
            ),
            fresh: rng.gen_bool(mix.fresh),
            black: (number + 1) % 2,
        }
    }

    /// One line: `renju 15x15, turn 120 ms, match 4000 ms, max_memory 350 MiB, 3 opening
    /// stones, brain 1 black`.
    pub fn describe(&self) -> String {
        let clock = if self.match_ms > 0 {
            format!(", match {} ms", self.match_ms)
        } else {
            String::new()
        };
        format!(
            "{} {}x{}, turn {} ms{clock}, max_memory {}, {} opening stones, brain {} black{}",
            self.rule,
            self.size,
            self.size,
            self.turn_ms,
            memory_name(self.max_memory),
            self.opening.len(),
            self.black,
            if self.fresh { ", new processes" } else { "" }
        )
    }
}

pub fn draw_max_memory(rng: &mut StdRng) -> u64 {
    MAX_MEMORY_CHOICES[rng.gen_range(0..MAX_MEMORY_CHOICES.len())]
}

/// `max_memory` for people: `350 MiB`, or `none` for 0.
pub fn memory_name(bytes: u64) -> String {
    if bytes == 0 {
        "none".to_string()
    } else {
        format!("{} MiB", bytes >> 20)
    }
}

/// `stones` random stones within two points of the centre, each one the referee judges
/// an ordinary move (not a foul, not a five).
fn draw_opening(rule: Rule, size: usize, stones: usize, rng: &mut StdRng) -> Vec<Coord> {
    let Ok(mut referee) = Referee::new(size, size, rule) else {
        return Vec::new();
    };
    let centre = (size / 2) as i32;
    let mut opening = Vec::new();
    let mut tries = 0;
    while opening.len() < stones && tries < 100 {
        tries += 1;
        let c = Coord::new(
            centre + rng.gen_range(-2..=2),
            centre + rng.gen_range(-2..=2),
        );
        if referee.judge(c) == Verdict::Normal && referee.play(c).is_ok() {
            opening.push(c);
        }
    }
    opening
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_game_is_drawn_the_same_from_the_same_seed_and_number() {
        let ranges = Ranges::default();
        let mix = Mix::standard();
        let draw = |seed, n| GamePlan::draw(n, &ranges, &mix, &mut GamePlan::rng(seed, n));
        assert_eq!(draw(7, 3), draw(7, 3));
        let plans: Vec<GamePlan> = (1..=40).map(|n| draw(7, n)).collect();
        assert!(plans.iter().any(|p| p != &plans[0]));
        for p in &plans {
            assert!(ranges.sizes.contains(&p.size));
            assert!(ranges.turn_ms.contains(&p.turn_ms));
            assert!(p.match_ms == 0 || ranges.match_ms.contains(&p.match_ms));
            assert!(p.opening.len() <= 4);
            assert_eq!(p.black, (p.number + 1) % 2);
        }
        for rule in Rule::ALL {
            assert!(plans.iter().any(|p| p.rule == rule), "{rule} never drawn");
        }
    }

    #[test]
    fn opening_stones_are_distinct_ordinary_moves() {
        let mut rng = GamePlan::rng(1, 1);
        for rule in Rule::ALL {
            let opening = draw_opening(rule, 15, 4, &mut rng);
            assert_eq!(opening.len(), 4);
            let mut referee = Referee::new(15, 15, rule).unwrap();
            for &c in &opening {
                assert_eq!(referee.judge(c), Verdict::Normal);
                referee.play(c).unwrap();
            }
        }
    }
}
