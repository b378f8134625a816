//! The threat-space search proper: an AND/OR proof search over threat sequences.
//!
//! Allis's single-agent trick (the defender answers a threat with all reply squares at
//! once) finds candidate sequences fast but must then be checked for refutations. Here
//! the two are folded into one exact search, which is sound by construction:
//!
//! - *attacker nodes* (OR): the attacker plays only threats — fours (category 1) and, at
//!   VCT level, threes (category 2): moves that leave a sure win point, or failing that
//!   threaten a VCF. A five wins at once. If the defender has a five point, only the
//!   stones that stop it are tried, and they must still threaten.
//! - *defender nodes* (AND): after a four, the defender must stop every five point
//!   (under caro also by blocking a run end); after a three, the defender may stop the
//!   attacker's sure win points (straight-four, double-four and four-three points) or
//!   counter with any four of its own. Every such reply is searched — this is the
//!   refutation check: the sequence counts only if the attacker wins against all of
//!   them. A move that is neither leaves a sure win point standing and loses by force,
//!   so omitting it keeps the proof exact. Replies are tried strongest first, because
//!   most lines fail and an early refutation saves the rest.
//! - threes cost from a budget that rises by iterative deepening (VCF is budget 0), so
//!   short wins are found first and the search stays inside its node limit;
//! - a transposition table keyed by the board hash proves each threat set once.
//!
//! What makes the search sound is that the defender's reply sets are supersets of every
//! move that could matter; what makes it fast is that they are small (the reply squares
//! of the threat and the defender's own fours).

use super::history::History;
use super::threats::{self, five_point, five_stoppers, MoveShape};
use super::{Level, Limits, Phases, ThreatStep, WinningSequence};
use crate::board::{Board, Pos};
use crate::params::threat::*;
use crate::pattern::{Cell, Pattern};
use crate::types::{Color, Rule};
use smallvec::SmallVec;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::Ordering;
use std::time::Instant;

/// Under caro a stone beside a five point can stop the five too (at a run end it makes
/// the five a blocked one), and one beside a straight-four point can spoil the four: so
/// the proof also needs every empty cell within reach along each line where `p` makes a
/// four or a five for `attacker`. Under the other rules only `p` itself matters.
/// Without them `defences` missed, under caro, the block beyond the far end of a four
/// whose other five point has a defender stone next to it (`X . O O O O .`: the right
/// end stops both five points) and called the position lost.
fn push_caro_blockers(board: &Board, p: Pos, attacker: Color, out: &mut Vec<ProofSquare>) {
    if board.rule() == Rule::Caro {
        threats::empty_cells_along(board, p, attacker, Pattern::Four, |q| {
            out.push(ProofSquare::attacker(q))
        });
    }
}

/// One square of a proof tree, and whether the defender plays it (a reply) rather than
/// the attacker (a move, a five point, a sure win point).
#[derive(Clone, Copy)]
struct ProofSquare {
    pos: Pos,
    defender_reply: bool,
}

impl ProofSquare {
    fn attacker(pos: Pos) -> ProofSquare {
        ProofSquare {
            pos,
            defender_reply: false,
        }
    }
}

/// The empty squares where a defender stone placed before a VCF can break its proof.
///
/// Under freestyle and standard a VCF's proof holds unless the stone takes one of its
/// squares or lets the defender make a four or five while it blocks: only a four can
/// interrupt a sequence of fours. A four is four defender stones in a five-cell window
/// without an attacker stone, so a stone off the proof matters only in a window that
/// holds one of the proof's defender replies, no attacker stone yet, and enough
/// defender stones and replies that the stone makes four of them (see
/// `defender_four_windows`; a stone that makes a four by itself is a reply of its own,
/// see `with_counter_fours`). Under standard whether a five is an overline depends on
/// the line's own stones only. Under renju a stone can change whether a point is
/// forbidden far off, and under caro a run end can block a five from afar, so there
/// every square's lines count, ±5 and ±9.
///
/// Returns the squares, and whether the window is the narrow one (freestyle, standard)
/// rather than whole lines.
fn vcf_kill_window(board: &Board, defender: Color, squares: &[ProofSquare]) -> (Vec<Pos>, bool) {
    let mut window: Vec<Pos> = squares
        .iter()
        .map(|square| square.pos)
        .filter(|&p| board.is_empty(p))
        .collect();
    let narrow = match board.rule() {
        Rule::Freestyle | Rule::Standard => {
            defender_four_windows(board, defender, squares, &mut window);
            true
        }
        Rule::Renju => {
            lines_around(board, squares, 5, &mut window);
            false
        }
        Rule::Caro => {
            lines_around(board, squares, 9, &mut window);
            false
        }
    };
    window.sort();
    window.dedup();
    (window, narrow)
}

/// Adds the empty squares of every five-cell window through a defender reply of the
/// proof where one more defender stone would complete a four with the defender's stones
/// and the proof's replies, the window holding no attacker stone. The replies of the
/// whole proof tree count together and the attacker's moves are left out, so the set
/// can only be larger than the windows of any one line of play.
fn defender_four_windows(
    board: &Board,
    defender: Color,
    squares: &[ProofSquare],
    out: &mut Vec<Pos>,
) {
    let is_reply = |p: Pos| squares.iter().any(|s| s.defender_reply && s.pos == p);
    let own = Cell::stone(defender);
    for reply in squares.iter().filter(|s| s.defender_reply) {
        for dir in 0..4 {
            'window: for start in -4..=0isize {
                let mut defenders = 0;
                for k in start..start + 5 {
                    let p = board.offset(reply.pos, dir, k);
                    match board.cell(p) {
                        Cell::Empty if is_reply(p) => defenders += 1,
                        Cell::Empty => {}
                        c if c == own => defenders += 1,
                        _ => continue 'window,
                    }
                }
                if defenders + 1 >= 4 {
                    for k in start..start + 5 {
                        let p = board.offset(reply.pos, dir, k);
                        if board.is_empty(p) && !is_reply(p) {
                            out.push(p);
                        }
                    }
                }
            }
        }
    }
}

/// Adds every empty square within `reach` of a proof square on its four lines.
fn lines_around(board: &Board, squares: &[ProofSquare], reach: i32, out: &mut Vec<Pos>) {
    for square in squares {
        let c = board.coord(square.pos);
        for (dx, dy) in [(1, 0), (0, 1), (1, 1), (1, -1)] {
            for k in -reach..=reach {
                let at = crate::types::Coord::new(c.x + k * dx, c.y + k * dy);
                if let Some(p) = board.pos(at) {
                    if board.is_empty(p) {
                        out.push(p);
                    }
                }
            }
        }
    }
}

/// Drops from `table` everything but proven wins, which hold whatever the root, the
/// limits and the threat set they are met with again.
fn keep_wins(table: &mut Table) {
    table.retain(|_, e| {
        e.fails_below = 0;
        e.hint = Pos::NONE;
        e.win_from != NO_WIN
    });
}

/// Three budget a non-four attacker move costs: none for a forced block (see `attack`).
#[inline]
fn three_cost(was_block: bool) -> u32 {
    u32::from(!was_block)
}

/// Salt mixed into the hash of attacker nodes so they never collide with other uses.
const ATTACK_SALT: [u64; 2] = [0x9d3c_61a2_52f1_0b17, 0x4b8e_27c5_d6a9_3f01];

/// The table key of the node where `attacker` is to move on a board of hash `hash`.
#[inline]
fn attack_key(hash: u64, attacker: Color) -> u64 {
    hash ^ ATTACK_SALT[attacker.index()]
}

/// The table's keys are Zobrist hashes, already uniformly mixed: hashing them again
/// (SipHash by default) would only cost time.
#[derive(Default)]
struct ZobristHasher(u64);

impl Hasher for ZobristHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | b as u64;
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

type Table = HashMap<u64, Entry, BuildHasherDefault<ZobristHasher>>;

/// The defender's replies after each non-four threat, by position (see `three_replies`).
type ReplyCache = HashMap<u64, Option<Replies>, BuildHasherDefault<ZobristHasher>>;

/// Salts of the reply cache's keys, by phase (the second phase also reads VCF threats).
const REPLY_SALT: [u64; 2] = [0x2f6b_90d3_c4e1_7a55, 0xa1c7_3e08_5bd2_96f4];

/// What the table knows of one attacker node. A win holds for any larger three budget
/// and a failure for any smaller one, so one entry keeps both bounds: the inner
/// deepening (see `attack`) meets the same node at several budgets, and a failure found
/// at a small budget must not hide a win proven at a larger one.
#[derive(Clone, Copy)]
struct Entry {
    /// The smallest budget the node was proven to win with (`NO_WIN`: none yet).
    win_from: u8,
    /// The node fails with every budget below this one (0: nothing known).
    fails_below: u8,
    /// The winning move, when `win_from` is set.
    best: Pos,
    /// When the node failed: the move whose refutation took the most nodes.
    hint: Pos,
}

const NO_WIN: u8 = u8::MAX;

impl Entry {
    fn wins(&self, threes: u32) -> bool {
        self.win_from != NO_WIN && threes >= self.win_from as u32
    }
    fn fails(&self, threes: u32) -> bool {
        threes < self.fails_below as u32
    }
}

/// Why a defender node's reply set could not be formed.
#[derive(Clone)]
enum Replies {
    /// The defender makes five first: the attacker's line fails.
    DefenderWins,
    /// No stone stops the threat: the attacker wins.
    Unstoppable,
    /// These replies must each be refuted.
    Moves(SmallVec<[Pos; 16]>),
}

/// What one search of a root leaves for the next search of the same root (same board,
/// attacker and level): its tables (results and reply sets) and the phase it reached. A
/// later search that resumes from it skips what was already proven or refuted, so two
/// time slices spent on one root add up instead of repeating each other. Every win in the table is proven (sound
/// whatever the phase); a failure holds within the limits and threat set it was found
/// with, and a resumed search only re-enters the phase it stopped in or a later one.
#[derive(Default)]
pub struct Memo {
    key: Option<(u64, Color, bool)>,
    tt: Table,
    reply_cache: ReplyCache,
    phase: usize,
    threes: u32,
    /// Nodes searched from this root, over every search that resumed it, and how many of
    /// them went to the phase it stopped in.
    nodes: u64,
    phase_nodes: u64,
    /// The last search stopped at the end of a phase (see `Searcher::phases`): the
    /// next one starts `phase` afresh instead of resuming inside it.
    between_phases: bool,
    /// The last search ended without a deadline or stop request cutting it: searching the
    /// same root again with the same node limit cannot find more.
    pub complete: bool,
    /// The last search went through its whole threat space (to its depth limit) without a
    /// win: not cut by a deadline, a stop request or its node limit, so a search of the
    /// same root with more time or nodes would find none either.
    ended_without_win: bool,
    /// The last search found a win: its table holds the proof, and a search of a nearby
    /// root follows it first (see [`follow_memo_proof`]).
    won: bool,
    /// The move ordering learnt so far (see [`History`]).
    history: History,
    /// The root moves' nodes at the budget the last search stopped in (see
    /// `Searcher::root_effort`).
    root_effort: Vec<(Pos, u64)>,
}

impl Memo {
    /// The phase and three budget the last search stopped at (for reports).
    pub fn progress(&self) -> (usize, u32) {
        (self.phase, self.threes)
    }

    /// Nodes searched from this root so far, and how many of them in its current phase.
    pub fn nodes(&self) -> (u64, u64) {
        (self.nodes, self.phase_nodes)
    }

    /// Whether the memo belongs to `board` searched for `attacker` at `level`.
    pub fn is_for(&self, board: &Board, attacker: Color, level: Level) -> bool {
        self.key == Some((board.hash(), attacker, level == Level::Vct))
    }

    /// Whether a search of `board` for `attacker` at `level` went through the whole
    /// threat space without a win, so that another (with the same depth limit) would
    /// find nothing either.
    pub fn settled_without_win(&self, board: &Board, attacker: Color, level: Level) -> bool {
        self.is_for(board, attacker, level) && self.ended_without_win
    }
}

/// A proof of the attacker's win from another root that differs from the one searched
/// by a few stones (a defender candidate taken back and another played, see
/// `defence`), kept to order the next search's moves: at each attacker node, the move
/// that won at the matching node of the other root (the same stones placed on top of
/// it) is tried first, at the budget that won there. When the other root's proof still
/// holds, the search walks it instead of searching its failing lines again, far more
/// cheaply than a search of its own.
/// It orders moves only and proves nothing by itself, so the search stays as sound as
/// without it.
pub struct NearbyProof {
    /// The other root's table (its wins and their moves).
    tt: Table,
    /// The other root's board hash: XORed with this root's, it maps a node's key to the
    /// matching node's key there.
    root_hash: u64,
    /// The phase and three budget that proved the other root.
    phase: usize,
    threes: u32,
}

/// Follows `proof`, a win from a nearby root, from the root on `board` (see
/// [`NearbyProof`]), within `limits` and at most `NEARBY_PROOF_NODES`. On a win, returns
/// what `on_win` makes of the search and the budget that won (the proof followed is
/// dropped); otherwise gives the proof back in `proof` and returns `None`, and the
/// caller's full search runs as it would have without it. Following it is cheap where
/// the proof holds because it starts at the proof's phase and budget; where it no longer
/// holds, that start is dear (every line of that budget is searched, where a shorter win
/// may be found at a smaller one), hence the cap. Adds the nodes used to `nodes`.
pub fn follow_nearby_proof<R>(
    board: &mut Board,
    attacker: Color,
    limits: &Limits,
    proof: &mut Option<NearbyProof>,
    nodes: &mut u64,
    on_win: impl FnOnce(&mut Searcher, u32) -> R,
) -> Option<R> {
    let nearby = proof.take()?;
    let following = Limits {
        max_nodes: limits.max_nodes.min(NEARBY_PROOF_NODES),
        ..*limits
    };
    let mut searcher = Searcher::new(board, attacker, &following);
    searcher.follow_nearby(nearby);
    let found = searcher.run_budget();
    *nodes += searcher.nodes;
    let followed = searcher.take_nearby();
    match found {
        Some(threes) => Some(on_win(&mut searcher, threes)),
        None => {
            *proof = followed;
            None
        }
    }
}

/// Before a search of a root `memo` does not hold: when the memo's last search won from
/// another root, for the same attacker and level (in the engine's check of its chosen
/// moves, the position after another move of ours), follows that proof first (see
/// [`follow_nearby_proof`]). On a win the memo holds the new root, its search complete.
/// Not when the memo's table already proves the new root (a transposition
/// [`Searcher::run_resumed`] follows at once).
pub fn follow_memo_proof(
    board: &mut Board,
    attacker: Color,
    limits: &Limits,
    memo: &mut Memo,
) -> Option<WinningSequence> {
    let vct = limits.level == Level::Vct;
    let (root_hash, memo_attacker, memo_vct) = memo.key?;
    let proves_root = |memo: &Memo| {
        memo.tt
            .get(&attack_key(board.hash(), attacker))
            .is_some_and(|e| e.win_from != NO_WIN)
    };
    if !memo.won
        || memo_attacker != attacker
        || memo_vct != vct
        || root_hash == board.hash()
        || proves_root(memo)
    {
        return None;
    }
    let mut proof = Some(NearbyProof {
        tt: std::mem::take(&mut memo.tt),
        root_hash,
        phase: memo.phase,
        threes: memo.threes,
    });
    let mut nodes = 0;
    let found = follow_nearby_proof(
        board,
        attacker,
        limits,
        &mut proof,
        &mut nodes,
        |searcher, threes| {
            let sequence = searcher.sequence(threes);
            let followed = searcher.take_proof(threes);
            (sequence, followed)
        },
    );
    let Some((sequence, followed)) = found else {
        // Not followed: the memo is as it was, for the full search to go on from.
        if let Some(proof) = proof {
            memo.tt = proof.tt;
        }
        return None;
    };
    let history = std::mem::take(&mut memo.history);
    *memo = Memo {
        key: Some((board.hash(), attacker, vct)),
        tt: followed.tt,
        phase: followed.phase,
        threes: followed.threes,
        nodes,
        phase_nodes: nodes,
        complete: true,
        won: true,
        history,
        ..Memo::default()
    };
    Some(sequence)
}

pub struct Searcher<'b, 'l> {
    pub board: &'b mut Board,
    attacker: Color,
    defender: Color,
    limits: &'l Limits<'l>,
    tt: Table,
    reply_cache: ReplyCache,
    /// One move buffer per ply, reused so attacker nodes do not allocate.
    move_buffers: Vec<Vec<(i32, Pos)>>,
    pub nodes: u64,
    pub aborted: bool,
    max_depth: u32,
    /// Set when some line was cut short by the three budget: a larger one may win.
    budget_bound: bool,
    /// Whether moves threatening a VCF count as threats (the second phase of `run_budget`).
    vcf_threats: bool,
    /// Node limit of the current phase (at most `limits.max_nodes`).
    node_cap: u64,
    /// Set when the search stopped at `node_cap` below `limits.max_nodes`.
    cut_by_node_cap: bool,
    /// Node count at which the clock and stop flag are read next. Not a multiple test:
    /// VCF sub-searches add their nodes in one step and could skip every multiple.
    next_clock_check: u64,
    /// Phase `run_budget` starts in, and (after it) the phase it was in when it stopped.
    phase: usize,
    /// `nodes` when the current phase began (0 for the phase the search started in).
    phase_started_at: u64,
    /// Three budget the iterative deepening of that phase starts at (the budgets below it
    /// were searched to the end by an earlier search), then the one it stopped at.
    threes: u32,
    /// Set when the clock or the stop flag (not a node limit) ended the search.
    pub timed_out: bool,
    /// Set when the search goes on from a memo of the same root (see `run_resumed`).
    resuming: bool,
    /// With [`Phases::Current`], stop when the phase the search started in ends without a
    /// win, leaving the next phase for a later search of the same root (`run_resumed`).
    pub phases: Phases,
    /// Set when `phases` stopped the search before its last phase.
    stopped_between_phases: bool,
    /// Orders moves of equal shape (shared with the sub-searches, kept in the memo).
    history: History,
    /// Nodes spent on each root move at the three budget in progress, over every search
    /// of this root that worked on that budget (kept in the memo): what names the root's
    /// hint (see [`ROOT_HINT`]).
    root_effort: Vec<(Pos, u64)>,
    /// Whether the search keeps a history to order its moves by (see [`History`]): by
    /// default not under renju, where it matched worse; there the order stays the
    /// board's. The root's own searches turn it on under every rule (see
    /// `find_win_resumed`).
    pub(super) learns_history: bool,
    /// A proof from a nearby root that orders the moves (see [`NearbyProof`]), and the
    /// XOR of the two roots' hashes.
    nearby: Option<(NearbyProof, u64)>,
}

impl Drop for Searcher<'_, '_> {
    fn drop(&mut self) {
        self.board.resume_search_extras();
    }
}

impl<'b, 'l> Searcher<'b, 'l> {
    pub fn new(board: &'b mut Board, attacker: Color, limits: &'l Limits<'l>) -> Self {
        // The search reads only stones and line classes; its placements skip the rest
        // until it is dropped (see `Drop`).
        board.pause_search_extras();
        let learns_history = board.rule() != Rule::Renju;
        Searcher {
            board,
            attacker,
            defender: attacker.opponent(),
            limits,
            tt: Table::default(),
            reply_cache: ReplyCache::default(),
            move_buffers: Vec::new(),
            nodes: 0,
            aborted: false,
            max_depth: limits.max_depth.min(HARD_MAX_DEPTH),
            budget_bound: false,
            vcf_threats: false,
            node_cap: limits.max_nodes,
            cut_by_node_cap: false,
            next_clock_check: CLOCK_CHECK_NODES,
            phase: 0,
            phase_started_at: 0,
            threes: 0,
            timed_out: false,
            resuming: false,
            phases: Phases::All,
            stopped_between_phases: false,
            history: History::default(),
            root_effort: Vec::new(),
            learns_history,
            nearby: None,
        }
    }

    /// [`Self::run`], resuming from `memo` when it belongs to this root, and leaving in it
    /// what this search found.
    pub fn run_resumed(&mut self, memo: &mut Memo) -> Option<WinningSequence> {
        let key = (
            self.board.hash(),
            self.attacker,
            self.limits.level == Level::Vct,
        );
        let resumes = memo.key == Some(key);
        if resumes {
            self.tt = std::mem::take(&mut memo.tt);
            self.reply_cache = std::mem::take(&mut memo.reply_cache);
            self.history = std::mem::take(&mut memo.history);
            self.root_effort = std::mem::take(&mut memo.root_effort);
            self.phase = memo.phase;
            self.threes = memo.threes;
            self.resuming = !memo.between_phases;
        } else {
            // Another root (our next move, say): its failures do not carry over, but a
            // proven win holds wherever its position comes up again. After the opponent
            // answers a win we claimed, the new root is in the table and the win is
            // followed at once instead of searched for again (and maybe not found in time).
            self.tt = std::mem::take(&mut memo.tt);
            keep_wins(&mut self.tt);
        }
        let (earlier_nodes, earlier_phase_nodes) = if resumes {
            (memo.nodes, memo.phase_nodes)
        } else {
            (0, 0)
        };
        let first_phase = self.phase;
        let result = self.run();
        let phase_nodes = self.nodes - self.phase_started_at;
        memo.nodes = earlier_nodes + self.nodes;
        memo.phase_nodes = if self.phase == first_phase {
            earlier_phase_nodes + phase_nodes
        } else {
            phase_nodes
        };
        memo.key = Some(key);
        memo.phase = self.phase;
        memo.threes = self.threes;
        memo.between_phases = self.stopped_between_phases;
        memo.complete = !(self.timed_out || self.stopped_between_phases);
        memo.ended_without_win = result.is_none() && !self.aborted && memo.complete;
        memo.won = result.is_some();
        memo.tt = std::mem::take(&mut self.tt);
        memo.reply_cache = std::mem::take(&mut self.reply_cache);
        memo.history = std::mem::take(&mut self.history);
        memo.root_effort = std::mem::take(&mut self.root_effort);
        result
    }

    /// Orders this search's moves by `proof`, a win from a nearby root (see
    /// [`NearbyProof`]), and starts it at the phase and three budget that proved that
    /// root: the budgets and phase below would be searched to their end again when the
    /// proof still holds, and the larger ones hold every line of theirs when it does not.
    /// Not for a search that resumes a memo.
    fn follow_nearby(&mut self, proof: NearbyProof) {
        let delta = proof.root_hash ^ self.board.hash();
        self.phase = proof.phase;
        self.nearby = Some((proof, delta));
    }

    /// Gives back the proof [`Self::follow_nearby`] was given.
    fn take_nearby(&mut self) -> Option<NearbyProof> {
        self.nearby.take().map(|(proof, _)| proof)
    }

    /// This search's proof of its root, after a run that found a win with `threes`
    /// three-moves (as [`Self::run_budget`] returned it), for ordering the search of a
    /// nearby root. The table goes with it: the search is done.
    pub fn take_proof(&mut self, threes: u32) -> NearbyProof {
        NearbyProof {
            tt: std::mem::take(&mut self.tt),
            root_hash: self.board.hash(),
            phase: self.phase,
            threes,
        }
    }

    /// The move that won at the node matching this one in the nearby proof, and the three
    /// budget it won with.
    fn nearby_win(&self) -> Option<(Pos, u32)> {
        let (proof, delta) = self.nearby.as_ref()?;
        let e = proof.tt.get(&(self.key() ^ delta))?;
        (e.win_from != NO_WIN).then_some((e.best, e.win_from as u32))
    }

    /// Iterative deepening over the three budget; returns the winning sequence.
    pub fn run(&mut self) -> Option<WinningSequence> {
        self.run_budget().map(|threes| self.sequence(threes))
    }

    /// Iterative deepening over the three budget; returns the budget that proved a win.
    ///
    /// At VCT level this runs twice: first with straight-four, double-four and four-three
    /// threats only (cheap), then, if that finds nothing within the limits' nodes, also
    /// with moves that threaten a VCF (each such threat costs a VCF search per reply
    /// candidate, so it is the fallback, not the rule).
    pub fn run_budget(&mut self) -> Option<u32> {
        let max_threes = match self.limits.level {
            Level::Vcf => 0,
            Level::Vct => self.max_depth.min(u8::MAX as u32),
        };
        let phases: &[bool] = if VCF_THREATS && self.limits.level == Level::Vct {
            &[false, true]
        } else {
            &[false]
        };
        let first = self.phase.min(phases.len() - 1);
        for (phase, &vcf_threats) in phases.iter().enumerate().skip(first) {
            // A table carried over from an earlier search of this phase is kept; moving
            // on to a later phase clears it (below).
            let resumed = phase == first && self.resuming && !self.tt.is_empty();
            let start = match &self.nearby {
                _ if resumed => self.threes.min(max_threes),
                Some((proof, _)) if phase == first && proof.phase == phase => {
                    proof.threes.min(max_threes)
                }
                _ => 0,
            };
            if phase != first {
                self.phase_started_at = self.nodes;
            }
            self.phase = phase;
            self.vcf_threats = vcf_threats;
            // The first of two phases gets two thirds of the nodes (see
            // `FIRST_PHASE_SHARE`), so the fallback gets a chance.
            let last_phase = phase + 1 == phases.len();
            self.node_cap = if last_phase {
                self.limits.max_nodes
            } else {
                self.limits.max_nodes / FIRST_PHASE_SHARE.1 * FIRST_PHASE_SHARE.0
            };
            if self.aborted && self.cut_by_node_cap {
                self.aborted = false;
            }
            self.cut_by_node_cap = false;
            // Failures proven with the smaller threat set do not hold for the larger one;
            // wins do (the larger set holds every threat of the smaller).
            if !resumed {
                keep_wins(&mut self.tt);
            }
            self.budget_bound = false;
            for threes in start..=max_threes {
                self.threes = threes;
                if !(resumed && threes == start) {
                    // A new budget: only a budget an earlier search stopped in carries on.
                    self.root_effort.clear();
                }
                if self.attack(0, threes) {
                    return Some(threes);
                }
                // A resumed level meets the earlier search's failures in the table, and
                // a failure read there does not say whether a larger budget would help:
                // the next level is searched in any case.
                let resumed_level = resumed && threes == start;
                if self.aborted || !(self.budget_bound || resumed_level) {
                    break;
                }
                self.budget_bound = false;
            }
            if self.aborted && (last_phase || !self.cut_by_node_cap) {
                break;
            }
            if self.phases == Phases::Current && !last_phase {
                // The next search of this root starts the next phase afresh: only the
                // wins of this one carry over (as when the loop moves on below).
                self.stopped_between_phases = true;
                self.phase = phase + 1;
                self.phase_started_at = self.nodes;
                self.threes = 0;
                keep_wins(&mut self.tt);
                break;
            }
        }
        None
    }

    fn out_of_budget(&mut self) -> bool {
        if self.aborted {
            return true;
        }
        self.nodes += 1;
        if self.nodes >= self.node_cap {
            self.aborted = true;
            self.cut_by_node_cap = self.nodes < self.limits.max_nodes;
        } else if self.nodes >= self.next_clock_check {
            self.next_clock_check = self.nodes + CLOCK_CHECK_NODES;
            self.aborted = self.past_deadline();
        }
        self.aborted
    }

    /// Reads the clock and the stop flag now (`out_of_budget` does so every
    /// `CLOCK_CHECK_NODES` nodes); true, and `timed_out` set, when either ends the search.
    fn past_deadline(&mut self) -> bool {
        let stopped = self.limits.stop.is_some_and(|s| s.load(Ordering::Relaxed));
        let late = self.limits.deadline.is_some_and(|d| Instant::now() >= d);
        if stopped || late {
            self.timed_out = true;
        }
        stopped || late
    }

    fn key(&self) -> u64 {
        attack_key(self.board.hash(), self.attacker)
    }

    /// Attacker to move, `ply` attacker moves made, `threes` three-moves still allowed.
    /// True when the attacker wins against every defence.
    ///
    /// Inside the tree (not at the root, which deepens by itself), the smaller budgets are
    /// tried first: a short win in one reply's line is then found before the full budget
    /// is spent on its failing threes.
    fn attack(&mut self, ply: u32, threes: u32) -> bool {
        if INNER_DEEPENING && ply > 0 && threes >= 2 {
            // Cheaper wins first: each smaller budget is tried before the full one,
            // from the first one the table does not already decide.
            let mut from = 1;
            if let Some(e) = self.tt.get(&self.key()) {
                if e.wins(threes) {
                    return true;
                }
                from = from.max(e.fails_below as u32);
            }
            // Straight to the budget that won at the nearby proof's matching node.
            if let Some((_, b)) = self.nearby_win().filter(|&(_, b)| b <= threes) {
                from = from.max(b);
            }
            for b in from..threes {
                if self.attack_at(ply, b) {
                    return true;
                }
                if self.aborted {
                    return false;
                }
            }
        }
        self.attack_at(ply, threes)
    }

    /// [`Self::attack`] at exactly this three budget.
    fn attack_at(&mut self, ply: u32, threes: u32) -> bool {
        if self.out_of_budget() {
            return false;
        }
        if let Some(p) = five_point(self.board, self.attacker) {
            self.store(true, threes, p);
            return true;
        }
        if ply >= self.max_depth {
            return false;
        }
        let key = self.key();
        let mut hint = Pos::NONE;
        if let Some(e) = self.tt.get(&key) {
            if e.wins(threes) {
                return true;
            }
            if e.fails(threes) {
                return false;
            }
            hint = e.hint;
        }
        let mut moves = self.move_buffers.pop().unwrap_or_default();
        moves.clear();
        let must_block = self.board.has_five_point(self.defender);
        if must_block {
            if !self.five_stopping_moves(&mut moves) {
                self.move_buffers.push(moves);
                return self.store(false, threes, Pos::NONE);
            }
        } else {
            self.threat_moves(ply, threes, &mut moves);
        }
        self.order_moves(ply, threes, hint, &mut moves);
        let mut proven = false;
        let mut best = Pos::NONE;
        let mut hardest = (0u64, Pos::NONE);
        for &(_, m) in &moves {
            let n0 = self.nodes;
            if self.attacker_move_wins(ply, threes, must_block, m) {
                proven = true;
                best = m;
                if self.learns_history {
                    let cells = self.board.cell_count();
                    self.history.add_win(self.attacker, m, cells);
                }
                break;
            }
            let effort = if ply == 0 {
                self.add_root_effort(m, self.nodes - n0)
            } else {
                self.nodes - n0
            };
            if self.aborted {
                break;
            }
            if effort > hardest.0 {
                hardest = (effort, m);
            }
        }
        self.move_buffers.push(moves);
        if self.aborted {
            return false;
        }
        self.store(proven, threes, if proven { best } else { hardest.1 })
    }

    /// The defender has a five point: only a stone that stops it can be played. Adds
    /// those the attacker may play to `moves`, strongest first; false when no stone stops
    /// the five (two five points, say).
    fn five_stopping_moves(&mut self, moves: &mut Vec<(i32, Pos)>) -> bool {
        let Some(stops) = five_stoppers(self.board, self.defender) else {
            return false;
        };
        for p in stops {
            if threats::is_legal(self.board, p, self.attacker) {
                moves.push((MoveShape::of(self.board, p, self.attacker).score(), p));
            }
        }
        moves.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        true
    }

    /// Adds the attacker's threats to `moves` (threes only while the budget allows
    /// them), and notes when a three was possible but the budget did not allow it.
    fn threat_moves(&mut self, ply: u32, threes: u32, moves: &mut Vec<(i32, Pos)>) {
        // Closed threes count here only near the root of the second phase.
        let closed_threes = self.vcf_threats && ply < CLOSED_THREE_PLIES;
        if threes == 0
            && self.limits.level == Level::Vct
            && (self.board.pattern_count(self.attacker, Pattern::OpenThree) > 0
                || (CROSSING_THREES && self.board.pattern_count(self.attacker, Pattern::Three) > 1)
                || (CLOSED_THREE_THREATS
                    && closed_threes
                    && self.board.pattern_count(self.attacker, Pattern::Three) > 0)
                || (QUIET_THREATS
                    && ply < QUIET_THREAT_PLIES
                    && matches!(self.board.rule(), Rule::Freestyle | Rule::Standard)
                    && threats::has_four_points(self.board, self.attacker)))
        {
            // A three was possible here but not allowed: a larger budget may win.
            self.budget_bound = true;
        }
        threats::attacker_moves(
            self.board,
            self.attacker,
            threes > 0,
            ply < QUIET_THREAT_PLIES,
            closed_threes,
            moves,
        );
    }

    /// Orders `moves` (sorted by shape): among moves of equal shape, the squares that
    /// won most often so far (see [`History`]); at the root, the table's `hint` first;
    /// the move that won at the nearby proof's matching node before all.
    fn order_moves(&self, ply: u32, threes: u32, hint: Pos, moves: &mut Vec<(i32, Pos)>) {
        if self.history.has_wins(self.attacker) {
            let (history, attacker) = (&self.history, self.attacker);
            moves.sort_by(|a, b| {
                let wins = |p| history.wins(attacker, p);
                b.0.cmp(&a.0)
                    .then(wins(b.1).cmp(&wins(a.1)))
                    .then(a.1.cmp(&b.1))
            });
        }
        if ROOT_HINT && ply == 0 && !hint.is_none() {
            if let Some(i) = moves.iter().position(|&(_, m)| m == hint) {
                let h = moves.remove(i);
                moves.insert(0, h);
            }
        }
        if let Some((m, _)) = self.nearby_win().filter(|&(_, b)| b <= threes) {
            if let Some(i) = moves.iter().position(|&(_, p)| p == m) {
                let first = moves.remove(i);
                moves.insert(0, first);
            }
        }
    }

    /// Whether the attacker's move `m` wins against every defence (`must_block`: it
    /// answers the defender's five point).
    fn attacker_move_wins(&mut self, ply: u32, threes: u32, must_block: bool, m: Pos) -> bool {
        self.board.place(m, self.attacker);
        let won = if must_block && self.board.has_five_point(self.defender) {
            false
        } else if self.board.has_five_point(self.attacker) {
            self.defend(ply + 1, threes, None, m)
        } else if threes > 0 || (must_block && self.limits.level == Level::Vct) {
            // A block answering a counter-four costs no three: the threat it keeps
            // standing was paid for when it was made.
            let cost = three_cost(must_block);
            match self.three_replies() {
                Some(replies) if !self.out_of_budget() => {
                    self.defend_moves(ply + 1, threes - cost, replies)
                }
                _ => false,
            }
        } else {
            if must_block && self.limits.level == Level::Vct {
                // A block that might keep a three standing needs a three budget.
                self.budget_bound = true;
            }
            false
        };
        self.board.undo();
        won
    }

    /// Adds `nodes` to what root move `m` has cost at the budget in progress; returns its
    /// total.
    fn add_root_effort(&mut self, m: Pos, nodes: u64) -> u64 {
        match self.root_effort.iter_mut().find(|(p, _)| *p == m) {
            Some((_, total)) => {
                *total += nodes;
                *total
            }
            None => {
                self.root_effort.push((m, nodes));
                nodes
            }
        }
    }

    fn store(&mut self, win: bool, threes: u32, best: Pos) -> bool {
        if self.aborted {
            return false;
        }
        if self.tt.len() >= TT_MAX_ENTRIES {
            self.tt.clear();
        }
        let key = self.key();
        let budget = threes.min(NO_WIN as u32 - 1) as u8;
        let e = self.tt.entry(key).or_insert(Entry {
            win_from: NO_WIN,
            fails_below: 0,
            best: Pos::NONE,
            hint: Pos::NONE,
        });
        if win {
            if budget < e.win_from {
                e.win_from = budget;
                e.best = best;
            }
        } else {
            e.fails_below = e.fails_below.max(budget + 1);
            if !best.is_none() {
                e.hint = best;
            }
        }
        win
    }

    /// The defender's replies after an attacker threat: to a four (`points` is `None`)
    /// the stones that stop every five point; to a three, the stones that stop every sure
    /// win point in `points`, plus the defender's own fours.
    /// `last` is the attacker's threat just played: the attacker had no five point before
    /// it, so every five point now lies on its lines.
    fn replies(&mut self, points: Option<&[Pos]>, last: Pos) -> Replies {
        if self.board.has_five_point(self.defender) {
            return Replies::DefenderWins;
        }
        let mut out: SmallVec<[Pos; 16]> = SmallVec::new();
        match points {
            None => {
                // The attacker had no five point before `last`: it would have played it.
                let Some(stops) = threats::five_stoppers_after(self.board, last, self.attacker)
                else {
                    return Replies::Unstoppable;
                };
                let caro = self.board.rule() == Rule::Caro;
                for s in stops {
                    if !threats::is_legal(self.board, s, self.defender) {
                        continue; // renju: black may not stop it there, so it does not count
                    }
                    // A defender stone makes no attacker five, so a stone on the only
                    // five point stops every five; only caro's blocking cells off the
                    // five point need the stone placed to tell.
                    let stopped = if caro {
                        self.board.place(s, self.defender);
                        let stopped = !self.board.has_five_point(self.attacker);
                        self.board.undo();
                        stopped
                    } else {
                        threats::only_five_point(self.board, s, self.attacker)
                    };
                    if stopped {
                        out.push(s);
                    }
                }
            }
            Some(points) => {
                let mut candidates = SmallVec::new();
                threats::three_stopper_candidates(
                    self.board,
                    points,
                    self.attacker,
                    &mut candidates,
                );
                let by_shape = threats::decided_by_shape(self.board.rule());
                for c in candidates {
                    // A four point the stone leaves one: not a reply, and no stone placed.
                    if by_shape
                        && points
                            .iter()
                            .any(|&q| threats::stays_four_point(self.board, q, c, self.attacker))
                    {
                        continue;
                    }
                    self.board.place(c, self.defender);
                    let stopped = points
                        .iter()
                        .all(|&q| !threats::still_sure(self.board, q, self.attacker));
                    self.board.undo();
                    // Legality last: under renju it is the expensive test.
                    if stopped && threats::is_legal(self.board, c, self.defender) {
                        out.push(c);
                    }
                }
                return self.with_counter_fours(out);
            }
        }
        if out.is_empty() {
            Replies::Unstoppable
        } else {
            Replies::Moves(out)
        }
    }

    /// Completes the replies to a three-like threat: adds the defender's fours (any four
    /// forces an answer first, so it is a reply of its own) and orders them.
    fn with_counter_fours(&mut self, mut out: SmallVec<[Pos; 16]>) -> Replies {
        let mut fours = SmallVec::new();
        threats::four_moves(self.board, self.defender, &mut fours);
        for f in fours {
            threats::push_unique(&mut out, f);
        }
        self.order_replies(&mut out);
        if out.is_empty() {
            Replies::Unstoppable
        } else {
            Replies::Moves(out)
        }
    }

    /// Defender to move after the attacker's threat `last`; true when every reply loses.
    fn defend(&mut self, ply: u32, threes: u32, points: Option<&[Pos]>, last: Pos) -> bool {
        if self.out_of_budget() {
            return false;
        }
        if points.is_some() && self.defender_has_vcf() {
            return false;
        }
        let replies = self.replies(points, last);
        self.defend_moves(ply, threes, replies)
    }

    /// After an attacker move that is not a four: the defender's replies, or `None` when
    /// the move threatens nothing (no sure win point, and in the second phase no VCF) or
    /// the defender's own VCF refutes it at once. All of it follows from the position
    /// (and the phase), and the inner deepening meets each position at several budgets,
    /// so the answer is kept in a table of its own.
    fn three_replies(&mut self) -> Option<Replies> {
        let key = self.board.hash() ^ REPLY_SALT[usize::from(self.vcf_threats)];
        if let Some(r) = self.reply_cache.get(&key) {
            return r.clone();
        }
        let mut points = SmallVec::<[Pos; 8]>::new();
        threats::sure_win_points(self.board, self.attacker, &mut points);
        let replies = if !points.is_empty() {
            (!self.defender_has_vcf()).then(|| self.replies(Some(&points), Pos::NONE))
        } else if self.vcf_threats {
            (!self.defender_has_vcf())
                .then(|| self.vcf_threat_replies())
                .flatten()
        } else {
            None
        };
        // A reply set cut short by the clock is not kept.
        if !self.aborted {
            if self.reply_cache.len() >= TT_MAX_ENTRIES {
                self.reply_cache.clear();
            }
            self.reply_cache.insert(key, replies.clone());
        }
        replies
    }

    /// Allis's global refutation, in its exact form: after an attacker threat that is not
    /// a four (a three, or a threatened VCF), a defender with a VCF of its own ignores the
    /// threat and wins — a threat that needs two more moves cannot interrupt fours, and
    /// the VCF search answers the attacker's counter-fours among its blocks. A small
    /// sub-search; when it finds nothing, the replies are searched as usual.
    fn defender_has_vcf(&mut self) -> bool {
        if !GLOBAL_REFUTATION || !threats::has_four_points(self.board, self.defender) {
            return false;
        }
        let limits = Limits {
            level: Level::Vcf,
            max_nodes: DEFENDER_VCF_NODES,
            max_depth: self.max_depth,
            deadline: None,
            stop: None,
        };
        let mut sub = Searcher::new(&mut *self.board, self.defender, &limits);
        sub.history = std::mem::take(&mut self.history);
        sub.learns_history = self.learns_history;
        let found = sub.run_budget().is_some();
        self.nodes += sub.nodes;
        self.history = std::mem::take(&mut sub.history);
        found
    }

    /// The attacker's VCF as if it moved again (a small sub-search), and the squares of
    /// its proof: `None` when it has none within `max_nodes`.
    ///
    /// Each sub-search has a fresh table. One table shared by all of them (a VCF's
    /// result is a fact of the position alone) saves nodes but not time: the large
    /// table's cache misses cost more than the nodes saved.
    fn vcf_proof(&mut self, max_nodes: u64) -> Option<Vec<ProofSquare>> {
        let limits = Limits {
            level: Level::Vcf,
            max_nodes,
            max_depth: self.max_depth,
            deadline: None,
            stop: None,
        };
        let mut sub = Searcher::new(&mut *self.board, self.attacker, &limits);
        sub.history = std::mem::take(&mut self.history);
        sub.learns_history = self.learns_history;
        let found = sub.run_budget();
        let mut squares = Vec::new();
        if found.is_some() {
            sub.marked_proof_squares(0, VCF_PROOF_SQUARES, &mut squares);
        }
        let (used, aborted) = (sub.nodes, sub.aborted);
        self.history = std::mem::take(&mut sub.history);
        self.nodes += used;
        // A proof cut at the cap would leave the reply window incomplete: no threat then.
        let complete = squares.len() < VCF_PROOF_SQUARES;
        (found.is_some() && !aborted && complete).then_some(squares)
    }

    /// After an attacker move that makes no sure win point, whether it threatens a VCF,
    /// and if so the defender's replies: its fours, and the stones in the proof's window
    /// (see `vcf_kill_window`) that may kill the VCF.
    ///
    /// Under freestyle and standard the window is narrow and every stone in it is a
    /// reply: the stones that leave the VCF standing are not sorted out here, because the
    /// attacker's fours are searched after every reply, so the tree refutes such a stone
    /// with the VCF itself (and keeps the proof in its table for the next budgets), and a
    /// line the defender refutes with an earlier reply never pays for the later ones.
    /// Testing every stone with a VCF search of its own first costs more. Under renju
    /// and caro the window spans whole
    /// lines, so each stone is tested that way, and one whose test runs out of nodes
    /// counts as a reply (more replies can only make a proof harder).
    fn vcf_threat_replies(&mut self) -> Option<Replies> {
        if self.board.has_five_point(self.defender) {
            return None;
        }
        let squares = self.vcf_proof(VCF_THREAT_NODES)?;
        let (window, narrow) = vcf_kill_window(self.board, self.defender, &squares);
        let mut out: SmallVec<[Pos; 16]> = SmallVec::new();
        for c in window {
            if !narrow {
                // Each stone costs a VCF search of its own, and a window holds dozens of
                // them: the clock is read here too, or the deadline could pass by far.
                if self.past_deadline() {
                    self.aborted = true;
                    return None;
                }
                self.board.place(c, self.defender);
                let killed = self.vcf_proof(VCF_KILL_NODES).is_none();
                self.board.undo();
                if !killed {
                    continue;
                }
            }
            if threats::is_legal(self.board, c, self.defender) {
                out.push(c);
            }
        }
        Some(self.with_counter_fours(out))
    }

    /// Strongest defences first: most lines fail, and a refutation found early saves
    /// proving the attacker's win against the other replies. Among equals, the squares
    /// that refuted most often so far (see [`History`]).
    fn order_replies(&self, replies: &mut SmallVec<[Pos; 16]>) {
        let defender = self.defender;
        let board = &*self.board;
        let history = &self.history;
        replies.sort_by_cached_key(|&r| {
            let own = MoveShape::of(board, r, defender).score();
            let blocks = MoveShape::of(board, r, defender.opponent()).score();
            let refuted = history.refutations(defender, r);
            (
                std::cmp::Reverse(own * 2 + blocks),
                std::cmp::Reverse(refuted),
                r,
            )
        });
    }

    /// The replies to the attacker's threat `best` (just played) when rebuilding a proof:
    /// the same sets the search used (four, sure win points, or a VCF threat).
    fn replies_after(&mut self, four: bool, points: &[Pos], best: Pos) -> Replies {
        if four {
            self.replies(None, best)
        } else if !points.is_empty() || !self.vcf_threats {
            self.replies(Some(points), best)
        } else {
            self.vcf_threat_replies().unwrap_or(Replies::Unstoppable)
        }
    }

    /// Tries every reply; true when the attacker wins after each.
    fn defend_moves(&mut self, ply: u32, threes: u32, replies: Replies) -> bool {
        match replies {
            Replies::DefenderWins => false,
            Replies::Unstoppable => true,
            Replies::Moves(moves) => {
                for r in moves {
                    self.board.place(r, self.defender);
                    let won = self.attack(ply, threes);
                    self.board.undo();
                    if !won {
                        if !self.aborted && self.learns_history {
                            let cells = self.board.cell_count();
                            self.history.add_refutation(self.defender, r, cells);
                        }
                        return false;
                    }
                }
                true
            }
        }
    }

    /// The winning move of a proven attacker node, from the table; when its entry was
    /// overwritten, the node is proven again to recover it.
    fn proven_move(&mut self, threes: u32) -> Option<Pos> {
        let stored = |tt: &Table, key| match tt.get(&key) {
            Some(e) if e.win_from != NO_WIN && !e.best.is_none() => Some(e.best),
            _ => None,
        };
        if let Some(best) = stored(&self.tt, self.key()) {
            return Some(best);
        }
        if !self.attack(0, threes) {
            return None;
        }
        stored(&self.tt, self.key())
    }

    /// Every square of a proven win's proof tree (attacker moves, defender replies, the
    /// final fives), at most `cap` of them: a defence must disturb one of these.
    pub fn proof_squares(&mut self, threes: u32, cap: usize, out: &mut Vec<Pos>) {
        let mut marked = Vec::new();
        self.marked_proof_squares(threes, cap, &mut marked);
        out.extend(marked.into_iter().map(|square| square.pos));
    }

    /// [`Self::proof_squares`], each marked with whether it is a defender's reply.
    fn marked_proof_squares(&mut self, threes: u32, cap: usize, out: &mut Vec<ProofSquare>) {
        if out.len() >= cap || self.aborted {
            return;
        }
        if let Some(p) = five_point(self.board, self.attacker) {
            out.push(ProofSquare::attacker(p));
            push_caro_blockers(self.board, p, self.attacker, out);
            return;
        }
        let Some(best) = self.proven_move(threes) else {
            return;
        };
        out.push(ProofSquare::attacker(best));
        let was_block = self.board.has_five_point(self.defender);
        self.board.place(best, self.attacker);
        let four = self.board.has_five_point(self.attacker);
        let mut points = SmallVec::<[Pos; 8]>::new();
        let mut budget = threes;
        if !four {
            threats::sure_win_points(self.board, self.attacker, &mut points);
            out.extend(points.iter().map(|&p| ProofSquare::attacker(p)));
            budget = budget.saturating_sub(three_cost(was_block));
        }
        match self.replies_after(four, &points, best) {
            Replies::Moves(replies) => {
                for r in replies {
                    out.push(ProofSquare {
                        pos: r,
                        defender_reply: true,
                    });
                    self.board.place(r, self.defender);
                    self.marked_proof_squares(budget, cap, out);
                    self.board.undo();
                }
            }
            _ => {
                // Unstoppable: every five point (and straight-four point) is part of it;
                // both make a four or a five on some line.
                let attacker = self.attacker;
                for p in threats::cells_making(self.board, attacker, Pattern::Four) {
                    let shape = MoveShape::of(self.board, p, attacker);
                    if shape.five || shape.wins_next() {
                        out.push(ProofSquare::attacker(p));
                        push_caro_blockers(self.board, p, attacker, out);
                    }
                }
            }
        }
        self.board.undo();
    }

    /// Rebuilds the main line of a proven win from the table: the attacker's moves, and
    /// after each the defender's reply set; the line follows the first reply.
    fn sequence(&mut self, threes: u32) -> WinningSequence {
        let mut steps = Vec::new();
        let mut placed = 0;
        let mut budget = threes;
        for _ in 0..=HARD_MAX_DEPTH {
            if let Some(p) = five_point(self.board, self.attacker) {
                steps.push(ThreatStep {
                    attack: p,
                    kind: threats::ThreatKind::Five,
                    replies: Vec::new(),
                });
                break;
            }
            let Some(best) = self.proven_move(budget) else {
                break;
            };
            let was_block = self.board.has_five_point(self.defender);
            self.board.place(best, self.attacker);
            placed += 1;
            let four = self.board.has_five_point(self.attacker);
            let mut points = SmallVec::<[Pos; 8]>::new();
            if !four {
                threats::sure_win_points(self.board, self.attacker, &mut points);
                budget = budget.saturating_sub(three_cost(was_block));
            }
            let replies = match self.replies_after(four, &points, best) {
                Replies::Moves(m) => m.to_vec(),
                _ => Vec::new(),
            };
            let kind = threats::classify(self.board, best, self.attacker, &replies);
            let next = replies.first().copied();
            steps.push(ThreatStep {
                attack: best,
                kind,
                replies,
            });
            match next {
                Some(r) => {
                    self.board.place(r, self.defender);
                    placed += 1;
                }
                None => {
                    // Unstoppable: the next attacker move is a five (recorded above).
                    continue;
                }
            }
        }
        for _ in 0..placed {
            self.board.undo();
        }
        WinningSequence {
            steps,
            nodes: self.nodes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::threat::corpus;
    use crate::threat::tests::{at, game};
    use crate::threat::verify::{verify_win, Rejection};

    fn vct(max_nodes: u64) -> Limits<'static> {
        Limits {
            level: Level::Vct,
            max_nodes,
            max_depth: 10,
            deadline: None,
            stop: None,
        }
    }

    /// The proof of `attacker`'s win on `board` within `limits`, with its squares.
    fn proof_of(
        board: &mut Board,
        attacker: Color,
        limits: &Limits,
    ) -> Option<(NearbyProof, Vec<Pos>)> {
        let mut searcher = Searcher::new(board, attacker, limits);
        let threes = searcher.run_budget()?;
        let mut squares = Vec::new();
        searcher.proof_squares(threes, 4096, &mut squares);
        Some((searcher.take_proof(threes), squares))
    }

    /// Over generated positions where the side not to move has a forced win: a defender
    /// stone is placed near the win's first move, and the proof of the root without it
    /// is followed. Every win the following claims must pass the independent verifier
    /// and be found by a search from scratch too; where it finds none, the proof comes
    /// back; the board is left as it was.
    #[test]
    fn a_followed_proof_claims_only_real_wins() {
        let limits = vct(20_000);
        let check = vct(300_000);
        let (mut followed, mut not_followed) = (0, 0);
        let mut false_wins = Vec::new();
        for mut board in corpus::generate(25, 50) {
            let defender = board.side_to_move();
            let attacker = defender.opponent();
            if board.has_five_point(defender) {
                continue;
            }
            let Some((_, squares)) = proof_of(&mut board, attacker, &limits) else {
                continue;
            };
            let first = squares[0];
            let stones: Vec<Pos> = (0..4)
                .flat_map(|dir| [-2, 2].map(|k| board.offset(first, dir, k)))
                .filter(|&p| board.is_empty(p))
                .collect();
            for c in stones {
                // A proof of the root as it is, for each stone (following uses it up).
                let proof = proof_of(&mut board, attacker, &limits).map(|(proof, _)| proof);
                assert!(
                    proof.is_some(),
                    "the same search found the win a moment ago"
                );
                board.place(c, defender);
                let before = board.hash();
                let mut proof = proof;
                let mut nodes = 0;
                let win = follow_nearby_proof(
                    &mut board,
                    attacker,
                    &limits,
                    &mut proof,
                    &mut nodes,
                    |searcher, threes| searcher.sequence(threes).first_move(),
                );
                assert_eq!(board.hash(), before, "following changed the board");
                match win {
                    Some(first) => {
                        followed += 1;
                        let first = first.expect("a win has a first move");
                        let fresh = super::super::find_win(&mut board, attacker, &limits);
                        assert!(fresh.is_some(), "followed a win a search does not find");
                        let verdict = verify_win(&mut board, attacker, first, &check, 5_000);
                        if !matches!(verdict, Ok(()) | Err(Rejection::TooBig)) {
                            false_wins.push(format!("{verdict:?}"));
                        }
                    }
                    None => {
                        not_followed += 1;
                        assert!(proof.is_some(), "the proof not followed is given back");
                    }
                }
                board.undo();
            }
        }
        assert!(false_wins.is_empty(), "false wins: {false_wins:?}");
        assert!(
            followed >= 20 && not_followed >= 5,
            "too few cases to mean anything: followed {followed}, not followed {not_followed}"
        );
    }

    /// Where the proof still holds, following it costs a fraction of a new search: in
    /// the standard-rule position `j8j9h11i8h10h7k10` (white to move; black wins if
    /// white does not defend, and only h9 does), white stones off black's proof, each
    /// refuted by following the proof of the position without it.
    #[test]
    fn following_a_proof_that_still_holds_is_cheaper_than_a_new_search() {
        let mut board = game(Rule::Standard, "j8j9h11i8h10h7k10");
        let limits = Limits {
            max_depth: super::super::ROOT_DEPTH,
            ..vct(1_000_000)
        };
        let (mut following, mut fresh) = (0, 0);
        for name in ["d5", "d8", "e9", "m8", "n7", "k15"] {
            let c = at(&board, name);
            let proof = proof_of(&mut board, Color::Black, &limits).map(|(proof, _)| proof);
            assert!(proof.is_some(), "black wins if white passes");
            board.place(c, Color::White);
            let mut proof = proof;
            let won = follow_nearby_proof(
                &mut board,
                Color::Black,
                &limits,
                &mut proof,
                &mut following,
                |_, _| (),
            );
            assert!(
                won.is_some(),
                "the proof without {name} still wins after it"
            );
            let (win, nodes) = super::super::find_win_counted(&mut board, Color::Black, &limits);
            assert!(win.is_some(), "{name}");
            fresh += nodes;
            board.undo();
        }
        assert!(
            following * 4 < fresh,
            "following {following}, new searches {fresh}"
        );
    }
}
