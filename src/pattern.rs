//! Line patterns: what a stone played on a cell makes along one line, for one colour.
//!
//! A cell's *line code* describes the ten cells around it on one line: five on each side
//! (`HALF_LINE` = 5), two bits each. Five on each side is exactly what the rules need: a
//! five through the centre lies within four cells of it, and the fifth cell on each side
//! tells an exact five from an overline (standard, renju) and a blocked five (caro).
//!
//! The classes are defined recursively on that line — "a four is a line where one more
//! stone makes five", "an open three is one where one more stone makes an open four" —
//! by [`reference`], a short classifier written for reading. The lookup tables used by
//! the board are filled from it once per rule, on first use (`once_cell`), and the tests
//! compare every line code of every rule against it.

use crate::types::{Color, Rule};
use once_cell::sync::OnceCell;

/// Cells on each side of the centre that a line code covers.
pub const HALF_LINE: usize = 5;
/// Cells in a line window: both halves and the centre.
pub const LINE_LEN: usize = 2 * HALF_LINE + 1;
/// Number of distinct line codes (10 neighbours × 2 bits).
pub const CODE_COUNT: usize = 1 << (4 * HALF_LINE);

/// The state of one cell as it appears in a line code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Cell {
    Empty = 0,
    Black = 1,
    White = 2,
    /// Off the board. A wall stops a line but, unlike a stone, never "blocks" a caro five.
    Wall = 3,
}

impl Cell {
    #[inline]
    pub fn stone(color: Color) -> Cell {
        match color {
            Color::Black => Cell::Black,
            Color::White => Cell::White,
        }
    }

    #[inline]
    pub fn from_bits(bits: u32) -> Cell {
        match bits & 3 {
            0 => Cell::Empty,
            1 => Cell::Black,
            2 => Cell::White,
            _ => Cell::Wall,
        }
    }
}

/// The bit position, in a line code, of the neighbour at `offset` (−5..=−1, 1..=5) from
/// the centre. Offsets −5..−1 take slots 0..4, offsets 1..5 take slots 5..9.
#[inline]
pub const fn slot_shift(offset: i32) -> u32 {
    let slot = if offset < 0 {
        offset + HALF_LINE as i32
    } else {
        offset + HALF_LINE as i32 - 1
    };
    2 * slot as u32
}

/// What one colour makes on one line by playing the centre cell, weakest first.
/// Diagrams: `X` own stone, `o` opponent stone, `|` wall, `.` empty, `[.]` the centre.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Pattern {
    /// No five can ever be made through the centre on this line.
    /// `o X [.] X X o`
    Dead = 0,
    /// Playing here makes six or more in a row, which does not win under the rule in
    /// force (standard and caro for both colours, renju for black, where it is forbidden).
    /// `X X [.] X X X`
    Overline,
    /// One stone that can still grow into a two.
    /// `. . . . [.] . . . .`
    One,
    /// Two that one more stone turns into a (closed) three.
    /// `o X [.] . . .`
    Two,
    /// Two that one more stone turns into an open three.
    /// `. . X [.] . .`
    OpenTwo,
    /// Three that one more stone turns into a four, but not into an open four.
    /// `o X X [.] . .`
    Three,
    /// Three that one more stone turns into an open (straight) four.
    /// `. . X X [.] . .`   or the broken `. X [.] . X .`
    OpenThree,
    /// Exactly one empty cell makes five.
    /// `o X X X [.] .`   or `X X [.] . X`
    Four,
    /// A straight four: four in a row with both ends making five.
    /// `. X X X [.] .`
    OpenFour,
    /// Two different fours on one line (two five points that are not the ends of one
    /// straight four). Forbidden for renju black like any double four.
    /// `X . X [.] X . X`
    DoubleFour,
    /// Playing here wins under the rule in force.
    /// `X X [.] X X`
    Five,
}

impl Pattern {
    const ALL: [Pattern; 11] = [
        Pattern::Dead,
        Pattern::Overline,
        Pattern::One,
        Pattern::Two,
        Pattern::OpenTwo,
        Pattern::Three,
        Pattern::OpenThree,
        Pattern::Four,
        Pattern::OpenFour,
        Pattern::DoubleFour,
        Pattern::Five,
    ];
    pub const COUNT: usize = 11;

    #[inline]
    pub fn from_u8(v: u8) -> Pattern {
        Pattern::ALL[v as usize]
    }

    /// True for the classes with at least one five point (four, open four, double four).
    #[inline]
    pub fn is_four(self) -> bool {
        matches!(
            self,
            Pattern::Four | Pattern::OpenFour | Pattern::DoubleFour
        )
    }

    /// How many fours this class counts as for renju's double-four rule.
    #[inline]
    pub fn four_count(self) -> u32 {
        match self {
            Pattern::Four | Pattern::OpenFour => 1,
            Pattern::DoubleFour => 2,
            _ => 0,
        }
    }
}

/// Distinct cell keys: the four line classes one colour makes on a cell, in direction
/// order (see [`cell_key`]).
pub const CELL_KEY_COUNT: usize = Pattern::COUNT * Pattern::COUNT * Pattern::COUNT * Pattern::COUNT;

/// The weight of direction `dir`'s digit in a cell key: a change of one line's class
/// moves the key by `(new - old) * CELL_KEY_DIGIT[dir]`.
pub const CELL_KEY_DIGIT: [usize; 4] = [
    1,
    Pattern::COUNT,
    Pattern::COUNT * Pattern::COUNT,
    Pattern::COUNT * Pattern::COUNT * Pattern::COUNT,
];

/// The cell key of four line classes: the index learned per-cell tables are read with.
#[inline(always)]
pub fn cell_key(lines: &[Pattern; 4]) -> usize {
    lines[0] as usize
        + CELL_KEY_DIGIT[1] * lines[1] as usize
        + CELL_KEY_DIGIT[2] * lines[2] as usize
        + CELL_KEY_DIGIT[3] * lines[3] as usize
}

/// The top bit of each byte of the four classes (as the bytes of a word) set where the
/// class is `least` or better: each class is below 128, so adding `128 - least` to a
/// byte sets its top bit exactly then (and never carries into the next byte).
#[inline(always)]
fn at_least_bits(lines: &[Pattern; 4], least: Pattern) -> u32 {
    let bias = u32::from_ne_bytes([128 - least as u8; 4]);
    let word = u32::from_ne_bytes(lines.map(|l| l as u8));
    (word + bias) & 0x8080_8080
}

/// Whether some of the four classes is `least` or better, tested at once.
#[inline(always)]
pub fn any_at_least(lines: &[Pattern; 4], least: Pattern) -> bool {
    at_least_bits(lines, least) != 0
}

/// How many of the four classes are `least` or better.
#[inline(always)]
pub fn count_at_least(lines: &[Pattern; 4], least: Pattern) -> u32 {
    at_least_bits(lines, least).count_ones()
}

/// Whether a run of `length` stones of `color`, ended by `before` and `after`, wins.
/// Returns `Some(Five)` for a win, `Some(Overline)`/`Some(Dead)` for a run of five or
/// more that does not win, `None` for a run shorter than five.
fn judge_run(
    length: usize,
    color: Color,
    rule: Rule,
    before: Cell,
    after: Cell,
) -> Option<Pattern> {
    if length < 5 {
        return None;
    }
    let overline_wins = match rule {
        Rule::Freestyle => true,
        Rule::Renju => color == Color::White,
        Rule::Standard | Rule::Caro => false,
    };
    if length > 5 {
        return Some(if overline_wins {
            Pattern::Five
        } else {
            Pattern::Overline
        });
    }
    if rule == Rule::Caro {
        let opponent = Cell::stone(color.opponent());
        if before == opponent && after == opponent {
            // `o X X X X X o`: a blocked five does not win at caro.
            return Some(Pattern::Dead);
        }
    }
    Some(Pattern::Five)
}

/// The slow, readable definition of the pattern classes, on an explicit line of cells.
pub mod reference {
    use super::*;

    /// An explicit line window; index `HALF_LINE` is the centre.
    pub type Line = [Cell; LINE_LEN];

    /// Decodes a line code into a window with the centre filled by `center`.
    pub fn decode(code: u32, center: Cell) -> Line {
        let mut line = [Cell::Empty; LINE_LEN];
        for (i, cell) in line.iter_mut().enumerate() {
            let offset = i as i32 - HALF_LINE as i32;
            *cell = if offset == 0 {
                center
            } else {
                Cell::from_bits(code >> slot_shift(offset))
            };
        }
        line
    }

    /// Encodes a window's neighbours (the centre is not part of the code).
    pub fn encode(line: &Line) -> u32 {
        let mut code = 0;
        for (i, &cell) in line.iter().enumerate() {
            let offset = i as i32 - HALF_LINE as i32;
            if offset != 0 {
                code |= (cell as u32) << slot_shift(offset);
            }
        }
        code
    }

    /// The class of `line`, whose centre already holds a stone of `color`: what that stone
    /// makes on this line. `memo` caches classes by line code (the centre is implied);
    /// pass `None` to evaluate the definition directly.
    pub fn classify_placed(
        line: &Line,
        color: Color,
        rule: Rule,
        memo: Option<&mut Vec<u8>>,
    ) -> Pattern {
        let mut memo = memo;
        if let Some(m) = memo.as_deref_mut() {
            let cached = m[encode(line) as usize];
            if cached != UNKNOWN {
                return Pattern::from_u8(cached);
            }
        }
        let result = classify_uncached(line, color, rule, &mut memo);
        if let Some(m) = memo {
            m[encode(line) as usize] = result as u8;
        }
        result
    }

    const UNKNOWN: u8 = u8::MAX;

    /// A fresh memo for [`classify_placed`].
    pub fn new_memo() -> Vec<u8> {
        vec![UNKNOWN; CODE_COUNT]
    }

    fn classify_uncached(
        line: &Line,
        color: Color,
        rule: Rule,
        memo: &mut Option<&mut Vec<u8>>,
    ) -> Pattern {
        let own = Cell::stone(color);
        let c = HALF_LINE;
        // 1. The run through the centre: a five, a non-winning overline, or a blocked five.
        let mut left = c;
        while left > 0 && line[left - 1] == own {
            left -= 1;
        }
        let mut right = c;
        while right + 1 < LINE_LEN && line[right + 1] == own {
            right += 1;
        }
        let before = if left > 0 { line[left - 1] } else { Cell::Wall };
        let after = if right + 1 < LINE_LEN {
            line[right + 1]
        } else {
            Cell::Wall
        };
        if let Some(verdict) = judge_run(right - left + 1, color, rule, before, after) {
            return verdict;
        }

        // 2. Fours: the empty cells where one more stone makes five through the centre.
        let mut child_classes = [None; LINE_LEN];
        let mut five_points = Vec::new();
        for e in 0..LINE_LEN {
            if line[e] != Cell::Empty {
                continue;
            }
            let mut child = *line;
            child[e] = own;
            let class = classify_placed(&child, color, rule, memo.as_deref_mut());
            child_classes[e] = Some(class);
            if class == Pattern::Five {
                five_points.push(e);
            }
        }
        match five_points.len() {
            0 => {}
            1 => return Pattern::Four,
            _ => {
                // A straight four: two five points five apart with four own stones between.
                let straight = five_points.iter().any(|&a| {
                    five_points.contains(&(a + 5)) && (a + 1..a + 5).all(|i| line[i] == own)
                });
                return if straight {
                    Pattern::OpenFour
                } else {
                    Pattern::DoubleFour
                };
            }
        }

        // 3. Threes, twos, ones: the best class one more stone reaches.
        let best_child = child_classes.iter().flatten().copied().max();
        match best_child {
            Some(Pattern::OpenFour) => Pattern::OpenThree,
            Some(Pattern::DoubleFour) | Some(Pattern::Four) => Pattern::Three,
            Some(Pattern::OpenThree) => Pattern::OpenTwo,
            Some(Pattern::Three) => Pattern::Two,
            Some(Pattern::OpenTwo) | Some(Pattern::Two) => Pattern::One,
            _ => Pattern::Dead,
        }
    }
}

/// Whether a line code can occur on a board: walls (off-board cells) only ever continue
/// outwards to the end of the window, since the board's wall border is as wide as a half
/// line. The other codes (most of them) are left `Dead` in the tables.
pub fn is_realisable(code: u32) -> bool {
    [(-1i32, -1i32), (1, 1)].iter().all(|&(first, step)| {
        let mut wall_seen = false;
        let mut offset = first;
        while offset.unsigned_abs() as usize <= HALF_LINE {
            let is_wall = Cell::from_bits(code >> slot_shift(offset)) == Cell::Wall;
            if wall_seen && !is_wall {
                return false;
            }
            wall_seen |= is_wall;
            offset += step;
        }
        true
    })
}

/// The lookup table of one rule: for every line code, the class for black and for white.
pub struct PatternTable {
    entries: Box<[[Pattern; 2]]>,
}

impl PatternTable {
    fn build(rule: Rule) -> PatternTable {
        let mut entries = vec![[Pattern::Dead; 2]; CODE_COUNT].into_boxed_slice();
        let mut memos = [reference::new_memo(), reference::new_memo()];
        for code in (0..CODE_COUNT as u32).filter(|&c| is_realisable(c)) {
            for color in Color::BOTH {
                let line = reference::decode(code, Cell::stone(color));
                entries[code as usize][color.index()] =
                    reference::classify_placed(&line, color, rule, Some(&mut memos[color.index()]));
            }
        }
        PatternTable { entries }
    }

    /// The classes for black and white playing the centre of the line `code`.
    #[inline(always)]
    pub fn lookup(&self, code: u32) -> [Pattern; 2] {
        // SAFETY-free: codes are 20 bits by construction; the mask keeps it in range.
        self.entries[(code as usize) & (CODE_COUNT - 1)]
    }
}

static TABLES: [OnceCell<PatternTable>; 4] = [
    OnceCell::new(),
    OnceCell::new(),
    OnceCell::new(),
    OnceCell::new(),
];

/// The table for `rule`, built on first use.
pub fn table(rule: Rule) -> &'static PatternTable {
    TABLES[rule.index()].get_or_init(|| PatternTable::build(rule))
}

#[cfg(test)]
mod tests {
    use super::reference::*;
    use super::*;

    /// Builds a line from a diagram such as `"oXX[.]..|"`: the centre is marked by
    /// brackets, other cells are padded with empties to the window size.
    fn line_from(diagram: &str) -> Line {
        let (before, rest) = diagram.split_once('[').expect("diagram has a centre");
        let (_, after) = rest.split_once(']').expect("diagram has a centre");
        let cell = |ch: char| match ch {
            'X' => Cell::Black,
            'o' => Cell::White,
            '|' => Cell::Wall,
            _ => Cell::Empty,
        };
        let mut line = [Cell::Empty; LINE_LEN];
        for (i, ch) in before.chars().rev().enumerate() {
            line[HALF_LINE - 1 - i] = cell(ch);
        }
        line[HALF_LINE] = Cell::Black;
        for (i, ch) in after.chars().enumerate() {
            line[HALF_LINE + 1 + i] = cell(ch);
        }
        // A wall continues to the end of the window.
        for i in (0..HALF_LINE).rev() {
            if line[i + 1] == Cell::Wall {
                line[i] = Cell::Wall;
            }
        }
        for i in HALF_LINE + 1..LINE_LEN {
            if line[i - 1] == Cell::Wall {
                line[i] = Cell::Wall;
            }
        }
        line
    }

    fn class(diagram: &str, rule: Rule) -> Pattern {
        classify_placed(&line_from(diagram), Color::Black, rule, None)
    }

    #[test]
    fn classes_match_their_diagrams() {
        let f = Rule::Freestyle;
        assert_eq!(class("XX[.]XX", f), Pattern::Five);
        assert_eq!(class("XX[.]XXX", f), Pattern::Five);
        assert_eq!(class(".XXX[.].", f), Pattern::OpenFour);
        assert_eq!(class("oXXX[.].", f), Pattern::Four);
        assert_eq!(class("XX[.].X", f), Pattern::Four);
        assert_eq!(class("X.X[.]X.X", f), Pattern::DoubleFour);
        assert_eq!(class("..XX[.]..", f), Pattern::OpenThree);
        assert_eq!(class(".X[.].X.", f), Pattern::OpenThree);
        assert_eq!(class("oXX[.]..", f), Pattern::Three);
        assert_eq!(class("|XX[.]..", f), Pattern::Three);
        assert_eq!(class("...X[.]...", f), Pattern::OpenTwo);
        assert_eq!(class("oX[.]...", f), Pattern::Two);
        assert_eq!(class("o[.]....o", f), Pattern::One);
        assert_eq!(class("oX[.]Xo", f), Pattern::Dead);
        assert_eq!(class("|[.]...o", f), Pattern::Dead);
    }

    #[test]
    fn rules_change_what_wins() {
        assert_eq!(class("XX[.]XXX", Rule::Standard), Pattern::Overline);
        assert_eq!(class("XX[.]XXX", Rule::Renju), Pattern::Overline);
        assert_eq!(class("XX[.]XXX", Rule::Caro), Pattern::Overline);
        // White's overline wins at renju.
        let line = line_from("XX[.]XXX").map(|c| if c == Cell::Black { Cell::White } else { c });
        assert_eq!(
            classify_placed(&line, Color::White, Rule::Renju, None),
            Pattern::Five
        );
        // A five point that would make six is no five point under standard rules.
        assert_eq!(class("X.XXX[.].", Rule::Standard), Pattern::Four);
        assert_eq!(class("X.XXX[.].", Rule::Freestyle), Pattern::OpenFour);
        // Caro: blocked at both ends does not win; the edge does not block.
        assert_eq!(class("oXX[.]XXo", Rule::Caro), Pattern::Dead);
        assert_eq!(class("|XX[.]XXo", Rule::Caro), Pattern::Five);
        assert_eq!(class("oXX[.]XXo", Rule::Standard), Pattern::Five);
        // Caro: `oXXX[.].` cannot become an unblocked five on the right... it can: `oXXXX.X`
        // no, the only five point makes `oXXXXX.` which is open at the right end.
        assert_eq!(class("oXXX[.].", Rule::Caro), Pattern::Four);
        assert_eq!(class("oXXX[.].o", Rule::Caro), Pattern::Dead);
    }

    #[test]
    fn memoised_classes_equal_the_direct_definition() {
        // The table is filled through the memo; check the memo does not change answers on
        // a spread of codes that includes every neighbourhood shape of the first slots.
        for rule in Rule::ALL {
            for color in Color::BOTH {
                let mut memo = new_memo();
                let mut state = 0x9e37_79b9_7f4a_7c15u64 ^ rule.index() as u64;
                for _ in 0..400 {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    let code = (state as u32) & (CODE_COUNT as u32 - 1);
                    let line = decode(code, Cell::stone(color));
                    let direct = classify_placed(&line, color, rule, None);
                    let memoised = classify_placed(&line, color, rule, Some(&mut memo));
                    assert_eq!(
                        direct, memoised,
                        "rule {rule} colour {color:?} code {code:#x}"
                    );
                }
            }
        }
    }

    #[test]
    fn realisable_codes_have_walls_only_at_the_ends() {
        let wall = |offset: i32| (Cell::Wall as u32) << slot_shift(offset);
        assert!(is_realisable(0));
        assert!(is_realisable(wall(5) | wall(4) | wall(-5)));
        assert!(!is_realisable(wall(4)), "a wall with a cell beyond it");
        assert!(!is_realisable(wall(-1) | wall(-2) | wall(-3) | wall(-5)));
        let count = (0..CODE_COUNT as u32).filter(|&c| is_realisable(c)).count();
        // Per half: 3^5 + 3^4 + ... + 3^0 = 364 shapes.
        assert_eq!(count, 364 * 364);
    }

    #[test]
    fn encode_and_decode_are_inverse() {
        for code in (0..CODE_COUNT as u32).step_by(977) {
            assert_eq!(encode(&decode(code, Cell::Black)), code);
        }
    }

    /// The word tests against a plain count, over every four classes and threshold.
    #[test]
    fn the_word_tests_count_the_classes_at_a_threshold() {
        for least in Pattern::ALL {
            for code in 0..Pattern::COUNT.pow(4) {
                let lines: [Pattern; 4] = std::array::from_fn(|d| {
                    Pattern::ALL[code / Pattern::COUNT.pow(d as u32) % Pattern::COUNT]
                });
                let expected = lines.iter().filter(|&&l| l >= least).count() as u32;
                assert_eq!(
                    count_at_least(&lines, least),
                    expected,
                    "{lines:?} {least:?}"
                );
                assert_eq!(
                    any_at_least(&lines, least),
                    expected > 0,
                    "{lines:?} {least:?}"
                );
            }
        }
    }
}
