//! Lazy SMP: helper threads search the same root on their own boards and fill the shared
//! table; the main thread's search, which sees their entries, decides the move.

use super::node::Worker;
use super::tactics::RootTactics;
use super::{Outcome, SearchEvent, SearchLimits, SearchOptions, MAX_THREADS};
use crate::board::Board;
use crate::threat;
use crate::time::TimeManager;
use crate::tt::TranspositionTable;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Stack of a helper thread: the recursion is at most `MAX_PLY` deep, with a move list
/// per frame, far below this; the margin covers the threat search.
const HELPER_STACK_BYTES: usize = 16 << 20;

/// Searches `board` with `limits.threads` threads; the main thread runs under `time`
/// and resumes (and leaves in) `threat_memo` the search for our own win.
pub(super) fn search(
    board: &mut Board,
    tt: &TranspositionTable,
    limits: &SearchLimits,
    time: Option<TimeManager>,
    stop: &AtomicBool,
    threat_memo: &mut threat::Memo,
    report: &mut dyn FnMut(&SearchEvent),
) -> Outcome {
    let helper_nodes = AtomicU64::new(0);
    let threads = limits.threads.clamp(1, MAX_THREADS);
    if threads == 1 {
        let main = Worker::new(board, tt, limits, time, stop, &helper_nodes);
        return main_search(main, threat_memo, report);
    }
    let helper_limits = limits.for_helper();
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        // However the main search ends (even by a panic), the helpers stop with it;
        // otherwise the scope would wait for them forever.
        let _stop_helpers = SetOnDrop(&done);
        for id in 1..threads {
            let mut helper_board = board.clone();
            let (helper_limits, done, helper_nodes) = (&helper_limits, &done, &helper_nodes);
            let spawned = std::thread::Builder::new()
                .name(format!("search-{id}"))
                .stack_size(HELPER_STACK_BYTES)
                .spawn_scoped(scope, move || {
                    let mut helper = Worker::new(
                        &mut helper_board,
                        tt,
                        helper_limits,
                        None,
                        done,
                        helper_nodes,
                    );
                    // Half the helpers run one iteration ahead, so the threads spread
                    // over two depths instead of repeating each other's work.
                    helper.helper_depth_offset = Some((id % 2) as i32);
                    let mut tactics = RootTactics::resuming(threat::Memo::default());
                    helper.iterate(&mut tactics, &mut |_| {});
                });
            if let Err(e) = spawned {
                log::warn!("search helper thread {id} not started: {e}");
                break;
            }
        }
        let main = Worker::new(board, tt, limits, time, stop, &helper_nodes);
        main_search(main, threat_memo, report)
    })
}

/// The main thread's search, starting the root tactics from the threat memo of the last
/// move, which is left in `memo` afterwards.
fn main_search(
    mut main: Worker<'_>,
    memo: &mut threat::Memo,
    report: &mut dyn FnMut(&SearchEvent),
) -> Outcome {
    let mut tactics = RootTactics::resuming(std::mem::take(memo));
    let mut outcome = main.iterate(&mut tactics, report);
    outcome.threat_nodes = tactics.nodes();
    *memo = tactics.into_threat_memo();
    outcome
}

impl SearchLimits {
    /// The limits of a helper thread: no clock (the main thread decides when all stop),
    /// no node limit and no root threat searches (the main thread's result is the one
    /// played), a single line.
    fn for_helper(&self) -> SearchLimits {
        SearchLimits {
            started: self.started,
            time: None,
            max_depth: self.max_depth,
            max_nodes: u64::MAX,
            options: SearchOptions {
                threat_search: false,
                threat_check: false,
                ..self.options
            },
            eval: self.eval,
            threads: 1,
            multi_pv: 1,
            clockless_threat_nodes: None,
        }
    }
}

/// Sets the flag when dropped.
struct SetOnDrop<'a>(&'a AtomicBool);

impl Drop for SetOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{best_move_with, position};
    use super::*;
    use crate::eval::{self, WIN};
    use crate::types::{Coord, Rule};

    fn threads(depth: i32, threads: usize) -> SearchLimits {
        SearchLimits {
            threads,
            ..SearchLimits::depth(depth)
        }
    }

    #[test]
    fn several_threads_find_the_same_forced_answers() {
        // The positions of the single-thread tests below, searched by four threads: the
        // helpers share the table, so a bad entry of theirs would show here.
        let (m, v) = best_move_with(Rule::Freestyle, "h8h9i8i9j8j9k8k9", threads(5, 4));
        assert!(m == Coord::new(6, 7) || m == Coord::new(11, 7), "{m}");
        assert_eq!(v, WIN - 1);
        let (m, _) = best_move_with(Rule::Freestyle, "a1h9a3i9a5j9g9k9", threads(6, 4));
        assert_eq!(m, Coord::new(11, 8));
        let (m, v) = best_move_with(Rule::Freestyle, "a1i9a15j9o15k9", threads(6, 4));
        assert!([7, 11, 6, 12].contains(&m.x) && m.y == 8, "{m}");
        assert!(!eval::is_decisive(v));
    }

    #[test]
    fn helper_threads_end_with_the_main_search() {
        // A node limit stops the main thread early; the helpers (no limit of their own)
        // must stop with it, or `evaluate` would never return.
        let limits = SearchLimits {
            max_nodes: 2_000,
            ..threads(60, 3)
        };
        let (m, _) = best_move_with(Rule::Freestyle, "h8i9j7", limits);
        assert!(position(Rule::Freestyle, "h8i9j7").pos(m).is_some());
    }
}
