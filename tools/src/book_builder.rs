//! The opening book builder: Lincke's drop-out expansion from the empty board and the
//! opening lists, each position valued by the engine's own fixed-depth search. The book
//! format, its lookup and the checks that keep a book move off forced positions are the
//! brain's (`wuzi::book`); this writes what it reads. [`mark_proven_wins`] runs the
//! proof-number solver on a book's positions and marks those it proves won.

use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;
use wuzi::board::Board;
use wuzi::book::{board_of, canonical, is_forced, Book, BookMove, Key};
use wuzi::eval::{self, Value};
use wuzi::movegen;
use wuzi::rules;
use wuzi::search::{SearchLimits, SearchState};
use wuzi::solver::{self, SolveLimits, Verdict};
use wuzi::types::{Coord, Rule};

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
        Board::from_coords(self.options.size, self.options.rule, &self.nodes[n].moves).ok()
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
        let mut generated = movegen::candidates(
            &board,
            wuzi::eval::Evaluator::default().for_rule(board.rule()),
        );
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
                        proven_win: None,
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

/// Runs the proof-number solver (`wuzi::solver::solve`) on every position of `book`
/// within `limits` and marks those it proves won for the side to move with the proof's
/// first move (`BookMove::proven_win`, written as `win:MOVE`); the solver claims a win
/// only once its checker has accepted the proof. Other marks are left as they were.
/// Returns how many positions are marked; `progress` hears (positions solved, total).
pub fn mark_proven_wins(
    book: &mut Book,
    limits: &SolveLimits,
    progress: &mut dyn FnMut(usize, usize),
) -> usize {
    let (rule, size) = (book.rule, book.size);
    let total = book.entries.len();
    let mut marked = 0;
    for (done, (key, entry)) in book.entries.iter_mut().enumerate() {
        // The key's own orientation: the proof's move is in the book's orientation.
        if let Some(mut board) = board_of(key, rule, size) {
            let report = solver::solve(&mut board, limits, &mut |_| {});
            if let Verdict::Win(m) = report.verdict {
                entry.proven_win = Some(board.coord(m));
            }
        }
        marked += usize::from(entry.proven_win.is_some());
        progress(done + 1, total);
    }
    marked
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_book_round_trips_through_its_text_and_answers_its_positions() {
        let options = BuildOptions {
            rule: Rule::Freestyle,
            size: 15,
            depth: 3,
            positions: 4,
            width: 3,
            ply_cost: 30,
            roots: Vec::new(),
        };
        let mut reported = Vec::new();
        let book = build(&options, &mut |done, total| reported.push((done, total)));
        assert_eq!(reported, [(1, 4), (2, 4), (3, 4), (4, 4)]);
        assert!(!book.entries.is_empty());
        let parsed = Book::parse(&book.to_text(&["a test".to_string()])).unwrap();
        assert_eq!(parsed.entries, book.entries);
        for (board, entry) in parsed.positions() {
            assert_eq!(parsed.lookup(&board), Some(entry));
        }
    }

    /// A book of two positions: a win by threats (pub-free-win003 of the shared puzzle
    /// suite, whose winning moves are k12, l9, m10, d7 and c7) is marked with a winning
    /// move, which the lookup then answers; a quiet opening is not marked.
    #[test]
    fn the_positions_the_solver_proves_won_are_marked() {
        let won = "e7h7g9f8h6h8j7h9j8f6f7j9i9h11h10g11k9i7k10k7i10j10i12i11j11h13";
        let won = Board::from_moves(15, Rule::Freestyle, won).unwrap();
        let quiet = Board::from_moves(15, Rule::Freestyle, "h8i9h9").unwrap();
        let mut book = Book {
            rule: Rule::Freestyle,
            size: 15,
            entries: BTreeMap::new(),
        };
        for board in [&won, &quiet] {
            // The corner a1 as the book move, in the key's orientation as a book has it.
            let (key, sym) = canonical(board);
            let book_move = BookMove {
                best: Coord::new(0, 0).transformed(15, sym),
                value: 0,
                depth: 6,
                proven_win: None,
            };
            book.entries.insert(key, book_move);
        }
        let limits = SolveLimits {
            nodes: 200_000,
            time: None,
            table_bytes: 8 << 20,
        };
        let mut reported = Vec::new();
        let marked = mark_proven_wins(&mut book, &limits, &mut |done, total| {
            reported.push((done, total))
        });
        assert_eq!(marked, 1);
        assert_eq!(reported, [(1, 2), (2, 2)]);
        let answer = book.lookup(&won).unwrap();
        assert_eq!(answer.proven_win, Some(answer.best));
        let answers = ["k12", "l9", "m10", "d7", "c7"].map(Coord::from_pos_notation);
        assert!(answers.contains(&Some(answer.best)), "{}", answer.best);
        let other = book.lookup(&quiet).unwrap();
        assert_eq!((other.best, other.proven_win), (Coord::new(0, 0), None));
        let again = Book::parse(&book.to_text(&[])).unwrap();
        assert_eq!(again.entries, book.entries);
    }
}
