//! Work shared out over one thread per core, for the slow tests whose items (positions,
//! games, claims) are independent: each item is taken by the next idle worker, so one
//! long item does not leave a core idle behind a fixed share of the rest.

use std::sync::atomic::{AtomicUsize, Ordering};

/// `f` of every item, in the items' order, computed on one worker per core. A panic in
/// `f` is passed on to the caller as it was.
pub fn map_in_order<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(items.len())
        .max(1);
    let next = AtomicUsize::new(0);
    let mut results: Vec<(usize, R)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = items.get(i) else {
                            return done;
                        };
                        done.push((i, f(item)));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    });
    results.sort_by_key(|r| r.0);
    results.into_iter().map(|(_, r)| r).collect()
}
