//! Threat search on hand-made rule cases and generated positions, and the reply windows
//! over played ones (the shared puzzles and the self-play probe files). The shared puzzle
//! suite itself, with its known answers, is run by the tools package
//! (tools/tests/puzzle_suite.rs), which owns the puzzle file reader.

use std::path::{Path, PathBuf};
use wuzi::board::{Board, Pos};
use wuzi::threat::verify::{verify_win, Rejection};
use wuzi::threat::{defences, find_win, Level, Limits};
use wuzi::types::{Color, Coord, Rule};

/// The test positions kept in the repository (`tests/data/`, copied from the owners'
/// shared set: `tests/data/README.md`).
fn positions_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

/// The positions of a puzzle file (the format of `tests/data/`: tab-separated
/// `id rule size kind moves answers [note]`, `#` comments), as boards. Only the position
/// columns are read: these tests ask the threat search about the positions, not about
/// the answers.
fn positions_in(path: &Path) -> Vec<Board> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .map(|line| {
            let cols: Vec<&str> = line.split('\t').collect();
            let rule = cols[1].parse().map(Rule::from_info).expect("a rule");
            let size = cols[2].parse().expect("a size");
            Board::from_moves(size, rule, cols[4])
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        })
        .collect()
}

fn vct_limits() -> Limits<'static> {
    Limits {
        level: Level::Vct,
        max_nodes: 2_000_000,
        max_depth: 20,
        deadline: None,
        stop: None,
    }
}

/// Defences re-search the opponent's win after every candidate, so each search gets a
/// tenth of the budget of a win search.
fn defence_limits() -> Limits<'static> {
    Limits {
        max_nodes: 200_000,
        ..vct_limits()
    }
}

fn names(board: &Board, moves: &[Pos]) -> String {
    moves
        .iter()
        .map(|&p| board.coord(p).to_pos_notation())
        .collect::<Vec<_>>()
        .join(",")
}

fn board_from(rule: Rule, black: &[&str], white: &[&str]) -> Board {
    let mut b = Board::new(15, 15, rule).unwrap();
    for (stones, color) in [(black, Color::Black), (white, Color::White)] {
        for s in stones {
            let p = b.pos(Coord::from_pos_notation(s).unwrap()).unwrap();
            b.place(p, color);
        }
    }
    b
}

/// A 15x15 board after `moves` (pos notation, black first).
fn board_after(rule: Rule, moves: &str) -> Board {
    Board::from_moves(15, rule, moves).unwrap()
}

/// Black's double three at h6: f6 g6 make an open three with it horizontally, i7 j8
/// diagonally. White's column h2..h5 needs h6 for five; h1 is black.
const RENJU_BLACK: [&str; 5] = ["h1", "f6", "g6", "i7", "j8"];

#[test]
fn renju_white_wins_when_blacks_only_defence_is_forbidden() {
    let mut b = board_from(Rule::Renju, &RENJU_BLACK, &["h2", "h3", "h4", "h5", "a15"]);
    let h6 = b.pos(Coord::from_pos_notation("h6").unwrap()).unwrap();
    assert!(
        wuzi::rules::is_forbidden(&mut b, h6),
        "h6 must be forbidden for black"
    );
    assert_eq!(b.side_to_move(), Color::Black);
    // Black to move cannot stop the four: its only stopping square is forbidden.
    let d = defences(&mut b, Color::Black, &vct_limits()).expect("white threatens five");
    assert!(d.is_empty(), "no legal defence, got {}", names(&b, &d));

    // One move earlier: white's h5 is a winning four because black cannot answer it.
    let mut b = board_from(Rule::Renju, &RENJU_BLACK, &["h2", "h3", "h4", "a15", "o15"]);
    let seq = find_win(&mut b, Color::White, &Limits::vcf()).expect("white wins by a VCF");
    assert_eq!(b.coord(seq.first_move().unwrap()).to_pos_notation(), "h5");
    verify_win(
        &mut b,
        Color::White,
        seq.first_move().unwrap(),
        &Limits::vcf(),
        10_000,
    )
    .unwrap();
    // Under freestyle black simply blocks at h6: no win.
    let mut f = board_from(
        Rule::Freestyle,
        &RENJU_BLACK,
        &["h2", "h3", "h4", "a15", "o15"],
    );
    assert!(find_win(&mut f, Color::White, &Limits::vcf()).is_none());
}

/// A renju position from pub-renju-win024's line (white's l9 after k8 m8), black to
/// move. White's win found after black j7 needs no m10, but it leans on black's stone:
/// a black stone can make squares forbidden to black, so that proof need not hold
/// without it, and m10 must still be tried. After m10 white has no win in the threat
/// space, so the position is not lost.
#[test]
fn renju_defences_are_not_narrowed_by_a_proof_that_leans_on_the_candidate() {
    let mut b = board_after(Rule::Renju, "k6i6m7l8i5j5h5j8h7k8m8l9");
    let (m10, d) = defences_and_a_move_that_stops_white(&mut b, "m10");
    assert!(d.contains(&m10), "m10 defends, got [{}]", names(&b, &d));
}

/// With black to move on `b`: checks that white has no win after black `square`, and
/// returns that square with black's defences (white must be threatening a win).
fn defences_and_a_move_that_stops_white(b: &mut Board, square: &str) -> (Pos, Vec<Pos>) {
    assert_eq!(b.side_to_move(), Color::Black);
    let p = b.pos(Coord::from_pos_notation(square).unwrap()).unwrap();
    b.place(p, Color::Black);
    assert!(
        find_win(b, Color::White, &vct_limits()).is_none(),
        "after {square} white has no win"
    );
    b.undo();
    let d = defences(b, Color::Black, &defence_limits()).expect("white threatens a win");
    (p, d)
}

/// Caro: white's four f8 g8 h8 i8 has five points e8 and j8, and black's d8 stands
/// beside e8. Black j8 stops both: it takes j8, and e8 would now make a five blocked at
/// both ends (d8, j8), which does not win at caro. Black e8 does not (j8 still makes
/// f8..j8 with k8 open), nor any other stone, and black has no four: j8 is the only
/// defence. The proof of white's win needs only e8, so j8 must come from the cells
/// beside it.
#[test]
fn caro_defences_include_the_far_end_of_a_four() {
    let mut b = board_from(
        Rule::Caro,
        &["d8", "b14", "n2", "n14"],
        &["f8", "g8", "h8", "i8"],
    );
    let (j8, d) = defences_and_a_move_that_stops_white(&mut b, "j8");
    assert_eq!(d, vec![j8], "got [{}]", names(&b, &d));
}

#[test]
fn standard_rule_refutes_a_straight_four_whose_end_makes_an_overline() {
    // `X . . X X X o` on row 8 (b8, e8 f8 g8, white i8). Black d8 makes d8-g8: in
    // freestyle both c8 (six: b8..g8) and h8 complete it, a straight four that wins;
    // under standard c8 would be an overline, so d8 is only a four and h8 stops it.
    let black = ["b8", "e8", "f8", "g8"];
    let white = ["i8", "a1", "a3", "o1"];
    let mut free = board_from(Rule::Freestyle, &black, &white);
    let seq = find_win(&mut free, Color::Black, &Limits::vcf()).expect("freestyle wins");
    verify_win(
        &mut free,
        Color::Black,
        seq.first_move().unwrap(),
        &Limits::vcf(),
        10_000,
    )
    .unwrap();
    let mut std = board_from(Rule::Standard, &black, &white);
    assert!(find_win(&mut std, Color::Black, &vct_limits()).is_none());
    // The verifier agrees that d8 is no win under standard: after d8 h8 black has no
    // five, and c8 makes six.
    let d8 = std.pos(Coord::from_pos_notation("d8").unwrap()).unwrap();
    assert!(verify_win(&mut std, Color::Black, d8, &Limits::vcf(), 10_000).is_err());
}

/// Standard rule, black to move (white just played j3 against the open three g6 h5 i4,
/// from the game of `pub-std-def023` where only f7 holds). No black move makes an open
/// three or a four except the two fours f7 and e8, which white answers; but g8 (a quiet
/// move: only twos) makes e8 a four-three point — e8 would close the anti-diagonal four
/// e8 . g6 h5 i4 and make the open three e8 . g8 h8 on row 8 — and the win goes on from
/// there. The main search finds it independently (mate in 15 with g8 after ~40 s), and
/// the brute-force verifier confirms the first move the threat search plays (in
/// [`a_quiet_four_three_threat_survives_the_verifier_slow`]).
const QUIET_FOUR_THREE: &str = "h8k8h5i5i4l8m4h6g6j3";

#[test]
fn a_quiet_move_that_makes_a_four_three_point_is_a_threat() {
    let mut b = board_after(Rule::Standard, QUIET_FOUR_THREE);
    assert_eq!(b.side_to_move(), Color::Black);
    let before = b.hash();
    let seq = find_win(&mut b, Color::Black, &vct_limits()).expect("black wins");
    assert_eq!(b.hash(), before);
    let first = seq.first_move().unwrap();
    assert_eq!(b.coord(first).to_pos_notation(), "g8");
    // Before g8, e8 is only a four point; g8 makes it a four-three point.
    let at = |b: &Board, n: &str| b.pos(Coord::from_pos_notation(n).unwrap()).unwrap();
    let (e8, g8) = (at(&b, "e8"), at(&b, "g8"));
    assert!(!wuzi::threat::threats::is_four_three_point(
        &mut b,
        e8,
        Color::Black
    ));
    b.place(g8, Color::Black);
    assert!(wuzi::threat::threats::is_four_three_point(
        &mut b,
        e8,
        Color::Black
    ));
    b.undo();
}

/// The brute-force verifier does not refute g8 in the position of
/// [`a_quiet_move_that_makes_a_four_three_point_is_a_threat`]. Its search of this long
/// win takes longer than the rest of this file's tests together, so it is a slow test
/// (CI runs it with `--ignored`).
#[test]
#[ignore = "slow: the verifier's search of a long win; CI runs it with --ignored"]
fn a_quiet_four_three_threat_survives_the_verifier_slow() {
    let mut b = board_after(Rule::Standard, QUIET_FOUR_THREE);
    let g8 = b.pos(Coord::from_pos_notation("g8").unwrap()).unwrap();
    let before = b.hash();
    let verdict = verify_win(&mut b, Color::Black, g8, &vct_limits(), 300_000);
    assert_eq!(b.hash(), before);
    assert!(
        matches!(verdict, Ok(()) | Err(Rejection::TooBig)),
        "{verdict:?}"
    );
}

/// The narrow reply window of a four-three point under freestyle and standard (see
/// `three_stopper_candidates`) holds every stone that stops the point: over generated
/// positions and the positions after each of their threes, every empty cell is tried
/// exactly for every four-three point of the side that moved, and each stopping cell
/// that is not a four of the defender (those are replies of their own) must be in the
/// window.
#[test]
fn four_three_reply_window_holds_every_stopping_stone() {
    use wuzi::threat::threats::{
        is_four_three_point, still_sure, three_stopper_candidates, MoveShape,
    };
    let mut checked = 0;
    for mut b in wuzi::threat::corpus::generate(120, 99) {
        if !matches!(b.rule(), Rule::Freestyle | Rule::Standard) {
            continue;
        }
        let cells: Vec<Pos> = b.positions().collect();
        for attacker in Color::BOTH {
            let defender = attacker.opponent();
            // The attacker's moves that make a three somewhere (each may leave
            // four-three points), and the position as it is.
            let threes = moves_making_threes(&mut b, &cells, attacker);
            for m in threes.into_iter().map(Some).chain([None]) {
                if let Some(m) = m {
                    b.place(m, attacker);
                }
                if !b.has_five_point(attacker) && !b.has_five_point(defender) {
                    checked += check_window(&mut b, &cells, attacker);
                }
                if m.is_some() {
                    b.undo();
                }
            }
        }
    }
    assert!(
        checked >= 200,
        "too few four-three points to mean anything: {checked}"
    );

    fn check_window(b: &mut Board, cells: &[Pos], attacker: Color) -> usize {
        let defender = attacker.opponent();
        let shaped: Vec<Pos> = cells
            .iter()
            .copied()
            .filter(|&q| {
                b.is_empty(q) && {
                    let s = MoveShape::of(b, q, attacker);
                    !s.wins_next() && s.fours == 1 && s.open_threes > 0
                }
            })
            .collect();
        let points: Vec<Pos> = shaped
            .into_iter()
            .filter(|&q| is_four_three_point(b, q, attacker))
            .collect();
        for &q in &points {
            let mut window = smallvec::SmallVec::new();
            three_stopper_candidates(b, &[q], attacker, &mut window);
            for &c in cells {
                if !b.is_empty(c) || window.contains(&c) {
                    continue;
                }
                if MoveShape::of(b, c, defender).is_four() {
                    continue;
                }
                b.place(c, defender);
                let stops = !still_sure(b, q, attacker);
                b.undo();
                let moves: Vec<String> = b
                    .history()
                    .iter()
                    .map(|&p| b.coord(p).to_pos_notation())
                    .collect();
                assert!(
                    !stops,
                    "{:?}: {} stops the four-three point {} of {attacker:?} outside the \
                     window, in {}",
                    b.rule(),
                    b.coord(c).to_pos_notation(),
                    b.coord(q).to_pos_notation(),
                    moves.concat()
                );
            }
        }
        points.len()
    }
}

/// Under renju a white stone far off a black sure win point can still stop it, by
/// making it forbidden: the reply window (see `three_stopper_candidates`) must hold
/// every such stone. Black's f10 here makes e9 a sure win point (it was a double three
/// before); white's f7 takes that back without touching e9's lines: with f7 white, f8
/// makes one four for black instead of two, so it is no longer forbidden, the three
/// d10 e9 g7 becomes real through f8, and e9 is a double three again. The search once
/// claimed f10 as a win, missing that reply.
#[test]
fn renju_reply_window_holds_stones_that_make_the_point_forbidden() {
    let mut b = board_after(
        Rule::Renju,
        "g7i5f9h9j11h5h11g10f11g5f5f12g11i11d11e11e10g8c12b13d9c8g12h13d10d12d8d7f10",
    );
    let at = |b: &Board, s: &str| b.pos(Coord::from_pos_notation(s).unwrap()).unwrap();
    let (e9, f7) = (at(&b, "e9"), at(&b, "f7"));
    assert!(wuzi::threat::threats::still_sure(&mut b, e9, Color::Black));
    b.place(f7, Color::White);
    assert!(wuzi::rules::is_forbidden(&mut b, e9), "f7 must forbid e9");
    b.undo();
    let stoppers = renju_window_misses(&mut b, Color::Black);
    assert!(stoppers.is_empty(), "outside the window: {stoppers:?}");
    let mut window = smallvec::SmallVec::new();
    wuzi::threat::threats::three_stopper_candidates(&mut b, &[e9], Color::Black, &mut window);
    assert!(window.contains(&f7));
    // Before f10 black does have a win (by c10): whatever the search claims, the
    // verifier must confirm it, trying every white defence.
    b.undo();
    let limits = Limits {
        max_nodes: 200_000,
        max_depth: 12,
        ..vct_limits()
    };
    let seq = find_win(&mut b, Color::Black, &limits).expect("black wins");
    let first = seq.first_move().unwrap();
    if let Err(e) = verify_win(&mut b, Color::Black, first, &limits, 5_000_000) {
        panic!("{} {e:?}", b.coord(first).to_pos_notation());
    }
}

/// The same over renju positions (generated ones, the shared puzzles and the self-play
/// probe positions in scripts/positions) and the positions after each of their threes,
/// for both colours: every legal stone of the defender that stops a sure win point
/// (tried exactly on every empty cell) lies in the point's reply window.
#[test]
fn renju_reply_window_holds_every_stopping_stone() {
    let probes = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts/positions");
    let played = positions_in(&positions_dir().join("puzzles.txt"))
        .into_iter()
        .chain(positions_in(&probes.join("renju-selfplay.tsv")))
        .filter(|b| b.rule() == Rule::Renju);
    let generated = wuzi::threat::corpus::generate(200, 57)
        .into_iter()
        .filter(|b| b.rule() == Rule::Renju);
    let mut points = 0;
    for mut b in played.chain(generated) {
        let cells: Vec<Pos> = b.positions().collect();
        for attacker in Color::BOTH {
            let threes = moves_making_threes(&mut b, &cells, attacker);
            for m in threes.into_iter().map(Some).chain([None]) {
                if let Some(m) = m {
                    b.place(m, attacker);
                }
                if !b.has_five_point(attacker) && !b.has_five_point(attacker.opponent()) {
                    let misses = renju_window_misses(&mut b, attacker);
                    let moves: String = b
                        .history()
                        .iter()
                        .map(|&p| b.coord(p).to_pos_notation())
                        .collect();
                    assert!(misses.is_empty(), "{attacker:?} in {moves}: {misses:?}");
                    points += sure_points(&mut b, attacker).len();
                }
                if m.is_some() {
                    b.undo();
                }
            }
        }
    }
    assert!(
        points >= 200,
        "too few sure win points to mean anything: {points}"
    );
}

/// The legal moves of `attacker` among `cells` that make a three somewhere (each may
/// leave four-three points).
fn moves_making_threes(b: &mut Board, cells: &[Pos], attacker: Color) -> Vec<Pos> {
    use wuzi::pattern::Pattern;
    cells
        .iter()
        .copied()
        .filter(|&m| {
            b.is_empty(m)
                && wuzi::rules::is_legal_for(b, m, attacker)
                && b.cell_patterns(m)[attacker.index()]
                    .iter()
                    .any(|&l| l == Pattern::Three || l == Pattern::OpenThree)
        })
        .collect()
}

/// `attacker`'s sure win points (straight fours, double fours, four-threes).
fn sure_points(b: &mut Board, attacker: Color) -> Vec<Pos> {
    let cells: Vec<Pos> = b.positions().filter(|&q| b.is_empty(q)).collect();
    cells
        .into_iter()
        .filter(|&q| wuzi::threat::threats::still_sure(b, q, attacker))
        .collect()
}

/// For each sure win point of `attacker`, the legal defender stones outside its reply
/// window that stop it ("stone stops point"); the defender's own fours are left out
/// (they are replies of their own).
fn renju_window_misses(b: &mut Board, attacker: Color) -> Vec<String> {
    use wuzi::threat::threats::{still_sure, three_stopper_candidates, MoveShape};
    let defender = attacker.opponent();
    let cells: Vec<Pos> = b.positions().collect();
    let mut misses = Vec::new();
    for q in sure_points(b, attacker) {
        let mut window = smallvec::SmallVec::new();
        three_stopper_candidates(b, &[q], attacker, &mut window);
        for &c in &cells {
            if !b.is_empty(c)
                || window.contains(&c)
                || MoveShape::of(b, c, defender).is_four()
                || !wuzi::rules::is_legal_for(b, c, defender)
            {
                continue;
            }
            b.place(c, defender);
            let stops = !still_sure(b, q, attacker);
            b.undo();
            if stops {
                misses.push(format!(
                    "{} stops {}",
                    b.coord(c).to_pos_notation(),
                    b.coord(q).to_pos_notation()
                ));
            }
        }
    }
    misses
}
