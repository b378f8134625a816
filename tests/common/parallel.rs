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

#[test]
fn results_keep_the_items_order_whatever_the_workers_take() {
    // Items of very different cost, so the workers finish them out of order.
    let items: Vec<u64> = (0..40).rev().collect();
    let squares = map_in_order(&items, |&n| {
        std::thread::sleep(std::time::Duration::from_millis(n % 7));
        n * n
    });
    let expected: Vec<u64> = items.iter().map(|n| n * n).collect();
    assert_eq!(squares, expected);
}
