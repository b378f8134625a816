//! The incremental state along a move's lines: which cells a stone changes, how their
//! line codes, classes, combination sums and the counters are updated on a placement,
//! and the per-ply undo records that put them back on undo.

use super::combo::{self, COMBO_CODE};
use super::{slot, Board, CellPatterns, Pos, COUNTED_WHEN_PAUSED};
use crate::pattern::{cell_key, slot_shift, Cell, Pattern, CELL_KEY_DIGIT, HALF_LINE};
use crate::types::Rule;

/// Cells whose line code a move changes: `HALF_LINE` on each side along four lines.
pub(super) const LINE_CELLS: usize = 8 * HALF_LINE;
/// Of those, the ones within `HALF_LINE - 1` of the move, which come first in the order
/// below. The cells five away matter only where a five must be exact or unblocked (an
/// overline or a blocked five does not win): freestyle leaves them out (see
/// [`reach_of`]).
pub(super) const NEAR_LINE_CELLS: usize = 8 * (HALF_LINE - 1);
/// The line (direction index) and the signed distance from the move, in steps of that
/// line, of the `i`th cell within reach: the near cells direction by direction, then the
/// far ones.
const fn line_cell(i: usize) -> (usize, isize) {
    let (dir, distance, j) = if i < NEAR_LINE_CELLS {
        let per_line = 2 * (HALF_LINE - 1);
        (i / per_line, i % per_line / 2 + 1, i)
    } else {
        let j = i - NEAR_LINE_CELLS;
        (j / 2, HALF_LINE, j)
    };
    let step = if j % 2 == 0 {
        distance as isize
    } else {
        -(distance as isize)
    };
    (dir, step)
}
/// For each of those cells: its line, its distance from the move, and the bit position
/// of the move's slot in its line code (the move sits at offset −k from the cell k steps
/// ahead, +k from the one behind).
pub(super) const LINE_DIRS: [usize; LINE_CELLS] = {
    let mut out = [0; LINE_CELLS];
    let mut i = 0;
    while i < LINE_CELLS {
        out[i] = line_cell(i).0;
        i += 1;
    }
    out
};
pub(super) const LINE_STEPS: [isize; LINE_CELLS] = {
    let mut out = [0; LINE_CELLS];
    let mut i = 0;
    while i < LINE_CELLS {
        out[i] = line_cell(i).1;
        i += 1;
    }
    out
};
const LINE_SHIFTS: [u32; LINE_CELLS] = {
    let mut out = [0; LINE_CELLS];
    let mut i = 0;
    while i < LINE_CELLS {
        out[i] = slot_shift(-(LINE_STEPS[i] as i32));
        i += 1;
    }
    out
};

/// How far along a line a stone changes the classes of `rule`: the cells within reach
/// of a move, and the farthest slot a line code records a stone in. Under freestyle the
/// class of a cell depends only on the four cells each side (a five of the cell's own
/// lies within them, and nothing beyond a five changes whether it wins), so the cells
/// five away are neither updated nor recorded; the other rules need them (an overline,
/// caro's blocked ends). `tests/patterns.rs` checks the claim on every line code.
/// Leaving them out spares a fifth of the table lookups of every move.
pub fn reach_of(rule: Rule) -> usize {
    match rule {
        Rule::Freestyle => HALF_LINE - 1,
        Rule::Standard | Rule::Renju | Rule::Caro => HALF_LINE,
    }
}

/// The state a placement overwrites besides the stone itself: the counters, and the
/// classes and combination sums of the cells along its lines in `LINE_DIRS` order.
#[derive(Clone, Copy)]
pub(super) struct UndoRecord {
    pattern_counts: [[u32; Pattern::COUNT]; 2],
    value_sums: [[i32; 2]; 2],
    combo_counts: [[u32; combo::COUNT]; 2],
    patterns: [CellPatterns; LINE_CELLS],
    combo_sums: [[u16; 2]; LINE_CELLS],
}

/// The undo records, as a pool indexed by ply: a placement overwrites its slot in place
/// (growing the pool only the first time a ply is reached), so no record is built on the
/// stack and copied. The slots beyond the history are leftovers, not copied by `clone`.
#[derive(Default)]
pub(super) struct UndoRecords {
    slots: Vec<UndoRecord>,
    /// The plies in use (the history's length).
    used: usize,
}

impl UndoRecords {
    /// The slot of `ply`, grown into existence if the pool is too short; marks the plies
    /// up to it in use.
    #[inline(always)]
    fn slot(&mut self, ply: usize) -> &mut UndoRecord {
        if ply >= self.slots.len() {
            self.slots.resize(ply + 1, UndoRecord::EMPTY);
        }
        self.used = ply + 1;
        &mut self.slots[ply]
    }

    /// The record of `ply`, which is being undone: the plies in use end before it.
    #[inline(always)]
    fn take(&mut self, ply: usize) -> &UndoRecord {
        self.used = ply;
        &self.slots[ply]
    }
}

impl Clone for UndoRecords {
    fn clone(&self) -> Self {
        UndoRecords {
            slots: self.slots[..self.used].to_vec(),
            used: self.used,
        }
    }
}

impl UndoRecord {
    const EMPTY: UndoRecord = UndoRecord {
        pattern_counts: [[0; Pattern::COUNT]; 2],
        value_sums: [[0; 2]; 2],
        combo_counts: [[0; combo::COUNT]; 2],
        patterns: [[[Pattern::Dead; 4]; 2]; LINE_CELLS],
        combo_sums: [[0; 2]; LINE_CELLS],
    };
}

impl Board {
    /// Undoes `update_lines` for the stone taken back from `p` (already off the history):
    /// `p`'s own classes and sums were left as they were when it was empty, and are right
    /// again now; the cells along its lines and the counters come back from the record.
    /// `EXTRAS` as in `update_lines`.
    ///
    /// Every cell within reach is restored, occupied or not, with no test of the cell: a
    /// wall's codes never change, and a stone was played before `p` (undo is last in,
    /// first out), so the codes of both already hold `p`'s slot empty, and the record
    /// gives their classes back as they are. The test would be a branch that mispredicts
    /// often, and the threat search's undo costs less without it.
    #[inline(always)]
    pub(super) fn restore_lines<const EXTRAS: bool>(&mut self, p: Pos) {
        let record = self.undo_records.take(self.history.len());
        // (The `min` shows the compiler that `i` indexes the tables of LINE_CELLS.)
        for i in 0..self.line_cells.min(LINE_CELLS) {
            let q = slot((p.0 as isize + self.line_offsets[i]) as usize);
            self.codes[q][LINE_DIRS[i]] &= !(3 << LINE_SHIFTS[i]);
            self.patterns[q] = record.patterns[i];
            if EXTRAS {
                self.combo_sums[q] = record.combo_sums[i];
            }
        }
        self.pattern_counts = record.pattern_counts;
        if EXTRAS {
            self.combo_counts = record.combo_counts;
            self.value_sums = record.value_sums;
        }
    }

    /// Sets `p`'s slot to `bits` (a stone) in the code of each empty cell within reach
    /// along the four lines, and refreshes their classes, sums and counters, saving what
    /// it overwrites in the undo record of this ply. Without `EXTRAS` (paused, see
    /// [`Board::pause_search_extras`]) the combination sums and counters are left alone.
    #[inline(always)]
    pub(super) fn update_lines<const EXTRAS: bool>(&mut self, p: Pos, bits: u32) {
        // `p` is already in the history: its record is the last one.
        let record = self.undo_records.slot(self.history.len() - 1);
        record.pattern_counts = self.pattern_counts;
        if EXTRAS {
            record.combo_counts = self.combo_counts;
            record.value_sums = self.value_sums;
        }
        // Every cell's classes are saved, occupied or not, for `restore_lines`.
        // (The `min` shows the compiler that `i` indexes the tables of LINE_CELLS.)
        for i in 0..self.line_cells.min(LINE_CELLS) {
            let q = slot((p.0 as isize + self.line_offsets[i]) as usize);
            record.patterns[i] = self.patterns[q];
            if EXTRAS {
                record.combo_sums[i] = self.combo_sums[q];
            }
            // Only empty cells: the codes of an occupied cell stay those of when it was
            // played. Undo takes stones back last in, first out, so they are right again
            // by the time the cell is emptied; `line_code` reads an occupied cell's lines
            // from the cells. Skipping the occupied cells spares every move their table
            // lookups, in the main search and the threat search alike.
            if self.cells[q] == Cell::Empty {
                let (dir, shift) = (LINE_DIRS[i], LINE_SHIFTS[i]);
                self.codes[q][dir] |= bits << shift;
                let new = self.table.lookup(self.codes[q][dir]);
                let old = &mut self.patterns[q];
                let sums = &mut self.combo_sums[q];
                for c in 0..2 {
                    let (was, now) = (old[c][dir] as usize, new[c] as usize);
                    if was == now {
                        continue;
                    }
                    old[c][dir] = new[c];
                    if EXTRAS {
                        // The cell's key moves by one digit: its value changes in both
                        // tables of the colour.
                        let after = cell_key(&old[c]);
                        let before = after + CELL_KEY_DIGIT[dir] * was - CELL_KEY_DIGIT[dir] * now;
                        let values = self.cell_values;
                        for tm in 0..2 {
                            self.value_sums[c][tm] +=
                                values.get(c, tm, after) - values.get(c, tm, before);
                        }
                    }
                    // Paused, the counters below a three are left alone (most changes
                    // are among those classes); undo puts back those of the pause.
                    if EXTRAS || was >= COUNTED_WHEN_PAUSED as usize {
                        self.pattern_counts[c][was] -= 1;
                    }
                    if EXTRAS || now >= COUNTED_WHEN_PAUSED as usize {
                        self.pattern_counts[c][now] += 1;
                    }
                    // Most changes are between classes that cannot combine, and most that
                    // can leave the cell's kind as it was: both tests are predictable and
                    // spare the counters' read-modify-write.
                    if EXTRAS && COMBO_CODE[now] != COMBO_CODE[was] {
                        let before = sums[c];
                        let after = before + COMBO_CODE[now] - COMBO_CODE[was];
                        sums[c] = after;
                        let kinds = self.combo_kinds[c];
                        let (kb, ka) = (kinds[before as usize], kinds[after as usize]);
                        if kb != ka {
                            self.combo_counts[c][kb as usize] -= 1;
                            self.combo_counts[c][ka as usize] += 1;
                        }
                    }
                }
            }
        }
    }

    /// Recomputes the four line classes of the empty cell `p` from its codes, and their
    /// combination sums.
    pub(super) fn refresh_patterns(&mut self, p: Pos) {
        let mut sums = [0u16; 2];
        for dir in 0..4 {
            let [b, w] = self.table.lookup(self.codes[p.index()][dir]);
            self.patterns[p.index()][0][dir] = b;
            self.patterns[p.index()][1][dir] = w;
            sums[0] += COMBO_CODE[b as usize];
            sums[1] += COMBO_CODE[w as usize];
        }
        self.combo_sums[p.index()] = sums;
    }

    /// Adds (`sign` = 1) or removes (−1) the classes of cell `p` from the counters
    /// (without `EXTRAS`, only the pattern counters of a three or better).
    pub(super) fn count_patterns<const EXTRAS: bool>(&mut self, p: Pos, sign: i32) {
        for c in 0..2 {
            for dir in 0..4 {
                let class = self.patterns[p.index()][c][dir] as usize;
                if !EXTRAS && class < COUNTED_WHEN_PAUSED as usize {
                    continue;
                }
                self.pattern_counts[c][class] =
                    (self.pattern_counts[c][class] as i32 + sign) as u32;
            }
            if EXTRAS {
                let kind = self.combo_kinds[c][self.combo_sums[p.index()][c] as usize] as usize;
                self.combo_counts[c][kind] = (self.combo_counts[c][kind] as i32 + sign) as u32;
                let key = cell_key(&self.patterns[p.index()][c]);
                for tm in 0..2 {
                    self.value_sums[c][tm] += sign * self.cell_values.get(c, tm, key);
                }
            }
        }
    }
}
