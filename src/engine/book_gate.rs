//! The gate in front of the opening book: a book move is played only when the position
//! has no forced result (a win to take or one to stop), which only the search may
//! answer, and the move does not hand the opponent a forced win. The book's values come
//! from fixed-depth searches, which can walk into a deep threat sequence.
//!
//! Both checks run on the move's clock and stop with the move: a check cut by its
//! deadline or by the stop flag answers "unknown", and the search decides.

use crate::board::Board;
use crate::params::engine::BOOK_GATE_DEPTH;
use crate::threat;
use crate::time::SliceLimits;
use crate::types::Coord;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// When a check must end: the slice of the move plan it runs in, and the move's stop
/// flag.
#[derive(Clone, Copy)]
pub struct GateLimits<'a> {
    slice: SliceLimits,
    stop: &'a AtomicBool,
}

impl<'a> GateLimits<'a> {
    pub fn new(slice: SliceLimits, stop: &'a AtomicBool) -> GateLimits<'a> {
        GateLimits { slice, stop }
    }

    fn threat_limits(&self, level: threat::Level) -> threat::Limits<'_> {
        threat::Limits {
            level,
            max_nodes: self.slice.max_nodes,
            max_depth: BOOK_GATE_DEPTH,
            deadline: self.slice.deadline,
            stop: Some(self.stop),
        }
    }

    /// The deadline has passed or a stop was asked for: a search that found nothing may
    /// not have looked.
    fn cut(&self) -> bool {
        let past = |d: Instant| Instant::now() >= d;
        self.slice.deadline.is_some_and(past) || self.stop.load(Ordering::Relaxed)
    }
}

/// Whether the position has a forced result the book must not override: the side to
/// move has a five point or a threat-space win (fours, and threes), or the opponent has
/// one that must be defended (a five point, a winning four, a threat-space win). A
/// check cut by `limits` answers "forced" (unknown).
pub fn position_is_forced(board: &Board, limits: GateLimits) -> bool {
    let us = board.side_to_move();
    let them = us.opponent();
    if board.has_five_point(us) || board.has_five_point(them) {
        return true;
    }
    let mut scratch = board.clone();
    for level in [threat::Level::Vcf, threat::Level::Vct] {
        let search = limits.threat_limits(level);
        if threat::find_win(&mut scratch, us, &search).is_some() || limits.cut() {
            return true;
        }
        // The opponent's win as if it moved now, VCF first (a four chain is the cheapest
        // thing to miss). Any answer but "no win" means the search must choose.
        if threat::find_win(&mut scratch, them, &search).is_some() || limits.cut() {
            return true;
        }
    }
    let search = limits.threat_limits(threat::Level::Vct);
    threat::defences(&mut scratch, us, &search).is_some() || limits.cut()
}

/// Whether the book move `m` hands the opponent a forced win: after it, the threat-space
/// search finds one for the opponent (fours first, then threes). A check cut by `limits`
/// answers "refuted" (unknown).
pub fn hands_opponent_a_win(board: &Board, m: Coord, limits: GateLimits) -> bool {
    let mut scratch = board.clone();
    let Some(p) = scratch.pos(m) else {
        return true;
    };
    if !scratch.is_empty(p) {
        return true;
    }
    let them = scratch.side_to_move().opponent();
    scratch.make(p);
    [threat::Level::Vcf, threat::Level::Vct]
        .into_iter()
        .any(|level| {
            let search = limits.threat_limits(level);
            threat::find_win(&mut scratch, them, &search).is_some() || limits.cut()
        })
}
