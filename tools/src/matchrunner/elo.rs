//! Elo difference, its 95% interval and the likelihood of superiority from a W/L/D count,
//! and the same from game pairs (pentanomial).
//!
//! Standard formulas: score s = (W + D/2) / N, Elo = −400·log10(1/s − 1); the interval
//! maps s ± 1.96·σ/√N through the same function, σ² being the per-game score variance;
//! LOS = Φ((W − L) / √(W + L)).
//!
//! The games of a match are not independent: each opening is played twice with colours
//! swapped, and in Gomoku the opening and the first move often decide who wins, so the
//! two results of a pair go together (most pairs end one win each). The pair is the
//! independent unit: counting pairs by the first engine's points in them (0, ½, 1, 1½ or
//! 2: the pentanomial count), σ² is the variance of a pair's mean score and N the number
//! of pairs. Where pairs end one win each more often than independent games would, the
//! interval is narrower than the per-game one, and it is the honest one.

/// Wins, losses and draws from the first engine's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub wins: u32,
    pub losses: u32,
    pub draws: u32,
}

impl Tally {
    pub fn games(&self) -> u32 {
        self.wins + self.losses + self.draws
    }

    /// Points per game, in [0, 1]; 0.5 before any game.
    pub fn score(&self) -> f64 {
        let n = self.games();
        if n == 0 {
            return 0.5;
        }
        (self.wins as f64 + self.draws as f64 / 2.0) / n as f64
    }

    /// The variance of a single game's score (1, ½ or 0) around the mean score.
    pub fn per_game_variance(&self) -> f64 {
        let n = self.games();
        if n == 0 {
            return 0.0;
        }
        let s = self.score();
        let (w, l, d) = (self.wins as f64, self.losses as f64, self.draws as f64);
        (w * (1.0 - s).powi(2) + d * (0.5 - s).powi(2) + l * s.powi(2)) / n as f64
    }
}

/// The two-sided 95% quantile of the normal distribution.
pub const Z_95: f64 = 1.959_963_984_540_054;

/// Elo difference for an expected score; ±infinity at 1 and 0.
pub fn elo_from_score(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / score - 1.0).log10()
    }
}

/// Expected score for an Elo difference (the inverse of `elo_from_score`).
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EloEstimate {
    pub elo: f64,
    /// Lower and upper ends of the 95% interval.
    pub lower: f64,
    pub upper: f64,
    /// Likelihood of superiority, in [0, 1].
    pub los: f64,
}

impl EloEstimate {
    /// The estimate for a mean score, its 95% margin (in score) and LOS: the score and
    /// both ends of the interval mapped to Elo.
    fn from_score(score: f64, margin: f64, los: f64) -> Self {
        EloEstimate {
            elo: elo_from_score(score),
            lower: elo_from_score(score - margin),
            upper: elo_from_score(score + margin),
            los,
        }
    }
}

pub fn estimate(tally: &Tally) -> EloEstimate {
    let s = tally.score();
    let n = tally.games().max(1) as f64;
    let margin = Z_95 * (tally.per_game_variance() / n).sqrt();
    let decisive = (tally.wins + tally.losses) as f64;
    let los = if decisive == 0.0 {
        0.5
    } else {
        normal_cdf((tally.wins as f64 - tally.losses as f64) / decisive.sqrt())
    };
    EloEstimate::from_score(s, margin, los)
}

/// Game pairs (one opening, colours swapped) by the first engine's points in the pair:
/// `counts[k]` pairs gave it k half-points (0 = two losses … 4 = two wins).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PairTally {
    pub counts: [u32; 5],
}

impl PairTally {
    pub fn pairs(&self) -> u32 {
        self.counts.iter().sum()
    }

    /// Points per game over the pairs, in [0, 1]; 0.5 before any pair.
    pub fn score(&self) -> f64 {
        let n = self.pairs();
        if n == 0 {
            return 0.5;
        }
        let half_points: u32 = (0..5u32).map(|k| k * self.counts[k as usize]).sum();
        half_points as f64 / (4.0 * n as f64)
    }

    /// The variance of one pair's mean score (0, ¼, ½, ¾ or 1) around the mean score.
    pub fn per_pair_variance(&self) -> f64 {
        let n = self.pairs();
        if n == 0 {
            return 0.0;
        }
        let s = self.score();
        let sum: f64 = (0..5)
            .map(|k| self.counts[k] as f64 * (k as f64 / 4.0 - s).powi(2))
            .sum();
        sum / n as f64
    }
}

/// The Elo estimate from game pairs (see the module's notes): the same score as the
/// per-game count of those games, a margin from the pairs' variance, and the LOS from the
/// normal approximation of the mean pair score.
pub fn estimate_pairs(tally: &PairTally) -> EloEstimate {
    let s = tally.score();
    let n = tally.pairs().max(1) as f64;
    let standard_error = (tally.per_pair_variance() / n).sqrt();
    let los = if standard_error == 0.0 {
        // Every pair scored the same: certain either way, or even.
        match s.partial_cmp(&0.5) {
            Some(std::cmp::Ordering::Greater) => 1.0,
            Some(std::cmp::Ordering::Less) => 0.0,
            _ => 0.5,
        }
    } else {
        normal_cdf((s - 0.5) / standard_error)
    };
    EloEstimate::from_score(s, Z_95 * standard_error, los)
}

/// Φ(x), the standard normal distribution function.
pub fn normal_cdf(x: f64) -> f64 {
    0.5 * (1.0 + erf(x / std::f64::consts::SQRT_2))
}

/// The error function, accurate to ~1e-14: Taylor series near zero, the continued
/// fraction of erfc further out (where the series would cancel catastrophically).
pub fn erf(x: f64) -> f64 {
    if x < 0.0 {
        return -erf(-x);
    }
    if x < 2.5 {
        // erf x = 2/√π Σ (−1)ⁿ x^(2n+1) / (n! (2n+1))
        let mut term = x;
        let mut sum = x;
        let mut n = 0.0;
        while term.abs() > 1e-17 * sum.abs() {
            n += 1.0;
            term *= -x * x / n;
            sum += term / (2.0 * n + 1.0);
        }
        return sum * 2.0 / std::f64::consts::PI.sqrt();
    }
    // erfc x = e^(−x²)/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + …)))), evaluated from the tail.
    let mut fraction = x;
    for k in (1..=80).rev() {
        fraction = x + (k as f64 / 2.0) / fraction;
    }
    1.0 - (-x * x).exp() / (std::f64::consts::PI.sqrt() * fraction)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() <= tolerance
    }

    #[test]
    fn erf_matches_reference_values() {
        // Reference values: Python's math.erf.
        assert!(close(erf(0.5), 0.5204998778130465, 1e-13));
        assert!(close(erf(2.7), 0.9998656672600594, 1e-13));
        assert!(close(erf(4.0), 0.9999999845827421, 1e-13));
        assert!(close(erf(-0.5), -0.5204998778130465, 1e-13));
        assert_eq!(erf(0.0), 0.0);
        assert!(close(normal_cdf(3.0), 0.9986501019683699, 1e-13));
    }

    #[test]
    fn estimate_agrees_with_the_formulas_computed_by_hand() {
        // W=30 L=20 D=50: s = 0.55, σ² = (30·0.45² + 50·0.05² + 20·0.55²)/100 = 0.1225,
        // margin = 1.96·√(0.1225/100); Elo(0.55) = 34.860, Elo(0.48140) = −12.930,
        // Elo(0.61860) = 84.011; LOS = Φ(10/√50) = 0.92135.
        let t = Tally {
            wins: 30,
            losses: 20,
            draws: 50,
        };
        assert!(close(t.score(), 0.55, 1e-15));
        assert!(close(t.per_game_variance(), 0.1225, 1e-15));
        let e = estimate(&t);
        assert!(close(e.elo, 34.86007028756008, 1e-9));
        assert!(close(e.lower, -12.929693470337863, 1e-9));
        assert!(close(e.upper, 84.01076264940247, 1e-9));
        assert!(close(e.los, 0.9213503964748574, 1e-12));
    }

    #[test]
    fn estimate_without_draws() {
        // W=7 L=3: s = 0.7, σ² = 0.21; Elo 147.19, interval [−58.95, 715.83], LOS Φ(4/√10).
        let e = estimate(&Tally {
            wins: 7,
            losses: 3,
            draws: 0,
        });
        assert!(close(e.elo, 147.19071411783776, 1e-9));
        assert!(close(e.lower, -58.94623015823473, 1e-9));
        assert!(close(e.upper, 715.8345612641904, 1e-8));
        assert!(close(e.los, 0.8970483946339658, 1e-12));
    }

    #[test]
    fn pair_estimate_agrees_with_the_formulas_computed_by_hand() {
        // Pairs [39, 4, 140, 7, 50] (240): 505 half-points, s = 505/960 = 0.5260417;
        // σ² = Σ nₖ (k/4 − s)² / 240 = 0.0948947; se = √(σ²/240) = 0.0198845;
        // Elo(s) = 18.1120, Elo(s − 1.96·se) = −8.9876, Elo(s + 1.96·se) = 45.4340;
        // LOS = Φ((s − ½)/se) = 0.904842 (computed separately, in Python).
        let t = PairTally {
            counts: [39, 4, 140, 7, 50],
        };
        assert_eq!(t.pairs(), 240);
        assert!(close(t.score(), 505.0 / 960.0, 1e-15));
        assert!(close(t.per_pair_variance(), 0.094_894_748_263_888_9, 1e-12));
        let e = estimate_pairs(&t);
        assert!(close(e.elo, 18.111_992_584_619_564, 1e-9));
        assert!(close(e.lower, -8.987_597_599_410_794, 1e-9));
        assert!(close(e.upper, 45.434_025_373_470_67, 1e-9));
        assert!(close(e.los, 0.904_841_877_361_221_1, 1e-9));
        // The same 480 games counted one by one (the 140 even pairs a win and a loss
        // each): the same score, a wider interval.
        let games = Tally {
            wins: 140 + 7 + 2 * 50,
            losses: 2 * 39 + 4 + 140,
            draws: 4 + 7,
        };
        let per_game = estimate(&games);
        assert!(close(per_game.elo, e.elo, 1e-9));
        assert!(e.upper - e.lower < per_game.upper - per_game.lower);
    }

    #[test]
    fn pairs_that_always_split_leave_no_doubt_and_no_difference() {
        // Every pair one win each: an even match, known exactly.
        let split = estimate_pairs(&PairTally {
            counts: [0, 0, 12, 0, 0],
        });
        assert_eq!((split.elo, split.lower, split.upper), (0.0, 0.0, 0.0));
        assert_eq!(split.los, 0.5);
        // Twice as many of one engine's double wins as of its double losses.
        let ahead = estimate_pairs(&PairTally {
            counts: [10, 0, 0, 0, 20],
        });
        assert!(close(ahead.elo, elo_from_score(2.0 / 3.0), 1e-9));
        assert!(ahead.lower < ahead.elo && ahead.elo < ahead.upper);
        assert!(ahead.los > 0.5);
        assert_eq!(estimate_pairs(&PairTally::default()).elo, 0.0);
    }

    #[test]
    fn extreme_scores_are_infinite_and_even_scores_zero() {
        let all_wins = estimate(&Tally {
            wins: 4,
            losses: 0,
            draws: 0,
        });
        assert_eq!(all_wins.elo, f64::INFINITY);
        let even = estimate(&Tally {
            wins: 0,
            losses: 0,
            draws: 6,
        });
        assert_eq!(even.elo, 0.0);
        assert_eq!(even.los, 0.5);
        assert!(close(score_from_elo(elo_from_score(0.3)), 0.3, 1e-12));
    }
}
