//! Placing and taking back stones: moves for the side to move or a given colour, null
//! moves, and the pause of the state only the main search reads.

use super::{slot, Board, BoardError, Pos, COUNTED_WHEN_PAUSED, OCCUPIED, PASS_KEY, ZOBRIST};
use crate::pattern::{Cell, Pattern};
use crate::types::{Color, Coord};

impl Board {
    /// Leaves the state only the main search reads as it is until the matching
    /// [`Self::resume_search_extras`]: the combination sums and counters (read by
    /// [`Self::four_three_cells`] and its kin) and the nearby counts (read by
    /// [`Self::stones_nearby`] and [`Self::for_cells_near_stones`]), which must not be
    /// read meanwhile. Placements then cost less: the threat-space search, which reads
    /// neither, pauses them while it runs and spends less time for it, while the main
    /// search's placements keep their speed. Pauses nest. Every stone placed while paused
    /// must be taken back before the outermost pause ends, and no stone placed before it.
    pub fn pause_search_extras(&mut self) {
        if self.extras_exact() {
            self.paused_at = self.history.len();
        }
        self.extras_paused += 1;
    }

    /// Ends a [`Self::pause_search_extras`]; after the outermost one they are exact again.
    pub fn resume_search_extras(&mut self) {
        debug_assert!(self.extras_paused > 0, "resume without a pause");
        debug_assert!(
            self.extras_paused > 1 || self.history.len() == self.paused_at,
            "a pause ends with stones it placed still on the board"
        );
        self.extras_paused = self.extras_paused.saturating_sub(1);
    }

    /// The least class whose pattern counter is exact now (every class above it is too).
    #[inline]
    pub(super) fn least_counted(&self) -> Pattern {
        if self.extras_exact() {
            Pattern::Dead
        } else {
            COUNTED_WHEN_PAUSED
        }
    }

    /// Whether the search extras are exact (no pause in force).
    #[inline]
    pub(super) fn extras_exact(&self) -> bool {
        self.extras_paused == 0
    }

    /// Plays the side to move's stone at `c`, checking the coordinate.
    pub fn play(&mut self, c: Coord) -> Result<(), BoardError> {
        let p = self.pos(c).ok_or(BoardError::OffBoard(c))?;
        if !self.is_empty(p) {
            return Err(BoardError::Occupied(c));
        }
        self.make(p);
        Ok(())
    }

    /// Places a stone of the side to move on the empty cell `p`.
    #[inline]
    pub fn make(&mut self, p: Pos) {
        let color = self.side_to_move;
        self.place(p, color);
    }

    /// Places a stone of `color` on the empty cell `p`; the side to move becomes the
    /// colour with fewer stones after it (black on equal counts), which is `color`'s
    /// opponent in an alternating game and the right side after a `BOARD` setup.
    pub fn place(&mut self, p: Pos, color: Color) {
        debug_assert!(self.is_empty(p), "place on a non-empty cell");
        self.cells[p.index()] = Cell::stone(color);
        self.hash ^= ZOBRIST[p.index()][color.index()];
        self.stone_counts[color.index()] += 1;
        self.history.push(p);
        let bits = Cell::stone(color) as u32;
        // After `update_lines` saved the counters for undo, `p` no longer counts.
        if self.extras_exact() {
            for &d in &self.square {
                self.nearby[slot((p.0 as isize + d) as usize)] += 1;
            }
            self.nearby[p.index()] += OCCUPIED;
            self.update_lines::<true>(p, bits);
            self.count_patterns::<true>(p, -1);
        } else {
            self.update_lines_paused(p, bits);
        }
        self.side_to_move = self.side_after_counts();
        self.debug_check();
    }

    /// Takes back the last stone placed.
    pub fn undo(&mut self) {
        let Some(p) = self.history.pop() else {
            debug_assert!(false, "undo on an empty history");
            return;
        };
        let color = match self.cells[p.index()] {
            Cell::Black => Color::Black,
            _ => Color::White,
        };
        self.cells[p.index()] = Cell::Empty;
        self.hash ^= ZOBRIST[p.index()][color.index()];
        self.stone_counts[color.index()] -= 1;
        if self.extras_exact() {
            for &d in &self.square {
                self.nearby[slot((p.0 as isize + d) as usize)] -= 1;
            }
            self.nearby[p.index()] -= OCCUPIED;
            self.restore_lines::<true>(p);
            if self.history.len() < self.values_from {
                self.resum_values();
            }
        } else {
            debug_assert!(self.history.len() >= self.paused_at, "undo past a pause");
            self.restore_lines_paused(p);
        }
        self.side_to_move = self.side_after_counts();
        self.debug_check();
    }

    /// The value sums of a stone placed before the cell values in use were set, whose
    /// undo record holds sums of the tables before: computed afresh, out of line like
    /// `update_lines_paused`.
    #[inline(never)]
    fn resum_values(&mut self) {
        self.value_sums = self.compute_value_sums();
        self.values_from = self.history.len();
    }

    /// The paused placement's line updates, kept out of line so that the full one, which
    /// the main search makes, stays as compact as it was.
    #[inline(never)]
    fn update_lines_paused(&mut self, p: Pos, bits: u32) {
        self.update_lines::<false>(p, bits);
        self.count_patterns::<false>(p, -1);
    }

    /// The paused undo's line restores, out of line like `update_lines_paused`.
    #[inline(never)]
    fn restore_lines_paused(&mut self, p: Pos) {
        self.restore_lines::<false>(p);
    }

    fn side_after_counts(&self) -> Color {
        let by_counts = if self.stone_counts[0] > self.stone_counts[1] {
            Color::White
        } else {
            Color::Black
        };
        if self.passes % 2 == 1 {
            by_counts.opponent()
        } else {
            by_counts
        }
    }

    /// A null move: the side to move passes (for null-move pruning). The key changes so
    /// the position after a pass is not confused with the one before.
    pub fn make_null(&mut self) {
        self.passes += 1;
        self.hash ^= PASS_KEY;
        self.side_to_move = self.side_after_counts();
    }

    /// Takes back the null move made last.
    pub fn undo_null(&mut self) {
        debug_assert!(self.passes > 0, "undo_null without a null move");
        self.passes = self.passes.saturating_sub(1);
        self.hash ^= PASS_KEY;
        self.side_to_move = self.side_after_counts();
    }
}
