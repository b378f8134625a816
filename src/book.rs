//! The opening book: positions the engine has searched offline, their best move and value.
//!
//! A book is built offline by `wuzi-tools book` (the builder lives in the tools package)
//! with Lincke's drop-out expansion from the empty board and the opening lists, and
//! stored as text under `openings/`. The books of the main rules are compiled in, so the
//! brain needs no file beside it. This module reads and writes the format, looks up
//! positions, and says when the book must not answer.
//!
//! File format (`openings/README.md`): `#` lines are comments; one line `board RULE SIZE`
//! (RULE as `INFO rule` writes it); then one position per line:
//!
//! ```text
//! BLACK WHITE MOVE VALUE DEPTH [win:PROVEN]
//! h8,i9 h9 j10 12 6
//! ```
//! BLACK and WHITE are the stones of each colour in "pos" notation, comma-separated
//! (`-` for none), in the canonical orientation (the smallest of the eight symmetric
//! images, see [`Key`]); the side to move follows from the counts. MOVE is the book move
//! in the same orientation, VALUE its value for the side to move (evaluation units), and
//! DEPTH the build's `--depth` (the leaf searches end D or D−1 plies below a position).
//! The optional sixth field marks a position the proof-number solver proved won for the
//! side to move (`wuzi-tools book --prove`, the proof accepted by its checker): PROVEN is
//! the proof's first move, in the same orientation. The lookup answers with it.
//!
//! A book move never overrides a forced result: [`is_forced`] says when the search must
//! decide instead.

use crate::board::Board;
use crate::eval::Value;
use crate::rules;
use crate::threat;
use crate::types::{Color, Coord, Rule};
use std::collections::BTreeMap;
use std::time::Instant;

/// The books compiled into the engine.
pub const EMBEDDED: &[&str] = &[
    include_str!("../openings/book-freestyle-15.txt"),
    include_str!("../openings/book-standard-15.txt"),
    include_str!("../openings/book-renju-15.txt"),
    include_str!("../openings/book-caro-15.txt"),
];

/// A position's stones as sorted cell indices (`y * size + x`), black then white.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Key {
    pub black: Vec<u16>,
    pub white: Vec<u16>,
}

/// The inverse of [`Coord::transformed`]: undo the swap first, then the mirrors.
fn untransform(c: Coord, size: usize, sym: u8) -> Coord {
    let (x, y) = if sym & 4 != 0 { (c.y, c.x) } else { (c.x, c.y) };
    Coord::new(x, y).transformed(size, sym & 3)
}

fn index(c: Coord, size: usize) -> u16 {
    (c.y as usize * size + c.x as usize) as u16
}

fn coord_of(i: u16, size: usize) -> Coord {
    Coord::new((i as usize % size) as i32, (i as usize / size) as i32)
}

/// The stones of `board`, black and white, by row then column.
pub fn stones(board: &Board) -> (Vec<Coord>, Vec<Coord>) {
    let (mut black, mut white) = (Vec::new(), Vec::new());
    for y in 0..board.height() as i32 {
        for x in 0..board.width() as i32 {
            let c = Coord::new(x, y);
            match board.stone_at(c) {
                Some(Color::Black) => black.push(c),
                Some(Color::White) => white.push(c),
                None => {}
            }
        }
    }
    (black, white)
}

/// The key of the position's image under `sym`.
fn key_under(black: &[Coord], white: &[Coord], size: usize, sym: u8) -> Key {
    let image = |list: &[Coord]| {
        let mut v: Vec<u16> = list
            .iter()
            .map(|&c| index(c.transformed(size, sym), size))
            .collect();
        v.sort_unstable();
        v
    };
    Key {
        black: image(black),
        white: image(white),
    }
}

/// The canonical key of a square board's position and the symmetry that maps the board
/// onto it.
pub fn canonical(board: &Board) -> (Key, u8) {
    let (black, white) = stones(board);
    (0..8u8)
        .map(|sym| (key_under(&black, &white, board.width(), sym), sym))
        .min()
        .unwrap_or_else(|| (key_under(&black, &white, board.width(), 0), 0))
}

/// What the book says about a position (the moves in the board's own orientation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookMove {
    pub best: Coord,
    pub value: Value,
    pub depth: i32,
    /// The first move of a win for the side to move that the solver proved (the
    /// `win:MOVE` mark), if the position has one.
    pub proven_win: Option<Coord>,
}

/// One rule and board size's book.
#[derive(Clone, Debug)]
pub struct Book {
    pub rule: Rule,
    pub size: usize,
    /// Canonical key → (move in the canonical orientation, value, depth).
    pub entries: BTreeMap<Key, BookMove>,
}

impl Book {
    /// Parses a book file. Every line must be well formed: a book is data the engine
    /// trusts, so a damaged one is refused whole rather than half used.
    pub fn parse(text: &str) -> Result<Book, String> {
        let mut board: Option<(Rule, usize)> = None;
        let mut entries = BTreeMap::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let at = |e: String| format!("line {}: {e}", n + 1);
            let fields: Vec<&str> = line.split_whitespace().collect();
            if fields.first() == Some(&"board") {
                board = Some(parse_board_line(&fields).map_err(at)?);
                continue;
            }
            let (_, size) = board.ok_or_else(|| at("a position before the board line".into()))?;
            let (key, entry) = parse_position_line(&fields, size).map_err(at)?;
            entries.insert(key, entry);
        }
        let (rule, size) = board.ok_or("no 'board RULE SIZE' line")?;
        Ok(Book {
            rule,
            size,
            entries,
        })
    }

    /// The book move for `board`'s side to move, when the position is in the book (under
    /// any symmetry) and the rule and size match: the proven win's first move when the
    /// position is marked with one, else the book move.
    pub fn lookup(&self, board: &Board) -> Option<BookMove> {
        if board.rule() != self.rule || board.width() != self.size || board.height() != self.size {
            return None;
        }
        let (black, white) = stones(board);
        for sym in 0..8u8 {
            let key = key_under(&black, &white, self.size, sym);
            if let Some(entry) = self.entries.get(&key) {
                let proven_win = entry.proven_win.map(|c| untransform(c, self.size, sym));
                let best = proven_win.unwrap_or_else(|| untransform(entry.best, self.size, sym));
                // A damaged or foreign entry must not make the engine play a bad cell.
                let legal = board.pos(best).is_some_and(|p| {
                    rules::is_legal_for(&mut board.clone(), p, board.side_to_move())
                });
                return legal.then_some(BookMove {
                    best,
                    proven_win,
                    ..*entry
                });
            }
        }
        None
    }

    /// The book as text: the header lines (each written after `# `), the board line,
    /// then one line per position in key order.
    pub fn to_text(&self, header: &[String]) -> String {
        let mut out = String::new();
        for h in header {
            out.push_str(&format!("# {h}\n"));
        }
        out.push_str(&format!("board {} {}\n", self.rule.info_value(), self.size));
        for (key, e) in &self.entries {
            let mark = e
                .proven_win
                .map_or(String::new(), |m| format!(" win:{}", m.to_pos_notation()));
            out.push_str(&format!(
                "{} {} {} {} {}{mark}\n",
                stone_list(&key.black, self.size),
                stone_list(&key.white, self.size),
                e.best.to_pos_notation(),
                e.value,
                e.depth
            ));
        }
        out
    }

    /// The book's positions as boards with their entries (for tests and tools).
    pub fn positions(&self) -> Vec<(Board, BookMove)> {
        self.entries
            .iter()
            .filter_map(|(key, e)| Some((board_of(key, self.rule, self.size)?, *e)))
            .collect()
    }
}

/// The position of a key (stones placed without move order).
pub fn board_of(key: &Key, rule: Rule, size: usize) -> Option<Board> {
    let mut board = Board::new(size, size, rule).ok()?;
    let (b, w) = (key.black.len(), key.white.len());
    if b != w && b != w + 1 {
        return None;
    }
    // Alternate the colours so the side to move comes out right.
    for i in 0..b.max(w) {
        for (list, color) in [(&key.black, Color::Black), (&key.white, Color::White)] {
            if let Some(&s) = list.get(i) {
                let p = board.pos(coord_of(s, size))?;
                if !board.is_empty(p) {
                    return None;
                }
                board.place(p, color);
            }
        }
    }
    Some(board)
}

fn stone_list(cells: &[u16], size: usize) -> String {
    if cells.is_empty() {
        return "-".to_string();
    }
    cells
        .iter()
        .map(|&i| coord_of(i, size).to_pos_notation())
        .collect::<Vec<_>>()
        .join(",")
}

fn parse_board_line(fields: &[&str]) -> Result<(Rule, usize), String> {
    let [_, rule, size] = fields else {
        return Err("expected 'board RULE SIZE'".into());
    };
    let rule: i64 = rule.parse().map_err(|_| format!("bad rule {rule:?}"))?;
    let size: usize = size.parse().map_err(|_| format!("bad size {size:?}"))?;
    if !(crate::board::MIN_SIZE..=crate::board::MAX_SIZE).contains(&size) {
        return Err(format!("unsupported size {size}"));
    }
    Ok((Rule::from_info(rule), size))
}

fn parse_position_line(fields: &[&str], size: usize) -> Result<(Key, BookMove), String> {
    let (black, white, best, value, depth, mark) = match fields {
        [b, w, m, v, d] => (b, w, m, v, d, None),
        [b, w, m, v, d, mark] => (b, w, m, v, d, Some(mark)),
        _ => return Err("expected 'BLACK WHITE MOVE VALUE DEPTH [win:MOVE]'".into()),
    };
    let cell = |text: &str| -> Result<Coord, String> {
        Coord::from_pos_notation(text)
            .filter(|c| c.x < size as i32 && c.y < size as i32)
            .ok_or_else(|| format!("bad cell {text:?}"))
    };
    let list = |text: &str| -> Result<Vec<u16>, String> {
        if text == "-" {
            return Ok(Vec::new());
        }
        let mut v = text
            .split(',')
            .map(|t| cell(t).map(|c| index(c, size)))
            .collect::<Result<Vec<_>, _>>()?;
        v.sort_unstable();
        Ok(v)
    };
    let key = Key {
        black: list(black)?,
        white: list(white)?,
    };
    let proven_win = match mark.map(|m| m.strip_prefix("win:").ok_or(m)) {
        None => None,
        Some(Ok(m)) => Some(cell(m)?),
        Some(Err(m)) => return Err(format!("bad mark {m:?}")),
    };
    let entry = BookMove {
        best: cell(best)?,
        value: value.parse().map_err(|_| format!("bad value {value:?}"))?,
        depth: depth.parse().map_err(|_| format!("bad depth {depth:?}"))?,
        proven_win,
    };
    Ok((key, entry))
}

/// Threat-search nodes per check before a book move: the check runs at every book
/// lookup, so it stays cheap (milliseconds on an opening position).
const FORCED_CHECK_NODES: u64 = 20_000;

/// Whether the position has a forced result the book must not override: the side to
/// move has a five point or a threat-space win (fours, and threes), or the opponent has
/// one that must be defended (a five point, a winning four, a threat-space win).
/// In play the checks run on the move's clock: once `deadline` has passed, the answer is
/// "forced" (unknown), so the search, under the time manager, decides.
pub fn is_forced(board: &Board, deadline: Option<Instant>) -> bool {
    let us = board.side_to_move();
    let them = us.opponent();
    if board.has_five_point(us) || board.has_five_point(them) {
        return true;
    }
    let mut scratch = board.clone();
    let limits = |level| threat::Limits {
        level,
        max_nodes: FORCED_CHECK_NODES,
        max_depth: 30,
        deadline,
        stop: None,
    };
    let out_of_time = || deadline.is_some_and(|d| Instant::now() >= d);
    for level in [threat::Level::Vcf, threat::Level::Vct] {
        if threat::find_win(&mut scratch, us, &limits(level)).is_some() || out_of_time() {
            return true;
        }
        // The opponent's win as if it moved now, VCF first (a four chain is the cheapest
        // thing to miss). Any answer but "no win" means the search must choose.
        if threat::find_win(&mut scratch, them, &limits(level)).is_some() || out_of_time() {
            return true;
        }
    }
    threat::defences(&mut scratch, us, &limits(threat::Level::Vct)).is_some() || out_of_time()
}

/// Threat-search nodes for the check after a book move: the opponent's win there is a
/// complete threat sequence to find, not a quick look (tens of thousands of nodes and
/// more); the move's clock bounds it first.
const REPLY_CHECK_NODES: u64 = 1_000_000;

/// Whether the book move `m` hands the opponent a forced win: after it, the threat-space
/// search finds one for the opponent (fours first, then threes). The book's values come
/// from fixed-depth searches, which can walk into a deep threat sequence; a book move so
/// refuted is left to the search, which narrows its moves to the defences. As with
/// [`is_forced`], a check cut by `deadline` answers "refuted" (unknown).
pub fn hands_opponent_a_win(board: &Board, m: Coord, deadline: Option<Instant>) -> bool {
    let mut scratch = board.clone();
    let Some(p) = scratch.pos(m) else {
        return true;
    };
    if !scratch.is_empty(p) {
        return true;
    }
    let them = scratch.side_to_move().opponent();
    scratch.make(p);
    let limits = |level| threat::Limits {
        level,
        max_nodes: REPLY_CHECK_NODES,
        max_depth: 30,
        deadline,
        stop: None,
    };
    let out_of_time = || deadline.is_some_and(|d| Instant::now() >= d);
    [threat::Level::Vcf, threat::Level::Vct]
        .into_iter()
        .any(|level| {
            threat::find_win(&mut scratch, them, &limits(level)).is_some() || out_of_time()
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transforms_invert() {
        for sym in 0..8 {
            for c in [Coord::new(0, 0), Coord::new(3, 11), Coord::new(14, 2)] {
                assert_eq!(untransform(c.transformed(15, sym), 15, sym), c, "sym {sym}");
            }
        }
    }

    #[test]
    fn symmetric_positions_share_a_key() {
        let mut a = Board::new(15, 15, Rule::Freestyle).unwrap();
        let mut b = a.clone();
        for (x, y) in [(7, 7), (8, 7), (9, 9)] {
            a.play(Coord::new(x, y)).unwrap();
            // The same stones mirrored left-right and turned a quarter.
            b.play(Coord::new(y, 14 - x)).unwrap();
        }
        assert_eq!(canonical(&a).0, canonical(&b).0);
    }
}
