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

use crate::pattern::{
    self, cell_key, slot_shift, Cell, Pattern, PatternTable, CELL_KEY_COUNT, CELL_KEY_DIGIT,
    HALF_LINE,
};
use crate::types::{parse_pos_sequence, Color, Coord, Rule};
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

/// A cell's lines that can combine, as one small sum per cell and colour: open threes in
/// bits 0..3, fours in bits 3..6, open and double fours in bits 6..9, fives in bits 9..12
/// (four lines at most, so no field overflows into the next). Adding and removing one
/// line's class is one subtraction and one addition, cheap enough for make/undo.
const COMBO_CODE: [u16; Pattern::COUNT] = [
    0,      // Dead
    0,      // Overline
    0,      // One
    0,      // Two
    0,      // OpenTwo
    0,      // Three
    1,      // OpenThree
    1 << 3, // Four
    1 << 6, // OpenFour
    1 << 6, // DoubleFour
    1 << 9, // Five
];
/// Number of distinct combination sums (the table size of a kind lookup).
const COMBO_SUMS: usize = 1 << 12;

/// What one colour's lines make together on an empty cell, for the counters. The kinds
/// are exclusive; the queries below add up the ones they need.
mod combo {
    /// Nothing counted (also any cell with a five: a five is counted by its class).
    pub const NONE: usize = 0;
    /// A four and one or more open threes on other lines.
    pub const FOUR_THREE: usize = 1;
    /// Two or more fours on different lines (and no open or double four, no five).
    pub const FOUR_FOUR: usize = 2;
    /// Two or more open threes and no four (never counted for renju black, whose double
    /// threes are forbidden).
    pub const DOUBLE_THREE: usize = 3;
    /// An open four or a double four on one line, no five.
    pub const BIG_FOUR: usize = 4;
    pub const COUNT: usize = 5;
}

/// The combination kind of every sum; `double_threes` is false for renju black.
fn combo_kinds(double_threes: bool) -> Box<[u8; COMBO_SUMS]> {
    let mut kinds = Box::new([combo::NONE as u8; COMBO_SUMS]);
    for (sum, kind) in kinds.iter_mut().enumerate() {
        let (threes, fours, big, fives) = (sum & 7, (sum >> 3) & 7, (sum >> 6) & 7, sum >> 9);
        *kind = if fives > 0 {
            combo::NONE
        } else if big > 0 {
            combo::BIG_FOUR
        } else if fours >= 2 {
            combo::FOUR_FOUR
        } else if fours == 1 && threes >= 1 {
            combo::FOUR_THREE
        } else if fours == 0 && threes >= 2 && double_threes {
            combo::DOUBLE_THREE
        } else {
            combo::NONE
        } as u8;
    }
    kinds
}

/// Kind tables: `[0]` counts double threes, `[1]` does not (renju black).
static COMBO_KINDS: Lazy<[Box<[u8; COMBO_SUMS]>; 2]> =
    Lazy::new(|| [combo_kinds(true), combo_kinds(false)]);

/// Cells whose line code a move changes: `HALF_LINE` on each side along four lines.
const LINE_CELLS: usize = 8 * HALF_LINE;
/// Of those, the ones within `HALF_LINE - 1` of the move, which come first in the order
/// below. The cells five away matter only where a five must be exact or unblocked (an
/// overline or a blocked five does not win): freestyle leaves them out (see
/// [`reach_of`]).
const NEAR_LINE_CELLS: usize = 8 * (HALF_LINE - 1);
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
const LINE_DIRS: [usize; LINE_CELLS] = {
    let mut out = [0; LINE_CELLS];
    let mut i = 0;
    while i < LINE_CELLS {
        out[i] = line_cell(i).0;
        i += 1;
    }
    out
};
const LINE_STEPS: [isize; LINE_CELLS] = {
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
struct UndoRecord {
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
struct UndoRecords {
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
    /// the tables in use already).
    pub fn set_cell_values(&mut self, values: &'static CellValues) {
        if std::ptr::eq(self.cell_values, values) {
            return;
        }
        self.cell_values = values;
        self.value_sums = self.compute_value_sums();
    }

    /// The cell-value sums recomputed from every empty cell's classes.
    fn compute_value_sums(&self) -> [[i32; 2]; 2] {
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

    // ---- make / undo ----

    /// Leaves the state only the main search reads as it is until the matching
    /// [`Self::resume_search_extras`]: the combination sums and counters (read by
    /// [`Self::four_three_cells`] and its kin) and the nearby counts (read by
    /// [`Self::stones_nearby`] and [`Self::for_cells_near_stones`]), which must not be
    /// read meanwhile. Placements then cost less: the threat-space search, which reads
    /// neither, pauses them while it runs, and took about 10% less time for it (bench VCT
    /// mean 86.9 -> 79.2 us; the 18 slowest orientation win puzzles 6.9 -> 6.2 s), while
    /// the main search's placements kept their speed. Pauses nest. Every stone placed
    /// while paused must be taken back before the outermost pause ends, and no stone
    /// placed before it.
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
    fn least_counted(&self) -> Pattern {
        if self.extras_exact() {
            Pattern::Dead
        } else {
            COUNTED_WHEN_PAUSED
        }
    }

    /// Whether the search extras are exact (no pause in force).
    #[inline]
    fn extras_exact(&self) -> bool {
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
        } else {
            debug_assert!(self.history.len() >= self.paused_at, "undo past a pause");
            self.restore_lines_paused(p);
        }
        self.side_to_move = self.side_after_counts();
        self.debug_check();
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

    /// Undoes `update_lines` for the stone taken back from `p` (already off the history):
    /// `p`'s own classes and sums were left as they were when it was empty, and are right
    /// again now; the cells along its lines and the counters come back from the record.
    /// `EXTRAS` as in `update_lines`.
    ///
    /// Every cell within reach is restored, occupied or not, with no test of the cell: a
    /// wall's codes never change, and a stone was played before `p` (undo is last in,
    /// first out), so the codes of both already hold `p`'s slot empty, and the record
    /// gives their classes back as they are.
    /// Without the test's mispredicted branch the threat search's undo costs less (bench
    /// VCT mean 82 -> 73 us, the 18 slowest orientation win puzzles 6.3 -> 5.8 s).
    #[inline(always)]
    fn restore_lines<const EXTRAS: bool>(&mut self, p: Pos) {
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
    fn update_lines<const EXTRAS: bool>(&mut self, p: Pos, bits: u32) {
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
            // from the cells. The bench searched 8% fewer instructions than with every
            // cell updated, and the threat search took 12-15% less time on the puzzles.
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
    fn refresh_patterns(&mut self, p: Pos) {
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
    fn count_patterns<const EXTRAS: bool>(&mut self, p: Pos, sign: i32) {
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

    // ---- recomputation from scratch (construction, tests, debug checks) ----

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
    fn debug_check(&self) {
        #[cfg(feature = "paranoid")]
        if let Err(e) = self.verify_incremental_state() {
            panic!("incremental board state corrupt: {e}");
        }
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
