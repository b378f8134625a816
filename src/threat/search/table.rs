//! The search's tables: proven wins and failures of attacker nodes by board hash and
//! attacker, and the defender's reply sets after non-four threats.

use super::{defend::Replies, Searcher};
use crate::board::Pos;
use crate::params::threat::*;
use crate::types::Color;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Drops from `table` everything but proven wins, which hold whatever the root, the
/// limits and the threat set they are met with again.
pub(super) fn keep_wins(table: &mut Table) {
    table.retain(|_, e| {
        e.fails_below = 0;
        e.hint = Pos::NONE;
        e.win_from != NO_WIN
    });
}

/// Salt mixed into the hash of attacker nodes so they never collide with other uses.
const ATTACK_SALT: [u64; 2] = [0x9d3c_61a2_52f1_0b17, 0x4b8e_27c5_d6a9_3f01];

/// The table key of the node where `attacker` is to move on a board of hash `hash`.
#[inline]
pub(super) fn attack_key(hash: u64, attacker: Color) -> u64 {
    hash ^ ATTACK_SALT[attacker.index()]
}

/// The table's keys are Zobrist hashes, already uniformly mixed: hashing them again
/// (SipHash by default) would only cost time.
#[derive(Default)]
pub(super) struct ZobristHasher(u64);

impl Hasher for ZobristHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | b as u64;
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

pub(super) type Table = HashMap<u64, Entry, BuildHasherDefault<ZobristHasher>>;

/// The defender's replies after each non-four threat, by position (see `three_replies`).
pub(super) type ReplyCache = HashMap<u64, Option<Replies>, BuildHasherDefault<ZobristHasher>>;

/// Salts of the reply cache's keys, by phase (the second phase also reads VCF threats).
pub(super) const REPLY_SALT: [u64; 2] = [0x2f6b_90d3_c4e1_7a55, 0xa1c7_3e08_5bd2_96f4];

/// What the table knows of one attacker node. A win holds for any larger three budget
/// and a failure for any smaller one, so one entry keeps both bounds: the inner
/// deepening (see `attack`) meets the same node at several budgets, and a failure found
/// at a small budget must not hide a win proven at a larger one.
#[derive(Clone, Copy)]
pub(super) struct Entry {
    /// The smallest budget the node was proven to win with (`NO_WIN`: none yet).
    pub(super) win_from: u8,
    /// The node fails with every budget below this one (0: nothing known).
    pub(super) fails_below: u8,
    /// The winning move, when `win_from` is set.
    pub(super) best: Pos,
    /// When the node failed: the move whose refutation took the most nodes.
    pub(super) hint: Pos,
}

pub(super) const NO_WIN: u8 = u8::MAX;

impl Entry {
    pub(super) fn wins(&self, threes: u32) -> bool {
        self.win_from != NO_WIN && threes >= self.win_from as u32
    }
    pub(super) fn fails(&self, threes: u32) -> bool {
        threes < self.fails_below as u32
    }
}

impl Searcher<'_, '_> {
    pub(super) fn store(&mut self, win: bool, threes: u32, best: Pos) -> bool {
        if self.aborted {
            return false;
        }
        if self.tt.len() >= TT_MAX_ENTRIES {
            self.tt.clear();
        }
        let key = self.key();
        let budget = threes.min(NO_WIN as u32 - 1) as u8;
        let e = self.tt.entry(key).or_insert(Entry {
            win_from: NO_WIN,
            fails_below: 0,
            best: Pos::NONE,
            hint: Pos::NONE,
        });
        if win {
            if budget < e.win_from {
                e.win_from = budget;
                e.best = best;
            }
        } else {
            e.fails_below = e.fails_below.max(budget + 1);
            if !best.is_none() {
                e.hint = best;
            }
        }
        win
    }
}
