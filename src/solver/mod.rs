//! A proof-number solver over the threat-space search, after Allis's Victoria: the
//! threat search finds wins made of threats alone, and a proof-number search above it
//! handles the quiet moves and defences in between. Every win it claims comes with a
//! proof tree that an independent checker has replayed against the rules.
//!
//! Files, one concern each:
//! - `pn`: depth-first proof-number search (df-pn) with 1+ε thresholds;
//! - `expand`: the moves of a node and the nodes solved on the spot (fives, the
//!   attacker's threat-space win, defender replies that lose at once);
//! - `table`: the transposition table, in a fixed number of bytes;
//! - `budget`: nodes and clock;
//! - `proof`: the proof tree of a proven node, built from the table;
//! - `format`: the proof file, read and written;
//! - `check`: the independent checker of proof files.
//!
//! Why df-pn and not PN²: df-pn keeps only the current line on the stack and the rest
//! in a table of fixed size, so a long solve never outgrows its memory, and a node
//! evaluated once (with its threat searches) is remembered by the same table. PN² keeps
//! its first-level tree in memory and throws its second-level trees away, which repeats
//! the costly threat searches at every re-expansion.
//!
//! No code in play calls this module.

mod budget;
pub mod check;
mod expand;
pub mod format;
mod pn;
mod proof;
mod table;

use crate::board::{Board, Pos};
use crate::params::solver::{
    DEFAULT_TABLE_BYTES, MAX_PROOF_LINES, PROOF_BUDGET_FACTOR, ROOT_THREAT_NODES_MAX,
    ROOT_THREAT_SHARE,
};
use crate::types::Color;
use budget::Budget;
use check::CheckReport;
use format::{Move, ProofFile};
use pn::Search;
use proof::Builder;
use std::time::{Duration, Instant};

/// What one solve may spend.
#[derive(Clone, Copy, Debug)]
pub struct SolveLimits {
    /// Nodes of the proof-number search and the threat searches it calls, together.
    pub nodes: u64,
    pub time: Option<Duration>,
    /// Bytes of the transposition table (a move cache of a quarter of it comes on top).
    pub table_bytes: usize,
}

impl Default for SolveLimits {
    fn default() -> Self {
        SolveLimits {
            nodes: 2_000_000,
            time: None,
            table_bytes: DEFAULT_TABLE_BYTES,
        }
    }
}

/// A progress report, about once a second.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    /// Whose win the search is trying to prove.
    pub attacker: Color,
    pub root_pn: u32,
    pub root_dn: u32,
    pub pn_nodes: u64,
    pub threat_nodes: u64,
    /// Since this search began.
    pub elapsed: Duration,
    pub table_permille: u32,
}

/// The answer for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// It wins by playing this move.
    Win(Pos),
    /// It loses whatever it plays.
    Loss,
    /// Neither was proven within the limits.
    Unknown,
}

/// The result of [`solve`].
#[derive(Clone, Debug)]
pub struct Report {
    pub verdict: Verdict,
    /// The checked proof of a win or loss.
    pub proof: Option<ProofFile>,
    /// What the checker saw of it.
    pub checked: Option<CheckReport>,
    pub pn_nodes: u64,
    pub threat_nodes: u64,
    pub elapsed: Duration,
    /// Why the verdict is unknown, when something is worth saying.
    pub note: Option<String>,
}

/// Solves the position on `board` for the side to move: first its own win, then, with
/// what is left of the limits (when that search ended early: the attacker had no move
/// left that the generation keeps), its loss (the opponent's win against every move).
/// A verdict other than `Unknown` comes only with a proof that passed [`check::check`].
/// The board is left as it was. Positions must come from alternating moves (the proof
/// file replays them so).
pub fn solve(
    board: &mut Board,
    limits: &SolveLimits,
    progress: &mut dyn FnMut(&Progress),
) -> Report {
    let start = Instant::now();
    let us = board.side_to_move();
    let them = us.opponent();
    let mut report = Report::unknown();
    let mut attempt = prove(board, us, limits, progress);
    report.add(&attempt);
    if attempt.proof.is_none() {
        let rest = SolveLimits {
            nodes: limits
                .nodes
                .saturating_sub(report.pn_nodes + report.threat_nodes),
            time: limits.time.map(|t| t.saturating_sub(start.elapsed())),
            ..*limits
        };
        if rest.nodes > 0 && rest.time != Some(Duration::ZERO) {
            let loss = prove(board, them, &rest, progress);
            report.add(&loss);
            if loss.proof.is_some() || attempt.note.is_none() {
                attempt = loss;
            }
        }
    }
    report.conclude(attempt, board, start);
    report
}

/// Tries to prove `attacker`'s win on `board` and nothing else (no search for the other
/// side's), within `limits`. The verdict is for the side to move, as [`solve`]'s: `Win`
/// when `attacker` is to move, `Loss` when it is not, each with a proof that passed
/// [`check::check`]; `Unknown` otherwise. A claim about a position one move on (such as
/// "this move wins": the opponent loses after it) is proven this way without spending
/// the budget on the opponent's own win first. The board is left as it was.
pub fn prove_win(
    board: &mut Board,
    attacker: Color,
    limits: &SolveLimits,
    progress: &mut dyn FnMut(&Progress),
) -> Report {
    let start = Instant::now();
    let mut report = Report::unknown();
    let attempt = prove(board, attacker, limits, progress);
    report.add(&attempt);
    report.conclude(attempt, board, start);
    report
}

impl Report {
    /// Nothing proven, nothing spent yet.
    fn unknown() -> Report {
        Report {
            verdict: Verdict::Unknown,
            proof: None,
            checked: None,
            pn_nodes: 0,
            threat_nodes: 0,
            elapsed: Duration::ZERO,
            note: None,
        }
    }

    fn add(&mut self, attempt: &Attempt) {
        self.pn_nodes += attempt.pn_nodes;
        self.threat_nodes += attempt.threat_nodes;
    }

    /// The verdict for `board`'s side to move from the attempt kept (its proof, if any,
    /// already checked), its note, and the time since `start`.
    fn conclude(&mut self, attempt: Attempt, board: &Board, start: Instant) {
        self.note = attempt.note;
        if let (Some(proof), Some(checked)) = (attempt.proof, attempt.checked) {
            self.verdict = match proof.roots.first().map(|n| n.mv) {
                _ if proof.attacker != board.side_to_move() => Verdict::Loss,
                Some(Move::At(c)) => board.pos(c).map_or(Verdict::Unknown, Verdict::Win),
                _ => Verdict::Unknown,
            };
            self.proof = Some(proof);
            self.checked = Some(checked);
        }
        self.elapsed = start.elapsed();
    }
}

/// One search for `attacker`'s win and, if it proves one, its checked proof.
struct Attempt {
    proof: Option<ProofFile>,
    checked: Option<CheckReport>,
    note: Option<String>,
    pn_nodes: u64,
    threat_nodes: u64,
}

/// Searches for `attacker`'s win on `board` within `limits`; a win found is written out
/// as a proof tree and checked.
fn prove(
    board: &mut Board,
    attacker: Color,
    limits: &SolveLimits,
    progress: &mut dyn FnMut(&Progress),
) -> Attempt {
    let start = Instant::now();
    let budget = Budget::new(limits.nodes, limits.time.map(|t| start + t));
    let header = ProofFile {
        rule: board.rule(),
        width: board.width(),
        height: board.height(),
        moves: board.history().iter().map(|&p| board.coord(p)).collect(),
        attacker,
        roots: Vec::new(),
    };
    let mut search = Search::new(board, attacker, limits.table_bytes, budget, progress);
    let (pn, _) = search.run();
    let mut attempt = Attempt {
        proof: None,
        checked: None,
        note: None,
        pn_nodes: 0,
        threat_nodes: 0,
    };
    if pn == 0 {
        match write_and_check(&mut search, header, limits) {
            Ok((proof, checked)) => {
                attempt.proof = Some(proof);
                attempt.checked = Some(checked);
            }
            Err(note) => attempt.note = Some(note),
        }
    }
    attempt.pn_nodes = search.budget.pn_nodes;
    attempt.threat_nodes = search.budget.threat_nodes;
    attempt
}

/// The proof tree of the position `search` proved, under `header`, and what the checker
/// saw of it; or why there is none. Writing it out may take `PROOF_BUDGET_FACTOR` times
/// `limits` again: it answers every defender reply, where the search needed only those
/// that defend, and re-proves the nodes the table does not.
fn write_and_check(
    search: &mut Search,
    header: ProofFile,
    limits: &SolveLimits,
) -> Result<(ProofFile, CheckReport), String> {
    let factor = PROOF_BUDGET_FACTOR;
    search.budget.max_nodes = search.budget.used().saturating_add(limits.nodes * factor);
    search.budget.deadline = limits.time.map(|t| Instant::now() + t * factor as u32);
    let attacker_to_move = search.board.side_to_move() == search.attacker;
    // A node below a win by threats is usually won by threats too, but its search may
    // need as many nodes as the root's.
    let cap = (limits.nodes / ROOT_THREAT_SHARE).min(ROOT_THREAT_NODES_MAX);
    let mut builder = Builder::new(search, MAX_PROOF_LINES, cap);
    let roots = if attacker_to_move {
        builder.attacker_line().map(|root| vec![root])
    } else {
        builder.defender_lines()
    };
    let roots = roots.map_err(|e| format!("win found, no proof written: {e}"))?;
    let proof = ProofFile { roots, ..header };
    match check::check(&proof) {
        Ok(checked) => Ok((proof, checked)),
        Err(e) => Err(format!("proof rejected by the checker: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{parse_pos_sequence, Rule};

    /// A `width` × `height` board of `rule` after `moves` (pos notation, black first).
    fn board(width: usize, height: usize, rule: Rule, moves: &str) -> Board {
        let mut b = Board::new(width, height, rule).unwrap();
        for c in parse_pos_sequence(moves).unwrap() {
            b.play(c).unwrap();
        }
        b
    }

    fn limits(nodes: u64) -> SolveLimits {
        SolveLimits {
            nodes,
            time: None,
            table_bytes: 1 << 20,
        }
    }

    #[test]
    fn an_open_three_wins_on_a_rectangular_board_with_a_checked_proof() {
        // Black f5 g5 h5 on a 20x9 board, white far off; black to move.
        let mut b = board(20, 9, Rule::Freestyle, "f5a1g5a3h5a9");
        let before = b.hash();
        let report = solve(&mut b, &limits(100_000), &mut |_| {});
        assert_eq!(b.hash(), before);
        assert!(matches!(report.verdict, Verdict::Win(_)), "{report:?}");
        let proof = report.proof.expect("a win comes with its proof");
        assert_eq!((proof.width, proof.height), (20, 9));
        assert_eq!(proof.attacker, Color::Black);
        // The proof passes the checker again after a trip through its text.
        let back = format::parse(&format::to_text(&proof)).unwrap();
        assert!(check::check(&back).is_ok());
    }

    #[test]
    fn an_open_four_against_the_side_to_move_is_a_loss() {
        // Black's open four d5..g5; white, to move, has nothing.
        let mut b = board(15, 15, Rule::Standard, "d5a1e5a3f5a9g5");
        let report = solve(&mut b, &limits(100_000), &mut |_| {});
        assert_eq!(report.verdict, Verdict::Loss, "{report:?}");
        let proof = report.proof.unwrap();
        assert_eq!(proof.attacker, Color::Black);
        assert!(check::check(&proof).is_ok());
    }

    #[test]
    fn transpositions_are_written_once_and_checked_against_the_positions_above() {
        // Black d3 d4 c5 against white a1 a7 g1 on a 7x7 board, black to move: a win
        // whose defences reach some positions in more than one order.
        let mut b = board(7, 7, Rule::Freestyle, "d4a1d3a7c5g1");
        let report = solve(&mut b, &limits(200_000), &mut |_| {});
        assert!(matches!(report.verdict, Verdict::Win(_)), "{report:?}");
        let (proof, checked) = (report.proof.unwrap(), report.checked.unwrap());
        let text = format::to_text(&proof);
        let references = text.lines().filter(|l| l.trim() == "=").count() as u64;
        assert!(references > 0, "{text}");
        assert_eq!(checked.transpositions, references);
        let rejected = |p: &ProofFile| check::check(p).map_err(|e| e.reason).unwrap_err();
        // The first attacker answer of the file made `=`: nothing is proven above it.
        let mut early = proof.clone();
        let first = early.roots[0]
            .children
            .iter_mut()
            .find(|r| matches!(r.children[0].mv, Move::At(_)))
            .unwrap();
        first.children[0] = format::Node::new(Move::ProvenAbove, Vec::new());
        assert!(rejected(&early).contains("not proven above"));
        // A `=` carries no moves below it, and never stands for a defender's move.
        let mut with_moves = proof.clone();
        let reference = find_reference(&mut with_moves.roots).unwrap();
        reference.children = vec![format::Node::new(Move::Others, Vec::new())];
        assert!(rejected(&with_moves).contains("moves listed below '='"));
        let mut as_reply = proof.clone();
        as_reply.roots[0].children[0].mv = Move::ProvenAbove;
        assert!(rejected(&as_reply).contains("where a defender move belongs"));
    }

    /// The first `=` line of `nodes` in file order.
    fn find_reference(nodes: &mut [format::Node]) -> Option<&mut format::Node> {
        for node in nodes {
            if node.mv == Move::ProvenAbove {
                return Some(node);
            }
            if let Some(found) = find_reference(&mut node.children) {
                return Some(found);
            }
        }
        None
    }

    #[test]
    fn a_quiet_opening_is_not_claimed() {
        let mut b = board(15, 15, Rule::Renju, "h8i9");
        let mut reports = 0;
        let report = solve(&mut b, &limits(20_000), &mut |_| reports += 1);
        assert_eq!(report.verdict, Verdict::Unknown);
        assert!(report.proof.is_none());
        assert!(reports > 0, "the end of a search is reported");
    }
}
