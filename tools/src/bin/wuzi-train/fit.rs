//! Logistic regression of the evaluation's tables on the games' results and the search's
//! values: P(the side to move wins) = sigmoid(value / scale), value = weights · features.

use crate::dataset::Dataset;
use crate::progress::format_duration;
use std::time::Instant;

pub struct FitOptions {
    /// Evaluation units per unit of log-odds.
    pub scale: f64,
    /// Weight of the game's result in the target; the rest is the search's value.
    pub result_weight: f64,
    /// Scale of the search's values (the old evaluation's units), for their target.
    pub search_scale: f64,
    pub iterations: usize,
    pub learning_rate: f64,
    /// L2 penalty per weight, per sample.
    pub l2: f64,
    pub threads: usize,
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// Cross-entropy of `p` against target `t`.
fn xent(p: f64, t: f64) -> f64 {
    let p = p.clamp(1e-9, 1.0 - 1e-9);
    -(t * p.ln() + (1.0 - t) * (1.0 - p).ln())
}

/// Losses of `weights` on the held-out positions: against the results, and against the
/// search's values.
pub struct Losses {
    pub train: f64,
    pub held_out_result: f64,
    pub held_out_target: f64,
}

pub fn value(d: &Dataset, i: usize, w: &[f64]) -> f64 {
    d.features(i).map(|(j, x)| w[j] * x as f64).sum()
}

fn target(d: &Dataset, i: usize, o: &FitOptions) -> f64 {
    if d.search[i].is_nan() {
        return d.result[i] as f64;
    }
    let s = sigmoid(d.search[i] as f64 / o.search_scale);
    o.result_weight * d.result[i] as f64 + (1.0 - o.result_weight) * s
}

pub fn losses(d: &Dataset, w: &[f64], o: &FitOptions) -> Losses {
    let (mut tr, mut n_tr, mut hr, mut ht, mut n_h) = (0.0, 0usize, 0.0, 0.0, 0usize);
    for i in 0..d.len() {
        let p = sigmoid(value(d, i, w) / o.scale);
        if d.held_out[i] {
            hr += xent(p, d.result[i] as f64);
            ht += xent(p, target(d, i, o));
            n_h += 1;
        } else {
            tr += xent(p, target(d, i, o));
            n_tr += 1;
        }
    }
    Losses {
        train: tr / n_tr.max(1) as f64,
        held_out_result: hr / n_h.max(1) as f64,
        held_out_target: ht / n_h.max(1) as f64,
    }
}

/// The gradient of the mean training loss over samples `range`.
fn gradient(d: &Dataset, w: &[f64], o: &FitOptions, range: std::ops::Range<usize>) -> Vec<f64> {
    let mut g = vec![0.0; w.len()];
    for i in range {
        if d.held_out[i] {
            continue;
        }
        let p = sigmoid(value(d, i, w) / o.scale);
        let e = (p - target(d, i, o)) / o.scale;
        for (j, x) in d.features(i) {
            g[j] += e * x as f64;
        }
    }
    g
}

/// Full-batch Adam from `w`; prints the losses as it goes.
pub fn fit(d: &Dataset, w: &mut [f64], o: &FitOptions) {
    let n_train = d.held_out.iter().filter(|&&h| !h).count().max(1) as f64;
    let (mut m, mut v) = (vec![0.0; w.len()], vec![0.0; w.len()]);
    let (b1, b2, eps) = (0.9, 0.999, 1e-8);
    let started = Instant::now();
    let threads = o.threads.max(1);
    for it in 1..=o.iterations {
        let chunk = d.len().div_ceil(threads);
        let wr: &[f64] = w;
        let parts: Vec<Vec<f64>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads)
                .map(|t| {
                    let r = (t * chunk).min(d.len())..((t + 1) * chunk).min(d.len());
                    s.spawn(move || gradient(d, wr, o, r))
                })
                .collect();
            handles.into_iter().filter_map(|h| h.join().ok()).collect()
        });
        let lr = o.learning_rate * (1.0 - 0.9 * it as f64 / o.iterations as f64);
        for j in 0..w.len() {
            let g = parts.iter().map(|p| p[j]).sum::<f64>() / n_train + o.l2 * w[j];
            m[j] = b1 * m[j] + (1.0 - b1) * g;
            v[j] = b2 * v[j] + (1.0 - b2) * g * g;
            let mh = m[j] / (1.0 - b1.powi(it as i32));
            let vh = v[j] / (1.0 - b2.powi(it as i32));
            w[j] -= lr * mh / (vh.sqrt() + eps);
        }
        if it % 50 == 0 || it == o.iterations {
            let l = losses(d, w, o);
            eprintln!(
                "fit {it}/{}: train {:.5}  held-out vs result {:.5}  vs target {:.5}  ({})",
                o.iterations,
                l.train,
                l.held_out_result,
                l.held_out_target,
                format_duration(started.elapsed())
            );
        }
    }
}

/// The scale that best predicts the results from `values` (of the training positions):
/// golden-section search on its logarithm. With it, the held-out loss of those values.
pub fn best_scale(d: &Dataset, values: &[f32]) -> (f64, f64) {
    let loss = |k: f64, held_out: bool| -> f64 {
        let (sum, n) = (0..d.len())
            .filter(|&i| d.held_out[i] == held_out && values[i].abs() < 20_000.0)
            .fold((0.0, 0usize), |(s, n), i| {
                (
                    s + xent(sigmoid(values[i] as f64 / k), d.result[i] as f64),
                    n + 1,
                )
            });
        sum / n.max(1) as f64
    };
    let k = golden(|ln_k| loss(ln_k.exp(), false));
    (k, loss(k, true))
}

fn golden(loss: impl Fn(f64) -> f64) -> f64 {
    let (mut a, mut b) = (10f64.ln(), 100_000f64.ln());
    let g = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..60 {
        let c = b - g * (b - a);
        let e = a + g * (b - a);
        if loss(c) < loss(e) {
            b = e;
        } else {
            a = c;
        }
    }
    ((a + b) / 2.0).exp()
}
