//! The learned tables of one rule and their file format.
//!
//! A weights file is little-endian binary:
//!
//! | bytes | field |
//! |---|---|
//! | 4 | magic `WZEV` |
//! | 2 | format version (1) |
//! | 1 | rule (`Rule::index`: 0 freestyle, 1 standard, 2 renju, 3 caro) |
//! | 1 | flags: bit 0 set when the cell tables are split by side to move |
//! | 4 | the pcode count (1001) and, next, 4 the threat-mask count (2048): a file for other feature codes is refused |
//! | 2 × 1001 × T | cell tables, `i16`: T = 2 (black, white) or 4 (black not to move, black to move, white not to move, white to move) |
//! | 2 × 2048 × 2 | threat-mask values for black to move, then white to move, `i16` |
//! | 2 × 1001 × 4 | policy tables, `i16`: black to move its own pcode, black to move the opponent's pcode, then the same two for white to move |
//! | 4 | FNV-1a 32-bit checksum of every byte before it |
//!
//! Values are evaluation units; policy scores order moves (higher first).

use crate::eval::learned::MASK_COUNT;
use crate::eval::pcode::PCODE_COUNT;
use crate::types::{Color, Rule};
use std::fmt;

pub const MAGIC: &[u8; 4] = b"WZEV";
pub const VERSION: u16 = 1;

/// The tables of one rule, as fitted.
#[derive(Clone, PartialEq, Eq)]
pub struct LearnedWeights {
    pub rule: Rule,
    /// Cell tables split by whether their colour is to move (4 tables), or not (2).
    pub to_move_cells: bool,
    /// `cells[t][pcode]`, t as in the file.
    pub cells: Vec<Vec<i16>>,
    /// `mask[side to move][mask]`.
    pub mask: [Vec<i16>; 2],
    /// `policy[side to move][0 own pcode, 1 opponent's pcode][pcode]`.
    pub policy: [[Vec<i16>; 2]; 2],
}

impl fmt::Debug for LearnedWeights {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "LearnedWeights({}, {} cell tables)",
            self.rule,
            self.cells.len()
        )
    }
}

/// Why a weights file was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WeightsError {
    NotWeights,
    Version(u16),
    Truncated,
    Checksum,
    Shape(String),
    WrongRule { expected: Rule, found: Rule },
}

impl fmt::Display for WeightsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WeightsError::NotWeights => write!(f, "not a Wuzi weights file (no WZEV magic)"),
            WeightsError::Version(v) => {
                write!(
                    f,
                    "weights format version {v} is not supported (expected {VERSION})"
                )
            }
            WeightsError::Truncated => {
                write!(f, "the weights file is truncated or has extra bytes")
            }
            WeightsError::Checksum => write!(f, "the weights file is damaged (checksum mismatch)"),
            WeightsError::Shape(s) => write!(f, "the weights file does not fit this engine: {s}"),
            WeightsError::WrongRule { expected, found } => {
                write!(f, "the weights file is for {found}, not {expected}")
            }
        }
    }
}

impl std::error::Error for WeightsError {}

/// FNV-1a, 32 bits.
pub fn checksum(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5u32, |h, &b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

impl LearnedWeights {
    /// All zero: every position even, moves unordered.
    pub fn zero(rule: Rule, to_move_cells: bool) -> LearnedWeights {
        let tables = if to_move_cells { 4 } else { 2 };
        LearnedWeights {
            rule,
            to_move_cells,
            cells: vec![vec![0; PCODE_COUNT]; tables],
            mask: [vec![0; MASK_COUNT], vec![0; MASK_COUNT]],
            policy: std::array::from_fn(|_| std::array::from_fn(|_| vec![0; PCODE_COUNT])),
        }
    }

    /// The cell table of `owner`'s cells when `owner_to_move` says whether it moves.
    pub fn cell_table(&self, owner: Color, owner_to_move: bool) -> &[i16] {
        let t = if self.to_move_cells {
            2 * owner.index() + usize::from(owner_to_move)
        } else {
            owner.index()
        };
        &self.cells[t]
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.push(self.rule.index() as u8);
        out.push(u8::from(self.to_move_cells));
        out.extend_from_slice(&(PCODE_COUNT as u32).to_le_bytes());
        out.extend_from_slice(&(MASK_COUNT as u32).to_le_bytes());
        let tables = self
            .cells
            .iter()
            .chain(self.mask.iter())
            .chain(self.policy.iter().flatten());
        for t in tables {
            for v in t {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
        let sum = checksum(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Parses a weights file, checking everything a damaged or foreign file would get
    /// wrong: magic, version, shape, length and checksum.
    pub fn from_bytes(bytes: &[u8]) -> Result<LearnedWeights, WeightsError> {
        if bytes.len() < 4 || &bytes[..4] != MAGIC {
            return Err(WeightsError::NotWeights);
        }
        if bytes.len() < 20 {
            return Err(WeightsError::Truncated);
        }
        let version = u16::from_le_bytes([bytes[4], bytes[5]]);
        if version != VERSION {
            return Err(WeightsError::Version(version));
        }
        let (body, sum) = bytes.split_at(bytes.len() - 4);
        let rule = *Rule::ALL
            .get(bytes[6] as usize)
            .ok_or_else(|| WeightsError::Shape(format!("unknown rule {}", bytes[6])))?;
        let to_move_cells = bytes[7] & 1 != 0;
        let pcodes = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize;
        let masks = u32::from_le_bytes([bytes[12], bytes[13], bytes[14], bytes[15]]) as usize;
        if pcodes != PCODE_COUNT || masks != MASK_COUNT {
            return Err(WeightsError::Shape(format!(
                "{pcodes} pcodes and {masks} masks, expected {PCODE_COUNT} and {MASK_COUNT}"
            )));
        }
        let mut w = LearnedWeights::zero(rule, to_move_cells);
        let values = w.cells.len() * PCODE_COUNT + 2 * MASK_COUNT + 4 * PCODE_COUNT;
        if body.len() != 16 + 2 * values {
            return Err(WeightsError::Truncated);
        }
        if checksum(body) != u32::from_le_bytes([sum[0], sum[1], sum[2], sum[3]]) {
            return Err(WeightsError::Checksum);
        }
        let mut next = body[16..]
            .chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]));
        let tables = w
            .cells
            .iter_mut()
            .chain(w.mask.iter_mut())
            .chain(w.policy.iter_mut().flatten());
        for t in tables {
            for v in t.iter_mut() {
                *v = next.next().ok_or(WeightsError::Truncated)?;
            }
        }
        Ok(w)
    }

    /// [`Self::from_bytes`], also checking the file is for `rule`.
    pub fn from_bytes_for(bytes: &[u8], rule: Rule) -> Result<LearnedWeights, WeightsError> {
        let w = LearnedWeights::from_bytes(bytes)?;
        if w.rule != rule {
            return Err(WeightsError::WrongRule {
                expected: rule,
                found: w.rule,
            });
        }
        Ok(w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> LearnedWeights {
        let mut w = LearnedWeights::zero(Rule::Renju, true);
        for (t, table) in w.cells.iter_mut().enumerate() {
            for (i, v) in table.iter_mut().enumerate() {
                *v = (i as i16).wrapping_mul(7) - t as i16;
            }
        }
        w.mask[1][5] = -300;
        w.policy[0][1][17] = 42;
        w
    }

    #[test]
    fn a_weights_file_round_trips() {
        let w = sample();
        assert_eq!(LearnedWeights::from_bytes(&w.to_bytes()), Ok(w.clone()));
        assert_eq!(
            LearnedWeights::from_bytes_for(&w.to_bytes(), Rule::Renju),
            Ok(w)
        );
    }

    #[test]
    fn a_damaged_or_foreign_file_is_refused_with_a_reason() {
        let bytes = sample().to_bytes();
        let mut flipped = bytes.clone();
        flipped[100] ^= 1;
        assert_eq!(
            LearnedWeights::from_bytes(&flipped),
            Err(WeightsError::Checksum)
        );
        assert_eq!(
            LearnedWeights::from_bytes(&bytes[..bytes.len() - 10]),
            Err(WeightsError::Truncated)
        );
        assert_eq!(
            LearnedWeights::from_bytes(b"PK\x03\x04junk"),
            Err(WeightsError::NotWeights)
        );
        let mut version = bytes.clone();
        version[4] = 9;
        assert_eq!(
            LearnedWeights::from_bytes(&version),
            Err(WeightsError::Version(9))
        );
        assert_eq!(
            LearnedWeights::from_bytes_for(&bytes, Rule::Caro),
            Err(WeightsError::WrongRule {
                expected: Rule::Caro,
                found: Rule::Renju
            })
        );
        assert!(LearnedWeights::from_bytes(&flipped)
            .unwrap_err()
            .to_string()
            .contains("damaged"));
    }
}
