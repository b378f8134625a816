//! Core value types shared by every layer: colours, rules, coordinates.
//!
//! Nothing here knows about the board layout; `Pos` (the padded cell index) lives in
//! `board`, because its meaning depends on the board's width.

use std::fmt;

/// A stone colour. Black always moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    Black = 0,
    White = 1,
}

impl Color {
    pub const BOTH: [Color; 2] = [Color::Black, Color::White];

    #[inline]
    pub fn opponent(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    /// The colour named `black` or `white` (as in proof files, match summaries and
    /// command-line options).
    pub fn from_name(name: &str) -> Option<Color> {
        match name {
            "black" => Some(Color::Black),
            "white" => Some(Color::White),
            _ => None,
        }
    }
}

/// The game rule in force. It decides what wins and, for renju, what black may not play.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rule {
    /// Five or more in a row wins.
    Freestyle,
    /// Exactly five wins, for both colours; an overline does not win.
    Standard,
    /// Black: exactly five wins; overline, double four and double three are forbidden.
    /// White: five or more wins.
    Renju,
    /// Exactly five that is not blocked by opponent stones at both ends; the edge does
    /// not block.
    Caro,
}

impl Rule {
    pub const ALL: [Rule; 4] = [Rule::Freestyle, Rule::Standard, Rule::Renju, Rule::Caro];

    /// Decodes the protocol's `INFO rule` bitmask (PROTOCOL.md §3): bit 4 (or Yixin's
    /// plain value 2) is renju, bit 8 is caro (Piskvork also sends 9), bit 1 is exactly
    /// five. The continuous-game bit 2 is otherwise ignored.
    pub fn from_info(value: i64) -> Rule {
        if value == 2 || value & 4 != 0 {
            Rule::Renju
        } else if value & 8 != 0 {
            Rule::Caro
        } else if value & 1 != 0 {
            Rule::Standard
        } else {
            Rule::Freestyle
        }
    }

    /// The value this rule is sent as in `INFO rule` (and written in test data).
    pub fn info_value(self) -> i64 {
        match self {
            Rule::Freestyle => 0,
            Rule::Standard => 1,
            Rule::Renju => 4,
            Rule::Caro => 8,
        }
    }

    pub fn index(self) -> usize {
        match self {
            Rule::Freestyle => 0,
            Rule::Standard => 1,
            Rule::Renju => 2,
            Rule::Caro => 3,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Rule::Freestyle => "freestyle",
            Rule::Standard => "standard",
            Rule::Renju => "renju",
            Rule::Caro => "caro",
        }
    }

    /// Parses a rule given by name or by its `INFO rule` number.
    pub fn parse(text: &str) -> Option<Rule> {
        let t = text.trim().to_ascii_lowercase();
        match t.as_str() {
            "freestyle" | "free" | "gomoku" => Some(Rule::Freestyle),
            "standard" | "std" | "exact" | "exactfive" => Some(Rule::Standard),
            "renju" => Some(Rule::Renju),
            "caro" => Some(Rule::Caro),
            _ => t.parse::<i64>().ok().map(Rule::from_info),
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A board coordinate as the protocol writes it: 0-based column `x` and row `y`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Coord {
    pub x: i32,
    pub y: i32,
}

impl Coord {
    pub const fn new(x: i32, y: i32) -> Coord {
        Coord { x, y }
    }

    /// Parses "pos" notation (`h8` = x 7, y 7; PROTOCOL.md §7): a column letter from `a`
    /// and a row number from 1.
    pub fn from_pos_notation(text: &str) -> Option<Coord> {
        let mut chars = text.chars();
        let letter = chars.next()?.to_ascii_lowercase();
        if !letter.is_ascii_lowercase() {
            return None;
        }
        let row: i32 = chars.as_str().parse().ok()?;
        if row < 1 {
            return None;
        }
        Some(Coord::new(letter as i32 - 'a' as i32, row - 1))
    }

    /// The image of this cell under one of the eight symmetries of a square board of
    /// `size`: bit 0 of `sym` mirrors x, bit 1 mirrors y, bit 2 then swaps the axes.
    pub fn transformed(self, size: usize, sym: u8) -> Coord {
        let last = size as i32 - 1;
        let (mut x, mut y) = (self.x, self.y);
        if sym & 1 != 0 {
            x = last - x;
        }
        if sym & 2 != 0 {
            y = last - y;
        }
        if sym & 4 != 0 {
            std::mem::swap(&mut x, &mut y);
        }
        Coord::new(x, y)
    }

    /// Writes "pos" notation; only meaningful for x < 26.
    pub fn to_pos_notation(self) -> String {
        let letter = (b'a' + self.x as u8) as char;
        format!("{}{}", letter, self.y + 1)
    }
}

impl fmt::Display for Coord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{},{}", self.x, self.y)
    }
}

/// Splits a concatenated "pos" string such as `h8h9i10` into coordinates.
pub fn parse_pos_sequence(text: &str) -> Option<Vec<Coord>> {
    let bytes = text.trim().as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        if !bytes[i].is_ascii_alphabetic() {
            return None;
        }
        i += 1;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        out.push(Coord::from_pos_notation(
            std::str::from_utf8(&bytes[start..i]).ok()?,
        )?);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_bits_follow_the_protocol() {
        assert_eq!(Rule::from_info(0), Rule::Freestyle);
        assert_eq!(Rule::from_info(1), Rule::Standard);
        assert_eq!(Rule::from_info(3), Rule::Standard);
        assert_eq!(Rule::from_info(2), Rule::Renju);
        assert_eq!(Rule::from_info(4), Rule::Renju);
        assert_eq!(Rule::from_info(5), Rule::Renju);
        assert_eq!(Rule::from_info(8), Rule::Caro);
        assert_eq!(Rule::from_info(9), Rule::Caro);
    }

    #[test]
    fn pos_notation_round_trips() {
        let c = Coord::from_pos_notation("h8").unwrap();
        assert_eq!(c, Coord::new(7, 7));
        assert_eq!(c.to_pos_notation(), "h8");
        let seq = parse_pos_sequence("h8h9i10").unwrap();
        assert_eq!(
            seq,
            vec![Coord::new(7, 7), Coord::new(7, 8), Coord::new(8, 9)]
        );
        assert!(parse_pos_sequence("h").is_none());
        assert!(parse_pos_sequence("8h").is_none());
    }
}
