//! Transposition table: one entry per slot, replaced by depth and age, shared by the
//! search threads.
//!
//! Storage is allocated as a `Vec<[u64; 2]>` of zeros so the allocation is a `calloc`:
//! the operating system hands out zero pages lazily, so a table costs nothing until it
//! is touched. The engine maps a new table's pages at once (`map_pages`), off the move's
//! clock when it can: a search touches nearly every page anyway, and faulting them in
//! one at a time during it costs more.
//!
//! Threads read and write slots without locks. A slot holds `key ^ data` and `data`, so a
//! slot torn by two writers racing (one word from each) fails the key check and reads as
//! empty instead of handing a wrong entry to another position (the "xor trick").

use crate::board::Pos;
pub use crate::params::table::DEFAULT_TT_BYTES;
use crate::params::table::{GROW_SHARE_OF_OPTIMUM, MAP_MS_PER_MIB, MAP_SHARE_OF_OPTIMUM};
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

/// Whether a stored value is exact or a bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    Exact = 1,
    /// The value is at least this (a beta cut-off).
    Lower = 2,
    /// The value is at most this (all moves failed low).
    Upper = 3,
}

#[derive(Clone, Copy, Debug)]
pub struct Entry {
    pub best: Pos,
    pub value: i32,
    pub depth: i32,
    pub bound: Bound,
}

pub struct TranspositionTable {
    slots: Vec<[AtomicU64; 2]>,
    mask: usize,
    generation: AtomicU8,
}

// The zeroed `u64` allocation is reused as atomics, which needs the same layout.
const _: () = assert!(
    std::mem::size_of::<[u64; 2]>() == std::mem::size_of::<[AtomicU64; 2]>()
        && std::mem::align_of::<[u64; 2]>() == std::mem::align_of::<[AtomicU64; 2]>()
);

/// A vector of `n` zeroed slots, allocated by `calloc` (see the module comment).
fn zeroed_slots(n: usize) -> Vec<[AtomicU64; 2]> {
    let mut plain = std::mem::ManuallyDrop::new(vec![[0u64; 2]; n]);
    let (ptr, len, cap) = (plain.as_mut_ptr(), plain.len(), plain.capacity());
    // SAFETY: `[AtomicU64; 2]` has the size and alignment of `[u64; 2]` (asserted above)
    // and zero is a valid `AtomicU64`; the original vector is forgotten, so the
    // allocation has exactly one owner and is freed with the same layout.
    unsafe { Vec::from_raw_parts(ptr.cast::<[AtomicU64; 2]>(), len, cap) }
}

/// Bytes one slot takes.
pub const SLOT_BYTES: usize = 16;

impl TranspositionTable {
    /// A table of at most `bytes` bytes (rounded down to a power of two of slots).
    pub fn new(bytes: usize) -> TranspositionTable {
        let slots = Self::slots_for(bytes);
        TranspositionTable {
            slots: zeroed_slots(slots),
            mask: slots - 1,
            generation: AtomicU8::new(0),
        }
    }

    /// Writes a zero into every page of a table fresh from [`TranspositionTable::new`],
    /// so that the operating system maps all of it now rather than page by page during
    /// a search.
    pub fn map_pages(&mut self) {
        const SLOTS_PER_PAGE: usize = 4096 / SLOT_BYTES;
        for slot in self.slots.iter_mut().step_by(SLOTS_PER_PAGE) {
            // SAFETY: the pointer comes from an exclusive borrow of a live, aligned
            // `AtomicU64`. The write is volatile because a plain store of zero into
            // memory the compiler knows to be zeroed may be dropped.
            unsafe { std::ptr::write_volatile(slot[0].as_ptr(), 0) };
        }
    }

    pub fn size_bytes(&self) -> usize {
        self.slots.len() * SLOT_BYTES
    }

    /// The size of a table made with `bytes` (see [`TranspositionTable::new`]).
    pub fn size_for(bytes: usize) -> usize {
        Self::slots_for(bytes) * SLOT_BYTES
    }

    fn slots_for(bytes: usize) -> usize {
        let slots = (bytes / SLOT_BYTES).max(1024);
        1usize << (usize::BITS - 1 - slots.leading_zeros())
    }

    pub fn clear(&mut self) {
        for slot in &mut self.slots {
            *slot[0].get_mut() = 0;
            *slot[1].get_mut() = 0;
        }
        *self.generation.get_mut() = 0;
    }

    /// Called once per search so entries of earlier searches are replaced first.
    pub fn new_search(&mut self) {
        let g = self.generation.get_mut();
        *g = g.wrapping_add(1);
    }

    /// Asks the processor to bring `key`'s slot into the cache, so a probe of it after
    /// the work in between (a move made, the checks at the top of a node) does not wait
    /// for memory: a table of the usual sizes is far larger than the caches, and a probe
    /// that has to fetch its slot stalls the search. A hint only: it changes no result.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let slot = &self.slots[key as usize & self.mask];
            // SAFETY: a prefetch reads nothing the program sees and never faults; the
            // address is that of a live slot, and SSE is part of every x86-64 target.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(slot.as_ptr().cast::<i8>()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// The slot's key and data; a slot torn by racing writers yields a key that matches
    /// no position.
    #[inline]
    fn read(&self, key: u64) -> (u64, u64) {
        let slot = &self.slots[key as usize & self.mask];
        let data = slot[1].load(Ordering::Relaxed);
        (slot[0].load(Ordering::Relaxed) ^ data, data)
    }

    #[inline]
    fn write(&self, key: u64, data: u64) {
        let slot = &self.slots[key as usize & self.mask];
        slot[0].store(key ^ data, Ordering::Relaxed);
        slot[1].store(data, Ordering::Relaxed);
    }

    pub fn probe(&self, key: u64) -> Option<Entry> {
        let (stored_key, data) = self.read(key);
        if stored_key != key || data == 0 {
            return None;
        }
        let bound = match (data >> 40) & 0xff {
            1 => Bound::Exact,
            2 => Bound::Lower,
            3 => Bound::Upper,
            _ => return None,
        };
        Some(Entry {
            best: Pos((data & 0xffff) as u16),
            value: ((data >> 16) & 0xffff) as u16 as i16 as i32,
            depth: ((data >> 32) & 0xff) as u8 as i8 as i32,
            bound,
        })
    }

    pub fn store(&self, key: u64, best: Pos, value: i32, depth: i32, bound: Bound) {
        let (old_key, old_data) = self.read(key);
        let generation = self.generation.load(Ordering::Relaxed);
        if old_key == key || old_data == 0 {
            // Same position or empty slot: always take the newer information, but keep
            // a known best move when the new search did not find one.
            let best = if best.is_none() && old_key == key {
                Pos((old_data & 0xffff) as u16)
            } else {
                best
            };
            self.write(key, pack(best, value, depth, bound, generation));
            return;
        }
        let old_depth = ((old_data >> 32) & 0xff) as u8 as i8 as i32;
        let old_gen = ((old_data >> 48) & 0xff) as u8;
        if old_gen != generation || depth >= old_depth {
            self.write(key, pack(best, value, depth, bound, generation));
        }
    }
}

fn pack(best: Pos, value: i32, depth: i32, bound: Bound, generation: u8) -> u64 {
    let value = value.clamp(i16::MIN as i32, i16::MAX as i32) as i16 as u16 as u64;
    let depth = depth.clamp(-128, 127) as i8 as u8 as u64;
    best.0 as u64 | value << 16 | depth << 32 | (bound as u64) << 40 | (generation as u64) << 48
}

/// The table that lives across moves, made when a search (or `START`) needs it, and the
/// size asked for. When to make it, and whether to map its pages at once, is decided
/// here from the time a move may take.
pub struct TableSlot {
    table: Option<TranspositionTable>,
    bytes: usize,
}

impl Default for TableSlot {
    fn default() -> Self {
        TableSlot::new(DEFAULT_TT_BYTES)
    }
}

impl TableSlot {
    /// No table yet; one of `bytes` is made when first needed.
    pub fn new(bytes: usize) -> TableSlot {
        TableSlot { table: None, bytes }
    }

    /// Sets the table size asked for. A smaller table replaces the one there is at once
    /// (the memory limit may have shrunk); a larger one is made by the next
    /// [`Self::prepare`], or by a move with the time for it (see `GROW_SHARE_OF_OPTIMUM`).
    pub fn set_bytes(&mut self, bytes: usize) {
        self.bytes = bytes;
        self.drop_if(std::cmp::Ordering::Greater);
    }

    /// The size asked for.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// The size of the table made so far, if one is.
    pub fn made_bytes(&self) -> Option<usize> {
        self.table.as_ref().map(TranspositionTable::size_bytes)
    }

    /// Makes the table of the size asked for now, unless it is there already, with all
    /// its pages mapped (see [`Self::made`]): for `START`, which is off the move's clock,
    /// to pay for it rather than the first move.
    pub fn prepare(&mut self) {
        self.drop_if(std::cmp::Ordering::Less);
        self.made(true);
    }

    /// The table for a search whose move may take `optimum_ms` (`None`: no clock). A
    /// larger size asked for replaces the table only when making it fits the move (see
    /// `GROW_SHARE_OF_OPTIMUM`), and a new table maps its pages at once only when that
    /// is cheap beside the move (see `MAP_SHARE_OF_OPTIMUM`); always with no clock.
    pub fn for_search(&mut self, optimum_ms: Option<u64>) -> &mut TranspositionTable {
        if mapping_fits(self.bytes, optimum_ms, GROW_SHARE_OF_OPTIMUM) {
            self.drop_if(std::cmp::Ordering::Less);
        }
        let map_now = mapping_fits(self.bytes, optimum_ms, MAP_SHARE_OF_OPTIMUM);
        self.made(map_now)
    }

    /// `YXHASHCLEAR`: empties the table, if one is made.
    pub fn clear(&mut self) {
        if let Some(tt) = &mut self.table {
            tt.clear();
        }
    }

    /// Drops the table when its size compares so (`Less`: smaller) with the size asked
    /// for, so that the next [`Self::made`] makes one of that size.
    fn drop_if(&mut self, size_is: std::cmp::Ordering) {
        let wanted = TranspositionTable::size_for(self.bytes);
        if self
            .table
            .as_ref()
            .is_some_and(|tt| tt.size_bytes().cmp(&wanted) == size_is)
        {
            self.table = None;
        }
    }

    /// The table, allocated with the size asked for if there is none. A new table has
    /// all its pages mapped at once when `map_now` says so: a search touches nearly all
    /// of them, and faulting them in one by one while it runs costs more.
    fn made(&mut self, map_now: bool) -> &mut TranspositionTable {
        let bytes = self.bytes;
        self.table.get_or_insert_with(|| {
            let mut tt = TranspositionTable::new(bytes);
            if map_now {
                tt.map_pages();
            }
            tt
        })
    }
}

/// Whether mapping a table of `bytes` is assumed to take at most 1/`share` of the
/// move's optimum (always, with no clock).
fn mapping_fits(bytes: usize, optimum_ms: Option<u64>, share: u64) -> bool {
    let cost_ms = (bytes as u64 >> 20) * MAP_MS_PER_MIB;
    optimum_ms.is_none_or(|optimum| cost_ms * share <= optimum)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_and_reads_back_every_field() {
        let tt = TranspositionTable::new(1 << 16);
        tt.store(0xdead_beef_1234, Pos(321), -29_990, 7, Bound::Lower);
        let e = tt.probe(0xdead_beef_1234).unwrap();
        assert_eq!(
            (e.best, e.value, e.depth, e.bound),
            (Pos(321), -29_990, 7, Bound::Lower)
        );
        assert!(tt.probe(0xdead_beef_1235).is_none());
    }

    #[test]
    fn a_slot_torn_by_racing_writers_reads_as_empty() {
        let tt = TranspositionTable::new(1 << 14);
        let slots = tt.slots.len() as u64;
        let (a, b) = (7, 7 + slots); // two positions of one slot
        tt.store(a, Pos(1), 10, 5, Bound::Exact);
        let first_half = tt.slots[7][0].load(Ordering::Relaxed);
        tt.store(b, Pos(2), 20, 9, Bound::Lower);
        // Writer A's first word next to writer B's second word.
        tt.slots[7][0].store(first_half, Ordering::Relaxed);
        assert!(tt.probe(a).is_none());
        assert!(tt.probe(b).is_none());
    }

    #[test]
    fn deeper_entries_survive_shallower_ones_of_the_same_search() {
        let mut tt = TranspositionTable::new(1 << 14);
        let slots = tt.slots.len() as u64;
        tt.store(5, Pos(1), 10, 9, Bound::Exact);
        tt.store(5 + slots, Pos(2), 20, 3, Bound::Exact); // same slot, other key
        assert_eq!(tt.probe(5).unwrap().depth, 9);
        tt.new_search();
        tt.store(5 + slots, Pos(2), 20, 3, Bound::Exact); // older entries give way
        assert_eq!(tt.probe(5 + slots).unwrap().best, Pos(2));
    }

    #[test]
    fn a_table_with_its_pages_mapped_is_still_empty() {
        let mut tt = TranspositionTable::new(1 << 20);
        tt.map_pages();
        assert!(tt
            .slots
            .iter()
            .all(|s| s[0].load(Ordering::Relaxed) == 0 && s[1].load(Ordering::Relaxed) == 0));
        assert!((0..1000u64).all(|k| tt.probe(k.wrapping_mul(0x9e37_79b9_7f4a_7c15)).is_none()));
        tt.store(42, Pos(7), 3, 2, Bound::Exact);
        assert_eq!(tt.probe(42).map(|e| e.best), Some(Pos(7)));
    }

    #[test]
    fn size_is_a_power_of_two_within_the_budget() {
        let tt = TranspositionTable::new(100 << 20);
        assert!(tt.size_bytes() <= 100 << 20);
        assert!(tt.size_bytes() > 50 << 20);
        assert!(tt.slots.len().is_power_of_two());
    }
}
