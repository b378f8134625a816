//! Softmax regression of the move policy on the moves the search played: among the
//! cells a node considers, P(move) ∝ exp(own[pcode for the side to move] +
//! opp[pcode for the opponent]), one pair of tables per colour to move.

use crate::dataset::Dataset;
use crate::progress::format_duration;
use std::time::Instant;
use wuzi::eval::pcode::PCODE_COUNT;

/// `w[stm][0 own | 1 opp][pcode]` flattened: index `(2 * stm + side) * PCODE_COUNT + pcode`.
pub fn index(stm: usize, side: usize, pcode: usize) -> usize {
    (2 * stm + side) * PCODE_COUNT + pcode
}

pub const LEN: usize = 4 * PCODE_COUNT;

/// Mean cross-entropy of the played moves over the samples with `held_out` as given,
/// and how often the played move is the policy's first choice.
pub fn loss(d: &Dataset, w: &[f64], held_out: bool) -> (f64, f64) {
    let (mut sum, mut top, mut n) = (0.0, 0usize, 0usize);
    let mut logits = Vec::new();
    for i in 0..d.len() {
        if d.held_out[i] != held_out || d.chosen[i] == u32::MAX {
            continue;
        }
        logits_of(d, w, i, &mut logits);
        let max = logits.iter().cloned().fold(f64::MIN, f64::max);
        let z: f64 = logits.iter().map(|l| (l - max).exp()).sum();
        let c = d.chosen[i] as usize;
        sum += -(logits[c] - max - z.ln());
        top += usize::from(logits[c] >= max);
        n += 1;
    }
    (sum / n.max(1) as f64, top as f64 / n.max(1) as f64)
}

fn logits_of(d: &Dataset, w: &[f64], i: usize, out: &mut Vec<f64>) {
    let stm = d.stm[i] as usize;
    out.clear();
    out.extend(d.candidates(i).map(|j| {
        w[index(stm, 0, d.cand_own[j] as usize)] + w[index(stm, 1, d.cand_opp[j] as usize)]
    }));
}

fn gradient(d: &Dataset, w: &[f64], range: std::ops::Range<usize>) -> (Vec<f64>, usize) {
    let mut g = vec![0.0; LEN];
    let mut n = 0;
    let mut logits = Vec::new();
    for i in range {
        if d.held_out[i] || d.chosen[i] == u32::MAX {
            continue;
        }
        n += 1;
        logits_of(d, w, i, &mut logits);
        let max = logits.iter().cloned().fold(f64::MIN, f64::max);
        let z: f64 = logits.iter().map(|l| (l - max).exp()).sum();
        let stm = d.stm[i] as usize;
        for (k, j) in d.candidates(i).enumerate() {
            let p = (logits[k] - max).exp() / z - f64::from(u8::from(k == d.chosen[i] as usize));
            g[index(stm, 0, d.cand_own[j] as usize)] += p;
            g[index(stm, 1, d.cand_opp[j] as usize)] += p;
        }
    }
    (g, n)
}

/// Full-batch Adam; prints the losses as it goes.
pub fn fit(
    d: &Dataset,
    w: &mut [f64],
    iterations: usize,
    learning_rate: f64,
    l2: f64,
    threads: usize,
) {
    let (mut m, mut v) = (vec![0.0; LEN], vec![0.0; LEN]);
    let (b1, b2, eps) = (0.9, 0.999, 1e-8);
    let started = Instant::now();
    let threads = threads.max(1);
    for it in 1..=iterations {
        let chunk = d.len().div_ceil(threads);
        let wr: &[f64] = w;
        let parts: Vec<(Vec<f64>, usize)> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads)
                .map(|t| {
                    let r = (t * chunk).min(d.len())..((t + 1) * chunk).min(d.len());
                    s.spawn(move || gradient(d, wr, r))
                })
                .collect();
            handles.into_iter().filter_map(|h| h.join().ok()).collect()
        });
        let n = parts.iter().map(|p| p.1).sum::<usize>().max(1) as f64;
        let lr = learning_rate * (1.0 - 0.9 * it as f64 / iterations as f64);
        for j in 0..LEN {
            let g = parts.iter().map(|p| p.0[j]).sum::<f64>() / n + l2 * w[j];
            m[j] = b1 * m[j] + (1.0 - b1) * g;
            v[j] = b2 * v[j] + (1.0 - b2) * g * g;
            let mh = m[j] / (1.0 - b1.powi(it as i32));
            let vh = v[j] / (1.0 - b2.powi(it as i32));
            w[j] -= lr * mh / (vh.sqrt() + eps);
        }
        if it % 50 == 0 || it == iterations {
            let (tl, tt) = loss(d, w, false);
            let (hl, ht) = loss(d, w, true);
            eprintln!(
                "policy {it}/{iterations}: train {tl:.4} (top-1 {:.1}%)  held-out {hl:.4} (top-1 {:.1}%)  ({})",
                100.0 * tt,
                100.0 * ht,
                format_duration(started.elapsed())
            );
        }
    }
}
