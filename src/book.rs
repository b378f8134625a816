//! The opening book: positions the engine has searched offline, their best move and value.
//!
//! A book is built by `pbrain-wuzi book` (see [`build`]) with Lincke's drop-out expansion
//! from the empty board and the opening lists, and stored as text under `openings/`. The
//! books of the main rules are compiled in, so the brain needs no file beside it.
//!
//! File format (`openings/README.md`): `#` lines are comments; one line `board RULE SIZE`
//! (RULE as `INFO rule` writes it); then one position per line:
//!
//! ```text
//! BLACK WHITE MOVE VALUE DEPTH
//! h8,i9 h9 j10 12 6
//! ```
//! BLACK and WHITE are the stones of each colour in "pos" notation, comma-separated
//! (`-` for none), in the canonical orientation (the smallest of the eight symmetric
//! images, see [`Key`]); the side to move follows from the counts. MOVE is the book move
//! in the same orientation, VALUE its value for the side to move (evaluation units), and
//! DEPTH the build's `--depth` (the leaf searches end D or D−1 plies below a position).
//!
//! A book move never overrides a forced result: [`is_forced`] says when the search must
//! decide instead.

use crate::board::Board;
use crate::eval::{self, Value};
use crate::movegen;
use crate::rules;
use crate::search::{SearchLimits, SearchState};
use crate::threat;
use crate::types::{Color, Coord, Rule};
use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;
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

/// What the book says about a position (the move in the board's own orientation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookMove {
    pub best: Coord,
    pub value: Value,
    pub depth: i32,
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
    /// any symmetry) and the rule and size match.
    pub fn lookup(&self, board: &Board) -> Option<BookMove> {
        if board.rule() != self.rule || board.width() != self.size || board.height() != self.size {
            return None;
        }
        let (black, white) = stones(board);
        for sym in 0..8u8 {
            let key = key_under(&black, &white, self.size, sym);
            if let Some(entry) = self.entries.get(&key) {
                let best = untransform(entry.best, self.size, sym);
                // A damaged or foreign entry must not make the engine play a bad cell.
                let legal = board.pos(best).is_some_and(|p| {
                    rules::is_legal_for(&mut board.clone(), p, board.side_to_move())
                });
                return legal.then_some(BookMove { best, ..*entry });
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
            out.push_str(&format!(
                "{} {} {} {} {}\n",
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
    let [black, white, best, value, depth] = fields else {
        return Err("expected 'BLACK WHITE MOVE VALUE DEPTH'".into());
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
    let entry = BookMove {
        best: cell(best)?,
        value: value.parse().map_err(|_| format!("bad value {value:?}"))?,
        depth: depth.parse().map_err(|_| format!("bad depth {depth:?}"))?,
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
/// complete threat sequence to find, not a quick look (the ones seen in play took 57,000
/// and 127,000 nodes); the move's clock bounds it first.
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

/// How a book is built.
#[derive(Clone, Debug)]
pub struct BuildOptions {
    pub rule: Rule,
    pub size: usize,
    /// Fixed depth of the search that picks each node's own choice; its moves are valued
    /// by a search one or two plies shallower from the position after them (see
    /// [`leaf_depth`]).
    pub depth: i32,
    /// Positions to expand (each becomes one book line unless it is decided).
    pub positions: usize,
    /// Moves valued at each expanded position: the search's choice and the best others
    /// by the move generator's order.
    pub width: usize,
    /// Cost of one ply of depth in the drop-out priority (evaluation units).
    pub ply_cost: Value,
    /// Opening positions (move order, black first) to start from besides the empty board.
    pub roots: Vec<Vec<Coord>>,
}

/// A move of an expanded node.
#[derive(Clone, Debug)]
struct Child {
    mv: Coord,
    /// The canonical key of the position after the move.
    key: Key,
    /// The value of the move for the node's side to move by its leaf search.
    leaf: Value,
    /// The node of the position after the move, once expanded (or shared).
    node: Option<usize>,
}

#[derive(Clone)]
struct Node {
    /// The position's stones in the order they were played, from which its board is
    /// rebuilt when needed ([`Builder::board`]): a board takes some 60 KiB, and the
    /// builder keeps a node for every position it meets.
    moves: Vec<Coord>,
    key: Key,
    /// Symmetry from this board's orientation to the key's.
    sym: u8,
    /// Valued moves, filled when the node is expanded; empty for decided positions.
    children: Vec<Child>,
    expanded: bool,
}

/// Builds a book by drop-out expansion (Lincke 2000): every node's value is the
/// minimax of its valued moves; the next node to expand is the unexpanded move with the
/// lowest drop-out cost, the sum over its path of how much worse each move on it is than
/// the best move there, plus `ply_cost` per ply. Good lines thus grow deep, and
/// reasonable alternatives of either side get their share. Deterministic: the searches
/// start from an empty table and ties go to the earlier node and move.
pub fn build(options: &BuildOptions, progress: &mut dyn FnMut(usize, usize)) -> Book {
    let mut builder = Builder {
        options,
        nodes: Vec::new(),
        by_key: BTreeMap::new(),
        state: SearchState::new(),
    };
    builder.state.set_tt_bytes(8 << 20);
    let mut roots = Vec::new();
    let empty = Board::new(options.size, options.size, options.rule).ok();
    let openings = options.roots.iter().filter_map(|stones| {
        let mut b = Board::new(options.size, options.size, options.rule).ok()?;
        for &s in stones {
            if rules::judge_move(&b, s) != rules::Verdict::Normal {
                return None;
            }
            b.play(s).ok()?;
        }
        Some(b)
    });
    for board in empty.into_iter().chain(openings) {
        roots.push(builder.node_for(board));
    }
    let mut expanded = 0;
    while expanded < options.positions {
        let Some(next) = builder.next_to_expand(&roots) else {
            break;
        };
        builder.expand(next);
        expanded += 1;
        progress(expanded, options.positions);
    }
    builder.into_book()
}

/// The search depth for the position after a move (of `stones` stones): `depth - 1` or
/// `depth - 2`, whichever ends the search with black to move.
///
/// The evaluation gives whoever moves at a leaf a bonus of a few hundred units (its tempo
/// factor also scales the empty board's patterns), so values whose leaves belong to
/// different sides cannot be compared. Without this the value backed up through an
/// expanded move (its leaves one ply deeper) sat twice that bonus below its unexpanded
/// siblings', and the book preferred moves it had not looked at. With every leaf of the
/// book at the same side to move, the bonus is one constant for all values.
fn leaf_depth(stones: usize, depth: i32) -> i32 {
    let d = depth - 1;
    if (stones as i32 + d) % 2 == 0 {
        d
    } else {
        d - 1
    }
}

struct Builder<'a> {
    options: &'a BuildOptions,
    nodes: Vec<Node>,
    by_key: BTreeMap<Key, usize>,
    state: SearchState,
}

impl Builder<'_> {
    /// The node of `board`'s position, shared with any symmetric one already made.
    fn node_for(&mut self, board: Board) -> usize {
        let (key, sym) = canonical(&board);
        if let Some(&n) = self.by_key.get(&key) {
            return n;
        }
        let n = self.nodes.len();
        self.by_key.insert(key.clone(), n);
        let moves = board.history().iter().map(|&p| board.coord(p)).collect();
        self.nodes.push(Node {
            moves,
            key,
            sym,
            children: Vec::new(),
            expanded: false,
        });
        n
    }

    /// Node `n`'s board, replayed from its moves (which were played on a board before,
    /// so the replay only fails if the node is corrupt).
    fn board(&self, n: usize) -> Option<Board> {
        let mut board = Board::new(self.options.size, self.options.size, self.options.rule).ok()?;
        for &c in &self.nodes[n].moves {
            board.play(c).ok()?;
        }
        Some(board)
    }

    /// The fixed-depth value and best move for the side to move, from an empty table so
    /// the result does not depend on what was searched before.
    fn search(&mut self, board: &Board, depth: i32) -> (Value, Coord) {
        self.state.clear_hash();
        let stop = AtomicBool::new(false);
        let mut scratch = board.clone();
        let outcome = self
            .state
            .evaluate(&mut scratch, SearchLimits::depth(depth), &stop);
        (outcome.value, board.coord(outcome.best))
    }

    /// Values the moves of node `n`: the search's choice and the generator's best others,
    /// one per distinct resulting position.
    fn expand(&mut self, n: usize) {
        self.nodes[n].expanded = true;
        let Some(board) = self.board(n) else {
            return;
        };
        if is_forced(&board, None) {
            return; // decided positions are left to the search
        }
        let (value, choice) = self.search(&board, self.options.depth);
        if eval::is_decisive(value) {
            return;
        }
        let mut moves = vec![choice];
        let mut generated = movegen::candidates(&board);
        movegen::sort_moves(&mut generated);
        let mut scratch = board.clone();
        let us = board.side_to_move();
        for m in generated {
            if moves.len() >= self.options.width {
                break;
            }
            let c = board.coord(m.pos);
            if !moves.contains(&c) && rules::is_legal_for(&mut scratch, m.pos, us) {
                moves.push(c);
            }
        }
        let mut seen = Vec::new();
        let mut children = Vec::new();
        for mv in moves {
            let mut after = board.clone();
            if after.play(mv).is_err() {
                continue;
            }
            let (key, _) = canonical(&after);
            if seen.contains(&key) {
                continue; // a symmetric twin of a move already valued
            }
            seen.push(key.clone());
            let (v, _) = self.search(&after, leaf_depth(after.move_count(), self.options.depth));
            let node = self.by_key.get(&key).copied();
            children.push(Child {
                mv,
                key,
                leaf: -v,
                node,
            });
        }
        self.nodes[n].children = children;
    }

    /// The minimax value of node `n` for its side to move (None: not valued).
    fn value(&self, n: usize, memo: &mut BTreeMap<usize, Option<Value>>) -> Option<Value> {
        if let Some(&v) = memo.get(&n) {
            return v;
        }
        let mut best: Option<Value> = None;
        for c in &self.nodes[n].children {
            let v = self.child_value(c, memo);
            if best.is_none_or(|b| v > b) {
                best = Some(v);
            }
        }
        memo.insert(n, best);
        best
    }

    fn child_value(&self, c: &Child, memo: &mut BTreeMap<usize, Option<Value>>) -> Value {
        match c.node {
            Some(m) if !self.nodes[m].children.is_empty() => {
                self.value(m, memo).map_or(c.leaf, |v| -v)
            }
            _ => c.leaf,
        }
    }

    /// The unexpanded position of lowest drop-out cost (roots first, each at cost 0).
    fn next_to_expand(&mut self, roots: &[usize]) -> Option<usize> {
        if let Some(&r) = roots.iter().find(|&&r| !self.nodes[r].expanded) {
            return Some(r);
        }
        let mut memo = BTreeMap::new();
        let mut cost_of: BTreeMap<usize, Value> = BTreeMap::new();
        // (cost, parent, child index) of the cheapest unexpanded move.
        let mut best: Option<(Value, usize, usize)> = None;
        let mut stack: Vec<(usize, Value)> = roots.iter().map(|&r| (r, 0)).collect();
        while let Some((n, cost)) = stack.pop() {
            if cost_of.get(&n).is_some_and(|&c| c <= cost) {
                continue;
            }
            cost_of.insert(n, cost);
            let Some(node_value) = self.value(n, &mut memo) else {
                continue;
            };
            for (i, c) in self.nodes[n].children.iter().enumerate() {
                let v = self.child_value(c, &mut memo);
                if eval::is_decisive(v) {
                    continue;
                }
                let child_cost = cost + (node_value - v) + self.options.ply_cost;
                match c.node {
                    Some(m) if self.nodes[m].expanded => stack.push((m, child_cost)),
                    _ => {
                        if best.is_none_or(|(b, _, _)| child_cost < b) {
                            best = Some((child_cost, n, i));
                        }
                    }
                }
            }
        }
        let (_, parent, i) = best?;
        let mv = self.nodes[parent].children[i].mv;
        let mut board = self.board(parent)?;
        board.play(mv).ok()?;
        let m = self.node_for(board);
        self.nodes[parent].children[i].node = Some(m);
        // The same position may also be another node's unexpanded move: link them all.
        let key = self.nodes[m].key.clone();
        for node in &mut self.nodes {
            for c in &mut node.children {
                if c.node.is_none() && c.key == key {
                    c.node = Some(m);
                }
            }
        }
        if self.nodes[m].expanded {
            // Already expanded by another path: nothing new, but the link now counts.
            return self.next_to_expand(roots);
        }
        Some(m)
    }

    fn into_book(self) -> Book {
        let mut memo = BTreeMap::new();
        let mut entries = BTreeMap::new();
        for (n, node) in self.nodes.iter().enumerate() {
            let Some(value) = self.value(n, &mut memo) else {
                continue;
            };
            if eval::is_decisive(value) {
                continue;
            }
            let best = node
                .children
                .iter()
                .find(|c| self.child_value(c, &mut memo) == value)
                .map(|c| c.mv);
            if let Some(best) = best {
                entries.insert(
                    node.key.clone(),
                    BookMove {
                        best: best.transformed(self.options.size, node.sym),
                        value,
                        depth: self.options.depth,
                    },
                );
            }
        }
        Book {
            rule: self.options.rule,
            size: self.options.size,
            entries,
        }
    }
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
