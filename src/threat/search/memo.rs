//! What one search of a root leaves for the next search of it ([`Memo`]), and the proof
//! of a nearby root followed before a search of its own ([`NearbyProof`]).

use super::table::{attack_key, keep_wins, ReplyCache, Table, NO_WIN};
use super::Searcher;
use crate::board::{Board, Pos};
use crate::params::threat::*;
use crate::threat::history::History;
use crate::threat::{Level, Limits, WinningSequence};
use crate::types::Color;

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
    pub(super) phase: usize,
    pub(super) threes: u32,
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

impl Searcher<'_, '_> {
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
    pub(super) fn nearby_win(&self) -> Option<(Pos, u32)> {
        let (proof, delta) = self.nearby.as_ref()?;
        let e = proof.tt.get(&(self.key() ^ delta))?;
        (e.win_from != NO_WIN).then_some((e.best, e.win_from as u32))
    }
}
