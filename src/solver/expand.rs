//! The moves of a proof-number node, and the nodes solved on the spot.
//!
//! Three steps, each of which may settle the node:
//! 1. [`at_once`]: a five point of the side to move (the attacker wins; the defender
//!    refutes the attacker's last move).
//! 2. [`by_threats`]: the side to move's win by threats (the threat-space search): at
//!    an attacker node it proves the node, at a defender node it refutes the attacker's
//!    last move. The caller gives it a node cap that grows each time the node is
//!    expanded again.
//! 3. [`moves`]: the moves to search.
//!    - *Attacker nodes* (OR): the stones that stop a defender five point, else the
//!      attacker's fours and threes and the best-scored quiet moves near the stones.
//!      Leaving out attacker moves never makes a false win: it only hides some wins.
//!    - *Defender nodes* (AND): every legal move of the board is a reply. A reply after
//!      which the attacker has a five point loses at once ("implicit" in a proof), and
//!      one after which the attacker has a sure win point (a straight four or double
//!      four no stone stops) while the defender has no five point loses in two moves
//!      ("sure"). The rest are the node's children; when the attacker threatens a win
//!      by threats, the search tries only those the threat module counts as defences.
//!      The proof, written afterwards, answers every reply (see `proof`).

use super::budget::Budget;
use crate::board::{Board, Pos};
use crate::eval::Evaluator;
use crate::params::solver::{FEW_REPLIES, QUIET_MOVES, QUIET_PN, THREAT_MOVES, THREE_PN};
use crate::params::solver::{MAX_THREAT_LEVEL, THREAT_NODES};
use crate::pattern::Pattern;
use crate::rules;
use crate::threat::{self, threats, threats::MoveShape, Level, Memo, Phases};
use crate::types::Color;
use smallvec::SmallVec;

/// What expanding a node gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expansion {
    /// The attacker wins: by `best` at an attacker node (a five, or the first move of a
    /// threat-space win when `by_threats`), or at a defender node because every reply
    /// loses at once or in two moves (`best` is then `Pos::NONE`).
    Proven { best: Pos, by_threats: bool },
    /// No win within the moves tried: the defender makes five or wins by threats, or the
    /// attacker has no move left that the generation keeps.
    Disproven,
    /// The moves to search, best first.
    Children(Vec<Pos>),
}

/// Every reply of a defender node, sorted into the kinds of the module text.
#[derive(Clone, Debug, Default)]
pub struct Replies {
    /// The replies to search, best first.
    pub real: Vec<Pos>,
    /// Replies answered by a sure win point, with every such point after the reply.
    pub sure: Vec<(Pos, SmallVec<[Pos; 4]>)>,
    /// Replies after which the attacker has a five point.
    pub implicit: usize,
    /// The defender has a five point: the node is lost for the attacker.
    pub defender_five: bool,
}

/// The threat-space searches of the nodes, for each side. Each side keeps one memo
/// across nodes: a proven win stays in its table, so after the attacker's threat and the
/// defender's answer the next search finds its root there, or follows the last proof
/// (see `threat::find_win_resumed`).
pub struct ThreatProbe {
    attack: Memo,
    defend: Memo,
}

impl ThreatProbe {
    pub fn new() -> ThreatProbe {
        ThreatProbe {
            attack: Memo::default(),
            defend: Memo::default(),
        }
    }

    /// The first move of a win by threats of `color` (as if it were to move) found
    /// within `cap` nodes, counted in `budget`. `attacker_side` picks the memo.
    pub fn win(
        &mut self,
        board: &mut Board,
        color: Color,
        attacker_side: bool,
        cap: u64,
        budget: &mut Budget,
    ) -> Option<Pos> {
        if budget.exhausted() {
            return None;
        }
        let memo = if attacker_side {
            &mut self.attack
        } else {
            &mut self.defend
        };
        let limits = budget.threat_limits(cap);
        let before = if memo.is_for(board, color, Level::Vct) {
            memo.nodes().0
        } else {
            0
        };
        let win = threat::find_win_resumed(board, color, &limits, memo, Phases::All);
        budget.threat_nodes += memo.nodes().0.saturating_sub(before).max(1);
        win.and_then(|w| w.first_move())
    }
}

/// The node cap of a node's threat-space search at `level` (how often the node was
/// expanded before), `None` past the last level.
pub fn threat_cap(level: u8) -> Option<u64> {
    (level < MAX_THREAT_LEVEL).then(|| THREAT_NODES << level)
}

/// Step 1: the node settled by a five point of the side to move.
pub fn at_once(board: &Board, attacker: Color) -> Option<Expansion> {
    let to_move = board.side_to_move();
    let five = threats::five_point(board, to_move)?;
    Some(if to_move == attacker {
        Expansion::Proven {
            best: five,
            by_threats: false,
        }
    } else {
        Expansion::Disproven
    })
}

/// Step 2: the node settled by the side to move's win by threats within `cap` nodes.
pub fn by_threats(
    board: &mut Board,
    attacker: Color,
    cap: u64,
    probe: &mut ThreatProbe,
    budget: &mut Budget,
) -> Option<Expansion> {
    let to_move = board.side_to_move();
    let at_attacker = to_move == attacker;
    let first = probe.win(board, to_move, at_attacker, cap, budget)?;
    Some(if at_attacker {
        Expansion::Proven {
            best: first,
            by_threats: true,
        }
    } else {
        Expansion::Disproven
    })
}

/// Step 3: the moves of the node (see the module text).
pub fn moves(board: &mut Board, attacker: Color, budget: &mut Budget) -> Expansion {
    let found = if board.side_to_move() == attacker {
        attacker_moves(board, attacker)
    } else {
        return defender_moves(board, attacker, budget);
    };
    if found.is_empty() {
        Expansion::Disproven
    } else {
        Expansion::Children(found)
    }
}

fn attacker_moves(board: &mut Board, attacker: Color) -> Vec<Pos> {
    if board.has_five_point(attacker.opponent()) {
        blocks_of_five(board, attacker)
    } else {
        free_moves(board, attacker)
    }
}

/// The attacker's moves that leave the defender without a five point.
fn blocks_of_five(board: &mut Board, attacker: Color) -> Vec<Pos> {
    let defender = attacker.opponent();
    let Some(stoppers) = threats::five_stoppers(board, defender) else {
        return Vec::new();
    };
    let mut moves = Vec::new();
    for s in stoppers {
        if !rules::is_legal_for(board, s, attacker) {
            continue;
        }
        board.place(s, attacker);
        if !board.has_five_point(defender) {
            moves.push(s);
        }
        board.undo();
    }
    order(board, attacker, &mut moves);
    moves
}

/// Without a five to stop: the attacker's fours and threes (at most `THREAT_MOVES`)
/// and the `QUIET_MOVES` best-scored other moves near the stones, best first.
fn free_moves(board: &mut Board, attacker: Color) -> Vec<Pos> {
    let mut cells = Vec::new();
    board.for_cells_near_stones(|p| cells.push(p));
    if cells.is_empty() {
        // An empty board: the centre.
        let centre = crate::types::Coord::new(board.width() as i32 / 2, board.height() as i32 / 2);
        cells.extend(board.pos(centre));
    }
    cells.retain(|&p| rules::is_legal_for(board, p, attacker));
    order(board, attacker, &mut cells);
    let (mut forcing, mut quiet) = (Vec::new(), Vec::new());
    for p in cells {
        let shape = MoveShape::of(board, p, attacker);
        if shape.is_four() || shape.open_threes > 0 {
            if forcing.len() < THREAT_MOVES {
                forcing.push(p);
            }
        } else if quiet.len() < QUIET_MOVES {
            quiet.push(p);
        }
    }
    forcing.extend(quiet);
    order(board, attacker, &mut forcing);
    forcing
}

/// Sorts `moves` best first for `side` by the engine's compiled-in move policy (which
/// scores what a cell makes for the side and what it takes from the opponent), ties by
/// cell.
pub fn order(board: &Board, side: Color, moves: &mut [Pos]) {
    let policy = Evaluator::default().for_rule(board.rule());
    moves.sort_by_cached_key(|&p| (std::cmp::Reverse(policy.move_score(board, p, side)), p));
}

/// The defender node's replies to search: proven when there are none.
fn defender_moves(board: &mut Board, attacker: Color, budget: &mut Budget) -> Expansion {
    let replies = defender_replies(board, attacker);
    if replies.defender_five {
        return Expansion::Disproven;
    }
    let mut real = replies.real;
    if real.len() > FEW_REPLIES {
        if let Some(stoppers) = threatened_replies(board, attacker.opponent(), budget) {
            real.retain(|p| stoppers.contains(p));
        }
    }
    if real.is_empty() {
        Expansion::Proven {
            best: Pos::NONE,
            by_threats: false,
        }
    } else {
        Expansion::Children(real)
    }
}

/// When the attacker has a win by threats as if it moved again: the defender's moves
/// that may stop it (the threat module's defences, and the defender's fours). `None`
/// when it has none. The search tries only these replies; every other reply loses to
/// the attacker's threats as far as the threat module sees, and the proof, which
/// answers every reply, proves that loss when it is written (a reply it cannot prove
/// lost leaves the win unclaimed).
fn threatened_replies(board: &mut Board, defender: Color, budget: &mut Budget) -> Option<Vec<Pos>> {
    if budget.exhausted() {
        return None;
    }
    let limits = budget.threat_limits(THREAT_NODES);
    let (found, used) = threat::defences_counted(board, defender, &limits);
    budget.threat_nodes += used;
    let mut moves = found?;
    let mut fours = SmallVec::<[Pos; 16]>::new();
    threats::four_moves(board, defender, &mut fours);
    moves.extend(fours);
    Some(moves)
}

/// Every legal reply of the defender node `board`, sorted into kinds. Stops at the
/// first sign that the defender makes five.
pub fn defender_replies(board: &mut Board, attacker: Color) -> Replies {
    let defender = attacker.opponent();
    let mut out = Replies::default();
    if board.has_five_point(defender) {
        out.defender_five = true;
        return out;
    }
    let cells: Vec<Pos> = board.positions().filter(|&p| board.is_empty(p)).collect();
    for d in cells {
        if !rules::is_legal_for(board, d, defender) {
            continue;
        }
        board.place(d, defender);
        if board.has_five_point(attacker) {
            out.implicit += 1;
        } else {
            let points = if board.has_five_point(defender) {
                SmallVec::new()
            } else {
                sure_points(board, attacker)
            };
            if points.is_empty() {
                out.real.push(d);
            } else {
                out.sure.push((d, points));
            }
        }
        board.undo();
    }
    order(board, defender, &mut out.real);
    out
}

/// The attacker's sure win points that win in two moves (straight fours and double
/// fours no single stone stops; see [`threats::is_sure_win_point`]).
fn sure_points(board: &mut Board, attacker: Color) -> SmallVec<[Pos; 4]> {
    let mut out = SmallVec::new();
    if !threats::has_four_points(board, attacker) {
        return out;
    }
    for p in threats::cells_making(board, attacker, Pattern::Four) {
        if MoveShape::of(board, p, attacker).wins_next()
            && threats::is_sure_win_point(board, p, attacker)
        {
            out.push(p);
        }
    }
    out
}

/// The first proof number of the defender node after the attacker's `m` (not yet
/// played): a four leaves one reply, a straight four none that matter, a three a few,
/// a quiet move many.
pub fn initial_defender_pn(board: &Board, attacker: Color, m: Pos) -> u32 {
    let shape = MoveShape::of(board, m, attacker);
    if shape.five || shape.wins_next() || shape.is_four() {
        1
    } else if shape.open_threes > 0 {
        THREE_PN
    } else {
        QUIET_PN
    }
}
