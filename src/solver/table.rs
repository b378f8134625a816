//! The proof-number search's transposition table: proof and disproof numbers per
//! position, in a fixed number of bytes.
//!
//! A position's key is the board's Zobrist hash. The side to move follows from the
//! stones, and every search of one table has one attacker, so the hash alone names a
//! node. Stones are only ever added, so no position repeats within a line and the
//! table needs no history (no graph-history interaction).
//!
//! Entries live in buckets of [`BUCKET`]; a new entry replaces the least valuable one of
//! its bucket: solved entries are kept before unsolved ones (a proof is rebuilt from
//! them), and among equals the one whose subtree took the least work goes first.

use crate::board::Pos;

/// "Infinite" proof or disproof number: a solved node. Sums saturate below it.
pub const INFINITY: u32 = u32::MAX / 4;

/// Entries per bucket.
const BUCKET: usize = 4;

/// One stored node.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Entry {
    pub key: u64,
    pub pn: u32,
    pub dn: u32,
    /// Nodes spent below this node: what losing the entry would cost to redo.
    pub work: u32,
    /// The attacker's proving move at a proven attacker node (else the move last
    /// searched), `Pos::NONE` when there is none.
    pub best: Pos,
    /// How many times the node's threat-space search ran (each with twice the nodes of
    /// the last) without settling it.
    pub threat_level: u8,
    /// Proven by the attacker's threat-space search (its first move is `best`).
    pub by_threats: bool,
}

impl Entry {
    pub fn is_proven(&self) -> bool {
        self.pn == 0
    }

    pub fn is_disproven(&self) -> bool {
        self.dn == 0
    }

    /// What the replacement scheme keeps longest: solved, then costly.
    fn value(&self) -> u64 {
        let solved = u64::from(self.pn == 0 || self.dn == 0);
        (solved << 32) | u64::from(self.work)
    }
}

/// The table: `buckets × BUCKET` entries, allocated once.
pub struct Table {
    entries: Vec<Entry>,
    buckets: usize,
    /// Entries holding a node (for the report).
    used: usize,
}

impl Table {
    /// A table of at most `bytes` (at least one bucket).
    pub fn with_bytes(bytes: usize) -> Table {
        let per_bucket = BUCKET * std::mem::size_of::<Entry>();
        let buckets = (bytes / per_bucket).max(1);
        Table {
            entries: vec![Entry::default(); buckets * BUCKET],
            buckets,
            used: 0,
        }
    }

    /// How full the table is, in thousandths.
    pub fn permille(&self) -> u32 {
        (self.used * 1000 / self.entries.len().max(1)) as u32
    }

    fn bucket(&self, key: u64) -> std::ops::Range<usize> {
        // The high bits pick the bucket: the low ones of a Zobrist sum are as good, but
        // keys are compared whole, so any fixed choice works.
        let start = ((key >> 32) as usize % self.buckets) * BUCKET;
        start..start + BUCKET
    }

    /// The entry of `key`, if stored. Key 0 marks an empty slot, so the empty board's
    /// node (hash 0) is never stored; it is only ever a root.
    pub fn get(&self, key: u64) -> Option<Entry> {
        if key == 0 {
            return None;
        }
        self.entries[self.bucket(key)]
            .iter()
            .find(|e| e.key == key)
            .copied()
    }

    /// Stores `entry` (its `key` must be nonzero), over the same key or the least
    /// valuable entry of its bucket.
    pub fn put(&mut self, entry: Entry) {
        if entry.key == 0 {
            return;
        }
        let range = self.bucket(entry.key);
        let bucket = &mut self.entries[range];
        let slot = match bucket.iter().position(|e| e.key == entry.key) {
            Some(i) => i,
            None => match bucket.iter().position(|e| e.key == 0) {
                Some(i) => {
                    self.used += 1;
                    i
                }
                None => {
                    let mut least = 0;
                    for (i, e) in bucket.iter().enumerate() {
                        if e.value() < bucket[least].value() {
                            least = i;
                        }
                    }
                    least
                }
            },
        };
        bucket[slot] = entry;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(key: u64, pn: u32, dn: u32, work: u32) -> Entry {
        Entry {
            key,
            pn,
            dn,
            work,
            best: Pos::NONE,
            threat_level: 0,
            by_threats: false,
        }
    }

    #[test]
    fn entries_are_found_by_key_and_updated_in_place() {
        let mut t = Table::with_bytes(1 << 12);
        t.put(entry(0x1234_5678_9abc, 3, 4, 1));
        assert_eq!(t.get(0x1234_5678_9abc).map(|e| (e.pn, e.dn)), Some((3, 4)));
        t.put(entry(0x1234_5678_9abc, 0, INFINITY, 9));
        assert!(t.get(0x1234_5678_9abc).unwrap().is_proven());
        assert_eq!(t.get(42), None);
        t.put(entry(0, 1, 1, 1));
        assert_eq!(t.get(0), None);
    }

    #[test]
    fn a_full_bucket_drops_the_cheapest_unsolved_entry() {
        // One bucket: every key lands in it.
        let mut t = Table::with_bytes(BUCKET * std::mem::size_of::<Entry>());
        t.put(entry(1, 0, INFINITY, 1)); // solved, cheap: kept
        t.put(entry(2, 5, 5, 100));
        t.put(entry(3, 5, 5, 2)); // the cheapest unsolved
        t.put(entry(4, 5, 5, 50));
        t.put(entry(5, 1, 1, 7));
        assert!(t.get(1).is_some() && t.get(2).is_some() && t.get(4).is_some());
        assert!(t.get(3).is_none() && t.get(5).is_some());
        assert_eq!(std::mem::size_of::<Entry>(), 24);
        assert_eq!(t.permille(), 1000);
    }
}
