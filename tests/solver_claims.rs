//! The brain's forced-win claims against the proof-number solver: wherever the search
//! announces a forced win (`MESSAGE forced win: LINE`: the side to move wins, and plays
//! the line's first move) or that a move loses to one (`MESSAGE X loses to a forced win:
//! LINE`: after X the opponent wins), the solver proves it with a proof its checker
//! accepts (see [`prove_claim`]). A claimed winning move is proven as such: by a proof
//! from the claim's position that starts with it, or by the proof that the position
//! after it is lost, with the move put on top and the whole tree checked from the
//! claim's own position.
//!
//! The claims come from the search as it plays (one thread, its threat searches in the
//! slices of a nominal move counted in nodes, so the run is deterministic). The fast test
//! takes the wins claimed on the win puzzles of every rule (`tests/data/puzzles.txt` and
//! the caro rows of `tests/data/pn-puzzles.txt`); the slow one every claim on all those
//! puzzle positions and in short self-play games from openings of each rule's list in
//! `openings/`, each side keeping its search state from move to move as the brain does.
//! Puzzle positions, games and claims are independent of each other and shared out over
//! the cores (`common::parallel`); the claims and verdicts are the same in any order.

mod common;

use common::parallel::map_in_order;
use std::sync::atomic::AtomicBool;
use wuzi::board::Board;
use wuzi::params::plan::CLOCKLESS_MOVE_NODES;
use wuzi::rules::{judge_move, Verdict as MoveVerdict};
use wuzi::search::{SearchEvent, SearchLimits, SearchState};
use wuzi::solver::check::check;
use wuzi::solver::format::{Move, Node, ProofFile};
use wuzi::solver::{prove_win, SolveLimits, Verdict};
use wuzi::types::{Color, Coord, Rule};

/// Depth of the brain's iterations in these searches.
const SEARCH_DEPTH: i32 = 4;
/// The nominal move whose slices the threat searches share (as `CLOCKLESS_MOVE_NODES`
/// does for the bench): large enough that the quick look finds the wins a move of about
/// a second finds.
const MOVE_NODES: u64 = 5 * CLOCKLESS_MOVE_NODES;
/// Self-play: the openings (list, first opening taken, how many) of each rule, and the
/// stones at which a game stops. One game a rule, two for freestyle (its games are short
/// and full of refutations): the solver's time per claim has a long tail (a single claim
/// of some games takes it minutes), and these games keep the whole test to a minute or two
/// on two cores, as CI's budget needs. Standard's first opening is renju's second: one
/// opening under two rules.
const SELF_PLAY: [(Rule, &str, usize, usize); 4] = [
    (Rule::Freestyle, "freestyle-15-240.txt", 0, 2),
    (Rule::Standard, "standard-15.txt", 0, 1),
    (Rule::Renju, "renju-15.txt", 1, 1),
    (Rule::Caro, "caro-15.txt", 1, 1),
];
const MAX_GAME_PLIES: usize = 70;
/// The solver's budget for one claim.
const PROOF_NODES: u64 = 8_000_000;

/// What the brain said.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// `forced win: LINE`: the side to move wins by the line's first move, which it plays.
    Win,
    /// `X loses to a forced win: LINE`: after X the opponent wins (the line shows how).
    Refutation,
}

/// One claim of the brain: in the position after `moves`, `attacker` (to move) wins, by
/// playing `first` (for a refutation, the first move of the line shown).
#[derive(Clone, Debug)]
struct Claim {
    kind: Kind,
    rule: Rule,
    size: usize,
    moves: Vec<Coord>,
    attacker: Color,
    first: Coord,
    /// Where it was made and the brain's words, for failure messages.
    source: String,
}

/// The coordinates of a `MESSAGE` line's moves (`x,y` separated by spaces).
fn coords(text: &str) -> Vec<Coord> {
    text.split_whitespace()
        .map(|t| {
            let (x, y) = t.split_once(',').expect("x,y");
            Coord::new(x.parse().unwrap(), y.parse().unwrap())
        })
        .collect()
}

/// The claims of one search's notes, on `board` (the position searched), whose chosen
/// move was `chosen`.
fn claims_of(board: &Board, notes: &[String], chosen: Coord, source: &str) -> Vec<Claim> {
    let moves: Vec<Coord> = board.history().iter().map(|&p| board.coord(p)).collect();
    let us = board.side_to_move();
    let mut claims = Vec::new();
    for note in notes {
        let source = format!("{source}: {note}");
        if let Some(line) = note.strip_prefix("forced win: ") {
            let first = coords(line)[0];
            assert_eq!(first, chosen, "{source}: the claimed win is what is played");
            claims.push(Claim {
                kind: Kind::Win,
                rule: board.rule(),
                size: board.width(),
                moves: moves.clone(),
                attacker: us,
                first,
                source,
            });
        } else if let Some((head, line)) = note.split_once(" loses to a forced win: ") {
            let refuted = head.rsplit(' ').next().expect("a move");
            let mut after = moves.clone();
            after.extend(coords(refuted));
            claims.push(Claim {
                kind: Kind::Refutation,
                rule: board.rule(),
                size: board.width(),
                moves: after,
                attacker: us.opponent(),
                first: coords(line)[0],
                source,
            });
        }
    }
    claims
}

/// The search as the brain plays it, without a clock: returns its move and its notes.
fn think(state: &mut SearchState, board: &Board) -> (Coord, Vec<String>) {
    let mut limits = SearchLimits::depth(SEARCH_DEPTH);
    limits.clockless_threat_nodes = Some(MOVE_NODES);
    let mut notes = Vec::new();
    let mut scratch = board.clone();
    let best = state.search(&mut scratch, limits, &AtomicBool::new(false), &mut |e| {
        if let SearchEvent::Note(n) = e {
            notes.push(n.clone());
        }
    });
    (board.coord(best), notes)
}

fn new_state() -> SearchState {
    let mut state = SearchState::new();
    state.set_tt_bytes(8 << 20);
    state
}

/// Puzzle rows (`id rule size kind moves …`, tab-separated) of a data file: id, rule,
/// size and the moves, with `keep` choosing the rows by rule and kind.
fn puzzle_rows(
    file: &str,
    keep: impl Fn(Rule, &str) -> bool,
) -> Vec<(String, Rule, usize, String)> {
    let path = format!("{}/tests/data/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("puzzle file");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split('\t').collect::<Vec<&str>>())
        .filter(|f| keep(Rule::parse(f[1]).unwrap(), f[3]))
        .map(|f| {
            let rule = Rule::parse(f[1]).unwrap();
            (
                f[0].to_string(),
                rule,
                f[2].parse().unwrap(),
                f[4].to_string(),
            )
        })
        .collect()
}

/// The claims the brain makes on the puzzle positions of the kinds `keep` chooses: those
/// of the shared suite and the caro ones of `pn-puzzles.txt`.
fn puzzle_claims(keep: impl Fn(&str) -> bool) -> Vec<Claim> {
    let mut rows = puzzle_rows("puzzles.txt", |_, kind| keep(kind));
    rows.extend(puzzle_rows("pn-puzzles.txt", |rule, kind| {
        rule == Rule::Caro && keep(kind)
    }));
    map_in_order(&rows, |(id, rule, size, moves)| {
        let board = Board::from_moves(*size, *rule, moves).unwrap();
        let (chosen, notes) = think(&mut new_state(), &board);
        claims_of(&board, &notes, chosen, id)
    })
    .concat()
}

/// `n` openings of a list from its `skip`-th on (offset format: `dx,dy` from the centre).
fn openings(file: &str, skip: usize, n: usize) -> Vec<Vec<Coord>> {
    let path = format!("{}/openings/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("opening list");
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .skip(skip)
        .take(n)
        .map(|l| {
            let v: Vec<i32> = l
                .split(',')
                .map(|t| t.trim())
                .filter(|t| !t.is_empty())
                .map(|t| t.parse().unwrap())
                .collect();
            v.chunks(2)
                .map(|d| Coord::new(7 + d[0], 7 + d[1]))
                .collect()
        })
        .collect()
}

/// The claims made in a game the brain plays against itself from `opening`, each side
/// with its own search state kept from move to move, until a five, a full board or
/// `MAX_GAME_PLIES` stones.
fn self_play_claims(rule: Rule, opening: &[Coord], name: &str) -> Vec<Claim> {
    let mut board = Board::from_coords(15, rule, opening).unwrap();
    let mut states = [new_state(), new_state()];
    let mut claims = Vec::new();
    while board.move_count() < MAX_GAME_PLIES && !board.is_full() {
        let side = board.side_to_move().index();
        let (chosen, notes) = think(&mut states[side], &board);
        let source = format!("{name} ply {}", board.move_count());
        claims.extend(claims_of(&board, &notes, chosen, &source));
        if judge_move(&board, chosen) != MoveVerdict::Normal {
            break; // a five (or a renju foul) ends the game
        }
        board.play(chosen).unwrap();
    }
    claims
}

/// Proves `claim` or says why it is not proven. First the solver on the claim's own
/// position, for the attacker: a checked proof that starts with the claimed move (or, for
/// a refutation, with any move: the claim is that the refuted move loses) settles it.
/// Otherwise, when the move itself is claimed, the position after it must be a loss for
/// the side to move there, and the move on top of that proof must pass the checker from
/// the claim's position.
fn prove_claim(claim: &Claim) -> Result<(), String> {
    let mut board = Board::from_coords(claim.size, claim.rule, &claim.moves).unwrap();
    if board.side_to_move() != claim.attacker {
        return Err("the claimed winner is not to move".into());
    }
    let limits = SolveLimits {
        nodes: PROOF_NODES,
        time: None,
        table_bytes: 16 << 20,
    };
    let at_claim = prove_win(&mut board, claim.attacker, &limits, &mut |_| {});
    if let (Verdict::Win(m), Some(proof)) = (at_claim.verdict, &at_claim.proof) {
        check(proof).map_err(|e| format!("checker: {e}"))?;
        if claim.kind == Kind::Refutation || board.coord(m) == claim.first {
            return Ok(());
        }
    }
    let roots = match judge_move(&board, claim.first) {
        MoveVerdict::Win => Vec::new(), // the move is a five: nothing to answer
        MoveVerdict::Normal => {
            let mut after = board.clone();
            after.play(claim.first).unwrap();
            let report = prove_win(&mut after, claim.attacker, &limits, &mut |_| {});
            if report.verdict != Verdict::Loss {
                return Err(format!(
                    "at the claim: {:?}; after the claimed move: {:?} ({:?}, {} nodes)",
                    at_claim.verdict,
                    report.verdict,
                    report.note,
                    report.pn_nodes + report.threat_nodes
                ));
            }
            report.proof.expect("a loss comes with its proof").roots
        }
        other => return Err(format!("the claimed move is {other:?}")),
    };
    let proof = ProofFile {
        rule: claim.rule,
        width: claim.size,
        height: claim.size,
        moves: claim.moves.clone(),
        attacker: claim.attacker,
        roots: vec![Node::new(Move::At(claim.first), roots)],
    };
    check(&proof)
        .map(|_| ())
        .map_err(|e| format!("checker: {e}"))
}

/// The claims that fail [`prove_claim`], with the reasons.
fn unproved(claims: &[Claim]) -> Vec<String> {
    map_in_order(claims, |c| {
        prove_claim(c).err().map(|e| {
            // The position in "pos" notation, for `pbrain-wuzi solve` to take it up.
            let position: String = c.moves.iter().map(|m| m.to_pos_notation()).collect();
            format!(
                "{} (rule {}, position {position}): {e}",
                c.source,
                c.rule.info_value()
            )
        })
    })
    .into_iter()
    .flatten()
    .collect()
}

/// The wins the brain claims and plays on the win puzzles of every rule.
#[test]
fn the_wins_the_brain_claims_on_the_win_puzzles_are_proven() {
    let claims: Vec<Claim> = puzzle_claims(|kind| kind == "win")
        .into_iter()
        .filter(|c| c.kind == Kind::Win)
        .collect();
    let mut rules: Vec<Rule> = claims.iter().map(|c| c.rule).collect();
    rules.dedup();
    let sources: Vec<&str> = claims.iter().map(|c| c.source.as_str()).collect();
    // Most of the wins are found by the search's threat slices; the quiet one and the
    // deepest are beyond them, and a five at once is played without a claim.
    assert!(
        claims.len() >= 8,
        "the puzzles' wins are claimed: {sources:#?}"
    );
    assert_eq!(rules.len(), 4, "claims under every rule: {rules:?}");
    let unproved = unproved(&claims);
    assert!(unproved.is_empty(), "{unproved:#?}");
}

/// Every claim of both kinds: on every puzzle position (wins and defences), and in the
/// self-play games, where a side that has claimed a win claims it again at each move
/// until the five, and the check of a chosen move refutes one move after another.
#[test]
#[ignore = "slow: a minute or two; the fast test covers the win puzzles' claims"]
fn every_claim_on_the_puzzles_and_in_self_play_is_proven_slow() {
    let mut claims = puzzle_claims(|_| true);
    let on_puzzles = claims.len();
    let mut games = Vec::new();
    for (rule, file, skip, n) in SELF_PLAY {
        for (i, opening) in openings(file, skip, n).into_iter().enumerate() {
            games.push((rule, opening, format!("{file} #{}", skip + i + 1)));
        }
    }
    let in_games = map_in_order(&games, |(rule, opening, name)| {
        self_play_claims(*rule, opening, name)
    });
    claims.extend(in_games.concat());
    let refutations = claims.iter().filter(|c| c.kind == Kind::Refutation).count();
    let unproved = unproved(&claims);
    eprintln!(
        "{} claims ({on_puzzles} on the puzzles, {} in self-play; {refutations} refutations), {} unproved",
        claims.len(),
        claims.len() - on_puzzles,
        unproved.len()
    );
    assert!(claims.len() > on_puzzles, "self-play makes claims too");
    assert!(unproved.is_empty(), "{unproved:#?}");
}
