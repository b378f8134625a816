//! The training-data file: self-play games, compact and self-describing.
//!
//! A file is the magic `WZTG`, a version byte and three zero bytes, then games one after
//! another until the end of the file. A game is an 8-byte header and 4 bytes per ply:
//!
//! | bytes | header field |
//! |---|---|
//! | 1 | rule: 0 freestyle, 1 standard, 2 renju, 3 caro (`Rule::index`) |
//! | 1, 1 | board width, height |
//! | 1 | result: 0 draw, 1 black won, 2 white won |
//! | 2 | plies (little-endian) |
//! | 1 | opening plies: the first plies were placed by the opening, not chosen by a search |
//! | 1 | how the game ended: 0 a five, 1 a proven result (adjudicated), 2 board full, 3 ply cap, 4 renju foul |
//!
//! | bytes | ply field |
//! |---|---|
//! | 1, 1 | x, y of the stone |
//! | 2 | the search's value for the side to move before the stone (signed, little-endian); `i16::MIN` for opening plies |
//!
//! A position is the board before a ply; its side to move is black on equal stone
//! counts. Files can be concatenated after dropping the second header (or read one by one).

use std::io::{self, Read, Write};
use wuzi::types::{Coord, Rule};

pub const MAGIC: &[u8; 4] = b"WZTG";
pub const VERSION: u8 = 1;
/// The value of a ply that no search chose.
pub const NO_VALUE: i16 = i16::MIN;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Result3 {
    Draw,
    BlackWon,
    WhiteWon,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    Five,
    Proven,
    Full,
    PlyCap,
    Foul,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ply {
    pub at: Coord,
    pub value: i16,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game {
    pub rule: Rule,
    pub width: usize,
    pub height: usize,
    pub result: Result3,
    pub opening_plies: usize,
    pub ending: Ending,
    pub plies: Vec<Ply>,
}

pub fn write_header(out: &mut impl Write) -> io::Result<()> {
    out.write_all(MAGIC)?;
    out.write_all(&[VERSION, 0, 0, 0])
}

pub fn write_game(out: &mut impl Write, g: &Game) -> io::Result<()> {
    let result = match g.result {
        Result3::Draw => 0u8,
        Result3::BlackWon => 1,
        Result3::WhiteWon => 2,
    };
    let ending = match g.ending {
        Ending::Five => 0u8,
        Ending::Proven => 1,
        Ending::Full => 2,
        Ending::PlyCap => 3,
        Ending::Foul => 4,
    };
    let plies = u16::try_from(g.plies.len()).map_err(|_| invalid("too many plies"))?;
    let mut buf = Vec::with_capacity(8 + 4 * g.plies.len());
    buf.extend_from_slice(&[g.rule.index() as u8, g.width as u8, g.height as u8, result]);
    buf.extend_from_slice(&plies.to_le_bytes());
    buf.extend_from_slice(&[g.opening_plies.min(255) as u8, ending]);
    for p in &g.plies {
        buf.extend_from_slice(&[p.at.x as u8, p.at.y as u8]);
        buf.extend_from_slice(&p.value.to_le_bytes());
    }
    out.write_all(&buf)
}

fn invalid(why: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, why.to_string())
}

/// Reads every game of a file (header included).
pub fn read_games(input: &mut impl Read) -> io::Result<Vec<Game>> {
    let mut bytes = Vec::new();
    input.read_to_end(&mut bytes)?;
    if bytes.len() < 8 || &bytes[..4] != MAGIC {
        return Err(invalid("not a WZTG training-data file"));
    }
    if bytes[4] != VERSION {
        return Err(invalid(&format!("unsupported WZTG version {}", bytes[4])));
    }
    let mut games = Vec::new();
    let mut i = 8;
    while i < bytes.len() {
        let header = bytes
            .get(i..i + 8)
            .ok_or_else(|| invalid("truncated game header"))?;
        let rule = *Rule::ALL
            .get(header[0] as usize)
            .ok_or_else(|| invalid("bad rule"))?;
        let (width, height) = (header[1] as usize, header[2] as usize);
        let result = match header[3] {
            0 => Result3::Draw,
            1 => Result3::BlackWon,
            2 => Result3::WhiteWon,
            _ => return Err(invalid("bad result")),
        };
        let plies = u16::from_le_bytes([header[4], header[5]]) as usize;
        let opening_plies = header[6] as usize;
        let ending = match header[7] {
            0 => Ending::Five,
            1 => Ending::Proven,
            2 => Ending::Full,
            3 => Ending::PlyCap,
            4 => Ending::Foul,
            _ => return Err(invalid("bad ending")),
        };
        i += 8;
        let body = bytes
            .get(i..i + 4 * plies)
            .ok_or_else(|| invalid("truncated game"))?;
        let plies = body
            .chunks_exact(4)
            .map(|c| Ply {
                at: Coord::new(c[0] as i32, c[1] as i32),
                value: i16::from_le_bytes([c[2], c[3]]),
            })
            .collect();
        i += body.len();
        games.push(Game {
            rule,
            width,
            height,
            result,
            opening_plies,
            ending,
            plies,
        });
    }
    Ok(games)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn games_round_trip() {
        let g = Game {
            rule: Rule::Renju,
            width: 15,
            height: 15,
            result: Result3::WhiteWon,
            opening_plies: 3,
            ending: Ending::Proven,
            plies: vec![
                Ply {
                    at: Coord::new(7, 7),
                    value: NO_VALUE,
                },
                Ply {
                    at: Coord::new(8, 9),
                    value: -123,
                },
            ],
        };
        let mut buf = Vec::new();
        write_header(&mut buf).unwrap();
        write_game(&mut buf, &g).unwrap();
        write_game(&mut buf, &g).unwrap();
        assert_eq!(read_games(&mut buf.as_slice()).unwrap(), vec![g.clone(), g]);
        buf.pop();
        assert!(read_games(&mut buf.as_slice()).is_err());
    }
}
