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
//!
//! Files, one concern each:
//! - this one: the searcher, its iterative deepening over phases and three budgets, and
//!   its node, clock and stop limits;
//! - `attack`: attacker nodes (the threats tried, their order, the three budget);
//! - `defend`: defender nodes (the reply sets to fours and threes, their order);
//! - `vcf_threats`: Allis's global refutation and the threat of a VCF (the second phase);
//! - `table`: the transposition table and the reply cache;
//! - `memo`: what one search of a root leaves for the next, and proofs followed from a
//!   nearby root;
//! - `proof`: reading a proven win back (its squares, its main line).

mod attack;
mod defend;
mod memo;
mod proof;
mod table;
mod vcf_threats;

pub use memo::{follow_memo_proof, follow_nearby_proof, Memo, NearbyProof};

use super::history::History;
use super::{Level, Limits, Phases, WinningSequence};
use crate::board::{Board, Pos};
use crate::params::threat::*;
use crate::types::{Color, Rule};
use std::sync::atomic::Ordering;
use std::time::Instant;
use table::{attack_key, keep_wins, ReplyCache, Table};

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
    /// default not under renju, where it plays worse in matches; there the order stays the
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
