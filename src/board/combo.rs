//! The combination kinds of a cell: what one colour's line classes on an empty cell make
//! together (a four-three, two fours, a double three, an open or double four), as a small
//! sum per cell that make/undo keeps and a table from sums to kinds.

use crate::pattern::Pattern;
use once_cell::sync::Lazy;

/// A cell's lines that can combine, as one small sum per cell and colour: open threes in
/// bits 0..3, fours in bits 3..6, open and double fours in bits 6..9, fives in bits 9..12
/// (four lines at most, so no field overflows into the next). Adding and removing one
/// line's class is one subtraction and one addition, cheap enough for make/undo.
pub(super) const COMBO_CODE: [u16; Pattern::COUNT] = [
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
pub(super) const COMBO_SUMS: usize = 1 << 12;

// What one colour's lines make together on an empty cell, for the counters. The kinds
// are exclusive; the board's queries add up the ones they need.
/// Nothing counted (also any cell with a five: a five is counted by its class).
const NONE: usize = 0;
/// A four and one or more open threes on other lines.
pub(super) const FOUR_THREE: usize = 1;
/// Two or more fours on different lines (and no open or double four, no five).
pub(super) const FOUR_FOUR: usize = 2;
/// Two or more open threes and no four (never counted for renju black, whose double
/// threes are forbidden).
pub(super) const DOUBLE_THREE: usize = 3;
/// An open four or a double four on one line, no five.
pub(super) const BIG_FOUR: usize = 4;
/// Number of kinds.
pub(super) const COUNT: usize = 5;

/// The combination kind of every sum; `double_threes` is false for renju black.
fn combo_kinds(double_threes: bool) -> Box<[u8; COMBO_SUMS]> {
    let mut kinds = Box::new([NONE as u8; COMBO_SUMS]);
    for (sum, kind) in kinds.iter_mut().enumerate() {
        let (threes, fours, big, fives) = (sum & 7, (sum >> 3) & 7, (sum >> 6) & 7, sum >> 9);
        *kind = if fives > 0 {
            NONE
        } else if big > 0 {
            BIG_FOUR
        } else if fours >= 2 {
            FOUR_FOUR
        } else if fours == 1 && threes >= 1 {
            FOUR_THREE
        } else if fours == 0 && threes >= 2 && double_threes {
            DOUBLE_THREE
        } else {
            NONE
        } as u8;
    }
    kinds
}

/// Kind tables: `[0]` counts double threes, `[1]` does not (renju black).
pub(super) static COMBO_KINDS: Lazy<[Box<[u8; COMBO_SUMS]>; 2]> =
    Lazy::new(|| [combo_kinds(true), combo_kinds(false)]);
