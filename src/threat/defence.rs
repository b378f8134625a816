//! Defences: when the opponent could force a win if it were to move, which of our moves
//! stop every such win.
//!
//! A move can only defend if it disturbs the opponent's proof: it occupies a square the
//! proof tree uses (an attacker move, a reply, a straight-four point, the final five), or
//! it makes a counter-threat the proof did not have to face: a four of ours, or a three
//! (open or closed). A three defends because the opponent's threes stop forcing once we
//! can answer them with a four, and because its stones can turn one of the forced blocks
//! into a four of ours. A two can defend the same way once one of our replies in the
//! proof tree lands on its line: so, under freestyle and caro, a cell where our stone
//! and a stone on one of the proof's squares would make a three is a candidate too (see
//! `disturbers`). Each candidate is tried and the opponent's win searched again: first
//! against the last proof found alone (following it, see `screen`), then in passes of
//! growing node limits, so that no one candidate's search takes all the time before the
//! others were tried.
//! When a candidate fails, the new proof (found with that candidate on the board) is
//! also a proof without it, so later candidates must disturb it too: the candidate set
//! is intersected with the cells that disturb it, and shrinks until every survivor has
//! been tried. That holds under freestyle and caro only (see
//! `proof_holds_without_the_candidate`).
//! Under a deadline the candidates left untried count as defences; a caller can choose
//! which are tried first, and learn which of the defences were proven (their re-search
//! ran to its end), with [`defences_preferring`].

use super::search::{follow_nearby_proof, NearbyProof, Searcher};
use super::threats::{self, five_point, MoveShape};
use super::Limits;
use crate::board::{Board, Pos};
use crate::params::threat::{COUNTER_FOUR_DEPTH, PASS_NODES, PROOF_SQUARE_CAP};
use crate::pattern::Pattern;
use crate::types::{Color, Rule};

/// What the opponent's search found.
enum OpponentSearch {
    /// A win: the squares of its proof tree (sorted).
    Wins(Vec<Pos>),
    /// No win; `ended` when the search ran through its whole threat space (within the
    /// limits' depth) rather than being cut by their nodes, deadline or stop flag.
    NoWin { ended: bool },
}

/// The opponent's search for a win within `limits`. `proof` holds the last win found
/// from a root that differs from this one by our candidate stones: it is followed first
/// (see [`follow_nearby_proof`]), and a win found here takes its place.
fn search_opponent(
    board: &mut Board,
    attacker: Color,
    limits: &Limits,
    nodes: &mut u64,
    proof: &mut Option<NearbyProof>,
) -> OpponentSearch {
    if let Some(found) = follow_last_proof(board, attacker, limits, nodes, proof) {
        return found;
    }
    let mut searcher = Searcher::new(board, attacker, limits);
    let found = searcher.run_budget();
    *nodes += searcher.nodes;
    let Some(threes) = found else {
        return OpponentSearch::NoWin {
            ended: !searcher.aborted,
        };
    };
    proven_win(&mut searcher, threes, proof)
}

/// The opponent's win found by following `proof` alone (see [`follow_nearby_proof`]),
/// whose place the new proof takes; `None` (and `proof` as it was) when following it
/// found none.
fn follow_last_proof(
    board: &mut Board,
    attacker: Color,
    limits: &Limits,
    nodes: &mut u64,
    proof: &mut Option<NearbyProof>,
) -> Option<OpponentSearch> {
    let mut followed = None;
    let found = follow_nearby_proof(board, attacker, limits, proof, nodes, |searcher, threes| {
        proven_win(searcher, threes, &mut followed)
    })?;
    *proof = followed;
    Some(found)
}

/// The win `searcher` found with `threes` three-moves, its proof kept in `proof`.
fn proven_win(
    searcher: &mut Searcher,
    threes: u32,
    proof: &mut Option<NearbyProof>,
) -> OpponentSearch {
    let mut squares = Vec::new();
    searcher.proof_squares(threes, PROOF_SQUARE_CAP, &mut squares);
    squares.sort();
    squares.dedup();
    *proof = Some(searcher.take_proof(threes));
    OpponentSearch::Wins(squares)
}

/// When the opponent of `side_to_move` has a forced win (as if it moved now), the moves
/// of `side_to_move` after which it no longer has one (found within `limits`).
/// `Some(empty)` means every move loses; `None` means the opponent has no win, or
/// `side_to_move` can make five at once (then nothing needs defending).
///
/// Each search gets the whole `limits` (nodes per search; the deadline and stop flag
/// are shared). A candidate counts as a defence unless the opponent's win after it is
/// found, so when the limits cut the work short the set errs towards too many moves,
/// never towards a false "lost".
pub fn defences(board: &mut Board, side_to_move: Color, limits: &Limits) -> Option<Vec<Pos>> {
    defences_counted(board, side_to_move, limits).0
}

/// [`defences`], also returning the search nodes used.
pub fn defences_counted(
    board: &mut Board,
    side_to_move: Color,
    limits: &Limits,
) -> (Option<Vec<Pos>>, u64) {
    let (set, nodes) = defences_at_root(board, side_to_move, limits, &[]);
    (set.map(|set| set.moves), nodes)
}

/// The defences of [`defences_preferring`].
#[derive(Debug, PartialEq)]
pub struct DefenceSet {
    /// Every move that may defend, as [`defences`] gives them.
    pub moves: Vec<Pos>,
    /// Those of `moves` after which the opponent's search ran through its whole threat
    /// space without a win (not cut by the limits): defences as far as the threat space
    /// goes. The others were cut short or never tried. (Our fours, whose defence is
    /// followed through the forced block, are never counted here.)
    pub proven: Vec<Pos>,
}

/// [`defences`], trying the candidates in `preferred` first, in its order (the others
/// follow in board order), and telling the proven defences apart. Under a deadline the
/// untried candidates count as defences, so the caller puts first the moves it is
/// likeliest to play: those are then the ones tried.
pub fn defences_preferring(
    board: &mut Board,
    side_to_move: Color,
    limits: &Limits,
    preferred: &[Pos],
) -> Option<DefenceSet> {
    defences_at_root(board, side_to_move, limits, preferred).0
}

/// The work of one defence computation: the search nodes used, and the candidates found
/// to hold with the opponent's search run to its end (see [`DefenceSet::proven`]).
#[derive(Default)]
struct Tally {
    nodes: u64,
    proven: Vec<Pos>,
}

/// The defences of the position itself (our delaying fours followed to their full
/// depth), with the search nodes used.
fn defences_at_root(
    board: &mut Board,
    side: Color,
    limits: &Limits,
    preferred: &[Pos],
) -> (Option<DefenceSet>, u64) {
    let mut tally = Tally::default();
    let moves = defences_at_depth(
        board,
        side,
        limits,
        COUNTER_FOUR_DEPTH,
        preferred,
        &mut tally,
    );
    let set = moves.map(|moves| DefenceSet {
        moves,
        proven: tally.proven,
    });
    (set, tally.nodes)
}

fn defences_at_depth(
    board: &mut Board,
    side: Color,
    limits: &Limits,
    four_depth: u32,
    preferred: &[Pos],
    tally: &mut Tally,
) -> Option<Vec<Pos>> {
    if five_point(board, side).is_some() {
        return None;
    }
    let opponent = side.opponent();
    let mut proof = None;
    let OpponentSearch::Wins(squares) =
        search_opponent(board, opponent, limits, &mut tally.nodes, &mut proof)
    else {
        return None;
    };
    let mut candidates = disturbers(board, side, &squares);
    if !preferred.is_empty() {
        // Stable: the candidates not preferred keep their board order, after the others.
        candidates
            .sort_by_cached_key(|p| preferred.iter().position(|q| q == p).unwrap_or(usize::MAX));
    }
    // The defences come out in this order, whichever pass decided them.
    let order = candidates.clone();
    screen(
        board,
        side,
        limits,
        &mut candidates,
        &mut proof,
        &mut tally.nodes,
    );

    let mut good = Vec::new();
    let passes = if limits.deadline.is_some() || limits.stop.is_some() {
        &PASS_NODES[..]
    } else {
        &PASS_NODES[PASS_NODES.len() - 1..]
    };
    for (pass, &pass_nodes) in passes.iter().enumerate() {
        let last_pass = pass + 1 == passes.len() || pass_nodes >= limits.max_nodes;
        let pass_limits = Limits {
            max_nodes: pass_nodes.min(limits.max_nodes),
            ..*limits
        };
        // The candidates whose search this pass's nodes cut short, for the next pass.
        let mut undecided = Vec::new();
        let mut i = 0;
        while i < candidates.len() {
            let c = candidates[i];
            i += 1;
            if !threats::is_legal(board, c, side) {
                continue;
            }
            if out_of_time(limits) {
                // Every search would stop at once, but only after a few hundred nodes
                // each: over hundreds of candidates that overshoots the deadline by
                // seconds. The untried candidates count as defences (too many, never a
                // false "lost").
                good.push(c);
                continue;
            }
            let is_four = MoveShape::of(board, c, side).is_four();
            board.place(c, side);
            let after =
                search_opponent(board, opponent, &pass_limits, &mut tally.nodes, &mut proof);
            // Our four's defence is followed through the forced block by a defence
            // computation of its own, too dear for a pass before the last.
            let decided = match after {
                _ if last_pass => true,
                OpponentSearch::Wins(_) => true,
                OpponentSearch::NoWin { ended } => ended && !is_four,
            };
            let holds = match &after {
                _ if !decided => false,
                OpponentSearch::Wins(_) => false,
                OpponentSearch::NoWin { .. } if is_four => {
                    counter_four_holds(board, side, limits, four_depth, &mut tally.nodes)
                }
                OpponentSearch::NoWin { .. } => true,
            };
            board.undo();
            match after {
                _ if !decided => undecided.push(c),
                OpponentSearch::NoWin { ended } if holds => {
                    good.push(c);
                    if ended && !is_four {
                        tally.proven.push(c);
                    }
                }
                OpponentSearch::NoWin { .. } => {}
                OpponentSearch::Wins(squares) => {
                    // Later candidates must disturb this proof as well, and so must those
                    // left for the next pass.
                    let mut later = candidates.split_off(i);
                    narrow(board, side, &squares, &mut [&mut later, &mut undecided]);
                    candidates.extend(later);
                }
            }
        }
        if last_pass {
            break;
        }
        candidates = undecided;
    }
    good.sort_by_cached_key(|p| order.iter().position(|q| q == p));
    Some(good)
}

/// Drops from `candidates` the ones the opponent's last proof found (`proof`), or a proof
/// found so, still beats: each is tried against that proof alone (see
/// [`follow_nearby_proof`]), a few thousand nodes at most, before any gets a full
/// search. Most candidates lose to the proof they failed to disturb or one close to it,
/// and the full searches, in the caller's order, then go to those left: otherwise one
/// candidate that holds may take the whole deadline in its full search while the
/// others, cheap to refute this way, are counted as defences untried.
/// Under freestyle and caro a proof found also narrows the candidates, as in the full
/// pass.
fn screen(
    board: &mut Board,
    side: Color,
    limits: &Limits,
    candidates: &mut Vec<Pos>,
    proof: &mut Option<NearbyProof>,
    nodes: &mut u64,
) {
    let opponent = side.opponent();
    let mut i = 0;
    while i < candidates.len() && proof.is_some() && !out_of_time(limits) {
        let c = candidates[i];
        if !threats::is_legal(board, c, side) {
            i += 1;
            continue;
        }
        board.place(c, side);
        let refuted = follow_last_proof(board, opponent, limits, nodes, proof);
        board.undo();
        let Some(OpponentSearch::Wins(squares)) = refuted else {
            i += 1;
            continue;
        };
        candidates.remove(i);
        let mut later = candidates.split_off(i);
        narrow(board, side, &squares, &mut [&mut *candidates, &mut later]);
        i = candidates.len();
        candidates.extend(later);
    }
}

/// Under freestyle and caro, where a proof found with one of our candidates on the
/// board holds without it too (see `proof_holds_without_the_candidate`), drops from each
/// list the cells that do not disturb that proof, whose squares are `squares`.
fn narrow(board: &mut Board, side: Color, squares: &[Pos], lists: &mut [&mut Vec<Pos>]) {
    if !proof_holds_without_the_candidate(board.rule()) {
        return;
    }
    let disturbing = disturbers(board, side, squares);
    for list in lists {
        list.retain(|p| disturbing.binary_search(p).is_ok());
    }
}

/// The empty cells where a stone of `side` may disturb the opponent's proof whose squares
/// are `proof`, sorted: the proof's own empty squares, the cells where `side` makes a
/// three or better, and, where proofs narrow the candidates (freestyle and caro, see
/// `proof_holds_without_the_candidate`), the cells where it would with a stone of its own
/// on one of the proof's squares too (a two that a reply of ours in the proof tree turns
/// into a three).
///
/// Without that last kind, narrowing drops real defences of our threat space: a block
/// of the opponent's three can make a three of ours with a stone off their proof.
/// Longer chains (a two that needs two of our replies) are not followed. Under standard
/// and renju, where every candidate is searched and none is narrowed away, the wider
/// set only adds searches.
fn disturbers(board: &mut Board, side: Color, proof: &[Pos]) -> Vec<Pos> {
    let mut out: Vec<Pos> = threats::cells_making(board, side, Pattern::Three).to_vec();
    let with_our_replies = proof_holds_without_the_candidate(board.rule());
    for &q in proof {
        if !board.is_empty(q) {
            continue;
        }
        out.push(q);
        if with_our_replies {
            board.place(q, side);
            out.extend(threats::cells_making(board, side, Pattern::Three));
            board.undo();
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Whether an opponent's proof found with one of our candidate stones on the board also
/// holds without that stone, so that later candidates must disturb it too.
///
/// Under freestyle and caro a stone of ours only takes a square from the opponent and
/// gives us lines. Under renju a black stone can make a square forbidden to black (a
/// reply the proof then need not meet) and a white stone can lift black's double-three
/// or double-four at a square (a move the proof then may use); under standard a stone of
/// ours can turn our own five into an overline. There the proof may lean on the stone,
/// and narrowing the candidates by it would drop real defences: in the renju position
/// `k6i6m7l8i5j5h5j8h7k8m8l9`, black's m10 (after which white has no win in our threat
/// space) would be dropped by white's proof after black j7, and the position called lost.
fn proof_holds_without_the_candidate(rule: Rule) -> bool {
    matches!(rule, Rule::Freestyle | Rule::Caro)
}

/// The deadline has passed or a stop was requested.
fn out_of_time(limits: &Limits) -> bool {
    limits
        .stop
        .is_some_and(|s| s.load(std::sync::atomic::Ordering::Relaxed))
        || limits
            .deadline
            .is_some_and(|d| std::time::Instant::now() >= d)
}

/// With our four just played (and no win for the opponent found at once), whether it
/// really defends: the opponent must block it; if that block is forced (one square) and
/// the opponent then still wins unless we find a defence again, follow it.
fn counter_four_holds(
    board: &mut Board,
    side: Color,
    limits: &Limits,
    four_depth: u32,
    nodes: &mut u64,
) -> bool {
    if four_depth == 0 {
        return true;
    }
    let opponent = side.opponent();
    let Some(stops) = threats::five_stoppers(board, side) else {
        return true; // the opponent cannot stop it: we win
    };
    let legal: Vec<Pos> = stops
        .into_iter()
        .filter(|&s| threats::is_legal(board, s, opponent))
        .collect();
    if legal.len() != 1 {
        // No legal block (we win) or several (keep it simple: count it as a defence).
        return true;
    }
    board.place(legal[0], opponent);
    // The defences after the block are not ours at the root: only the nodes count.
    let mut after_block = Tally::default();
    let after = defences_at_depth(board, side, limits, four_depth - 1, &[], &mut after_block);
    *nodes += after_block.nodes;
    board.undo();
    match after {
        None => true,
        Some(moves) => !moves.is_empty(),
    }
}
