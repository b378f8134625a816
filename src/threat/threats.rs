//! Threats read from the board's pattern tables: which moves threaten, what they threaten,
//! and which squares answer them.
//!
//! Allis's vocabulary, mapped onto the line patterns (see `ThreatStep`):
//! - *gain square*: the attacker's move;
//! - *cost squares*: the defender's replies (the squares that stop the five points of a
//!   four, or the sure win points a three creates — straight-four, double-four and
//!   four-three points);
//! - *rest squares*: the other empty cells of the line; they are not listed, because the
//!   replies are computed exactly by playing each candidate and re-reading the patterns.
//!
//! The search never trusts a category alone: every reply set is recomputed from the
//! board after the move (the patterns are rule-aware, so under standard/caro an overline
//! or a blocked five is simply not a five point, and renju's forbidden points are checked
//! with `rules::is_forbidden`).

use crate::board::{reach_of, Board, Pos};
use crate::params::threat::{
    CLOSED_THREE_THREATS, CROSSING_THREES, FOUR_THREE_THREATS, QUIET_THREATS,
};
use crate::pattern::Pattern;
use crate::rules;
use crate::types::{Color, Coord, Rule};
use smallvec::SmallVec;
use std::ops::ControlFlow;

/// Allis's categories: how many moves the attacker is from a five.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Category {
    /// A five: the game is over.
    Five = 0,
    /// A four or straight four: one move from five, the defender must answer at once.
    Four = 1,
    /// A three: two moves from five; a straight four follows unless answered.
    Three = 2,
}

/// The kind of threat a move makes, strongest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ThreatKind {
    /// `XXXXX`: wins.
    Five,
    /// `.XXXX.` (or any shape with two separate five points): wins next move.
    StraightFour,
    /// `oXXXX.` / `XX.XX`: exactly one five point.
    Four,
    /// `..XXX..`-like: a straight four is threatened; two squares stop it.
    Three,
    /// `.XXX..` against a wall/stone, or `..XXX.` shifted: three squares stop it.
    ThreeWideReply,
    /// `.X.XX.`: the broken three; three squares stop it (the gap and both ends).
    BrokenThree,
}

impl ThreatKind {
    pub fn category(self) -> Category {
        match self {
            ThreatKind::Five => Category::Five,
            ThreatKind::StraightFour | ThreatKind::Four => Category::Four,
            _ => Category::Three,
        }
    }
}

/// What one move of `color` makes over its four lines, from the cached patterns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MoveShape {
    pub five: bool,
    /// A straight four or two five points on one line.
    pub straight_four: bool,
    /// Number of fours over all lines (a double four on one line counts two).
    pub fours: u32,
    /// Number of open threes (including broken ones).
    pub open_threes: u32,
}

impl MoveShape {
    /// The shape of `color` playing the empty cell `p`.
    #[inline]
    pub fn of(board: &Board, p: Pos, color: Color) -> MoveShape {
        MoveShape::from_lines(board.cell_patterns(p)[color.index()])
    }

    /// The shape of a move whose classes on the four lines are `lines`.
    #[inline]
    pub fn from_lines(lines: [Pattern; 4]) -> MoveShape {
        let mut shape = MoveShape::default();
        for l in lines {
            shape.add(l);
        }
        shape
    }

    /// Counts one more line of class `l`.
    #[inline]
    fn add(&mut self, l: Pattern) {
        match l {
            Pattern::Five => self.five = true,
            Pattern::OpenFour => {
                self.straight_four = true;
                self.fours += 1;
            }
            Pattern::DoubleFour => {
                self.straight_four = true;
                self.fours += 2;
            }
            Pattern::Four => self.fours += 1,
            Pattern::OpenThree => self.open_threes += 1,
            _ => {}
        }
    }

    /// True when the move threatens five next move (category 1 or better).
    #[inline]
    pub fn is_four(&self) -> bool {
        self.fours > 0
    }

    /// True when, played, the move leaves two five points the defender cannot both stop
    /// (outside caro, where the ends can be blocked; see `is_sure_win_point`).
    #[inline]
    pub fn wins_next(&self) -> bool {
        self.straight_four || self.fours >= 2
    }

    /// Ordering score for attacker moves: stronger threats and double threats first.
    #[inline]
    pub fn score(&self) -> i32 {
        (self.five as i32) * 1000
            + (self.wins_next() as i32) * 200
            + self.fours as i32 * 30
            + self.open_threes as i32 * 10
    }
}

/// Whether a point's shape alone tells whether it wins under `rule`: under freestyle and
/// standard a straight four (or double four) is sure, and a four is stopped only by a
/// stone on its five point. Caro's run ends can block a five, and renju's forbidden
/// points can keep black from a square, so there the stones must be placed to tell.
/// The reads of [`stays_four_point`] and [`is_four_three_point`] rest on it.
#[inline]
pub fn decided_by_shape(rule: Rule) -> bool {
    matches!(rule, Rule::Freestyle | Rule::Standard)
}

/// Whether `color` may play the empty cell `p` (renju black's forbidden points excluded).
/// A five is always allowed.
#[inline]
pub fn is_legal(board: &mut Board, p: Pos, color: Color) -> bool {
    board.rule() != Rule::Renju || color == Color::White || !rules::is_forbidden(board, p)
}

/// Whether `color` has a legal winning move anywhere; returns it. (With none, the scan
/// reads the counters and returns at once.)
pub fn five_point(board: &Board, color: Color) -> Option<Pos> {
    let mut first = None;
    board.for_cells_making(color, Pattern::Five, |p, _| {
        first = Some(p);
        ControlFlow::Break(())
    });
    first
}

/// The squares where a stone of `color`'s opponent could stop `color`'s five points:
/// each five point, and under caro also the cells along its line (an opponent stone at a
/// run end turns the five into a blocked one). Returns `None` when outside caro there are
/// two or more distinct five points (no single stone stops them: the threat wins).
pub fn five_stoppers(board: &Board, color: Color) -> Option<SmallVec<[Pos; 8]>> {
    five_stoppers_in(
        board,
        cells_making(board, color, Pattern::Five).into_iter(),
        color,
    )
}

/// [`five_stoppers`] over the given cells only (the caller knows every five point of
/// `color` lies among them).
pub fn five_stoppers_in(
    board: &Board,
    cells: impl Iterator<Item = Pos>,
    color: Color,
) -> Option<SmallVec<[Pos; 8]>> {
    let mut out: SmallVec<[Pos; 8]> = SmallVec::new();
    let mut fives = 0;
    let caro = board.rule() == Rule::Caro;
    for p in cells {
        if !board.is_empty(p) {
            continue;
        }
        let lines = &board.cell_patterns(p)[color.index()];
        if !lines.contains(&Pattern::Five) {
            continue;
        }
        fives += 1;
        if !caro && fives >= 2 {
            return None;
        }
        push_unique(&mut out, p);
        if caro {
            empty_cells_along(board, p, color, Pattern::Five, |q| push_unique(&mut out, q));
        }
    }
    Some(out)
}

/// [`five_stoppers`] just after `color`'s stone on `last`, when `color` had no five point
/// before it: each five point it has now lies on a line where `last` made a four (or
/// better), within four of it, so only those lines are read (most fours make one).
pub fn five_stoppers_after(board: &Board, last: Pos, color: Color) -> Option<SmallVec<[Pos; 8]>> {
    let made = board.classes_when_played(last)[color.index()];
    let cells = (0..4)
        .filter(|&dir| made[dir] >= Pattern::Four)
        .flat_map(|dir| {
            (-4..=4)
                .filter(|&k| k != 0)
                .map(move |k| board.offset(last, dir, k))
        });
    five_stoppers_in(board, cells, color)
}

/// Calls `f` on the empty cells within five of `p` along each line where `color`
/// playing `p` makes `least` or better: under caro, where a stone at a run end blocks a
/// five (or spoils a straight four), the cells that can stop what `p` makes.
pub fn empty_cells_along(
    board: &Board,
    p: Pos,
    color: Color,
    least: Pattern,
    mut f: impl FnMut(Pos),
) {
    for dir in 0..4 {
        if board.pattern(p, color, dir) < least {
            continue;
        }
        for k in (-5..=5).filter(|&k| k != 0) {
            let q = board.offset(p, dir, k);
            if board.is_empty(q) {
                f(q);
            }
        }
    }
}

/// Whether the empty cell `p` is `color`'s only five point: every (cell, line) five the
/// board counts for `color` lies on `p`.
#[inline]
pub fn only_five_point(board: &Board, p: Pos, color: Color) -> bool {
    let here = board.cell_patterns(p)[color.index()]
        .iter()
        .filter(|&&class| class == Pattern::Five)
        .count() as u32;
    here > 0 && board.pattern_count(color, Pattern::Five) == here
}

#[inline]
pub fn push_unique<A: smallvec::Array<Item = Pos>>(v: &mut SmallVec<A>, p: Pos) {
    if !v.contains(&p) {
        v.push(p);
    }
}

/// Whether `color` playing the empty cell `p` wins by force in two moves: it makes two
/// five points that no single opponent stone stops (a straight four or a double four),
/// and the move is legal. Under caro the claim is checked by playing every stopping
/// stone, because a straight four there can be killed by blocking the far end.
pub fn is_sure_win_point(board: &mut Board, p: Pos, color: Color) -> bool {
    if !board.is_empty(p) {
        return false;
    }
    let shape = MoveShape::of(board, p, color);
    if shape.five {
        return true;
    }
    if !shape.wins_next() || !is_legal(board, p, color) {
        return false;
    }
    if board.rule() != Rule::Caro {
        return true;
    }
    board.place(p, color);
    // `color` had no five point before (or `p` would be a five): all are new, on p's lines.
    let sure = match five_stoppers_after(board, p, color) {
        None => true,
        Some(stoppers) => stoppers.iter().all(|&s| {
            board.place(s, color.opponent());
            let still = board.has_five_point(color);
            board.undo();
            still
        }),
    };
    board.undo();
    sure
}

/// Whether `color` playing the empty cell `p` makes a four and an open three that wins
/// by force: whichever legal square the opponent stops the four with, it gets no five
/// point of its own, and the three then becomes a sure straight four on its line.
/// (A "four-three"; the caller knows the opponent has no five point now.)
pub fn is_four_three_point(board: &mut Board, p: Pos, color: Color) -> bool {
    if !board.is_empty(p) {
        return false;
    }
    let shape = MoveShape::of(board, p, color);
    if shape.fours != 1 || shape.open_threes == 0 || !is_legal(board, p, color) {
        return false;
    }
    if decided_by_shape(board.rule()) {
        if let Some(wins) = four_three_by_shape(board, p, color) {
            return wins;
        }
    }
    four_three_by_placing(board, p, color)
}

/// [`is_four_three_point`] by playing it out: `p`'s stone, then each stone that stops
/// its four in turn.
fn four_three_by_placing(board: &mut Board, p: Pos, color: Color) -> bool {
    let opponent = color.opponent();
    let three_dirs: SmallVec<[usize; 4]> = (0..4)
        .filter(|&d| board.pattern(p, color, d) == Pattern::OpenThree)
        .collect();
    board.place(p, color);
    let stoppers = five_stoppers_after(board, p, color);
    let wins = match stoppers {
        None => true,
        Some(stoppers) => stoppers.iter().all(|&s| {
            if !is_legal(board, s, opponent) {
                return true; // renju: black may not stop it there
            }
            board.place(s, opponent);
            let ok = board.has_five_point(color) // the stone did not stop the four
                || (!board.has_five_point(opponent)
                    && three_dirs.iter().any(|&dir| {
                        (-4..=4).any(|k| {
                            let t = board.offset(p, dir, k);
                            k != 0
                                && board.is_empty(t)
                                && board.pattern(t, color, dir) == Pattern::OpenFour
                                && is_sure_win_point(board, t, color)
                        })
                    }));
            board.undo();
            ok
        }),
    };
    board.undo();
    wins
}

/// [`is_four_three_point`] under freestyle and standard, read from line codes with no
/// stone placed (the placements cost more than the rest of the test: each updates the
/// classes of up to 40 cells). `p` makes one four and an open three; under these rules
/// the four has a single five point `s` and nothing stops it but a stone there, and the
/// three wins once its line holds a straight four, which is sure by its shape. So, with
/// `p`'s stone added to the codes it lies on: the four point wins unless the stone on
/// `s` makes a four (or better) for the opponent, which would give it a five point, or
/// no cell of the three's line becomes a straight-four point. A stone on `s` changes
/// nothing on the three's line, which meets the four's line at `p` only. `None` leaves
/// the question to the placements: when either side has a five point already, when the
/// four is a straight one, or when its five points are not one (none of which occurs
/// for a point the callers ask about).
fn four_three_by_shape(board: &Board, p: Pos, color: Color) -> Option<bool> {
    debug_assert!(decided_by_shape(board.rule()));
    let opponent = color.opponent();
    if board.has_five_point(color) || board.has_five_point(opponent) {
        return None;
    }
    let lines = board.cell_patterns(p)[color.index()];
    let four_dir = lines.iter().position(|&l| l == Pattern::Four)?;
    // The four's five points: cells of its line within four of `p` that make a five with
    // `p`'s stone (`k` steps from `p`, so `p` is `-k` steps from them).
    let mut five_point = None;
    for k in (-4..=4).filter(|&k| k != 0) {
        let f = board.offset(p, four_dir, k as isize);
        if board.is_empty(f)
            && board.pattern_with_stone(f, color, four_dir, -k, color) == Pattern::Five
        {
            if five_point.is_some() {
                return None;
            }
            five_point = Some((f, k));
        }
    }
    let (s, k_s) = five_point?;
    let opponent_fours = (0..4).any(|dir| {
        let class = if dir == four_dir {
            board.pattern_with_stone(s, opponent, dir, -k_s, color)
        } else {
            board.pattern(s, opponent, dir)
        };
        class >= Pattern::Four
    });
    if opponent_fours {
        return Some(false);
    }
    let straight_four_next = (0..4)
        .filter(|&dir| lines[dir] == Pattern::OpenThree)
        .any(|dir| {
            (-4..=4).filter(|&k| k != 0).any(|k| {
                let t = board.offset(p, dir, k as isize);
                board.is_empty(t)
                    && board.pattern_with_stone(t, color, dir, -k, color) == Pattern::OpenFour
            })
        });
    Some(straight_four_next)
}

/// Classifies the threat `color` made by its stone at `gain` (already placed), given the
/// squares that answer it, for reporting.
pub fn classify(board: &Board, gain: Pos, color: Color, replies: &[Pos]) -> ThreatKind {
    let mut best = ThreatKind::ThreeWideReply;
    for dir in 0..4 {
        let kind = match board.line_class(gain, color, dir) {
            Pattern::Five => ThreatKind::Five,
            Pattern::OpenFour | Pattern::DoubleFour => ThreatKind::StraightFour,
            Pattern::Four => ThreatKind::Four,
            Pattern::OpenThree => {
                if replies.len() <= 2 {
                    ThreatKind::Three
                } else if is_broken(board, gain, color, dir) {
                    ThreatKind::BrokenThree
                } else {
                    ThreatKind::ThreeWideReply
                }
            }
            _ => continue,
        };
        best = best.min(kind);
    }
    best
}

/// A three with a gap inside it (`X.XX`), looked at around `gain`.
fn is_broken(board: &Board, gain: Pos, color: Color, dir: usize) -> bool {
    let own = crate::pattern::Cell::stone(color);
    let stones: Vec<isize> = (-3..=3)
        .filter(|&k| board.cell(board.offset(gain, dir, k)) == own)
        .collect();
    stones.len() >= 3 && stones.windows(2).any(|w| w[1] - w[0] == 2)
}

/// The attacker's candidate moves: fours (category 1) and, when `threes` is set, open
/// threes (category 2) and, when `quiet` is set too, the quiet threats (see
/// [`QUIET_THREATS`]), and when `closed` is set too, the closed threes (see
/// [`CLOSED_THREE_THREATS`]); legal and ordered strongest first (ties by position, so
/// the search is deterministic).
pub fn attacker_moves(
    board: &mut Board,
    color: Color,
    threes: bool,
    quiet: bool,
    closed: bool,
    out: &mut Vec<(i32, Pos)>,
) {
    out.clear();
    let have_fours = has_four_points(board, color);
    let closed = threes && closed && CLOSED_THREE_THREATS;
    let have_threes = threes
        && (board.pattern_count(color, Pattern::OpenThree) > 0
            || (CROSSING_THREES && board.pattern_count(color, Pattern::Three) > 1)
            || (closed && board.pattern_count(color, Pattern::Three) > 0));
    if !have_fours && !have_threes {
        return;
    }
    let quiet = threes
        && quiet
        && QUIET_THREATS
        && matches!(board.rule(), Rule::Freestyle | Rule::Standard);
    let mut anchors: SmallVec<[Pos; 16]> = SmallVec::new();
    // The least class below wants: a three (the threes), else an open three (the quiet
    // threats' anchors), else a four (a VCF): fewer cells reach the closure.
    let least = if have_threes {
        Pattern::Three
    } else if quiet {
        Pattern::OpenThree
    } else {
        Pattern::Four
    };
    board.for_cells_making(color, least, |p, lines| {
        let top = lines[0].max(lines[1]).max(lines[2]).max(lines[3]);
        if quiet && top >= Pattern::OpenThree {
            anchors.push(p);
        }
        let crossing = || {
            lines
                .iter()
                .filter(|&&l| l == Pattern::Three || l == Pattern::OpenThree)
                .count()
                >= 2
        };
        let wanted = top >= Pattern::Four
            || (have_threes
                && (top == Pattern::OpenThree
                    || (CROSSING_THREES && crossing())
                    || (closed && top == Pattern::Three)));
        if wanted {
            out.push((MoveShape::of(board, p, color).score(), p));
        }
        ControlFlow::Continue(())
    });
    if quiet && !anchors.is_empty() {
        quiet_threats(board, &anchors, color, out);
    }
    out.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    if board.rule() == Rule::Renju && color == Color::Black {
        out.retain(|&(_, p)| !rules::is_forbidden(board, p));
    }
}

/// Adds to `out` the quiet moves that make a new sure win point (see [`QUIET_THREATS`]):
/// moves that make neither a four nor an open three, but turn another cell into a
/// four-three or four-four point. Such a move is as strong as a three — the point wins
/// unless answered — and Allis's threat list has no name for it: `X X X [.] o` plus an
/// open two crossing the five point, or two closed threes whose four points meet. Found
/// by trial from the cells where the attacker already makes an open three or a four.
///
/// Only under freestyle and standard, where the replies to a four-three point are read
/// from a narrow window (see `three_stopper_candidates`): under renju and caro the wide
/// window and, under renju, the forbidden-point test of every reply make VCT calls
/// several times slower per node.
///
/// A stone changes the patterns of the cells on its four lines only, one line each, so
/// a new four-three or four-four point `q` has one line that the move upgraded — from
/// an open two to an open three, or from a three to a four — and another line where `q`
/// already made an open three or a four: `anchors` (the empty cells making an open three
/// or better somewhere) are the only candidates for `q`, and the move lies within four
/// cells of it on an upgradable line. Each candidate is played and `q` re-checked
/// exactly; the ones already in `out` are skipped.
fn quiet_threats(board: &mut Board, anchors: &[Pos], color: Color, out: &mut Vec<(i32, Pos)>) {
    let mut tried: SmallVec<[Pos; 64]> = SmallVec::new();
    for &q in anchors {
        let shape = MoveShape::of(board, q, color);
        if shape.five || shape.wins_next() || (shape.fours == 1 && shape.open_threes > 0) {
            continue; // already a (likely) sure point: the attacker plays it directly
        }
        let lines = board.cell_patterns(q)[color.index()];
        for dir in 0..4 {
            let elsewhere = (0..4)
                .filter(|&d| d != dir)
                .map(|d| lines[d])
                .max()
                .unwrap_or(Pattern::Dead);
            // The line grows to a four (beside an open three or a four), or to an open
            // three (beside a four). The move's own class on the line is then at least
            // what the line without `q` needs: a three, or an open two.
            let least = match lines[dir] {
                Pattern::Three | Pattern::OpenThree if elsewhere >= Pattern::OpenThree => {
                    Pattern::Three
                }
                Pattern::OpenTwo if elsewhere >= Pattern::Four => Pattern::OpenTwo,
                _ => continue,
            };
            for k in (-4..=4).filter(|&k| k != 0) {
                let p = board.offset(q, dir, k as isize);
                if !board.is_empty(p)
                    || board.pattern(p, color, dir) < least
                    || tried.contains(&p)
                    || out.iter().any(|&(_, m)| m == p)
                {
                    continue;
                }
                // What `q` would make on this line with the stone: only a shape that
                // would be sure is played out and checked exactly.
                let mut grown = lines;
                grown[dir] = board.pattern_with_stone(q, color, dir, k, color);
                let shape = MoveShape::from_lines(grown);
                if !(shape.wins_next() || (shape.fours == 1 && shape.open_threes > 0)) {
                    continue;
                }
                board.place(p, color);
                let makes = still_sure(board, q, color);
                board.undo();
                if makes {
                    tried.push(p);
                    out.push((MoveShape::of(board, p, color).score(), p));
                }
            }
        }
    }
}

/// The empty cells where `color` makes `least` or better on some line, row by row.
pub fn cells_making(board: &Board, color: Color, least: Pattern) -> SmallVec<[Pos; 16]> {
    let mut out = SmallVec::new();
    board.for_cells_making(color, least, |p, _| {
        out.push(p);
        ControlFlow::Continue(())
    });
    out
}

/// Every legal four of `color` (its counter-threats when defending).
pub fn four_moves(board: &mut Board, color: Color, out: &mut SmallVec<[Pos; 16]>) {
    if !has_four_points(board, color) {
        return;
    }
    for p in cells_making(board, color, Pattern::Four) {
        // A five point alone is not a four.
        if MoveShape::of(board, p, color).is_four() && is_legal(board, p, color) {
            push_unique(out, p);
        }
    }
}

/// The cells where `color` now has a sure win point (see [`is_sure_win_point`]).
pub fn sure_win_points(board: &mut Board, color: Color, out: &mut SmallVec<[Pos; 8]>) {
    out.clear();
    if !has_four_points(board, color) {
        return;
    }
    // Straight-four and double-four points first, four-three points after them: the
    // first are cheap to re-check and have the narrow reply window, so a reply search
    // that reads the points in order rejects most candidates early (see `replies`).
    let mut four_threes: SmallVec<[Pos; 8]> = SmallVec::new();
    // Both kinds of point make a four on some line.
    for p in cells_making(board, color, Pattern::Four) {
        let shape = MoveShape::of(board, p, color);
        if shape.wins_next() {
            if is_sure_win_point(board, p, color) {
                out.push(p);
            }
        } else if FOUR_THREE_THREATS
            && shape.fours == 1
            && shape.open_threes > 0
            && is_four_three_point(board, p, color)
        {
            four_threes.push(p);
        }
    }
    out.extend_from_slice(&four_threes);
}

/// Whether the empty cell `q` stays a five, straight-four or double-four point of
/// `attacker` with a stone of the opponent on the empty cell `c`, read from `q`'s line
/// codes with no stone placed: a stone changes `q`'s class on the line they share only,
/// and only within the rule's reach. Under freestyle and standard such a point is sure
/// by its shape alone (see [`is_sure_win_point`]), so `true` means that `c` leaves it a
/// sure win point; `false` leaves the question to [`still_sure`] (a four-three point,
/// for one, needs the stone placed). The reply search tries dozens of stones against
/// each threat, and placing one updates the classes of up to 40 cells.
pub fn stays_four_point(board: &Board, q: Pos, c: Pos, attacker: Color) -> bool {
    debug_assert!(decided_by_shape(board.rule()));
    if q == c {
        return false;
    }
    let mut lines = board.cell_patterns(q)[attacker.index()];
    let reach = reach_of(board.rule()) as isize;
    'shared: for (dir, line) in lines.iter_mut().enumerate() {
        for k in (-reach..=reach).filter(|&k| k != 0) {
            if board.offset(q, dir, k) == c {
                *line = board.pattern_with_stone(q, attacker, dir, k as i32, attacker.opponent());
                break 'shared;
            }
        }
    }
    let shape = MoveShape::from_lines(lines);
    shape.five || shape.wins_next()
}

/// Whether the point `q` of `attacker` is still a sure win after the opponent's stone
/// (see [`is_sure_win_point`] and [`is_four_three_point`]).
pub fn still_sure(board: &mut Board, q: Pos, attacker: Color) -> bool {
    let shape = MoveShape::of(board, q, attacker);
    if shape.five || shape.wins_next() {
        is_sure_win_point(board, q, attacker)
    } else {
        FOUR_THREE_THREATS && is_four_three_point(board, q, attacker)
    }
}

/// A sure win point as [`three_stopper_candidates`] reads it: its cell, whether it is a
/// four-three point, its four's line, and the lines where it makes an open three or
/// better (a bit per line).
type PointShape = (Coord, bool, usize, u8);

/// The [`PointShape`] of the sure win point `q` of `attacker`.
fn point_shape(board: &Board, q: Pos, attacker: Color) -> PointShape {
    let four_dir = (0..4)
        .find(|&d| board.pattern(q, attacker, d) >= Pattern::Four)
        .unwrap_or(0);
    let key_lines = (0..4)
        .filter(|&d| board.pattern(q, attacker, d) >= Pattern::OpenThree)
        .fold(0u8, |m, d| m | 1 << d);
    (
        board.coord(q),
        !MoveShape::of(board, q, attacker).wins_next(),
        four_dir,
        key_lines,
    )
}

/// The rule's window of [`three_stopper_candidates`]: which cells a stone of the
/// opponent could matter from, for one sure win point.
struct StopperWindow<'a> {
    board: &'a Board,
    attacker: Color,
    /// Renju black: the point is watched on all four lines.
    all_lines: bool,
    /// Freestyle and standard: the narrow window off a four-three point's lines.
    narrow: bool,
    /// How far along a four-three point's lines the stone that stops its four can lie.
    stopper_reach: i32,
}

impl StopperWindow<'_> {
    /// Whether a stone of the opponent on `c` could change whether `q` (of shape `shape`)
    /// stays a sure win point (see [`three_stopper_candidates`]).
    #[inline(always)]
    fn reaches(&self, q: Pos, shape: PointShape, c: Pos) -> bool {
        let (cq, four_three, four_dir, key_lines) = shape;
        let (board, attacker) = (self.board, self.attacker);
        let defender = attacker.opponent();
        if q == c {
            return true;
        }
        let cc = board.coord(c);
        let (dx, dy) = (cc.x - cq.x, cc.y - cq.y);
        let aligned = dx == 0 || dy == 0 || dx == dy || dx == -dy;
        let dist = dx.abs().max(dy.abs());
        if four_three {
            if self.narrow {
                // On the four's line or the three's, a stone changes `q`'s own shape; on
                // its other lines (classes below an open three, which a stone of the
                // opponent cannot raise) it acts as any stone off its lines does.
                if aligned && dist <= 9 && key_lines & (1 << line_dir(dx, dy)) != 0 {
                    return true;
                }
                let (sx, sy) = DIR_STEPS[four_dir];
                return (-4..=4).any(|k: i32| {
                    let (ex, ey) = (cc.x - (cq.x + k * sx), cc.y - (cq.y + k * sy));
                    (ex == 0 || ey == 0 || ex == ey || ex == -ey)
                        && ex.abs().max(ey.abs()) <= 4
                        && board.pattern(c, defender, line_dir(ex, ey)) >= Pattern::Three
                });
            }
            if aligned && dist <= 9 {
                return true;
            }
            // Within five cells, on one line, of a cell on q's lines where the stopping
            // stone can lie: the five point (±4), or under caro a run end (±9).
            return (0..4).any(|d| {
                let (sx, sy) = DIR_STEPS[d];
                (-self.stopper_reach..=self.stopper_reach).any(|k: i32| {
                    let (bx, by) = (cq.x + k * sx, cq.y + k * sy);
                    let (ex, ey) = (cc.x - bx, cc.y - by);
                    (ex == 0 || ey == 0 || ex == ey || ex == -ey) && ex.abs().max(ey.abs()) <= 5
                })
            });
        }
        aligned
            && dist <= 5
            && (self.all_lines || {
                let dir = line_dir(dx, dy);
                let l = board.pattern(q, attacker, dir);
                l == Pattern::OpenFour || l == Pattern::DoubleFour || l == Pattern::Four
            })
    }
}

/// The squares that might stop the sure win points `points` of the opponent, for a stone
/// that is not a four: one stone must stop them all, so the candidates are the
/// intersection over the points of the cells a stone there could matter from:
/// - a straight-four (or double-four) point `q`: the cells of its four lines within ±5
///   (a stone changes the pattern of `q` only from there);
/// - a four-three point `q`: also the cells within ±9 along its lines (the straight-four
///   point of the three and its own window lie up to four cells beyond `q`), and the
///   cells within ±5, on any line, of each cell within ±4 (caro: ±9, the run ends) along
///   `q`'s lines (the stone that stops the four lies there; a stone on its lines can
///   make it a five point for the opponent). Under freestyle and standard both parts
///   are narrower: along `q`'s lines only the four's and the three's count (on a line
///   where `q` makes less than an open three, a stone of the opponent changes nothing
///   `q` needs), and elsewhere a stone can only matter by making, with the stone that
///   stops the four (on the four's line, within ±4 of `q`), a five point of the
///   opponent, so it lies within ±4 of that stone on one line and makes a three or
///   better there for the opponent already.
///
/// Under renju a black point is watched on all four lines, because a white stone on any
/// of them can change whether the point is forbidden; and a point of either colour also
/// wherever a stone could change whether a black move it leans on is forbidden (see
/// [`renju_dependence`]). The caller re-checks each candidate exactly; the window only
/// has to contain every stone that could matter.
pub fn three_stopper_candidates(
    board: &mut Board,
    points: &[Pos],
    attacker: Color,
    out: &mut SmallVec<[Pos; 16]>,
) {
    out.clear();
    if points.is_empty() {
        return;
    }
    let all_lines = board.rule() == Rule::Renju && attacker == Color::Black;
    let stopper_reach: i32 = if board.rule() == Rule::Caro { 9 } else { 4 };
    let narrow = matches!(board.rule(), Rule::Freestyle | Rule::Standard);
    let coords: SmallVec<[PointShape; 8]> = points
        .iter()
        .map(|&q| point_shape(board, q, attacker))
        .collect();
    // Renju: per point, the cells (sorted) off its window where a stone can change
    // whether black may play a move the point leans on.
    let renju = board.rule() == Rule::Renju;
    let dependence: SmallVec<[Vec<Pos>; 8]> = if renju {
        points
            .iter()
            .zip(coords.iter())
            .map(|(&q, &(_, four_three, four_dir, _))| {
                renju_dependence(board, q, attacker, four_three.then_some(four_dir))
            })
            .collect()
    } else {
        SmallVec::new()
    };
    let board = &*board;
    let window = StopperWindow {
        board,
        attacker,
        all_lines,
        narrow,
        stopper_reach,
    };
    // Seeds: the cells around the first point (its lines, or its whole neighbourhood),
    // then those of its renju dependence beyond them, in one loop: with a second copy
    // of the test the compiler no longer inlines it, which costs more than the branch.
    let (c0, wide, _, _) = coords[0];
    let radius = if wide { 9 } else { 5 };
    let side = 2 * radius + 1;
    let around = (side * side) as usize;
    let beyond: SmallVec<[Pos; 8]> = dependence
        .first()
        .into_iter()
        .flatten()
        .copied()
        .filter(|&c| {
            let cc = board.coord(c);
            (cc.x - c0.x).abs() > radius || (cc.y - c0.y).abs() > radius
        })
        .collect();
    let any_dependence = dependence.iter().any(|d| !d.is_empty());
    for n in 0..around + beyond.len() {
        let c = if n < around {
            let (dx, dy) = (n as i32 % side, n as i32 / side);
            match board.pos(Coord::new(c0.x - radius + dx, c0.y - radius + dy)) {
                Some(c) => c,
                None => continue,
            }
        } else {
            beyond[n - around]
        };
        if board.is_empty(c)
            && points
                .iter()
                .zip(coords.iter())
                .enumerate()
                .all(|(i, (&q, &info))| {
                    window.reaches(q, info, c)
                        || (any_dependence && dependence[i].binary_search(&c).is_ok())
                })
        {
            out.push(c);
        }
    }
}

/// The cells off the window's lines, sorted, where the defender's stone could change
/// whether a move the sure win point `q` of `attacker` leans on is legal for black
/// (renju; see [`rules::forbidden_dependence_off_lines`]). For black, `q` itself, and
/// for a four-three point the straight-four points of its three after each stone that
/// stops its four; for white's four-three point, those stones of black's. (The cells
/// those moves' own lines reach lie in the four-three window.) `four_three` is the line
/// of a four-three point's four. Empty for most points.
fn renju_dependence(
    board: &mut Board,
    q: Pos,
    attacker: Color,
    four_three: Option<usize>,
) -> Vec<Pos> {
    let mut cells = Vec::new();
    if attacker == Color::Black {
        rules::forbidden_dependence_off_lines(board, q, &mut cells);
    }
    if let Some(four_dir) = four_three {
        let three_dirs: SmallVec<[usize; 4]> = (0..4)
            .filter(|&d| board.pattern(q, attacker, d) == Pattern::OpenThree)
            .collect();
        // The black moves in question (the straight-four points of black's three, or
        // the stones that stop white's four) lie on `q`'s line `dir` within four of
        // it, and a stone off their lines matters only if they then have two open
        // threes. White stones placed before can only lower black's classes, and
        // black's `q` changes only their line `dir`, where it makes the straight four:
        // so such a cell has two open threes or better now, off `dir` when black
        // attacks. Without one, nothing is placed.
        let black_dirs: SmallVec<[usize; 4]> = match attacker {
            Color::Black => three_dirs,
            Color::White => smallvec::smallvec![four_dir],
        };
        let may_lean = |board: &Board, m: Pos, dir: usize| {
            board.is_empty(m)
                && (0..4)
                    .filter(|&d| attacker == Color::White || d != dir)
                    .filter(|&d| board.pattern(m, Color::Black, d) >= Pattern::OpenThree)
                    .count()
                    >= 2
        };
        let worth_placing = black_dirs
            .iter()
            .any(|&dir| (-4..=4).any(|k| k != 0 && may_lean(board, board.offset(q, dir, k), dir)));
        if worth_placing {
            board.place(q, attacker);
            let stoppers = five_stoppers_after(board, q, attacker).unwrap_or_default();
            for &s in &stoppers {
                if attacker == Color::White {
                    rules::forbidden_dependence_off_lines(board, s, &mut cells);
                    continue;
                }
                board.place(s, Color::White);
                for &dir in &black_dirs {
                    for k in (-4..=4).filter(|&k| k != 0) {
                        let t = board.offset(q, dir, k);
                        if board.is_empty(t)
                            && board.pattern(t, Color::Black, dir) == Pattern::OpenFour
                        {
                            rules::forbidden_dependence_off_lines(board, t, &mut cells);
                        }
                    }
                }
                board.undo();
            }
            board.undo();
        }
    }
    if !cells.is_empty() {
        cells.sort_unstable();
        cells.dedup();
    }
    cells
}

/// Coordinate steps of the four line directions, in the board's direction order.
const DIR_STEPS: [(i32, i32); 4] = [(1, 0), (0, 1), (1, 1), (-1, 1)];

/// The direction index (0 row, 1 column, 2 diagonal, 3 anti-diagonal) of a step.
fn line_dir(dx: i32, dy: i32) -> usize {
    if dy == 0 {
        0
    } else if dx == 0 {
        1
    } else if dx == dy {
        2
    } else {
        3
    }
}

/// Whether `color` has any cell that makes a four (a cheap counter test).
#[inline]
pub fn has_four_points(board: &Board, color: Color) -> bool {
    board.pattern_count(color, Pattern::Four)
        + board.pattern_count(color, Pattern::OpenFour)
        + board.pattern_count(color, Pattern::DoubleFour)
        > 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::threat::corpus;

    /// The empty cells other than `p` within `radius` of it (in both coordinates).
    fn empty_cells_within(board: &Board, p: Pos, radius: i32) -> Vec<Pos> {
        let cp = board.coord(p);
        board
            .positions()
            .filter(|&c| c != p && board.is_empty(c))
            .filter(|&c| {
                let cc = board.coord(c);
                (cc.x - cp.x).abs().max((cc.y - cp.y).abs()) <= radius
            })
            .collect()
    }

    /// [`stays_four_point`], which reads a four point's classes with the opponent's stone
    /// added to one line code, against the board with the stone placed (its incremental
    /// update of every class within reach) and [`still_sure`] there.
    #[test]
    fn a_four_point_read_without_the_stone_matches_the_stone_placed() {
        let (mut stays, mut stopped) = (0, 0);
        for mut board in corpus::generate(60, 51) {
            if !decided_by_shape(board.rule()) {
                continue;
            }
            for attacker in Color::BOTH {
                let points: Vec<Pos> = cells_making(&board, attacker, Pattern::Four)
                    .into_iter()
                    .filter(|&q| {
                        let shape = MoveShape::of(&board, q, attacker);
                        shape.five || shape.wins_next()
                    })
                    .collect();
                for q in points {
                    let cq = board.coord(q);
                    for c in empty_cells_within(&board, q, 6) {
                        let read = stays_four_point(&board, q, c, attacker);
                        board.place(c, attacker.opponent());
                        let shape = MoveShape::of(&board, q, attacker);
                        let placed = shape.five || shape.wins_next();
                        let sure = still_sure(&mut board, q, attacker);
                        board.undo();
                        assert_eq!(read, placed, "point {cq:?}, stone {:?}", board.coord(c));
                        assert!(
                            !read || sure,
                            "{cq:?} read as sure after {:?}",
                            board.coord(c)
                        );
                        if read {
                            stays += 1;
                        } else {
                            stopped += 1;
                        }
                    }
                }
            }
        }
        // Both answers must occur often, or the comparison shows little.
        assert!(
            stays >= 1000 && stopped >= 100,
            "{stays} stay, {stopped} stopped"
        );
    }

    /// [`five_stoppers_after`], which reads the lines where the last stone made a four,
    /// against [`five_stoppers_in`] over every cell within four of it, after each stone
    /// of a side with no five point, under every rule.
    #[test]
    fn the_stoppers_after_a_stone_are_found_on_its_four_lines() {
        let (mut fours, mut rules) = (0, std::collections::HashSet::new());
        for mut board in corpus::generate(100, 53) {
            for color in Color::BOTH {
                if board.has_five_point(color) {
                    continue;
                }
                let cells: Vec<Pos> = board.positions().filter(|&p| board.is_empty(p)).collect();
                for p in cells {
                    board.place(p, color);
                    let after = five_stoppers_after(&board, p, color);
                    let around =
                        five_stoppers_in(&board, board.cells_on_lines(p).into_iter(), color);
                    assert_eq!(after, around, "{:?} at {:?}", board.rule(), board.coord(p));
                    if board.has_five_point(color) {
                        fours += 1;
                        rules.insert(board.rule());
                    }
                    board.undo();
                }
            }
        }
        assert!(
            fours >= 1000 && rules.len() == 4,
            "{fours} fours, rules {rules:?}"
        );
    }

    /// [`four_three_by_shape`] against [`four_three_by_placing`] on every cell where a
    /// side makes one four and an open three, and again with a stone of the opponent on
    /// each empty cell near it (as the reply search asks).
    #[test]
    fn a_four_three_point_read_without_stones_matches_the_stones_placed() {
        let (mut wins, mut fails) = (0, 0);
        let mut compare = |board: &mut Board, p: Pos, color: Color| {
            let shape = MoveShape::of(board, p, color);
            // A straight four is a sure win point by itself: callers never ask.
            if !board.is_empty(p) || shape.fours != 1 || shape.open_threes == 0 || shape.wins_next()
            {
                return;
            }
            let read = four_three_by_shape(board, p, color);
            let placed = four_three_by_placing(board, p, color);
            assert!(read.is_some(), "no read at {:?}", board.coord(p));
            assert_eq!(read, Some(placed), "four-three point {:?}", board.coord(p));
            if placed {
                wins += 1;
            } else {
                fails += 1;
            }
        };
        for mut board in corpus::generate(1000, 52) {
            if !decided_by_shape(board.rule()) {
                continue;
            }
            for color in Color::BOTH {
                if board.has_five_point(color.opponent()) || board.has_five_point(color) {
                    continue;
                }
                let points: Vec<Pos> = cells_making(&board, color, Pattern::Four)
                    .into_iter()
                    .collect();
                for p in points {
                    compare(&mut board, p, color);
                    for c in empty_cells_within(&board, p, 5) {
                        board.place(c, color.opponent());
                        if !board.has_five_point(color.opponent()) && !board.has_five_point(color) {
                            compare(&mut board, p, color);
                        }
                        board.undo();
                    }
                }
            }
        }
        // Both answers must occur often, or the comparison shows little.
        assert!(wins >= 1000 && fails >= 100, "{wins} win, {fails} fail");
    }
}
