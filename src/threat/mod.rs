//! Threat-space search: can a side force a win with threats (VCF: fours only; VCT: fours
//! and threes), and which moves defend when the opponent can.
//!
//! Files, one concern each:
//! - `threats`: threats read from the pattern tables (categories, reply squares);
//! - `search`: the AND/OR proof search over threat sequences (with its refutation check);
//! - `defence`: the moves that stop every opponent win;
//! - `verify`: an independent brute-force checker of claimed wins, for the tests of this
//!   library and of the tools (nothing calls it in play);
//! - `corpus`: seeded random-but-sensible games, for tests and the bench;
//! - `bench`: calls per second over fixed positions (for `pbrain-wuzi bench`; the
//!   `solve` command line lives in the binary).
//!
//! Every entry point leaves the board exactly as it found it.

pub mod bench;
pub mod corpus;
pub mod defence;
mod history;
pub mod search;
pub mod threats;
pub mod verify;

use crate::board::{Board, Pos};
use crate::types::Color;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

pub use bench::{bench_corpus, BenchReport};
pub use defence::{defences, defences_counted, defences_preferring, DefenceSet};
pub use search::Memo;
pub use threats::{Category, ThreatKind};

/// Which threats the attacker may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// Victory by continuous fours: only category-1 threats. Very fast.
    Vcf,
    /// Victory by continuous threats: fours and threes.
    Vct,
}

pub use crate::params::threat::ROOT_DEPTH;

/// How far a resumed search ([`find_win_resumed`]) may go, if its limits let it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phases {
    /// Through every phase.
    All,
    /// No further than the end of the phase it resumes (the first, for a new root): the
    /// next search of the root goes on with the next phase. For a slice meant for the
    /// cheap first phase only: the second, moves that threaten a VCF, can take any time
    /// given to it.
    Current,
}

/// Bounds on one search. The search gives up (returns "no win found") when any is hit.
#[derive(Clone, Copy, Debug)]
pub struct Limits<'a> {
    pub level: Level,
    /// Nodes (attacker and defender positions) searched at most.
    pub max_nodes: u64,
    /// Attacker moves in one line at most; at VCT also the most threes in one line.
    pub max_depth: u32,
    /// Wall-clock limit, read every few hundred nodes.
    pub deadline: Option<Instant>,
    /// Set by another thread to stop the search early.
    pub stop: Option<&'a AtomicBool>,
}

impl Limits<'static> {
    /// Defaults for a VCF call inside the main search: tiny and fast.
    pub fn vcf() -> Self {
        Limits {
            level: Level::Vcf,
            max_nodes: 20_000,
            max_depth: 30,
            deadline: None,
            stop: None,
        }
    }

    /// Defaults for a VCT call inside the main search: bounded so that one call stays
    /// around a millisecond even when it fails (failing calls are the expensive ones).
    pub fn vct() -> Self {
        Limits {
            level: Level::Vct,
            max_nodes: 1_000,
            max_depth: 8,
            deadline: None,
            stop: None,
        }
    }
}

/// One attacker threat of a winning line and the defender's answers to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreatStep {
    /// The attacker's move (the gain square).
    pub attack: Pos,
    pub kind: ThreatKind,
    /// Every defender reply that had to be refuted (reply squares and counter-fours).
    /// The line continues after the first of them; the others were refuted as well.
    pub replies: Vec<Pos>,
}

/// A proven win: the main line, ending in a five.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WinningSequence {
    pub steps: Vec<ThreatStep>,
    /// Nodes the search used.
    pub nodes: u64,
}

impl WinningSequence {
    /// The move to play now.
    pub fn first_move(&self) -> Option<Pos> {
        self.steps.first().map(|s| s.attack)
    }

    /// The main line as moves: attacker, first reply, attacker, ...
    pub fn main_line(&self) -> Vec<Pos> {
        let mut line = Vec::new();
        for s in &self.steps {
            line.push(s.attack);
            if let Some(&r) = s.replies.first() {
                line.push(r);
            }
        }
        line
    }
}

/// Searches for a forced win of `attacker`, who is to move (whatever the board's side to
/// move says: this lets the main search ask "what if the opponent moved now?").
/// Returns `None` when no win was found within the limits. Every returned win is proven
/// against all defences (see `search`), under the board's rule.
pub fn find_win(board: &mut Board, attacker: Color, limits: &Limits) -> Option<WinningSequence> {
    find_win_counted(board, attacker, limits).0
}

/// [`find_win`], also returning the nodes used (whether or not a win was found).
pub fn find_win_counted(
    board: &mut Board,
    attacker: Color,
    limits: &Limits,
) -> (Option<WinningSequence>, u64) {
    if !has_any_threat(board, attacker, limits.level) {
        return (None, 1);
    }
    let mut searcher = search::Searcher::new(board, attacker, limits);
    let result = searcher.run();
    (result, searcher.nodes)
}

/// [`find_win`] for a root searched more than once (each time within a time slice): the
/// search resumes from what `memo` kept of the last search of the same root, and leaves
/// its own table there. `memo.complete` tells afterwards whether the clock (or a stop
/// request) cut the search: if not, another search of this root would find nothing more.
/// `phases` may stop it at the end of the phase it resumes (see [`Phases`]).
pub fn find_win_resumed(
    board: &mut Board,
    attacker: Color,
    limits: &Limits,
    memo: &mut Memo,
    phases: Phases,
) -> Option<WinningSequence> {
    if !has_any_threat(board, attacker, limits.level) {
        *memo = Memo::default();
        memo.complete = true;
        return None;
    }
    if let Some(found) = search::follow_memo_proof(board, attacker, limits, memo) {
        return Some(found);
    }
    let mut searcher = search::Searcher::new(board, attacker, limits);
    searcher.phases = phases;
    // Under renju too: the history plays worse there when the searches at the main
    // search's nodes keep one as well, but these root searches are the long ones it
    // speeds up.
    searcher.learns_history = true;
    searcher.run_resumed(memo)
}

/// The fast exit taken by most calls from the main search: without a five point, a four
/// or (at VCT) an open three, the attacker has no threat to start a sequence with.
fn has_any_threat(board: &Board, attacker: Color, level: Level) -> bool {
    use crate::pattern::Pattern;
    board.has_five_point(attacker)
        || threats::has_four_points(board, attacker)
        || (level == Level::Vct
            && (board.pattern_count(attacker, Pattern::OpenThree) > 0
                || (crate::params::threat::CROSSING_THREES
                    && board.pattern_count(attacker, Pattern::Three) > 1)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{Coord, Rule};
    use std::sync::atomic::AtomicBool;

    fn board(rule: Rule, black: &[(i32, i32)], white: &[(i32, i32)]) -> Board {
        let mut b = Board::new(15, 15, rule).unwrap();
        for &(x, y) in black {
            b.place(b.pos(Coord::new(x, y)).unwrap(), Color::Black);
        }
        for &(x, y) in white {
            b.place(b.pos(Coord::new(x, y)).unwrap(), Color::White);
        }
        b
    }

    #[test]
    fn vcf_finds_a_four_three_and_leaves_the_board_alone() {
        // Black: a closed three on row 7 (white at 2,7) and an open two in column 6.
        // (6,7) makes a four on the row and an open three in the column... then fours win.
        let mut b = board(
            Rule::Freestyle,
            &[(3, 7), (4, 7), (5, 7), (6, 5), (6, 6)],
            &[(2, 7), (0, 0), (0, 2), (0, 4), (0, 6)],
        );
        let before = b.hash();
        let vcf = find_win(&mut b, Color::Black, &Limits::vcf());
        let vct = find_win(&mut b, Color::Black, &Limits::vct()).expect("a four-three wins");
        assert_eq!(b.hash(), before);
        assert_eq!(b.move_count(), 10);
        // The last step is a five and every step before it has a reply or is unstoppable.
        assert_eq!(vct.steps.last().map(|s| s.kind), Some(ThreatKind::Five));
        if let Some(vcf) = vcf {
            assert_eq!(vcf.steps.last().map(|s| s.kind), Some(ThreatKind::Five));
        }
    }

    #[test]
    fn defences_say_none_without_a_threat_and_list_the_blocks_of_a_four() {
        let mut quiet = board(Rule::Freestyle, &[(7, 7)], &[(8, 8)]);
        assert_eq!(defences(&mut quiet, Color::Black, &Limits::vct()), None);
        // White has a closed four on row 3 (black at 2,3); black to move must take (7,3)
        // or make a four of its own first.
        let mut b = board(
            Rule::Freestyle,
            &[(2, 3), (10, 10), (12, 12), (0, 14)],
            &[(3, 3), (4, 3), (5, 3), (6, 3)],
        );
        let before = b.hash();
        let d = defences(&mut b, Color::Black, &Limits::vct()).expect("white threatens five");
        assert_eq!(b.hash(), before);
        let block = b.pos(Coord::new(7, 3)).unwrap();
        assert_eq!(d, vec![block]);
    }

    #[test]
    fn a_counter_three_is_a_defence_against_a_win_by_threes() {
        // White (5,7),(6,7) and (7,5),(7,6): (7,7) makes two open threes at once, and white
        // has no four to play. Black's two on row 2 is far from all of it.
        let mut b = board(
            Rule::Freestyle,
            &[(10, 2), (11, 2), (0, 14), (14, 14)],
            &[(5, 7), (6, 7), (7, 5), (7, 6)],
        );
        assert!(find_win(&mut b, Color::White, &Limits::vct()).is_some());
        let before = b.hash();
        let d = defences(&mut b, Color::Black, &Limits::vct()).expect("white wins by threes");
        assert_eq!(b.hash(), before);
        // Taking the double-three point defends. So does any black open or broken three on
        // row 2, far from white's threat: after it, each three white makes is answered by a
        // black straight four, so white must spend its move on a block (a win by threes
        // needs the defender to have no four to answer with).
        let at = |x, y| b.pos(Coord::new(x, y)).unwrap();
        assert!(d.contains(&at(7, 7)), "{d:?}");
        for x in [8, 9, 12, 13] {
            assert!(
                d.contains(&at(x, 2)),
                "black three at ({x},2) missing from {d:?}"
            );
        }
        // A move that neither blocks nor threatens does not defend.
        assert!(!d.contains(&at(2, 12)), "{d:?}");
    }

    #[test]
    fn node_limit_and_stop_flag_end_the_search() {
        let mut b = board(
            Rule::Freestyle,
            &[(5, 5), (6, 6), (7, 5), (8, 8), (5, 8)],
            &[(9, 9), (4, 4), (10, 3), (3, 10), (11, 11)],
        );
        let limits = Limits {
            max_nodes: 10,
            ..Limits::vct()
        };
        let (_, nodes) = find_win_counted(&mut b, Color::Black, &limits);
        assert!(nodes <= 10, "used {nodes} nodes");
        let stop = AtomicBool::new(true);
        let limits = Limits {
            stop: Some(&stop),
            max_nodes: u64::MAX,
            ..Limits::vct()
        };
        let (_, nodes) = find_win_counted(&mut b, Color::Black, &limits);
        assert!(
            nodes <= 256,
            "the stop flag is read every 256 nodes, used {nodes}"
        );
    }

    /// A 15x15 board of `rule` after `moves` ("pos" notation, black first).
    pub(super) fn game(rule: Rule, moves: &str) -> Board {
        Board::from_moves(15, rule, moves).unwrap()
    }

    /// The cell of `name` ("pos" notation) on `b`.
    pub(super) fn at(b: &Board, name: &str) -> Pos {
        b.pos(Coord::from_pos_notation(name).unwrap()).unwrap()
    }

    /// `pub-free-win008` of the shared puzzle suite: white wins (a VCT of 13 threats)
    /// and an independent engine lists d8 and g4 as the only winning first moves.
    const WIN008: &str = "g8e7f7e6i8f5e5d7c8f6g6";

    #[test]
    fn a_search_cut_by_its_deadline_resumes_from_its_memo() {
        let mut b = game(Rule::Freestyle, WIN008);
        let white = Color::White;
        let before = b.hash();
        let answers = [at(&b, "d8"), at(&b, "g4")];
        let mut memo = Memo::default();
        // Slices of one millisecond: each is cut by its deadline and leaves its table
        // for the next, which goes on where it stopped instead of starting over.
        let mut found = None;
        let mut slices = 0;
        while found.is_none() && slices < 20_000 {
            slices += 1;
            let limits = Limits {
                deadline: Some(Instant::now() + std::time::Duration::from_millis(1)),
                max_nodes: 1_000_000,
                max_depth: 30,
                ..Limits::vct()
            };
            found = find_win_resumed(&mut b, white, &limits, &mut memo, Phases::All);
            assert_eq!(b.hash(), before);
            if found.is_none() {
                assert!(memo.is_for(&b, white, Level::Vct));
                assert!(!memo.complete, "slice {slices} ended without a deadline");
            }
        }
        let win = found.expect("the resumed slices find the win");
        let first = win.first_move().unwrap();
        assert!(answers.contains(&first), "{}", b.coord(first));
        assert!(slices > 1, "one slice was enough: the test does not resume");
        // A listed answer is known to win: the verifier must not refute it.
        let check = Limits {
            max_nodes: 2_000_000,
            max_depth: 20,
            ..Limits::vct()
        };
        let verdict = verify::verify_win(&mut b, white, first, &check, 200_000);
        assert!(
            matches!(verdict, Ok(()) | Err(verify::Rejection::TooBig)),
            "{verdict:?}"
        );
        // A memo of another root is not used; one for the root is, by its key.
        let other = game(Rule::Freestyle, "h8");
        assert!(!memo.is_for(&other, white, Level::Vct));
        assert!(!memo.is_for(&b, Color::Black, Level::Vct));
    }

    #[test]
    fn a_memo_counts_the_nodes_of_every_slice_and_of_its_current_phase() {
        // pub-free-win002: black (to move) wins, but only in the second phase; the first
        // takes about 120k nodes to fail.
        let mut b = game(
            Rule::Freestyle,
            "k4i4f6g6e7g5g7f7h5h8i6h7i8g4k5k6j5e4i5l5h6j4h4g3g2i9e9f8c9d8e8e6h3h2f9d9d7g10e11e10d10b8c8c6c11c10",
        );
        let black = Color::Black;
        let mut memo = Memo::default();
        let mut first_phase_nodes = 0;
        let mut last_total = 0;
        let mut saw_second_phase = false;
        for _ in 0..5_000 {
            let limits = Limits {
                deadline: Some(Instant::now() + std::time::Duration::from_millis(2)),
                max_nodes: 2_000_000,
                max_depth: 30,
                ..Limits::vct()
            };
            let found = find_win_resumed(&mut b, black, &limits, &mut memo, Phases::All);
            let (total, in_phase) = memo.nodes();
            assert!(total > last_total, "a slice added no nodes");
            last_total = total;
            match memo.progress().0 {
                0 => {
                    assert_eq!(in_phase, total);
                    first_phase_nodes = total;
                }
                _ => {
                    saw_second_phase = true;
                    // Every node counted while the first phase ran went to it.
                    assert!(total - in_phase >= first_phase_nodes, "{total} {in_phase}");
                }
            }
            if found.is_some() || memo.complete {
                break;
            }
        }
        assert!(saw_second_phase && first_phase_nodes > 0);
        // Another root starts the count again.
        let mut other = game(Rule::Freestyle, WIN008);
        find_win_resumed(
            &mut other,
            Color::White,
            &Limits::vct(),
            &mut memo,
            Phases::All,
        );
        let (total, in_phase) = memo.nodes();
        assert!(
            total < last_total && in_phase <= total,
            "{total} {in_phase}"
        );
    }

    #[test]
    fn a_search_of_one_phase_stops_between_phases_and_the_next_goes_on_unchanged() {
        // pub-free-win002 again: black's win is found in the second phase only.
        let position = "k4i4f6g6e7g5g7f7h5h8i6h7i8g4k5k6j5e4i5l5h6j4h4g3g2i9e9f8c9d8e8e6h3h2f9d9d7g10e11e10d10b8c8c6c11c10";
        let black = Color::Black;
        let limits = Limits {
            max_nodes: 2_000_000,
            max_depth: 30,
            ..Limits::vct()
        };
        let mut b = game(Rule::Freestyle, position);
        let answers = ["f10", "b12", "d11", "l3", "m2"].map(|name| at(&b, name));
        let mut split = Memo::default();
        assert!(find_win_resumed(&mut b, black, &limits, &mut split, Phases::Current).is_none());
        let (first_phase_nodes, in_phase) = split.nodes();
        assert_eq!(
            split.progress(),
            (1, 0),
            "it stops at the start of the second phase"
        );
        assert!(!split.complete && first_phase_nodes > 0 && in_phase == 0);
        let win =
            find_win_resumed(&mut b, black, &limits, &mut split, Phases::All).expect("the win");
        let first = win.first_move().unwrap();
        assert!(answers.contains(&first), "{}", b.coord(first));
        // One search through both phases does exactly the same work.
        let mut whole = Memo::default();
        assert!(find_win_resumed(&mut b, black, &limits, &mut whole, Phases::All).is_some());
        assert_eq!(whole.nodes().0, split.nodes().0);
    }

    #[test]
    fn a_search_that_ends_on_its_own_marks_its_memo_complete() {
        // Black's only threat is an open three, and white answers it: no win, and the
        // search ends long before any deadline.
        let mut b = board(Rule::Freestyle, &[(5, 7), (6, 7)], &[(0, 0), (14, 14)]);
        let limits = Limits {
            deadline: Some(Instant::now() + std::time::Duration::from_secs(60)),
            max_nodes: 1_000_000,
            ..Limits::vct()
        };
        let mut memo = Memo::default();
        assert!(find_win_resumed(&mut b, Color::Black, &limits, &mut memo, Phases::All).is_none());
        assert!(memo.complete);
    }

    /// The engine's check of its chosen moves: after one move was refuted, the check of
    /// the next follows the refutation's proof before searching afresh. In the
    /// standard-rule position `j8j9h11i8h10h7k10` black wins after white d8 and after
    /// e9 alike (only h9 holds); the second win comes from the first's proof, in a
    /// fraction of the nodes a search of its own takes.
    #[test]
    fn a_check_of_another_move_follows_the_last_refutation_first() {
        let mut b = game(Rule::Standard, "j8j9h11i8h10h7k10");
        let limits = Limits {
            max_nodes: 1_000_000,
            max_depth: ROOT_DEPTH,
            ..Limits::vct()
        };
        let mut memo = Memo::default();
        let refute = |b: &mut Board, memo: &mut Memo, name: &str| {
            b.place(at(b, name), Color::White);
            let win = find_win_resumed(b, Color::Black, &limits, memo, Phases::All);
            assert!(win.is_some(), "black wins after {name}");
            assert!(memo.is_for(b, Color::Black, Level::Vct) && memo.complete);
            let nodes = memo.nodes().0;
            let (_, alone) = find_win_counted(b, Color::Black, &limits);
            b.undo();
            (nodes, alone)
        };
        let (first, _) = refute(&mut b, &mut memo, "d8");
        let (followed, alone) = refute(&mut b, &mut memo, "e9");
        assert!(first > 4 * followed, "d8 {first}, e9 followed {followed}");
        assert!(
            alone > 4 * followed,
            "e9 alone {alone}, followed {followed}"
        );
    }

    #[test]
    fn a_memo_is_settled_only_by_a_search_that_ended_without_a_win() {
        let limits = Limits {
            deadline: Some(Instant::now() + std::time::Duration::from_secs(60)),
            max_nodes: 1_000_000,
            ..Limits::vct()
        };
        // Black can make an open three, and white answers it: no win, the search ends.
        let mut b = board(Rule::Freestyle, &[(5, 7), (6, 7)], &[(0, 0), (14, 14)]);
        let mut memo = Memo::default();
        assert!(!memo.settled_without_win(&b, Color::Black, Level::Vct));
        // Cut by its node limit, the same search settles nothing.
        let one_node = Limits {
            max_nodes: 1,
            ..limits
        };
        assert!(
            find_win_resumed(&mut b, Color::Black, &one_node, &mut memo, Phases::All).is_none()
        );
        assert!(!memo.settled_without_win(&b, Color::Black, Level::Vct));
        assert!(find_win_resumed(&mut b, Color::Black, &limits, &mut memo, Phases::All).is_none());
        assert!(memo.settled_without_win(&b, Color::Black, Level::Vct));
        // The verdict is for that root and attacker only.
        assert!(!memo.settled_without_win(&b, Color::White, Level::Vct));
        let mut moved = b.clone();
        moved.make(at(&moved, "h8"));
        assert!(!memo.settled_without_win(&moved, Color::Black, Level::Vct));
        // A search that ends with a win (black's open three becomes a straight four) is
        // complete too, but not settled without one.
        let mut won = board(
            Rule::Freestyle,
            &[(4, 7), (5, 7), (6, 7)],
            &[(0, 0), (14, 14)],
        );
        let mut memo = Memo::default();
        assert!(
            find_win_resumed(&mut won, Color::Black, &limits, &mut memo, Phases::All).is_some()
        );
        assert!(memo.complete);
        assert!(!memo.settled_without_win(&won, Color::Black, Level::Vct));
    }

    #[test]
    fn a_three_is_refuted_at_once_by_the_defenders_vcf() {
        // Black (to move) can make an open three on row 8 (f8 g8 + h8 or e8); white has
        // an open three in column c (c3 c4 c5) and makes a straight four next: it ignores
        // black's three and wins. Black has no four, so no win.
        let mut b = board(
            Rule::Freestyle,
            &[(5, 7), (6, 7), (12, 12)],
            &[(2, 2), (2, 3), (2, 4)],
        );
        assert_eq!(b.side_to_move(), Color::Black);
        let limits = Limits {
            max_nodes: 1_000_000,
            ..Limits::vct()
        };
        let (win, nodes) = find_win_counted(&mut b, Color::Black, &limits);
        assert!(win.is_none());
        assert!(nodes < 2_000, "the refutation took {nodes} nodes");
        // The brute-force verifier agrees that the three loses.
        let h8 = at(&b, "h8");
        assert!(verify::verify_win(&mut b, Color::Black, h8, &limits, 100_000).is_err());
        // Without white's three, h8 is a real threat and black still has no win, but
        // now white has to answer it.
        let mut quiet = board(
            Rule::Freestyle,
            &[(5, 7), (6, 7), (12, 12)],
            &[(2, 2), (2, 3), (10, 2)],
        );
        assert!(find_win(&mut quiet, Color::Black, &limits).is_none());
    }

    #[test]
    fn caro_straight_four_blocked_beyond_one_end_is_not_sure() {
        // `o . X X X [.] .` : (6,7) makes a straight four by shape, but white at (2,7)
        // lets white answer at (7,7) and leave (3,7) a blocked five.
        let b = board(Rule::Caro, &[(4, 7), (5, 7), (6, 7)], &[(2, 7)]);
        let p = b.pos(Coord::new(7, 7)).unwrap();
        let mut c = b.clone();
        assert!(!threats::is_sure_win_point(&mut c, p, Color::Black));
        let mut f = board(Rule::Freestyle, &[(4, 7), (5, 7), (6, 7)], &[(2, 7)]);
        assert!(threats::is_sure_win_point(&mut f, p, Color::Black));
    }
}
