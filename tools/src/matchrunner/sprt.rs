//! Sequential probability ratio test: stop a match as soon as the games decide between
//! H0 (the Elo difference is elo0) and H1 (it is elo1).
//!
//! The log-likelihood ratio is the usual generalised-SPRT approximation for game scores:
//! LLR = N·(s1 − s0)·(2ŝ − s0 − s1) / (2σ̂²), with s0, s1 the expected scores of elo0 and
//! elo1, ŝ the observed score and σ̂² the per-game score variance. The test stops when the
//! LLR leaves (ln(β/(1−α)), ln((1−β)/α)).

use super::elo::{score_from_elo, Tally};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SprtParams {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
}

impl Default for SprtParams {
    fn default() -> SprtParams {
        SprtParams {
            elo0: 0.0,
            elo1: 10.0,
            alpha: 0.05,
            beta: 0.05,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SprtDecision {
    Continue,
    /// The difference is elo0 (or less): the change is not an improvement.
    AcceptH0,
    /// The difference is elo1 (or more).
    AcceptH1,
}

impl SprtDecision {
    pub fn name(self) -> &'static str {
        match self {
            SprtDecision::Continue => "continue",
            SprtDecision::AcceptH0 => "H0",
            SprtDecision::AcceptH1 => "H1",
        }
    }
}

impl SprtParams {
    /// Checks the parameters make a test: elo0 < elo1 and error rates in (0, 1).
    pub fn validate(&self) -> Result<(), String> {
        let rate_ok = |r: f64| r > 0.0 && r < 1.0;
        // Written so that NaN fails too.
        if self.elo0.partial_cmp(&self.elo1) != Some(std::cmp::Ordering::Less) {
            return Err("SPRT needs elo0 < elo1".to_string());
        }
        if !rate_ok(self.alpha) || !rate_ok(self.beta) {
            return Err("SPRT alpha and beta must be between 0 and 1".to_string());
        }
        Ok(())
    }

    /// (lower, upper): accept H0 at or below the lower bound, H1 at or above the upper.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The log-likelihood ratio of H1 against H0; 0 before any game.
    ///
    /// When every game had the same result the variance is zero and the formula is
    /// undefined, yet a brain that wins every game must still be accepted. Our choice:
    /// the variance is then taken from the results plus half a win and half a loss (a weak
    /// prior), while the score stays the observed one.
    pub fn llr(&self, tally: &Tally) -> f64 {
        let n = tally.games() as f64;
        if n == 0.0 {
            return 0.0;
        }
        let mut variance = tally.per_game_variance();
        if variance <= 0.0 {
            variance = regularised_variance(tally);
        }
        let (s0, s1) = (score_from_elo(self.elo0), score_from_elo(self.elo1));
        n * (s1 - s0) * (2.0 * tally.score() - s0 - s1) / (2.0 * variance)
    }

    pub fn decide(&self, tally: &Tally) -> SprtDecision {
        let llr = self.llr(tally);
        let (lower, upper) = self.bounds();
        if llr >= upper {
            SprtDecision::AcceptH1
        } else if llr <= lower {
            SprtDecision::AcceptH0
        } else {
            SprtDecision::Continue
        }
    }
}

/// Per-game variance of the results plus half a win and half a loss.
fn regularised_variance(tally: &Tally) -> f64 {
    let w = tally.wins as f64 + 0.5;
    let l = tally.losses as f64 + 0.5;
    let d = tally.draws as f64;
    let n = w + l + d;
    let s = (w + d / 2.0) / n;
    (w * (1.0 - s).powi(2) + d * (0.5 - s).powi(2) + l * s.powi(2)) / n
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() <= tolerance
    }

    #[test]
    fn bounds_follow_alpha_and_beta() {
        let p = SprtParams::default();
        let (lower, upper) = p.bounds();
        // ln(0.05/0.95) and ln(0.95/0.05).
        assert!(close(lower, -2.9444389791664403, 1e-12));
        assert!(close(upper, 2.9444389791664403, 1e-12));
        let q = SprtParams {
            alpha: 0.1,
            beta: 0.2,
            ..p
        };
        assert!(close(q.bounds().0, (0.2f64 / 0.9).ln(), 1e-15));
        assert!(close(q.bounds().1, 8f64.ln(), 1e-15));
    }

    #[test]
    fn llr_matches_the_hand_computed_value() {
        // W=30 L=20 D=50, elo0 0, elo1 10: s0 = 0.5, s1 = 1/(1+10^(−1/40)) = 0.514387,
        // ŝ = 0.55, σ̂² = 0.1225 → LLR = 100·0.014387·0.085613/0.245 = 0.502746.
        let t = Tally {
            wins: 30,
            losses: 20,
            draws: 50,
        };
        let p = SprtParams::default();
        assert!(close(p.llr(&t), 0.5027458564789831, 1e-12));
        assert_eq!(p.decide(&t), SprtDecision::Continue);
    }

    #[test]
    fn decides_both_ways() {
        let p = SprtParams::default();
        let strong = Tally {
            wins: 300,
            losses: 200,
            draws: 500,
        };
        assert!(p.llr(&strong) > 2.95);
        assert_eq!(p.decide(&strong), SprtDecision::AcceptH1);
        let weak = Tally {
            wins: 200,
            losses: 300,
            draws: 500,
        };
        assert_eq!(p.decide(&weak), SprtDecision::AcceptH0);
        assert_eq!(p.llr(&Tally::default()), 0.0);
        // Six straight wins: variance from W=6.5 L=0.5 (s' = 13/14, σ² = 13/196), score 1,
        // LLR = 6·0.0143868·(2 − 1.0143868)/(26/196) = 0.641381 (computed by hand).
        let sweep = Tally {
            wins: 6,
            losses: 0,
            draws: 0,
        };
        assert!(close(p.llr(&sweep), 0.6413810416530877, 1e-9));
        assert!(SprtParams {
            elo0: 5.0,
            elo1: 0.0,
            ..p
        }
        .validate()
        .is_err());
    }
}
