//! Time control with the protocol's meaning (PROTOCOL.md §3) and one game clock per brain.
//!
//! `timeout_turn` 0 means "play at once": the brain gets only the tolerance.
//! `timeout_match` 0 means no match clock; `time_left` is then sent as 2147483647.
//! Time is counted from writing the command to reading the reply, so pipe latency and the
//! brain's start-up work are charged to the brain, as every manager does.

use std::time::Duration;

/// `time_left` value that means "unlimited".
pub const UNLIMITED_TIME_LEFT: i64 = 2_147_483_647;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeControl {
    /// Milliseconds per move; 0 = play as fast as possible.
    pub turn_ms: u64,
    /// Milliseconds per game for each brain; 0 = unlimited.
    pub match_ms: u64,
    /// Extra milliseconds granted beyond either limit before a move counts as late.
    pub tolerance_ms: u64,
}

impl Default for TimeControl {
    fn default() -> TimeControl {
        TimeControl {
            turn_ms: 1000,
            match_ms: 0,
            tolerance_ms: 1000,
        }
    }
}

/// One brain's clock for one game.
#[derive(Clone, Debug)]
pub struct GameClock {
    control: TimeControl,
    /// Match time left in ms; may go negative by up to the tolerance.
    left_ms: i64,
}

impl GameClock {
    pub fn new(control: TimeControl) -> GameClock {
        GameClock {
            control,
            left_ms: control.match_ms as i64,
        }
    }

    /// The value for `INFO time_left` before the next move.
    pub fn time_left_info(&self) -> i64 {
        if self.control.match_ms == 0 {
            UNLIMITED_TIME_LEFT
        } else {
            self.left_ms
        }
    }

    /// How long the runner waits for the next reply before declaring a timeout: the
    /// tighter of the turn and match limits, plus the tolerance.
    pub fn allowance(&self) -> Duration {
        let turn = self.control.turn_ms as i64;
        let budget = if self.control.match_ms == 0 {
            turn
        } else if turn == 0 {
            self.left_ms
        } else {
            turn.min(self.left_ms)
        };
        let total = budget.max(0) as u64 + self.control.tolerance_ms;
        Duration::from_millis(total)
    }

    /// Charges a move's thinking time. Returns false when the move was over a limit
    /// (beyond the tolerance): the brain loses on time.
    pub fn charge(&mut self, elapsed: Duration) -> bool {
        let within = elapsed <= self.allowance();
        if self.control.match_ms != 0 {
            self.left_ms -= elapsed.as_millis() as i64;
        }
        within
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn control(turn_ms: u64, match_ms: u64, tolerance_ms: u64) -> TimeControl {
        TimeControl {
            turn_ms,
            match_ms,
            tolerance_ms,
        }
    }

    #[test]
    fn no_match_clock_sends_unlimited_and_waits_turn_plus_tolerance() {
        let mut clock = GameClock::new(control(200, 0, 50));
        assert_eq!(clock.time_left_info(), UNLIMITED_TIME_LEFT);
        assert_eq!(clock.allowance(), Duration::from_millis(250));
        assert!(clock.charge(Duration::from_millis(250)));
        assert!(!clock.charge(Duration::from_millis(251)));
        assert_eq!(clock.time_left_info(), UNLIMITED_TIME_LEFT);
    }

    #[test]
    fn turn_zero_means_play_at_once() {
        let clock = GameClock::new(control(0, 0, 30));
        assert_eq!(clock.allowance(), Duration::from_millis(30));
    }

    #[test]
    fn match_clock_runs_down_and_caps_the_turn() {
        let mut clock = GameClock::new(control(1000, 1500, 100));
        assert_eq!(clock.time_left_info(), 1500);
        assert!(clock.charge(Duration::from_millis(900)));
        assert_eq!(clock.time_left_info(), 600);
        assert_eq!(clock.allowance(), Duration::from_millis(700));
        assert!(clock.charge(Duration::from_millis(650)));
        assert_eq!(clock.time_left_info(), -50);
        assert_eq!(clock.allowance(), Duration::from_millis(100));
        assert!(!clock.charge(Duration::from_millis(101)));
    }

    #[test]
    fn turn_zero_with_match_clock_uses_the_match_clock() {
        let clock = GameClock::new(control(0, 5000, 0));
        assert_eq!(clock.allowance(), Duration::from_millis(5000));
    }
}
