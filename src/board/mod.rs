//! The board: stones, make/undo, Zobrist key, and the line pattern of every cell.
//!
//! Layout: cells live on a padded grid with a wall border `HALF_LINE` cells wide, so a
//! step of up to five cells in any direction from a board cell never leaves the array and
//! needs no bounds check. A cell is a `Pos` (an index into that grid).
//!
//! Incremental state, kept exact on make/undo:
//! - `codes[pos][dir]`: the line code of the ten neighbours on each of the four lines,
//!   for every cell (empty or not), updated by setting/clearing two bits in the forty
//!   cells within reach of a move;
//! - `patterns[pos]`: for every empty cell, the class black and white would make on each
//!   line by playing there (one table lookup per line);
//! - `pattern_counts[color][class]`: how many (empty cell, line) pairs have each class,
//!   so "does the opponent have a five point?" is a counter test;
//! - `combo_sums[pos][color]` and `combo_counts[color][kind]`: the lines of every empty
//!   cell that can combine (open threes, fours), summed per cell, and how many cells make
//!   each combination (four-three, four-four, double three, open or double four), so the
//!   evaluation and the search read combination points from counters instead of scanning
//!   the board.
//!
//! - `value_sums[color][to_move]`: the learned evaluation's cell values
//!   ([`CellValues`]) summed over the empty cells, for each colour as the side to move
//!   and not, so the evaluation is a few additions instead of a pass over the board.
//!
//! Undo restores rather than recomputes: a placement saves the counters and the classes
//! of the forty cells along its lines in a per-ply record, so undo does no table lookups.
//!
//! The threat-space search reads none of the combination state nor `nearby`, nor the
//! counters of classes below a three: while it runs, the board may be
//! [paused](Board::pause_search_extras) so its placements skip them.
//!
//! Files, one concern each:
//! - this one: the board type, construction, coordinates and the queries the engine reads;
//! - `make`: placing and taking back stones (and null moves), and the pause of the search
//!   extras;
//! - `lines`: the incremental update of the cells along a move's lines, and the undo
//!   records that restore them;
//! - `combo`: the combination kinds (four-three, double three...) of a cell's line classes;
//! - `verify`: recomputation from scratch, for construction, tests and debug checks.

mod combo;
mod lines;
mod make;
mod verify;

pub use lines::reach_of;

use crate::pattern::{self, slot_shift, Cell, Pattern, PatternTable, CELL_KEY_COUNT, HALF_LINE};
use crate::types::{parse_pos_sequence, Color, Coord, Rule};
use combo::{COMBO_KINDS, COMBO_SUMS};
use lines::{UndoRecords, LINE_CELLS, LINE_DIRS, LINE_STEPS, NEAR_LINE_CELLS};
use once_cell::sync::Lazy;
use std::fmt;
use std::ops::ControlFlow;

/// The least class whose (empty cell, line) pairs are counted while the search extras
/// are paused: the threat search asks for threes and better only.
pub const COUNTED_WHEN_PAUSED: Pattern = Pattern::Three;

/// Largest board side the protocol asks for.
pub const MAX_SIZE: usize = 32;
/// Smallest board side that still allows a five.
pub const MIN_SIZE: usize = 5;
/// Width of the padded grid: the board plus a wall border on each side.
const MAX_STRIDE: usize = MAX_SIZE + 2 * HALF_LINE;
/// Cells in the largest padded grid.
pub const MAX_CELLS: usize = MAX_STRIDE * MAX_STRIDE;
/// Cells every per-cell array of a board holds, whatever its size: `MAX_CELLS` rounded up
/// to a power of two. The loops of `place` and `undo` index them with [`slot`], which the
/// compiler can see is in bounds, so they pay no bounds check per cell.
const CELL_CAPACITY: usize = MAX_CELLS.next_power_of_two();
/// A per-cell array of the padded grid (the cells past the grid stay as filled).
type Grid<T> = Box<[T; CELL_CAPACITY]>;

fn grid<T: Copy>(fill: T) -> Grid<T> {
    Box::new([fill; CELL_CAPACITY])
}

/// The index of grid cell `q` in a [`Grid`]: `q` itself, since every grid cell lies
/// below `MAX_CELLS`; the mask only lets the compiler see that it is in bounds.
#[inline(always)]
fn slot(q: usize) -> usize {
    q & (CELL_CAPACITY - 1)
}

/// A cell index on the padded grid. `Pos::NONE` marks "no move" (and a null move).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Pos(pub u16);

impl Pos {
    pub const NONE: Pos = Pos(u16::MAX);

    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }

    #[inline]
    pub fn is_none(self) -> bool {
        self == Pos::NONE
    }
}

/// Why a board could not be made or a stone not placed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BoardError {
    UnsupportedSize {
        width: usize,
        height: usize,
    },
    OffBoard(Coord),
    Occupied(Coord),
    /// A move list that is not "pos" notation (the text as given).
    BadMoves(String),
}

impl fmt::Display for BoardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BoardError::UnsupportedSize { width, height } => write!(
                f,
                "unsupported board size {width}x{height} (sides must be {MIN_SIZE} to {MAX_SIZE})"
            ),
            BoardError::OffBoard(c) => write!(f, "{c} is off the board"),
            BoardError::Occupied(c) => write!(f, "{c} is already occupied"),
            BoardError::BadMoves(text) => {
                write!(f, "bad moves {text:?} (pos notation, e.g. h8h9i10)")
            }
        }
    }
}

impl std::error::Error for BoardError {}

/// Zobrist keys for every padded cell and colour, from a fixed seed so hashes (and with
/// them the search) are the same on every run.
static ZOBRIST: Lazy<Box<[[u64; 2]]>> = Lazy::new(|| {
    let mut state = 0x5745_5a49_0000_0001u64; // "WUZI" and a one: any fixed seed will do
    let mut next = || {
        // splitmix64: tiny, well mixed, and stable across crate versions.
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    (0..MAX_CELLS).map(|_| [next(), next()]).collect()
});

/// The index offsets of the 5×5 square around a cell on a grid of width `stride`, the
/// centre excluded. Two cells is within the wall border, so no offset leaves the grid.
fn square_offsets(stride: isize) -> [isize; 24] {
    let mut out = [0; 24];
    let mut i = 0;
    for dy in -2..=2isize {
        for dx in -2..=2isize {
            if dx != 0 || dy != 0 {
                out[i] = dy * stride + dx;
                i += 1;
            }
        }
    }
    out
}

/// Added to a stone's own `nearby` byte: the top bit, above any count (24 at most).
const OCCUPIED: u8 = 0x80;

/// Key toggled by a null move (a fixed odd constant; any value unlike the cell keys).
const PASS_KEY: u64 = 0x9d3f_71a2_c46b_e015;

/// Values per cell key ([`pattern::cell_key`]) that the board sums over its empty cells:
/// `tables[owner][owner_to_move]`, the learned evaluation's cell tables spread over keys.
/// The evaluation fills them; the board only keeps the sums exact.
pub struct CellValues {
    pub tables: [[Box<[i16]>; 2]; 2],
}

impl CellValues {
    /// Every value zero.
    pub fn zero() -> CellValues {
        CellValues {
            tables: std::array::from_fn(|_| {
                std::array::from_fn(|_| vec![0; CELL_KEY_COUNT].into_boxed_slice())
            }),
        }
    }

    #[inline(always)]
    fn get(&self, owner: usize, owner_to_move: usize, key: usize) -> i32 {
        i32::from(self.tables[owner][owner_to_move][key])
    }
}

static ZERO_CELL_VALUES: Lazy<CellValues> = Lazy::new(CellValues::zero);

/// The per-cell class of each line for each colour: `[color][direction]`.
pub type CellPatterns = [[Pattern; 4]; 2];

#[derive(Clone)]
pub struct Board {
    width: usize,
    height: usize,
    rule: Rule,
    table: &'static PatternTable,
    /// Padded grid width: also the step of the vertical direction.
    stride: usize,
    /// Index step of each line direction: horizontal, vertical, diagonal, anti-diagonal.
    steps: [isize; 4],
    cells: Grid<Cell>,
    /// Per cell and line, the neighbours as a line code (stones within the rule's reach,
    /// see [`reach_of`]). Kept for empty cells only: an occupied cell's codes are those of
    /// when it was played (see `update_lines`).
    codes: Grid<[u32; 4]>,
    patterns: Grid<CellPatterns>,
    pattern_counts: [[u32; Pattern::COUNT]; 2],
    /// Per cell and colour, the `COMBO_CODE` sum of its four line classes (kept for
    /// empty cells, stale under stones like `patterns`).
    combo_sums: Grid<[u16; 2]>,
    /// Per colour, the kind table of the rule (renju black counts no double three).
    combo_kinds: [&'static [u8; COMBO_SUMS]; 2],
    /// Per colour, how many empty cells make each combination kind (`combo::*`).
    combo_counts: [[u32; combo::COUNT]; 2],
    /// The cell values summed (see [`CellValues`]).
    cell_values: &'static CellValues,
    /// `value_sums[owner][owner_to_move]`: the cell values of every empty cell.
    value_sums: [[i32; 2]; 2],
    /// The plies whose undo records hold value sums of `cell_values` start here: the
    /// stones below were placed while other tables were summed, so taking one back
    /// recomputes the sums instead of restoring them.
    values_from: usize,
    /// Per stone in `history` (same index): what its placement overwrote, so undo
    /// restores it instead of recomputing (no pattern table lookups on undo).
    undo_records: UndoRecords,
    /// Index offsets of the cells within reach along the four lines, in `LINE_DIRS`
    /// order.
    line_offsets: [isize; LINE_CELLS],
    /// How many of those a move updates (see [`reach_of`]).
    line_cells: usize,
    /// For every cell, the stones within two cells in both directions (a 5×5 square):
    /// the cells where moves are worth considering. A stone's own cell also holds
    /// `OCCUPIED`, so that a byte from 1 to 127 marks an empty cell near a stone.
    nearby: Grid<u8>,
    /// Index offsets of the 5×5 square around a cell (centre excluded).
    square: [isize; 24],
    stone_counts: [usize; 2],
    hash: u64,
    side_to_move: Color,
    /// Null moves (passes) in force: each flips the side to move without a stone.
    passes: u32,
    history: Vec<Pos>,
    /// How many [`Board::pause_search_extras`] are in force (they nest); while any is,
    /// placements leave the combination state and `nearby` as they were.
    extras_paused: u32,
    /// The history's length when the outermost pause began: no stone below it may be
    /// taken back while paused, or its undo record would not match.
    paused_at: usize,
}

impl Board {
    /// An empty `width` × `height` board. Sides from 5 to 32.
    pub fn new(width: usize, height: usize, rule: Rule) -> Result<Board, BoardError> {
        if !(MIN_SIZE..=MAX_SIZE).contains(&width) || !(MIN_SIZE..=MAX_SIZE).contains(&height) {
            return Err(BoardError::UnsupportedSize { width, height });
        }
        let stride = width + 2 * HALF_LINE;
        let cell_count = stride * (height + 2 * HALF_LINE);
        let s = stride as isize;
        let steps = [1, s, s + 1, s - 1];
        let mut board = Board {
            width,
            height,
            rule,
            table: pattern::table(rule),
            stride,
            steps,
            cells: grid(Cell::Wall),
            codes: grid([0; 4]),
            patterns: grid([[Pattern::Dead; 4]; 2]),
            pattern_counts: [[0; Pattern::COUNT]; 2],
            combo_sums: grid([0; 2]),
            combo_kinds: if rule == Rule::Renju {
                [&COMBO_KINDS[1], &COMBO_KINDS[0]]
            } else {
                [&COMBO_KINDS[0], &COMBO_KINDS[0]]
            },
            combo_counts: [[0; combo::COUNT]; 2],
            cell_values: &ZERO_CELL_VALUES,
            value_sums: [[0; 2]; 2],
            values_from: 0,
            undo_records: UndoRecords::default(),
            line_offsets: std::array::from_fn(|i| LINE_STEPS[i] * steps[LINE_DIRS[i]]),
            line_cells: if reach_of(rule) < HALF_LINE {
                NEAR_LINE_CELLS
            } else {
                LINE_CELLS
            },
            nearby: grid(0),
            square: square_offsets(s),
            stone_counts: [0; 2],
            hash: 0,
            side_to_move: Color::Black,
            passes: 0,
            history: Vec::with_capacity(width * height),
            extras_paused: 0,
            paused_at: 0,
        };
        for y in 0..height {
            for x in 0..width {
                let p = board.pos_unchecked(x as i32, y as i32);
                board.cells[p.index()] = Cell::Empty;
            }
        }
        for i in 0..cell_count {
            for d in 0..4 {
                board.codes[i][d] = board.compute_code(Pos(i as u16), d);
            }
        }
        let all: Vec<Pos> = board.positions().collect();
        for p in all {
            board.refresh_patterns(p);
            board.count_patterns::<true>(p, 1);
        }
        Ok(board)
    }

    /// A `size` × `size` board of `rule` after `moves` in "pos" notation (`h8h9i10`,
    /// black first), each played for the side to move as [`Board::play`] does: the
    /// positions of tests, benchmarks, puzzle files and command lines.
    pub fn from_moves(size: usize, rule: Rule, moves: &str) -> Result<Board, BoardError> {
        let coords = parse_pos_sequence(moves).ok_or_else(|| BoardError::BadMoves(moves.into()))?;
        Board::from_coords(size, rule, &coords)
    }

    /// [`Board::from_moves`] from coordinates.
    pub fn from_coords(size: usize, rule: Rule, moves: &[Coord]) -> Result<Board, BoardError> {
        let mut board = Board::new(size, size, rule)?;
        for &c in moves {
            board.play(c)?;
        }
        Ok(board)
    }

    pub fn width(&self) -> usize {
        self.width
    }
    pub fn height(&self) -> usize {
        self.height
    }
    pub fn rule(&self) -> Rule {
        self.rule
    }
    pub fn side_to_move(&self) -> Color {
        self.side_to_move
    }
    pub fn move_count(&self) -> usize {
        self.history.len()
    }
    pub fn is_full(&self) -> bool {
        self.history.len() == self.width * self.height
    }
    /// The Zobrist key of the stones on the board.
    pub fn hash(&self) -> u64 {
        self.hash
    }
    /// The key [`Self::hash`] will have once the side to move plays the empty cell `p`.
    pub fn hash_after(&self, p: Pos) -> u64 {
        self.hash ^ ZOBRIST[p.index()][self.side_to_move.index()]
    }
    /// The stones in the order they were placed.
    pub fn history(&self) -> &[Pos] {
        &self.history
    }
    pub fn last_move(&self) -> Option<Pos> {
        self.history.last().copied()
    }
    /// Index step of direction `dir` (0 horizontal, 1 vertical, 2 diagonal, 3 anti-diagonal).
    #[inline]
    pub fn step(&self, dir: usize) -> isize {
        self.steps[dir]
    }
    /// Number of cells in the padded grid (the range of `Pos` indices).
    pub fn cell_count(&self) -> usize {
        self.stride * (self.height + 2 * HALF_LINE)
    }

    // ---- coordinates ----

    pub fn contains(&self, c: Coord) -> bool {
        c.x >= 0 && c.y >= 0 && (c.x as usize) < self.width && (c.y as usize) < self.height
    }

    #[inline]
    fn pos_unchecked(&self, x: i32, y: i32) -> Pos {
        Pos(((y as usize + HALF_LINE) * self.stride + x as usize + HALF_LINE) as u16)
    }

    /// The cell at `c`, or `None` off the board.
    pub fn pos(&self, c: Coord) -> Option<Pos> {
        self.contains(c).then(|| self.pos_unchecked(c.x, c.y))
    }

    pub fn coord(&self, p: Pos) -> Coord {
        let i = p.index();
        Coord::new(
            (i % self.stride) as i32 - HALF_LINE as i32,
            (i / self.stride) as i32 - HALF_LINE as i32,
        )
    }

    /// Every board cell, row by row.
    pub fn positions(&self) -> impl Iterator<Item = Pos> + '_ {
        (0..self.height)
            .flat_map(move |y| (0..self.width).map(move |x| self.pos_unchecked(x as i32, y as i32)))
    }

    /// Calls `f` on the empty cells, row by row, where `color` makes `least` or better on
    /// some line, with their four classes for `color`, until `f` breaks. One tight pass
    /// over the grid: most cells make nothing, and they cost a few instructions each here.
    /// The pass ends at the last such cell: the pattern counters tell how many (empty
    /// cell, line) pairs there are to find, and the threat search's scans mostly look for
    /// a handful of fours or threes, or for five points where there are none.
    pub fn for_cells_making(
        &self,
        color: Color,
        least: Pattern,
        mut f: impl FnMut(Pos, [Pattern; 4]) -> ControlFlow<()>,
    ) {
        debug_assert!(
            least >= self.least_counted(),
            "{least:?} scanned while not counted"
        );
        let mut left: u32 = self.pattern_counts[color.index()][least as usize..]
            .iter()
            .sum();
        if left == 0 {
            return;
        }
        self.scan_rows(|q| {
            let lines = self.patterns[q][color.index()];
            if self.cells[q] != Cell::Empty || !pattern::any_at_least(&lines, least) {
                return ControlFlow::Continue(());
            }
            left -= pattern::count_at_least(&lines, least);
            if f(Pos(q as u16), lines).is_break() || left == 0 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
    }

    /// Calls `f` on the empty cells, row by row, with a stone within two cells (see
    /// [`Self::stones_nearby`]). Eight cells are tested at a time, as the bytes of a word
    /// of `nearby`: a run of far or occupied cells costs one test.
    pub fn for_cells_near_stones(&self, mut f: impl FnMut(Pos)) {
        debug_assert!(self.extras_exact(), "search extras read while paused");
        const LOW7: u64 = u64::from_ne_bytes([0x7f; 8]);
        const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
        for y in 0..self.height {
            let start = self.pos_unchecked(0, y as i32).index();
            for x in (0..self.width).step_by(8) {
                let q = start + x;
                // Rows are followed by wall cells, so a word never leaves the grid; the
                // bytes past the row's end are masked off below.
                let Some(bytes) = self.nearby[q..].first_chunk::<8>() else {
                    return;
                };
                let word = u64::from_le_bytes(*bytes);
                // Top bit of each byte: nonzero (a stone near), and not `OCCUPIED`.
                let mut near = (((word & LOW7) + LOW7) | word) & !word & HIGH;
                let in_row = self.width - x;
                if in_row < 8 {
                    near &= (1u64 << (8 * in_row)) - 1;
                }
                while near != 0 {
                    f(Pos((q + near.trailing_zeros() as usize / 8) as u16));
                    near &= near - 1;
                }
            }
        }
    }

    /// Calls `f` with the [`slot`] of every board cell, row by row, until it breaks.
    #[inline(always)]
    fn scan_rows(&self, mut f: impl FnMut(usize) -> ControlFlow<()>) {
        for y in 0..self.height {
            let start = self.pos_unchecked(0, y as i32).index();
            for q in start..start + self.width {
                if f(slot(q)).is_break() {
                    return;
                }
            }
        }
    }

    /// The cell `k` steps from `p` along `dir` (may be a wall cell for |k| ≤ 5).
    #[inline]
    pub fn offset(&self, p: Pos, dir: usize, k: isize) -> Pos {
        Pos((p.0 as isize + k * self.steps[dir]) as u16)
    }

    /// The 32 cells within four of `p` on its four lines (wall cells included), line by
    /// line from -4 to +4: where a stone on `p` can have made new five points.
    pub fn cells_on_lines(&self, p: Pos) -> [Pos; 32] {
        // Eight cells a line: offsets -4..-1 and 1..4.
        std::array::from_fn(|i| {
            let (dir, k) = (i / 8, (i % 8) as isize - 4);
            self.offset(p, dir, if k >= 0 { k + 1 } else { k })
        })
    }

    // ---- cell queries ----

    #[inline]
    pub fn cell(&self, p: Pos) -> Cell {
        self.cells[p.index()]
    }

    #[inline]
    pub fn is_empty(&self, p: Pos) -> bool {
        self.cells[p.index()] == Cell::Empty
    }

    /// The stone at `c`; `None` when empty or off the board.
    pub fn stone_at(&self, c: Coord) -> Option<Color> {
        match self.pos(c).map(|p| self.cell(p)) {
            Some(Cell::Black) => Some(Color::Black),
            Some(Cell::White) => Some(Color::White),
            _ => None,
        }
    }

    /// The class `color` makes on line `dir` by playing the empty cell `p`.
    #[inline]
    pub fn pattern(&self, p: Pos, color: Color, dir: usize) -> Pattern {
        self.patterns[p.index()][color.index()][dir]
    }

    /// The class `color` would make on line `dir` by playing the empty cell `p` if a stone
    /// of `stone` also stood on the empty cell `k` cells (1 ≤ |k| ≤ the rule's reach, see
    /// [`reach_of`]) from `p` along that line: one table lookup, no move made.
    #[inline]
    pub fn pattern_with_stone(
        &self,
        p: Pos,
        color: Color,
        dir: usize,
        k: i32,
        stone: Color,
    ) -> Pattern {
        let bits = (Cell::stone(stone) as u32) << slot_shift(k);
        self.table.lookup(self.codes[p.index()][dir] | bits)[color.index()]
    }

    /// All four line classes of an empty cell for both colours.
    #[inline]
    pub fn cell_patterns(&self, p: Pos) -> &CellPatterns {
        &self.patterns[p.index()]
    }

    /// The four line classes the stone on `p` made, for both colours, when it was
    /// played: a placement updates the empty cells along its lines only, and undo takes
    /// stones back last in, first out, so an occupied cell keeps the classes it had as
    /// the last empty state before its stone.
    #[inline]
    pub fn classes_when_played(&self, p: Pos) -> &CellPatterns {
        debug_assert!(!self.is_empty(p), "classes_when_played of an empty cell");
        &self.patterns[p.index()]
    }

    /// The class on line `dir` through `p` as if `color` stood on `p`, whatever `p` holds
    /// now (used to inspect lines through placed stones).
    #[inline]
    pub fn line_class(&self, p: Pos, color: Color, dir: usize) -> Pattern {
        self.table.lookup(self.line_code(p, dir))[color.index()]
    }

    /// The line code of `p` along `dir` (see `pattern`), as [`Self::compute_code`] reads it.
    /// An occupied cell's stored codes are those of when it was played (see
    /// `update_lines`), so its code is read from the cells.
    #[inline]
    pub fn line_code(&self, p: Pos, dir: usize) -> u32 {
        if self.is_empty(p) {
            self.codes[p.index()][dir]
        } else {
            self.compute_code(p, dir)
        }
    }

    /// How many (empty cell, line) pairs give `color` the class `class`. While the
    /// search extras are paused, only for a three or better (see [`COUNTED_WHEN_PAUSED`]).
    #[inline]
    pub fn pattern_count(&self, color: Color, class: Pattern) -> u32 {
        debug_assert!(
            class >= self.least_counted(),
            "{class:?} read while not counted"
        );
        self.pattern_counts[color.index()][class as usize]
    }

    /// Empty cells where `color` makes a four together with an open three or a second
    /// four on other lines (a four-three or four-four point), with no open four, double
    /// four or five on any line of the cell.
    #[inline]
    pub fn four_three_cells(&self, color: Color) -> u32 {
        debug_assert!(self.extras_exact(), "search extras read while paused");
        let counts = &self.combo_counts[color.index()];
        counts[combo::FOUR_THREE] + counts[combo::FOUR_FOUR]
    }

    /// Empty cells where `color` makes two or more open threes and no four (renju black:
    /// always 0, its double threes are forbidden).
    #[inline]
    pub fn double_three_cells(&self, color: Color) -> u32 {
        debug_assert!(self.extras_exact(), "search extras read while paused");
        self.combo_counts[color.index()][combo::DOUBLE_THREE]
    }

    /// Empty cells where `color` makes a winning four (an open four, a double four or
    /// fours on two lines) and no five: `movegen::threat_of` is `WinningFour` there.
    /// Renju forbidden points are not excluded.
    #[inline]
    pub fn winning_four_cells(&self, color: Color) -> u32 {
        debug_assert!(self.extras_exact(), "search extras read while paused");
        let counts = &self.combo_counts[color.index()];
        counts[combo::FOUR_FOUR] + counts[combo::BIG_FOUR]
    }

    /// Of the winning-four cells, those with an open four or a double four on one line
    /// (the others make fours on two lines).
    #[inline]
    pub fn big_four_cells(&self, color: Color) -> u32 {
        debug_assert!(self.extras_exact(), "search extras read while paused");
        self.combo_counts[color.index()][combo::BIG_FOUR]
    }

    /// Stones within two cells of `p` (in both directions).
    #[inline]
    pub fn stones_nearby(&self, p: Pos) -> u8 {
        debug_assert!(self.extras_exact(), "search extras read while paused");
        self.nearby[p.index()] & !OCCUPIED
    }

    /// True when `color` has a cell that makes five on some line.
    #[inline]
    pub fn has_five_point(&self, color: Color) -> bool {
        self.pattern_count(color, Pattern::Five) > 0
    }

    /// The cell values of `owner` summed over the empty cells, from the table for when
    /// `owner` is (or is not) the side to move.
    #[inline]
    pub fn cell_value_sum(&self, owner: Color, owner_to_move: bool) -> i32 {
        debug_assert!(self.extras_exact(), "search extras read while paused");
        self.value_sums[owner.index()][usize::from(owner_to_move)]
    }

    /// The tables whose sums the board keeps.
    pub fn cell_values(&self) -> &'static CellValues {
        self.cell_values
    }

    /// Sums `values` from now on (recomputing the sums over the board when they are not
    /// the tables in use already). The stones on the board may be taken back afterwards;
    /// not while the search extras are paused, whose placements leave the sums alone.
    pub fn set_cell_values(&mut self, values: &'static CellValues) {
        debug_assert!(self.extras_exact(), "cell values set while paused");
        if std::ptr::eq(self.cell_values, values) {
            return;
        }
        self.cell_values = values;
        self.value_sums = self.compute_value_sums();
        self.values_from = self.history.len();
    }
}

impl fmt::Display for Board {
    /// A diagram: `X` black, `O` white, `.` empty, with the last move in brackets.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for y in 0..self.height as i32 {
            for x in 0..self.width as i32 {
                let p = self.pos_unchecked(x, y);
                let ch = match self.cell(p) {
                    Cell::Black => 'X',
                    Cell::White => 'O',
                    _ => '.',
                };
                if self.last_move() == Some(p) {
                    write!(f, "[{ch}]")?;
                } else {
                    write!(f, " {ch} ")?;
                }
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_outside_5_to_32_are_refused() {
        assert!(Board::new(4, 15, Rule::Freestyle).is_err());
        assert!(Board::new(15, 33, Rule::Freestyle).is_err());
        assert!(Board::new(5, 32, Rule::Freestyle).is_ok());
        assert!(Board::new(32, 32, Rule::Renju).is_ok());
    }

    #[test]
    fn coordinates_round_trip_on_rectangular_boards() {
        let b = Board::new(20, 7, Rule::Freestyle).unwrap();
        for p in b.positions() {
            assert_eq!(b.pos(b.coord(p)), Some(p));
        }
        assert_eq!(b.positions().count(), 140);
        assert!(b.pos(Coord::new(20, 0)).is_none());
        assert!(b.pos(Coord::new(0, 7)).is_none());
        assert!(b.pos(Coord::new(-1, 0)).is_none());
    }

    /// The key announced before a move is the key after it, for either side to move,
    /// after a pass too (the search prefetches the child's table slot with it).
    #[test]
    fn the_key_after_a_move_is_known_before_it() {
        let mut b = Board::new(15, 15, Rule::Freestyle).unwrap();
        for (i, p) in b
            .positions()
            .step_by(7)
            .take(20)
            .collect::<Vec<_>>()
            .into_iter()
            .enumerate()
        {
            if i == 9 {
                b.make_null();
            }
            let announced = b.hash_after(p);
            b.make(p);
            assert_eq!(b.hash(), announced, "move {i}");
        }
    }

    #[test]
    fn play_refuses_bad_cells_and_alternates_colours() {
        let mut b = Board::new(15, 15, Rule::Freestyle).unwrap();
        b.play(Coord::new(7, 7)).unwrap();
        assert_eq!(b.stone_at(Coord::new(7, 7)), Some(Color::Black));
        assert_eq!(b.side_to_move(), Color::White);
        assert_eq!(
            b.play(Coord::new(7, 7)),
            Err(BoardError::Occupied(Coord::new(7, 7)))
        );
        assert_eq!(
            b.play(Coord::new(15, 0)),
            Err(BoardError::OffBoard(Coord::new(15, 0)))
        );
        assert_eq!(b.move_count(), 1);
        b.undo();
        assert_eq!(b.stone_at(Coord::new(7, 7)), None);
        assert_eq!(b.side_to_move(), Color::Black);
        assert_eq!(b.hash(), 0);
    }

    #[test]
    fn from_moves_plays_pos_notation_and_reports_what_is_wrong() {
        let b = Board::from_moves(15, Rule::Renju, "h8i9h9").unwrap();
        assert_eq!(b.rule(), Rule::Renju);
        assert_eq!(b.move_count(), 3);
        assert_eq!(b.stone_at(Coord::new(7, 8)), Some(Color::Black));
        assert_eq!(b.stone_at(Coord::new(8, 8)), Some(Color::White));
        assert_eq!(b.side_to_move(), Color::White);
        assert_eq!(
            Board::from_moves(9, Rule::Freestyle, "")
                .unwrap()
                .move_count(),
            0
        );
        assert_eq!(
            Board::from_moves(15, Rule::Freestyle, "h8h8").err(),
            Some(BoardError::Occupied(Coord::new(7, 7)))
        );
        assert_eq!(
            Board::from_moves(9, Rule::Freestyle, "h8p15").err(),
            Some(BoardError::OffBoard(Coord::new(15, 14)))
        );
        assert_eq!(
            Board::from_moves(15, Rule::Freestyle, "8h").err(),
            Some(BoardError::BadMoves("8h".into()))
        );
        assert!(matches!(
            Board::from_moves(4, Rule::Freestyle, "a1"),
            Err(BoardError::UnsupportedSize { .. })
        ));
    }

    /// A 15x15 freestyle board after `moves` (x, y), black first.
    fn freestyle_after(moves: &[(i32, i32)]) -> Board {
        let coords: Vec<Coord> = moves.iter().map(|&(x, y)| Coord::new(x, y)).collect();
        Board::from_coords(15, Rule::Freestyle, &coords).unwrap()
    }

    #[test]
    fn a_line_of_four_gives_five_points() {
        let b = freestyle_after(&[(3, 7), (3, 0), (4, 7), (4, 0), (5, 7), (5, 0), (6, 7)]);
        let left = b.pos(Coord::new(2, 7)).unwrap();
        let right = b.pos(Coord::new(7, 7)).unwrap();
        assert_eq!(b.pattern(left, Color::Black, 0), Pattern::Five);
        assert_eq!(b.pattern(right, Color::Black, 0), Pattern::Five);
        assert_eq!(b.pattern_count(Color::Black, Pattern::Five), 2);
        assert!(!b.has_five_point(Color::White));
        b.verify_incremental_state().unwrap();
    }

    #[test]
    fn a_placed_stone_sees_the_stones_played_after_it_on_its_lines() {
        // Black d8 first, then black e8 f8 g8 beside it (white far off): through d8 the
        // row reads as an open four, c8 and h8 empty.
        let mut b = freestyle_after(&[(3, 7), (3, 0), (4, 7), (5, 0), (5, 7), (7, 0), (6, 7)]);
        let d8 = b.pos(Coord::new(3, 7)).unwrap();
        assert_eq!(b.line_class(d8, Color::Black, 0), Pattern::OpenFour);
        // White h8 closes one end.
        b.play(Coord::new(7, 7)).unwrap();
        assert_eq!(b.line_class(d8, Color::Black, 0), Pattern::Four);
        // Taken back, the row is open again, and d8 emptied reads as before it was played.
        b.undo();
        assert_eq!(b.line_class(d8, Color::Black, 0), Pattern::OpenFour);
        while b.move_count() > 0 {
            b.undo();
        }
        assert_eq!(b.line_class(d8, Color::Black, 0), Pattern::One);
        b.verify_incremental_state().unwrap();
    }
}
