//! The two budgets of one move (optimum and hard limit), from the protocol's clocks, the
//! game's progress and the time manager's parameters.

use super::{scale_ms, PROTOCOL_UNLIMITED, UNLIMITED};
use crate::config::Config;

/// Every tunable of the time manager, in one place. Overridable from the config file's
/// `time.*` keys (see [`TimeParams::from_config`]); `config/wuzi.conf` repeats these
/// defaults and a test keeps the two equal.
#[derive(Clone, Debug, PartialEq)]
pub struct TimeParams {
    /// Fixed part of the margin kept back from every limit (turn and match clock). It
    /// covers what the search does not see but the manager's clock does: reading the
    /// command and writing the reply through the pipe, starting and joining the search
    /// threads, a stop check that comes up to ~2k nodes late, and a busy machine not
    /// scheduling the thread that notices the stop for a tick (15.6 ms on Windows).
    pub reserve_ms: u64,
    /// Part of the margin that grows with the limit: a larger budget means a deeper
    /// search, a bigger table and longer-running uninterruptible calls (a threat search),
    /// so unwinding after the stop takes longer too; it also absorbs any rate difference
    /// between our clock and the manager's.
    pub reserve_fraction: f64,
    /// What one move costs the match clock beyond the search itself (reading, replying,
    /// the manager's own work). The match clock holds this back for every further move
    /// the board has room for, so even a game that fills the board cannot run out on
    /// overhead alone. At most `reserve_ms`, which covers it for the current move.
    pub move_overhead_ms: u64,
    /// Stones on the board at the end of a typical decided game (both colours). The
    /// match clock is shared out over the moves we still expect to play until then.
    pub typical_game_plies: u32,
    /// Never plan for fewer of our own moves than this (while the board has room for
    /// them): games often outlast the typical length, and the tail must not starve.
    pub min_moves_to_go: u32,
    /// The optimum never exceeds this fraction of the usable turn time, so extensions and
    /// panic mode have room left before the hard limit.
    pub turn_optimum_fraction: f64,
    /// The hard limit is at most this many optimums ("several × optimum").
    pub hard_over_optimum: f64,
    /// One move may never use more than this fraction of the usable match time left.
    pub max_share_of_time_left: f64,
    /// An iteration may be planned (and allowed to run) up to this multiple of the
    /// current target before it is cut at a root-move boundary.
    pub iteration_overrun: f64,
    /// Growth of an iteration's duration over the previous one, assumed until two
    /// iterations long enough to measure give an estimate.
    pub default_branching: f64,
    /// Lower clamp of the measured growth (protects against one lucky, fast iteration).
    pub min_branching: f64,
    /// Upper clamp of the measured growth (one slow iteration must not stop the search).
    pub max_branching: f64,
    /// The best move counts as stable once it is the same for this many iterations.
    pub stable_iterations: u32,
    /// Target multiplier while the best move is stable (< 1: stop early).
    pub stable_scale: f64,
    /// Target multiplier after the best move changed in the last iteration (> 1).
    pub best_move_change_scale: f64,
    /// A score fall (evaluation units) from one iteration to the next that counts as
    /// "the evaluation falls".
    pub eval_drop: i32,
    /// Target multiplier while the evaluation falls (> 1).
    pub eval_drop_scale: f64,
    /// A fail-low of the best move by at least this much (evaluation units) starts panic
    /// mode; a fail-low to a proven loss always does.
    pub panic_drop: i32,
    /// When the turn limit, not the match clock, sets the optimum, the time a move leaves
    /// unused is lost: then a stable best move does not stop the search early, and a new
    /// iteration starts whenever its first root move is predicted to end in time (that
    /// move is the previous best, so even a cut iteration checks it one ply deeper and
    /// may find a better one).
    pub spend_whole_turn: bool,
    /// The same rule for starting an iteration, only while the best move is unsettled (it
    /// changed in the last iteration): one more ply is worth most there, and a cut
    /// iteration still searches the last best move first and then its rivals, the moves
    /// it has just been swapping with. Stops on a stable best move are kept.
    pub spend_turn_when_unsettled: bool,
    /// The first root move's predicted share of a whole iteration (PVS searches it with
    /// the full window; the others mostly with null windows).
    pub first_move_share: f64,
    /// When the turn limit, not the match clock, sets the optimum, the time the check
    /// after the iterations leaves goes back to the iterations, one ply deeper, until a
    /// reserve before the hard limit for the check of a new choice.
    pub resume_after_check: bool,
}

impl Default for TimeParams {
    fn default() -> TimeParams {
        TimeParams {
            reserve_ms: 40,
            reserve_fraction: 0.05,
            move_overhead_ms: 10,
            typical_game_plies: 70,
            min_moves_to_go: 10,
            turn_optimum_fraction: 0.9,
            hard_over_optimum: 4.0,
            max_share_of_time_left: 0.25,
            iteration_overrun: 1.5,
            default_branching: 3.0,
            min_branching: 1.5,
            max_branching: 8.0,
            stable_iterations: 4,
            stable_scale: 0.5,
            best_move_change_scale: 1.5,
            eval_drop: 30,
            eval_drop_scale: 1.5,
            panic_drop: 100,
            spend_whole_turn: false,
            spend_turn_when_unsettled: true,
            first_move_share: 0.5,
            resume_after_check: true,
        }
    }
}

impl TimeParams {
    /// Reads every `time.*` key; a value out of its range falls back to the default and
    /// leaves a warning in the config (reported to the user by the protocol layer).
    pub fn from_config(config: &Config) -> TimeParams {
        let d = TimeParams::default();
        // Each field is read from `time.<field name>`, within its sensible range.
        macro_rules! read {
            ($getter:ident, $field:ident, $range:expr) => {
                config.$getter(concat!("time.", stringify!($field)), $range, d.$field)
            };
        }
        let mut p = TimeParams {
            reserve_ms: read!(get_u64_in, reserve_ms, 0..=10_000),
            reserve_fraction: read!(get_f64_in, reserve_fraction, 0.0..=0.5),
            move_overhead_ms: read!(get_u64_in, move_overhead_ms, 0..=10_000),
            typical_game_plies: read!(get_u32_in, typical_game_plies, 1..=1_000),
            min_moves_to_go: read!(get_u32_in, min_moves_to_go, 1..=500),
            turn_optimum_fraction: read!(get_f64_in, turn_optimum_fraction, 0.01..=1.0),
            hard_over_optimum: read!(get_f64_in, hard_over_optimum, 1.0..=100.0),
            max_share_of_time_left: read!(get_f64_in, max_share_of_time_left, 0.01..=1.0),
            iteration_overrun: read!(get_f64_in, iteration_overrun, 1.0..=10.0),
            default_branching: read!(get_f64_in, default_branching, 1.0..=100.0),
            min_branching: read!(get_f64_in, min_branching, 1.0..=100.0),
            max_branching: read!(get_f64_in, max_branching, 1.0..=100.0),
            stable_iterations: read!(get_u32_in, stable_iterations, 1..=100),
            stable_scale: read!(get_f64_in, stable_scale, 0.01..=1.0),
            best_move_change_scale: read!(get_f64_in, best_move_change_scale, 1.0..=10.0),
            eval_drop: read!(get_i32_in, eval_drop, 1..=1_000_000),
            eval_drop_scale: read!(get_f64_in, eval_drop_scale, 1.0..=10.0),
            panic_drop: read!(get_i32_in, panic_drop, 1..=1_000_000),
            spend_whole_turn: config.get_bool("time.spend_whole_turn", d.spend_whole_turn),
            spend_turn_when_unsettled: config.get_bool(
                "time.spend_turn_when_unsettled",
                d.spend_turn_when_unsettled,
            ),
            first_move_share: read!(get_f64_in, first_move_share, 0.05..=1.0),
            resume_after_check: config.get_bool("time.resume_after_check", d.resume_after_check),
        };
        if p.min_branching > p.max_branching {
            config.add_warning(format!(
                "time.min_branching {} exceeds time.max_branching {}; both reset to defaults",
                p.min_branching, p.max_branching
            ));
            p.min_branching = d.min_branching;
            p.max_branching = d.max_branching;
        }
        if p.move_overhead_ms > p.reserve_ms {
            config.add_warning(format!(
                "time.move_overhead_ms {} exceeds time.reserve_ms {}; both reset to defaults",
                p.move_overhead_ms, p.reserve_ms
            ));
            p.move_overhead_ms = d.move_overhead_ms;
            p.reserve_ms = d.reserve_ms;
        }
        p
    }

    /// The margin kept back from a limit of `limit_ms`.
    pub fn reserve_for(&self, limit_ms: u64) -> u64 {
        self.reserve_ms
            .saturating_add(scale_ms(limit_ms, self.reserve_fraction))
    }

    /// How many of our own moves the remaining match time is shared over: the moves
    /// left in a typical game, at least `min_moves_to_go`, but never more than the board
    /// has room for (we play every other empty cell), and at least one.
    pub fn moves_to_go(&self, progress: GameProgress) -> u64 {
        let own_played = u64::from(progress.stones / 2);
        let typical_left = u64::from(self.typical_game_plies / 2).saturating_sub(own_played);
        typical_left
            .max(u64::from(self.min_moves_to_go))
            .min(own_room(progress))
            .max(1)
    }

    /// The match time this move may share out: `time_left` minus the reserve and minus
    /// the overhead of every further move the board has room for.
    pub fn usable_time_left(&self, time_left_ms: i64, progress: GameProgress) -> u64 {
        let left = time_left_ms.max(0) as u64;
        let later_moves = own_room(progress).saturating_sub(1);
        left.saturating_sub(self.reserve_for(left))
            .saturating_sub(later_moves.saturating_mul(self.move_overhead_ms))
    }
}

/// The most moves we can still play: we take every other empty cell, starting now.
fn own_room(progress: GameProgress) -> u64 {
    u64::from(progress.empty_cells).div_ceil(2)
}

/// The clocks as the manager last described them (PROTOCOL.md §3), in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeControl {
    /// `timeout_turn`: `Some(0)` = play at once, `None` = no limit per move.
    pub turn_ms: Option<u64>,
    /// `time_left` on the match clock before this move: `None` = unlimited. May be
    /// negative (already over).
    pub time_left_ms: Option<i64>,
}

impl TimeControl {
    /// Builds the control from the INFO values as received. `time_left` is `None` until
    /// the manager has sent one; the whole `timeout_match` is left then.
    /// A negative `timeout_turn` is nonsense and is read as "play at once" (the safe
    /// side); `timeout_match` ≤ 0 is unlimited; the sentinel 2147483647 (or more) is
    /// unlimited for both `time_left` and `timeout_turn`.
    pub fn from_info(timeout_turn: i64, timeout_match: i64, time_left: Option<i64>) -> TimeControl {
        let turn_ms = if timeout_turn >= PROTOCOL_UNLIMITED {
            None
        } else {
            Some(timeout_turn.max(0) as u64)
        };
        let time_left_ms = match time_left {
            Some(left) if left >= PROTOCOL_UNLIMITED => None,
            Some(left) => Some(left),
            None if timeout_match > 0 && timeout_match < PROTOCOL_UNLIMITED => Some(timeout_match),
            None => None,
        };
        TimeControl {
            turn_ms,
            time_left_ms,
        }
    }
}

/// Where the game stands: decides how many moves the match clock must still last.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameProgress {
    /// Stones on the board (both colours) when the move is asked for.
    pub stones: u32,
    /// Empty cells left on the board.
    pub empty_cells: u32,
}

/// The two budgets of one move, in milliseconds from the moment the move command was read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Soft: the time the move should take; stretched or shrunk between iterations.
    pub optimum_ms: u64,
    /// Hard: never search past it.
    pub hard_ms: u64,
    /// The turn limit, not the match clock, sets the optimum: time left unused is lost.
    pub turn_bound: bool,
}

impl Budget {
    /// Optimum: the usable match time shared over the moves still to play, capped by a
    /// fraction of the usable turn time. Hard: the least of several optimums, a fraction
    /// of the usable match time, and the usable turn time. "Usable" = minus the reserve,
    /// and for the match clock also minus the overhead of the later moves.
    pub fn compute(params: &TimeParams, control: &TimeControl, progress: GameProgress) -> Budget {
        let turn_cap = control
            .turn_ms
            .map(|turn| turn.saturating_sub(params.reserve_for(turn)));
        let left_cap = control
            .time_left_ms
            .map(|left| params.usable_time_left(left, progress));

        let share = left_cap.map(|cap| cap / params.moves_to_go(progress));
        let turn_optimum = turn_cap.map(|cap| scale_ms(cap, params.turn_optimum_fraction));
        let optimum = min_of(&[share, turn_optimum]);
        let turn_bound = match (turn_optimum, share) {
            (Some(turn), Some(share)) => turn <= share,
            (Some(_), None) => true,
            (None, _) => false,
        };

        let hard = min_of(&[
            Some(scale_ms(optimum, params.hard_over_optimum)),
            left_cap.map(|cap| scale_ms(cap, params.max_share_of_time_left)),
            turn_cap,
        ]);
        Budget {
            optimum_ms: optimum.min(hard),
            hard_ms: hard,
            turn_bound,
        }
    }
}

impl Budget {
    /// `share` (below 1) of both budgets, for a search that must leave the rest of the
    /// move's time to another (a swap2 colour choice takes half).
    pub fn share(self, share: f64) -> Budget {
        Budget {
            optimum_ms: (self.optimum_ms as f64 * share) as u64,
            hard_ms: (self.hard_ms as f64 * share) as u64,
            ..self
        }
    }
}

/// The smallest of the given limits; [`UNLIMITED`] when none is given.
fn min_of(limits: &[Option<u64>]) -> u64 {
    limits.iter().flatten().copied().min().unwrap_or(UNLIMITED)
}

#[cfg(test)]
mod tests {
    use super::super::{Decision, IterationReport, ManualClock, TimeManager};
    use super::*;
    use crate::config::ConfigSource;
    use crate::types::Coord;

    /// Gomocup's controls (PROTOCOL.md §5): turn ms, match ms.
    const CONTROLS: [(u64, u64); 3] = [(30_000, 180_000), (5_000, 120_000), (300_000, 1_000_000)];

    fn finite(turn: u64, left: i64) -> TimeControl {
        TimeControl {
            turn_ms: Some(turn),
            time_left_ms: Some(left),
        }
    }

    fn on_board(size: u32, stones: u32) -> GameProgress {
        GameProgress {
            stones,
            empty_cells: size * size - stones,
        }
    }

    fn usable(params: &TimeParams, limit: u64) -> u64 {
        limit.saturating_sub(params.reserve_for(limit))
    }

    #[test]
    fn budgets_respect_every_limit_for_gomocup_controls() {
        let p = TimeParams::default();
        for (turn, full_match) in CONTROLS {
            for size in [15, 20] {
                // Move 1, move 20, move 60 (own moves: two stones per move) and a board
                // with two empty cells.
                for stones in [0, 38, 118, size * size - 2] {
                    for left in [full_match, full_match / 2, full_match / 10, 1_000, 100] {
                        let progress = on_board(size, stones);
                        let b = Budget::compute(&p, &finite(turn, left as i64), progress);
                        let context = format!("turn {turn} left {left} stones {stones}: {b:?}");
                        assert!(b.optimum_ms <= b.hard_ms, "{context}");
                        assert!(b.hard_ms <= usable(&p, turn), "{context}");
                        assert!(b.hard_ms <= usable(&p, left), "{context}");
                        let share_cap = (usable(&p, left) as f64 * p.max_share_of_time_left) as u64;
                        assert!(b.hard_ms <= share_cap, "{context}");
                        let several = (b.optimum_ms as f64 * p.hard_over_optimum) as u64;
                        assert!(b.hard_ms <= several, "{context}");
                        // Spending the optimum on every move still to play fits the clock.
                        let moves = p.moves_to_go(progress);
                        assert!(b.optimum_ms * moves <= usable(&p, left), "{context}");
                        let turn_share = (usable(&p, turn) as f64 * p.turn_optimum_fraction) as u64;
                        assert!(b.optimum_ms <= turn_share, "{context}");
                        // Time beyond the reserve and the later moves' overhead is spent.
                        if p.usable_time_left(left as i64, progress) >= moves {
                            assert!(b.optimum_ms > 0, "{context}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn the_match_clock_is_shared_over_the_typical_game_at_move_one() {
        let p = TimeParams::default();
        let b = Budget::compute(&p, &finite(30_000, 180_000), on_board(15, 0));
        let typical_own_moves = u64::from(p.typical_game_plies / 2);
        let usable = p.usable_time_left(180_000, on_board(15, 0));
        assert_eq!(b.optimum_ms, usable / typical_own_moves);
        // Several optimums fit in the turn here, so the hard limit is several optimums.
        assert_eq!(
            b.hard_ms,
            (b.optimum_ms as f64 * p.hard_over_optimum) as u64
        );
    }

    #[test]
    fn fastgame_hard_limit_is_the_turn_limit() {
        let p = TimeParams::default();
        let b = Budget::compute(&p, &finite(5_000, 120_000), on_board(20, 0));
        // 120 s over the typical game is more than a quarter of 5 s per move, so several
        // optimums exceed the turn: the turn (minus reserve) is what bounds the move.
        assert!(b.optimum_ms as f64 * p.hard_over_optimum > usable(&p, 5_000) as f64);
        assert_eq!(b.hard_ms, usable(&p, 5_000));
    }

    #[test]
    fn later_moves_get_no_less_time_for_the_same_clock() {
        let p = TimeParams::default();
        for (turn, _) in CONTROLS {
            let mut previous = 0;
            for stones in (0..=223).step_by(2) {
                let b = Budget::compute(&p, &finite(turn, 20_000), on_board(15, stones));
                assert!(b.optimum_ms >= previous, "turn {turn} stones {stones}");
                previous = b.optimum_ms;
            }
            let move_20 = Budget::compute(&p, &finite(turn, 20_000), on_board(15, 38));
            let last = Budget::compute(&p, &finite(turn, 20_000), on_board(15, 223));
            assert!(last.optimum_ms > move_20.optimum_ms, "turn {turn}");
        }
    }

    #[test]
    fn more_time_left_never_means_less_time() {
        let p = TimeParams::default();
        for (turn, full_match) in CONTROLS {
            let mut previous = Budget {
                optimum_ms: 0,
                hard_ms: 0,
                turn_bound: false,
            };
            for left in (-1_000..=full_match as i64).step_by(997) {
                let b = Budget::compute(&p, &finite(turn, left), on_board(20, 40));
                assert!(b.optimum_ms >= previous.optimum_ms && b.hard_ms >= previous.hard_ms);
                previous = b;
            }
        }
    }

    #[test]
    fn turn_zero_means_play_at_once() {
        let p = TimeParams::default();
        for left in [None, Some(180_000), Some(-5)] {
            let control = TimeControl {
                turn_ms: Some(0),
                time_left_ms: left,
            };
            let b = Budget::compute(&p, &control, on_board(15, 10));
            assert_eq!((b.optimum_ms, b.hard_ms), (0, 0));
        }
        let clock = ManualClock::new(0);
        let b = Budget::compute(&p, &finite(0, 100_000), on_board(15, 0));
        let mut tm = TimeManager::start(&clock, 0, b, p);
        assert!(tm.hard_limit_reached());
        let decision = tm.after_iteration(IterationReport {
            depth: 1,
            best_move: Coord::new(7, 7),
            score: 0,
            proven: false,
        });
        assert!(matches!(decision, Decision::Stop(_)));
    }

    #[test]
    fn unlimited_match_time_leaves_the_turn_as_the_only_limit() {
        let p = TimeParams::default();
        let control = TimeControl::from_info(30_000, 0, Some(PROTOCOL_UNLIMITED));
        let early = Budget::compute(&p, &control, on_board(15, 0));
        let late = Budget::compute(&p, &control, on_board(15, 118));
        assert_eq!(early, late);
        assert_eq!(early.hard_ms, usable(&p, 30_000));
        let turn_share = (usable(&p, 30_000) as f64 * p.turn_optimum_fraction) as u64;
        assert_eq!(early.optimum_ms, turn_share);
    }

    #[test]
    fn negative_or_tiny_time_left_gives_nothing_to_spend() {
        let p = TimeParams::default();
        for left in [-30_000, -1, 0, p.reserve_ms as i64] {
            let b = Budget::compute(&p, &finite(30_000, left), on_board(15, 50));
            assert_eq!((b.optimum_ms, b.hard_ms), (0, 0), "left {left}");
        }
    }

    #[test]
    fn no_limit_at_all_is_unlimited() {
        let p = TimeParams::default();
        let control = TimeControl::from_info(PROTOCOL_UNLIMITED, 0, None);
        assert_eq!(
            control,
            TimeControl {
                turn_ms: None,
                time_left_ms: None
            }
        );
        let b = Budget::compute(&p, &control, on_board(15, 0));
        assert_eq!((b.optimum_ms, b.hard_ms), (UNLIMITED, UNLIMITED));
        let clock = ManualClock::new(1_000);
        let tm = TimeManager::start(&clock, 1_000, b, p);
        clock.set(u64::MAX - 1);
        assert!(!tm.hard_limit_reached() && !tm.soft_limit_reached());
    }

    #[test]
    fn info_values_are_read_as_the_protocol_defines_them() {
        let c = TimeControl::from_info(5_000, 120_000, None);
        assert_eq!(
            c,
            TimeControl {
                turn_ms: Some(5_000),
                time_left_ms: Some(120_000)
            }
        );
        let c = TimeControl::from_info(5_000, 120_000, Some(-250));
        assert_eq!(c.time_left_ms, Some(-250));
        let c = TimeControl::from_info(30_000, 0, None);
        assert_eq!(c.time_left_ms, None);
        let c = TimeControl::from_info(-7, 0, None);
        assert_eq!(c.turn_ms, Some(0));
    }

    /// Plays a whole game on `size`×`size` (we move on every other cell), spending
    /// `spend(budget)` plus the assumed overhead on each move; returns the time left after
    /// each move.
    fn simulate(size: u32, turn: u64, full_match: u64, spend: impl Fn(Budget) -> u64) -> Vec<i64> {
        let p = TimeParams::default();
        let mut left = full_match as i64;
        let mut after = Vec::new();
        for stones in (0..size * size).step_by(2) {
            let b = Budget::compute(&p, &finite(turn, left), on_board(size, stones));
            left -= (spend(b) + p.move_overhead_ms) as i64;
            after.push(left);
        }
        after
    }

    #[test]
    fn a_whole_game_at_the_hard_limit_never_overdraws_the_match_clock() {
        // Spending the hard limit (the most a move may take, so also the optimum) and the
        // overhead on every move of a game that fills the board.
        for (turn, full_match) in CONTROLS {
            for size in [15, 20] {
                let after = simulate(size, turn, full_match, |b| b.hard_ms);
                let lowest = after.iter().copied().min().unwrap_or(0);
                assert!(lowest >= 0, "turn {turn} size {size}: {lowest}");
            }
        }
    }

    #[test]
    fn only_the_turn_limit_binding_makes_a_budget_turn_bound() {
        let p = TimeParams::default();
        let turn_only =
            Budget::compute(&p, &TimeControl::from_info(1_000, 0, None), on_board(15, 4));
        assert!(turn_only.turn_bound);
        // Gomocup's 30 s / 180 s: the match clock shared over the game is the tighter.
        let gomocup = Budget::compute(&p, &finite(30_000, 180_000), on_board(15, 4));
        assert!(!gomocup.turn_bound);
        // Plenty of match time left for few moves: the turn binds again.
        let late = Budget::compute(&p, &finite(1_000, 170_000), on_board(15, 4));
        assert!(late.turn_bound);
        let untimed = Budget::compute(
            &p,
            &TimeControl::from_info(PROTOCOL_UNLIMITED, 0, None),
            on_board(15, 4),
        );
        assert!(!untimed.turn_bound);
    }

    #[test]
    fn embedded_config_gives_the_default_params() {
        let config = Config::embedded();
        assert_eq!(TimeParams::from_config(&config), TimeParams::default());
        assert_eq!(config.take_warning(), None);
    }

    #[test]
    fn every_time_key_of_the_default_config_is_read() {
        let defaults = Config::embedded();
        let keys: Vec<String> = defaults
            .keys()
            .filter(|k| k.starts_with("time."))
            .map(str::to_string)
            .collect();
        assert!(keys.len() >= 10, "{keys:?}");
        for key in keys {
            let value = defaults.get(&key).unwrap_or_default();
            // A nearby value inside every key's range: one more, 10% more, or the other
            // boolean.
            let changed = match (value.parse::<i64>(), value.parse::<bool>()) {
                (Ok(n), _) => (n + 1).to_string(),
                (_, Ok(b)) => (!b).to_string(),
                _ => (value.parse::<f64>().unwrap_or(1.0) * 1.1).to_string(),
            };
            let config = Config::from_text(&format!("{key} = {changed}\n"), ConfigSource::Embedded);
            let params = TimeParams::from_config(&config);
            assert_eq!(config.take_warning(), None, "{key} = {changed}");
            assert_ne!(params, TimeParams::default(), "{key} is not read");
        }
    }

    #[test]
    fn config_overrides_params_and_bad_values_keep_defaults() {
        let text = "[time]\nreserve_ms = 75\nstable_scale = 7.0\nmin_branching = 9.0\n";
        let config = Config::from_text(text, ConfigSource::Embedded);
        let p = TimeParams::from_config(&config);
        let d = TimeParams::default();
        assert_eq!(p.reserve_ms, 75);
        assert_eq!(p.stable_scale, d.stable_scale);
        assert_eq!(
            (p.min_branching, p.max_branching),
            (d.min_branching, d.max_branching)
        );
        let warning = config.take_warning().unwrap_or_default();
        assert!(warning.contains("time.stable_scale"), "{warning}");
        assert!(warning.contains("time.min_branching"), "{warning}");
    }
}
