//! Recomputation from scratch: line codes and the key read from the stones, and the
//! check of every piece of incremental state against them (construction, tests, debug
//! checks).

use super::combo::{self, COMBO_CODE};
use super::{reach_of, Board, Pos, OCCUPIED, PASS_KEY, ZOBRIST};
use crate::pattern::{cell_key, slot_shift, Cell, Pattern, HALF_LINE};

impl Board {
    /// The cell-value sums recomputed from every empty cell's classes.
    pub(super) fn compute_value_sums(&self) -> [[i32; 2]; 2] {
        let mut sums = [[0; 2]; 2];
        for p in self.positions().filter(|&p| self.is_empty(p)) {
            for c in 0..2 {
                let key = cell_key(&self.patterns[p.index()][c]);
                for tm in 0..2 {
                    sums[c][tm] += self.cell_values.get(c, tm, key);
                }
            }
        }
        sums
    }

    /// The line code of `p` along `dir`, read from the cells: stones out of the rule's
    /// reach ([`reach_of`]) are left out, the edge never is.
    pub fn compute_code(&self, p: Pos, dir: usize) -> u32 {
        self.read_code(p, dir, reach_of(self.rule))
    }

    /// The line code of `p` along `dir` with the stones up to `reach` cells away.
    fn read_code(&self, p: Pos, dir: usize, reach: usize) -> u32 {
        let reach = reach as i32;
        let mut code = 0;
        for k in -(HALF_LINE as i32)..=HALF_LINE as i32 {
            if k == 0 {
                continue;
            }
            let q = p.0 as isize + k as isize * self.steps[dir];
            let cell = if q >= 0 && (q as usize) < self.cell_count() {
                self.cells[q as usize]
            } else {
                Cell::Wall
            };
            if k.abs() > reach && cell != Cell::Wall {
                continue;
            }
            code |= (cell as u32) << slot_shift(k);
        }
        code
    }

    /// The Zobrist key recomputed from the stones.
    pub fn compute_hash(&self) -> u64 {
        let passes = if self.passes % 2 == 1 { PASS_KEY } else { 0 };
        passes
            ^ self
                .positions()
                .filter_map(|p| match self.cell(p) {
                    Cell::Black => Some(ZOBRIST[p.index()][0]),
                    Cell::White => Some(ZOBRIST[p.index()][1]),
                    _ => None,
                })
                .fold(0, |h, z| h ^ z)
    }

    /// Checks every piece of incremental state against a recomputation. Returns the first
    /// mismatch found, described. Used by tests and (for small boards) debug builds.
    pub fn verify_incremental_state(&self) -> Result<(), String> {
        if self.hash != self.compute_hash() {
            return Err("hash differs from recomputation".into());
        }
        let mut counts = [[0u32; Pattern::COUNT]; 2];
        let mut combos = [[0u32; combo::COUNT]; 2];
        for p in self.positions() {
            if self.is_empty(p) && self.extras_exact() {
                for c in 0..2 {
                    let sum: u16 = (0..4)
                        .map(|dir| {
                            COMBO_CODE
                                [self.table.lookup(self.read_code(p, dir, HALF_LINE))[c] as usize]
                        })
                        .sum();
                    if sum != self.combo_sums[p.index()][c] {
                        return Err(format!(
                            "combination sum of {} colour {c} differs",
                            self.coord(p)
                        ));
                    }
                    combos[c][self.combo_kinds[c][sum as usize] as usize] += 1;
                }
            }
            for dir in 0..4 {
                let code = self.compute_code(p, dir);
                if self.is_empty(p) && code != self.codes[p.index()][dir] {
                    return Err(format!("line code of {} dir {dir} differs", self.coord(p)));
                }
                if self.is_empty(p) {
                    // The classes of the whole line, whatever the rule's reach.
                    let expected = self.table.lookup(self.read_code(p, dir, HALF_LINE));
                    for c in 0..2 {
                        if self.patterns[p.index()][c][dir] != expected[c] {
                            return Err(format!(
                                "pattern of {} dir {dir} colour {c} differs",
                                self.coord(p)
                            ));
                        }
                        counts[c][expected[c] as usize] += 1;
                    }
                }
            }
        }
        let counted = self.least_counted() as usize;
        if (0..2).any(|c| counts[c][counted..] != self.pattern_counts[c][counted..]) {
            return Err("pattern counts differ from recomputation".into());
        }
        if !self.extras_exact() {
            // Paused: the combination state and nearby counts are those of the pause.
            return Ok(());
        }
        if combos != self.combo_counts {
            return Err("combination counts differ from recomputation".into());
        }
        if self.compute_value_sums() != self.value_sums {
            return Err("cell value sums differ from recomputation".into());
        }
        for p in self.positions() {
            let c = self.coord(p);
            let near = self
                .history
                .iter()
                .filter(|&&q| {
                    let d = self.coord(q);
                    q != p && (d.x - c.x).abs() <= 2 && (d.y - c.y).abs() <= 2
                })
                .count();
            let occupied = if self.is_empty(p) { 0 } else { OCCUPIED };
            if near + occupied as usize != self.nearby[p.index()] as usize {
                return Err(format!("nearby stone count of {c} differs"));
            }
        }
        Ok(())
    }

    #[inline]
    pub(super) fn debug_check(&self) {
        #[cfg(feature = "paranoid")]
        if let Err(e) = self.verify_incremental_state() {
            panic!("incremental board state corrupt: {e}");
        }
    }
}
