//! The node search of one thread: principal variation search with its pruning steps,
//! the leaf search of four-chains (quiescence), and the forced-move tests that every
//! node (and the root) starts with. See the module documentation of `search` for the
//! order of the steps.

use super::vcf::{Vcf, VcfResult};
use super::{SearchLimits, MAX_PLY};
use crate::board::{Board, Pos};
use crate::eval::{Value, INFINITE, WIN, WIN_THRESHOLD};
use crate::movegen::{self, MoveList, ScoredMove, Threat};
use crate::params::search::*;
use crate::pattern::Pattern;
use crate::rules;
use crate::time::TimeManager;
use crate::tt::{Bound, TranspositionTable};
use crate::types::{Color, Rule};
use smallvec::SmallVec;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// The value of a node whose searched moves all lose by force while others were pruned:
/// below every static value, above every proven loss, and not decisive.
const UNPROVEN_LOSS: Value = -(WIN_THRESHOLD - 1);

/// Plies a quiet move at `index` (0-based, in search order) is searched shallower at
/// `depth`: ln(depth)·ln(index+1)/divisor, the formula of the Stockfish family, so late
/// moves at deep nodes lose most. At least one ply from `LMR_MIN_INDEX` on; never so much
/// that the reduced search skips the quiescence of the move (a four-chain) entirely.
fn lmr_reduction(depth: i32, index: usize) -> i32 {
    if depth < LMR_MIN_DEPTH || index < LMR_MIN_INDEX {
        return 0;
    }
    let r = (f64::from(depth).ln() * ((index + 1) as f64).ln() / LMR_DIVISOR) as i32;
    r.clamp(1, depth - 2)
}

/// The search of one thread: its board, its counters and the per-ply tables of the
/// node search. Root-only work (the threat looks around the iterations) lives in
/// `tactics`, not here.
pub(super) struct Worker<'a> {
    pub(super) board: &'a mut Board,
    pub(super) tt: &'a TranspositionTable,
    pub(super) limits: &'a SearchLimits,
    pub(super) time: Option<TimeManager>,
    pub(super) stop: &'a AtomicBool,
    /// Nodes searched by the helper threads (they add to it as they go), so reports
    /// count the work of all threads.
    helper_nodes: &'a AtomicU64,
    /// `Some(offset)` for a helper thread: it searches `offset` plies deeper than the
    /// iteration number and reports nothing.
    pub(super) helper_depth_offset: Option<i32>,
    pub(super) nodes: u64,
    pub(super) seldepth: i32,
    /// Depth of the iteration in progress.
    pub(super) depth: i32,
    /// The hard limit, the node limit or a stop request ended the search.
    pub(super) aborted: bool,
    /// The soft limit cut the current iteration between two root moves.
    pub(super) cut: bool,
    /// Two moves per ply that last caused a cut-off there (reduced less, not ordered first).
    killers: [[Pos; 2]; MAX_PLY + 1],
    /// Triangular principal-variation table.
    pub(super) pv: Vec<Vec<Pos>>,
    /// `after_null[ply]`: the move leading to this ply was a null move.
    after_null: Vec<bool>,
    /// The node VCF and its table of exhausted positions.
    vcf: Vcf,
}

/// What the later steps of a node need to know of the earlier ones.
struct NodeFacts {
    ply: usize,
    pv_node: bool,
    /// Steps 1–3 left only the answers to a five: the moves keep the depth.
    forced: bool,
    /// The opponent threatens an open four (an open three of theirs).
    threatened: bool,
    /// The interior VCF found the opponent's win: only its defences are searched.
    defending: bool,
    tt_move: Pos,
}

impl<'a> Worker<'a> {
    pub(super) fn new(
        board: &'a mut Board,
        tt: &'a TranspositionTable,
        limits: &'a SearchLimits,
        time: Option<TimeManager>,
        stop: &'a AtomicBool,
        helper_nodes: &'a AtomicU64,
    ) -> Worker<'a> {
        Worker {
            board,
            tt,
            limits,
            time,
            stop,
            helper_nodes,
            helper_depth_offset: None,
            nodes: 0,
            seldepth: 0,
            depth: 0,
            aborted: false,
            cut: false,
            killers: [[Pos::NONE; 2]; MAX_PLY + 1],
            pv: vec![Vec::new(); MAX_PLY + 2],
            after_null: vec![false; MAX_PLY + 2],
            vcf: Vcf::new(),
        }
    }

    /// Whether a stop request or the node limit ended the search (the clock's limits
    /// leave the check its time; these do not).
    pub(super) fn stopped_by_request_or_nodes(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || self.nodes >= self.limits.max_nodes
    }

    /// Nodes of this search, helper threads included.
    pub(super) fn all_nodes(&self) -> u64 {
        self.nodes + self.helper_nodes.load(Ordering::Relaxed)
    }

    pub(super) fn negamax(
        &mut self,
        depth: i32,
        mut alpha: Value,
        mut beta: Value,
        ply: usize,
    ) -> Value {
        self.count_node();
        if self.aborted {
            return 0;
        }
        self.pv[ply].clear();
        self.seldepth = self.seldepth.max(ply as i32);
        if self.board.is_full() {
            return 0;
        }
        if ply >= MAX_PLY {
            return self.limits.eval.evaluate(self.board);
        }

        // Steps 1–3: decided or forced.
        let forced = match self.forced_moves(ply) {
            Forced::Won(v) | Forced::Lost(v) => return v,
            Forced::Only(list) => Some(list),
            Forced::No => None,
        };

        // Mate-distance pruning: nothing here can beat a shorter win already found.
        alpha = alpha.max(-WIN + ply as Value);
        beta = beta.min(WIN - ply as Value - 1);
        if alpha >= beta {
            return alpha;
        }

        if depth <= 0 && forced.is_none() {
            return self.quiescence(beta, ply);
        }

        // Step 4: transposition table.
        let key = self.board.hash();
        let pv_node = beta - alpha > 1;
        let (tt_move, tt_cut) = self.probe_table(key, depth, alpha, beta, ply, pv_node);
        if let Some(v) = tt_cut {
            return v;
        }

        let them = self.board.side_to_move().opponent();
        let threatened = forced.is_none() && has_decisive_four(self.board, them);

        // Step 4c: VCF for both sides.
        let defences = if forced.is_none() && !threatened {
            match self.interior_vcf(ply, depth) {
                ControlFlow::Break(won) => return won,
                ControlFlow::Continue(defences) => defences,
            }
        } else {
            None
        };
        let facts = NodeFacts {
            ply,
            pv_node,
            forced: forced.is_some(),
            threatened,
            defending: defences.is_some(),
            tt_move,
        };

        // Step 4a: a static value far above beta.
        if let Some(v) = self.reverse_futility(&facts, depth, beta) {
            return v;
        }

        // Step 4b: null move.
        if let Some(v) = self.null_move(&facts, depth, beta) {
            return v;
        }

        // Steps 5–6: moves.
        let (moves, capped) = self.node_moves(&facts, forced, defences.as_deref());
        if moves.is_empty() {
            return self.value_without_moves(ply);
        }
        let lmp_moves = self.late_move_count(&facts, depth, alpha, beta);
        let Some((best_value, best_move, pruned)) =
            self.search_moves(&facts, &moves, depth, alpha, beta, lmp_moves)
        else {
            return 0; // aborted
        };
        let mut best_value = best_value;
        if (capped || pruned) && best_value <= -WIN_THRESHOLD {
            // Every move searched loses by force, but not every move was searched: a
            // loss is proven only against all of them, and a claimed one would be a false
            // win at the parent. The node is valued as lost, short of a proven loss.
            best_value = UNPROVEN_LOSS;
        }
        let bound = if best_value >= beta {
            Bound::Lower
        } else if best_value > alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.tt
            .store(key, best_move, value_to_tt(best_value, ply), depth, bound);
        best_value
    }

    /// Counts a node and, every `LIMIT_CHECK_INTERVAL` nodes, checks the limits.
    fn count_node(&mut self) {
        self.nodes += 1;
        if self.nodes & (LIMIT_CHECK_INTERVAL - 1) == 0 {
            self.check_limits();
        }
    }

    /// Step 4: the table's move for the node, and its value when the stored bound
    /// settles the node (never at PV nodes).
    fn probe_table(
        &self,
        key: u64,
        depth: i32,
        alpha: Value,
        beta: Value,
        ply: usize,
        pv_node: bool,
    ) -> (Pos, Option<Value>) {
        let Some(e) = self.tt.probe(key) else {
            return (Pos::NONE, None);
        };
        let v = value_from_tt(e.value, ply);
        if !pv_node && e.depth >= depth {
            let cut = match e.bound {
                Bound::Exact => true,
                Bound::Lower => v >= beta,
                Bound::Upper => v <= alpha,
            };
            if cut {
                return (e.best, Some(v));
            }
        }
        (e.best, None)
    }

    /// Step 4c (`interior_vcf`): our own four-chain win ends the node with its proven
    /// value (`Break`); against the opponent's (as if we passed), only the moves after
    /// which it has none are searched (`Continue` with them), where the node is deep
    /// enough to pay for trying each; `Continue(None)` otherwise.
    fn interior_vcf(&mut self, ply: usize, depth: i32) -> ControlFlow<Value, Option<Vec<Pos>>> {
        if !self.limits.options.interior_vcf {
            return ControlFlow::Continue(None);
        }
        if let VcfResult::Win(_, plies) = self.vcf.search(self.board, INTERIOR_VCF_NODES) {
            return ControlFlow::Break(vcf_win_value(ply, plies));
        }
        let them = self.board.side_to_move().opponent();
        if depth < VCF_DEFENCE_MIN_DEPTH || self.board.pattern_count(them, Pattern::Four) == 0 {
            return ControlFlow::Continue(None);
        }
        self.board.make_null();
        let threat = self.vcf.search(self.board, INTERIOR_VCF_NODES);
        self.board.undo_null();
        if !matches!(threat, VcfResult::Win(..)) {
            return ControlFlow::Continue(None);
        }
        // Every cell that can stop a four-chain lies near a stone (a four point is
        // within two cells of the stones that make it): try each.
        let mut candidates = Vec::new();
        self.board.for_cells_near_stones(|p| candidates.push(p));
        let mut defences = Vec::new();
        for m in candidates {
            self.board.make(m);
            if !matches!(
                self.vcf.search(self.board, INTERIOR_VCF_NODES),
                VcfResult::Win(..)
            ) {
                defences.push(m);
            }
            self.board.undo();
        }
        ControlFlow::Continue((!defences.is_empty()).then_some(defences))
    }

    /// Step 4a (`reverse_futility`): at a shallow non-PV node, a static value that beats
    /// beta by a margin per ply of depth is taken to fail high without a search. Not when
    /// anything forces the side to move, nor against an opponent who wins by fours if
    /// we pass (its fours would overturn any static value), nor near win/loss bounds.
    /// Under caro any four point of the opponent declines the prune: a four blocked at
    /// one end has two answers there (its five point and the cell past it), so the
    /// four-chain search branches and asking it costs more than the prune saves.
    fn reverse_futility(&mut self, facts: &NodeFacts, depth: i32, beta: Value) -> Option<Value> {
        if !self.limits.options.reverse_futility
            || facts.pv_node
            || facts.forced
            || facts.threatened
            || facts.defending
            || depth > RFP_MAX_DEPTH
            || beta.abs() >= WIN_THRESHOLD
        {
            return None;
        }
        let v = self.limits.eval.evaluate(self.board);
        if v - RFP_MARGIN * depth < beta {
            return None;
        }
        let opponent_fours = if self.board.rule() == Rule::Caro {
            let them = self.board.side_to_move().opponent();
            self.board.pattern_count(them, Pattern::Four) > 0
        } else {
            self.opponent_wins_by_fours()
        };
        if opponent_fours {
            return None;
        }
        Some(v)
    }

    /// The static value for the side to move if it passed: the evaluation favours the
    /// side to move by a tempo, which a pass hands to the opponent, so the value before
    /// the pass overstates what the null move's search will find.
    fn value_after_pass(&mut self) -> Value {
        self.board.make_null();
        let v = -self.limits.eval.evaluate(self.board);
        self.board.undo_null();
        v
    }

    /// Whether the opponent would win by fours if the side to move passed.
    fn opponent_wins_by_fours(&mut self) -> bool {
        let them = self.board.side_to_move().opponent();
        if self.board.pattern_count(them, Pattern::Four) == 0 {
            return false;
        }
        self.board.make_null();
        let threat = self.vcf.search(self.board, INTERIOR_VCF_NODES);
        self.board.undo_null();
        !matches!(threat, VcfResult::NoWin)
    }

    /// Step 4b: null move. If passing still fails high, a real move would too. Not
    /// when the opponent threatens anything or wins by fours after the pass (a pass
    /// would just lose), nor when the static value after the pass is below beta (its
    /// search would seldom fail high), never twice in a row, never near win/loss bounds,
    /// and a pass never proves a win. Returns the node's value when it ends the node.
    fn null_move(&mut self, facts: &NodeFacts, depth: i32, beta: Value) -> Option<Value> {
        let ply = facts.ply;
        let tried = self.limits.options.null_move
            && !facts.pv_node
            && !facts.forced
            && !facts.threatened
            && !facts.defending
            && depth >= NULL_MIN_DEPTH
            && !self.after_null[ply]
            && beta.abs() < WIN_THRESHOLD
            && self.value_after_pass() >= beta
            && !self.opponent_wins_by_fours();
        if !tried {
            return None;
        }
        let reduction = NULL_REDUCTION + depth / 6;
        self.board.make_null();
        self.after_null[ply + 1] = true;
        let v = -self.negamax(depth - 1 - reduction, -beta, -beta + 1, ply + 1);
        self.after_null[ply + 1] = false;
        self.board.undo_null();
        if self.aborted {
            return Some(0);
        }
        (v >= beta).then_some(if v >= WIN_THRESHOLD { beta } else { v })
    }

    /// Steps 5–6: the node's legal moves in search order (the forced answers, or the
    /// ordinary moves narrowed to `defences`), and whether the interior cap left some out.
    fn node_moves(
        &mut self,
        facts: &NodeFacts,
        forced: Option<MoveList>,
        defences: Option<&[Pos]>,
    ) -> (MoveList, bool) {
        let (mut moves, capped) = match forced {
            Some(list) => (list, false),
            None => {
                let (mut moves, capped) =
                    self.ordinary_moves(facts.ply, facts.tt_move, facts.threatened);
                if let Some(defences) = defences {
                    restrict_to_defences(&mut moves, defences);
                }
                (moves, capped)
            }
        };
        self.retain_legal(&mut moves);
        (moves, capped)
    }

    /// A node with no move to search: all answers forbidden (renju black) or nothing
    /// sensible left.
    fn value_without_moves(&mut self, ply: usize) -> Value {
        if self
            .board
            .has_five_point(self.board.side_to_move().opponent())
        {
            -(WIN - (ply as Value + 1))
        } else {
            self.limits.eval.evaluate(self.board)
        }
    }

    /// Late-move pruning: the quiet moves searched at most (the rest are not). Only at
    /// shallow non-PV nodes where nothing is forced or threatened and no bound is a
    /// proven result, so it can never hide a defence against a four or an open three,
    /// nor make a win or loss out of a guess.
    fn late_move_count(&self, facts: &NodeFacts, depth: i32, alpha: Value, beta: Value) -> usize {
        let prunable = !facts.pv_node
            && !facts.forced
            && !facts.threatened
            && !facts.defending
            && alpha.abs() < WIN_THRESHOLD
            && beta.abs() < WIN_THRESHOLD;
        if prunable && self.limits.options.late_move_pruning && depth <= LMP_MAX_DEPTH {
            LMP_MOVES[depth.max(0) as usize]
        } else {
            usize::MAX
        }
    }

    /// Step 6: PVS over `moves`, quiet ones from index `lmp_moves` on pruned. Returns the
    /// best value and move and whether some move went unsearched (pruned), or `None`
    /// when the search was aborted.
    fn search_moves(
        &mut self,
        facts: &NodeFacts,
        moves: &MoveList,
        depth: i32,
        mut alpha: Value,
        beta: Value,
        lmp_moves: usize,
    ) -> Option<(Value, Pos, bool)> {
        let (ply, us) = (facts.ply, self.board.side_to_move());
        let new_depth = if facts.forced { depth } else { depth - 1 };
        let mut pruned = false;
        let mut best_value = -INFINITE;
        let mut best_move = Pos::NONE;
        for (i, m) in moves.iter().map(|m| m.pos).enumerate() {
            if i > 0 && i >= lmp_moves && m != facts.tt_move && is_quiet(self.board, m, us) {
                pruned = true;
                continue;
            }
            let reduction = self.late_move_reduction(facts, depth, i, m);
            // A child above the horizon probes the table first thing after its forced-move
            // tests; start the slot's load now. (Leaves go to quiescence, which does not
            // probe, so their slots would only push other lines out of the cache.)
            if new_depth - reduction > 0 {
                self.tt.prefetch(self.board.hash_after(m));
            }
            let v = self.search_child(i, m, new_depth, reduction, alpha, beta, ply);
            if self.aborted {
                return None;
            }
            if v > best_value {
                best_value = v;
                best_move = m;
                if v > alpha {
                    alpha = v;
                    self.update_pv(ply, m);
                    if v >= beta {
                        self.add_killer(ply, m);
                        break;
                    }
                }
            }
        }
        Some((best_value, best_move, pruned))
    }

    /// Late quiet moves (no threat made or met) are searched shallower first, by more
    /// the later they come and the deeper the node; one ply less at PV nodes and for
    /// killers. A fail high is confirmed at full depth.
    fn late_move_reduction(&self, facts: &NodeFacts, depth: i32, index: usize, m: Pos) -> i32 {
        if self.limits.options.late_move_reductions
            && !facts.forced
            && !facts.threatened
            && index >= LMR_MIN_INDEX
            && depth >= LMR_MIN_DEPTH
            && is_quiet(self.board, m, self.board.side_to_move())
        {
            let killer = self.killers[facts.ply].contains(&m);
            (lmr_reduction(depth, index) - facts.pv_node as i32 - killer as i32).max(0)
        } else {
            0
        }
    }

    /// The value of move `m` (the `index`-th searched) for the side to move: the first
    /// with the full window, the others with a null window first (reduced by
    /// `reduction`), searched again when they beat alpha.
    #[allow(clippy::too_many_arguments)]
    fn search_child(
        &mut self,
        index: usize,
        m: Pos,
        new_depth: i32,
        reduction: i32,
        alpha: Value,
        beta: Value,
        ply: usize,
    ) -> Value {
        self.board.make(m);
        let mut v;
        if index == 0 {
            v = -self.negamax(new_depth, -beta, -alpha, ply + 1);
        } else {
            v = -self.negamax(new_depth - reduction, -alpha - 1, -alpha, ply + 1);
            if v > alpha && reduction > 0 && !self.aborted {
                v = -self.negamax(new_depth, -alpha - 1, -alpha, ply + 1);
            }
            if v > alpha && v < beta && !self.aborted {
                v = -self.negamax(new_depth, -beta, -alpha, ply + 1);
            }
        }
        self.board.undo();
        v
    }

    fn add_killer(&mut self, ply: usize, m: Pos) {
        let k = &mut self.killers[ply];
        if k[0] != m {
            k[1] = k[0];
            k[0] = m;
        }
    }

    /// The leaf search: the static value, unless the side to move wins by fours. With a
    /// four point of its own it asks the node VCF (`QUIESCENCE_VCF_NODES`), and a
    /// four-chain win ends the leaf with its proven value. The fours are not played as
    /// moves of the search: each would be answered by a forced node, two evaluated nodes
    /// a step, branching at every four; the VCF reads the same chains unevaluated.
    fn quiescence(&mut self, beta: Value, ply: usize) -> Value {
        let stand_pat = self.limits.eval.evaluate(self.board);
        let us = self.board.side_to_move();
        if stand_pat >= beta || self.board.pattern_count(us, Pattern::Four) == 0 {
            return stand_pat;
        }
        match self.vcf.search(self.board, QUIESCENCE_VCF_NODES) {
            VcfResult::Win(first, plies) => {
                // `negamax` cleared this ply's line on entry.
                self.pv[ply].push(first);
                vcf_win_value(ply, plies)
            }
            VcfResult::NoWin | VcfResult::Unknown => stand_pat,
        }
    }

    pub(super) fn update_pv(&mut self, ply: usize, m: Pos) {
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        let line = &mut head[ply];
        line.clear();
        line.push(m);
        line.extend_from_slice(&tail[0]);
    }

    /// Steps 1–3 of a node, shared with the root.
    pub(super) fn forced_moves(&mut self, ply: usize) -> Forced {
        let board = &mut *self.board;
        let us = board.side_to_move();
        let them = us.opponent();
        let ply = ply as Value;
        if board.has_five_point(us) {
            return Forced::Won(WIN - (ply + 1));
        }
        let caro = board.rule() == Rule::Caro;
        if board.has_five_point(them) {
            let fives = movegen::five_points(board, them);
            if fives.len() >= 2 && !caro {
                return Forced::Lost(-(WIN - (ply + 2)));
            }
            let mut list = MoveList::new();
            for &f in &fives {
                list.push(ScoredMove { pos: f, score: 2 });
                if caro {
                    // At caro a five is also stopped by blocking the far end of its run
                    // when the near end is already ours.
                    for e in caro_blocking_cells(board, f, them) {
                        if !list.iter().any(|m| m.pos == e) {
                            list.push(ScoredMove { pos: e, score: 1 });
                        }
                    }
                }
            }
            return Forced::Only(list);
        }
        if has_decisive_four(board, us) {
            return Forced::Won(WIN - (ply + 3));
        }
        Forced::No
    }

    /// Steps 5–6: the moves of a node no five forces, best first, and whether the interior cap
    /// left some out (never at the root, nor when an open three must be met).
    pub(super) fn ordinary_moves(
        &mut self,
        ply: usize,
        tt_move: Pos,
        threatened: bool,
    ) -> (MoveList, bool) {
        let them = self.board.side_to_move().opponent();
        let board = &*self.board;
        let us = board.side_to_move();
        let mut moves = movegen::candidates(board, self.limits.eval.for_rule(board.rule()));
        if threatened {
            // They threaten an open four: we must make fours or break their lines.
            moves.retain(|m| {
                movegen::threat_of(board, m.pos, us) >= Threat::Four
                    || board.cell_patterns(m.pos)[them.index()]
                        .iter()
                        .any(|c| c.is_four())
            });
        }
        // The table move, then the pattern scores alone. Killers only reduce less (see
        // the reductions): an ordering bonus put a quiet killer above a double three.
        // There is no history heuristic either: its bonus per cell grew in long searches
        // until it outranked every pattern score but a five's.
        if let Some(m) = moves.iter_mut().find(|m| m.pos == tt_move) {
            m.score = i32::MAX; // first, whatever else it scores
        }
        let cap = self.limits.options.interior_moves;
        if !threatened && ply > 0 && moves.len() > cap {
            movegen::keep_best(&mut moves, cap);
            (moves, true)
        } else {
            movegen::sort_moves(&mut moves);
            (moves, false)
        }
    }

    pub(super) fn retain_legal(&mut self, moves: &mut MoveList) {
        if self.board.rule() == Rule::Renju && self.board.side_to_move() == Color::Black {
            let board = &mut *self.board;
            moves.retain(|m| board.is_empty(m.pos) && !rules::is_forbidden(board, m.pos));
        }
    }

    fn check_limits(&mut self) {
        let out_of_time = self
            .time
            .as_ref()
            .is_some_and(|tm| tm.hard_limit_stops(self.depth));
        if out_of_time || self.nodes >= self.limits.max_nodes || self.stop.load(Ordering::Relaxed) {
            self.aborted = true;
        }
        if self.helper_depth_offset.is_some() {
            self.helper_nodes
                .fetch_add(LIMIT_CHECK_INTERVAL, Ordering::Relaxed);
        }
    }
}

/// A quiet move neither makes an open three or more for `us` nor takes a cell where the
/// opponent would make one: the only moves pruning and reductions may touch.
fn is_quiet(board: &Board, m: Pos, us: Color) -> bool {
    movegen::threat_of(board, m, us) < Threat::OpenThree
        && movegen::threat_of(board, m, us.opponent()) < Threat::OpenThree
}

/// Keeps the moves that are among `defences` (in their order) and appends, unscored, the
/// defences the list lacked: exactly the defences are then searched.
pub(super) fn restrict_to_defences(moves: &mut MoveList, defences: &[Pos]) {
    moves.retain(|m| defences.contains(&m.pos));
    for &d in defences {
        if !moves.iter().any(|m| m.pos == d) {
            moves.push(ScoredMove { pos: d, score: 0 });
        }
    }
}

// A short-lived local of every node: boxing the list would cost an allocation per node.
#[allow(clippy::large_enum_variant)]
pub(super) enum Forced {
    Won(Value),
    Lost(Value),
    Only(MoveList),
    No,
}

/// Whether `color` has a cell making an open four, a double four or two fours, which wins
/// unless the opponent makes five first (for renju black only where the cell is not
/// forbidden; never at caro).
pub(super) fn has_decisive_four(board: &mut Board, color: Color) -> bool {
    // At caro a four can also be stopped at its extension square: nothing is decided.
    if board.rule() == Rule::Caro {
        return false;
    }
    // The board counts the empty cells where `threat_of` is `WinningFour`.
    if board.winning_four_cells(color) == 0 {
        return false;
    }
    if board.rule() != Rule::Renju || color != Color::Black {
        return true;
    }
    // Renju black: the cell must also not be forbidden (which needs the board mutably,
    // so the cells are gathered first). Fours on two lines, or two on one, are a
    // forbidden double four: only an open four can be a winning four black may play.
    if board.big_four_cells(color) == 0 {
        return false;
    }
    let mut cells: SmallVec<[Pos; 8]> = SmallVec::new();
    board.for_cells_making(color, Pattern::OpenFour, |p, _| {
        if movegen::threat_of(board, p, color) == Threat::WinningFour {
            cells.push(p);
        }
        ControlFlow::Continue(())
    });
    cells.into_iter().any(|p| !rules::is_forbidden(board, p))
}

/// At caro, the cells beyond the ends of the five that `attacker` makes at `f`, where a
/// defender stone blocks the five (its other end being a defender stone already).
pub(super) fn caro_blocking_cells(board: &Board, f: Pos, attacker: Color) -> Vec<Pos> {
    use crate::pattern::Cell;
    let own = Cell::stone(attacker);
    let defender = Cell::stone(attacker.opponent());
    let mut out = Vec::new();
    for dir in 0..4 {
        if board.pattern(f, attacker, dir) != Pattern::Five {
            continue;
        }
        let mut ends = [Pos::NONE; 2];
        for (i, sign) in [-1isize, 1].into_iter().enumerate() {
            let mut k = 1;
            while k <= 5 && board.cell(board.offset(f, dir, sign * k)) == own {
                k += 1;
            }
            ends[i] = board.offset(f, dir, sign * k);
        }
        for (end, other) in [(ends[0], ends[1]), (ends[1], ends[0])] {
            if board.cell(end) == Cell::Empty && board.cell(other) == defender {
                out.push(end);
            }
        }
    }
    out
}

/// The value at `ply` of a four-chain win the node VCF finds in `plies` plies.
fn vcf_win_value(ply: usize, plies: u32) -> Value {
    WIN - (ply as Value + plies as Value)
}

/// Wins and losses are stored relative to the node, not the root, so a stored mate
/// distance is right wherever the position recurs.
fn value_to_tt(v: Value, ply: usize) -> Value {
    if v >= WIN_THRESHOLD {
        v + ply as Value
    } else if v <= -WIN_THRESHOLD {
        v - ply as Value
    } else {
        v
    }
}

fn value_from_tt(v: Value, ply: usize) -> Value {
    if v >= WIN_THRESHOLD {
        v - ply as Value
    } else if v <= -WIN_THRESHOLD {
        v + ply as Value
    } else {
        v
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::position;
    use super::super::SearchState;
    use super::*;
    use crate::threat;
    use crate::types::Coord;

    #[test]
    fn no_loss_is_claimed_from_a_capped_move_list() {
        // Puzzle pub-free-def011 after black's i13 (only i9 holds): white wins by threats,
        // starting k8. With 16 moves per interior node, some of white's answers were never
        // searched, and the nodes where all the searched ones lost claimed a proven loss.
        let moves = "k13i10m12l8j12i11l12i12i13";
        let mut b = position(Rule::Freestyle, moves);
        let limits = threat::Limits {
            level: threat::Level::Vct,
            max_nodes: 1_000_000,
            max_depth: 30,
            deadline: None,
            stop: None,
        };
        let win = threat::find_win(&mut b, Color::White, &limits).expect("white's win");
        let first = win.first_move().unwrap();
        // White's win is real: the independent verifier tries every defence.
        assert_eq!(
            threat::verify::verify_win(&mut b, Color::White, first, &limits, 2_000_000),
            Ok(())
        );
        // So a search of the puzzle to depth 11 may not value i13 as a win.
        let mut root = position(Rule::Freestyle, &moves[..moves.len() - 3]);
        let outcome = SearchState::new().evaluate(
            &mut root,
            SearchLimits::depth(11),
            &AtomicBool::new(false),
        );
        let (best, value) = (root.coord(outcome.best), outcome.value);
        let i13 = Coord::new(8, 12);
        assert!(
            best != i13 || value < WIN_THRESHOLD,
            "{best} claimed as a win ({value})"
        );
    }

    #[test]
    fn a_leaf_whose_side_to_move_wins_by_fours_is_valued_as_won() {
        // Black to move, no winning four yet: c2-e2 is blocked by white's b2, and f4 f5
        // stand above f2. f2 (a four; white must take g2) then f3 (an open four f2-f5)
        // wins by fours, and nothing else does.
        let moves = "c2b2d2o15e2a15f4o8f5h15";
        let mut b = position(Rule::Freestyle, moves);
        let tt = TranspositionTable::new(1 << 20);
        let limits = SearchLimits::depth(1);
        let (stop, helper_nodes) = (AtomicBool::new(false), AtomicU64::new(0));
        let mut w = Worker::new(&mut b, &tt, &limits, None, &stop, &helper_nodes);
        let v = w.negamax(0, -INFINITE, INFINITE, 1);
        assert!(v >= WIN_THRESHOLD, "{v}");
        let first = w.pv[1]
            .first()
            .copied()
            .expect("the leaf names its first four");
        assert_eq!(b.coord(first), Coord::new(5, 1), "f2");
        // The win is real: the independent verifier tries every defence.
        let limits = threat::Limits {
            max_nodes: 100_000,
            ..threat::Limits::vcf()
        };
        assert_eq!(
            threat::verify::verify_win(&mut b, Color::Black, first, &limits, 100_000),
            Ok(())
        );
    }

    #[test]
    fn mate_values_survive_the_tt_round_trip() {
        for ply in [0usize, 3, 17] {
            for v in [WIN - 5, -(WIN - 9), 123, -77] {
                let stored = value_to_tt(v, ply);
                assert_eq!(value_from_tt(stored, ply), v);
            }
        }
        // A win in 5 plies seen at ply 3 is a win in 2 from that node.
        assert_eq!(value_to_tt(WIN - 5, 3), WIN - 2);
    }
}
