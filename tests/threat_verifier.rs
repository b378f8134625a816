//! Soundness: every win the threat search claims over a corpus of generated middle-game
//! positions (all four rules) is confirmed by the independent verifier, which lets the
//! defender try every move near the stones and every four anywhere.

mod common;

use common::parallel::map_in_order;
use wuzi::board::Board;
use wuzi::threat::corpus;
use wuzi::threat::verify::{is_five_move, verify_win, Rejection};
use wuzi::threat::{find_win, Level, Limits};
use wuzi::types::{Color, Coord, Rule};

/// The verifier's own re-searches get a larger budget than the claims: a subtree of a
/// proof searched from scratch can cost more than it did inside the original search.
fn verifier_limits() -> Limits<'static> {
    Limits {
        level: Level::Vct,
        max_nodes: 300_000,
        max_depth: 20,
        deadline: None,
        stop: None,
    }
}

fn limits(level: Level) -> Limits<'static> {
    Limits {
        level,
        max_nodes: 20_000,
        max_depth: 10,
        deadline: None,
        stop: None,
    }
}

#[derive(Default, Debug)]
struct Tally {
    positions: usize,
    claims: usize,
    confirmed: usize,
    too_big: usize,
    false_wins: Vec<String>,
}

/// Searches both sides of every position at both levels and verifies every claim, the
/// positions shared out over the cores: each position's searches start from nothing, so
/// the tally does not depend on which worker took which.
fn check_corpus(boards: Vec<Board>, max_positions: u64) -> Tally {
    let tallies = map_in_order(&boards, |board| check_board(board.clone(), max_positions));
    let mut t = Tally::default();
    for part in tallies {
        t.positions += part.positions;
        t.claims += part.claims;
        t.confirmed += part.confirmed;
        t.too_big += part.too_big;
        t.false_wins.extend(part.false_wins);
    }
    t
}

/// [`check_corpus`] of one position.
fn check_board(mut board: Board, max_positions: u64) -> Tally {
    let mut t = Tally {
        positions: 1,
        ..Tally::default()
    };
    let before = board.hash();
    for attacker in Color::BOTH {
        // The side not to move is searched as if it moved now (what the main search
        // asks about the opponent) — skipped when the side to move can make five.
        if attacker != board.side_to_move() {
            let mover = board.side_to_move();
            let five_now = board
                .positions()
                .collect::<Vec<_>>()
                .into_iter()
                .any(|p| is_five_move(&mut board, p, mover));
            if five_now {
                continue;
            }
        }
        let mut verified_first = None;
        for level in [Level::Vcf, Level::Vct] {
            let Some(seq) = find_win(&mut board, attacker, &limits(level)) else {
                continue;
            };
            assert_eq!(board.hash(), before, "search changed the board");
            t.claims += 1;
            let first = seq.first_move().expect("a win has a first move");
            if verified_first == Some(first) {
                // VCT starts with the VCF budget: the same claim, already checked.
                t.confirmed += 1;
                continue;
            }
            verified_first = Some(first);
            match verify_win(
                &mut board,
                attacker,
                first,
                &verifier_limits(),
                max_positions,
            ) {
                Ok(()) => t.confirmed += 1,
                Err(Rejection::TooBig) => t.too_big += 1,
                Err(e) => {
                    let moves: Vec<String> = board
                        .history()
                        .iter()
                        .map(|&p| board.coord(p).to_pos_notation())
                        .collect();
                    t.false_wins.push(format!(
                        "{} {:?} {:?} first {}: {e:?} in {}",
                        board.rule(),
                        attacker,
                        level,
                        board.coord(first).to_pos_notation(),
                        moves.concat()
                    ))
                }
            }
            assert_eq!(board.hash(), before, "verifier changed the board");
        }
    }
    t
}

/// No claim is false, and the claims are enough, and enough of them within the
/// verifier's budget, for the corpus to test the search.
fn assert_all_real_and_enough_checked(t: &Tally) {
    println!("{t:?}");
    assert!(
        t.false_wins.is_empty(),
        "false wins:\n{}",
        t.false_wins.join("\n")
    );
    assert!(t.claims >= 100, "too few claims to mean anything: {t:?}");
    // Claims too big for the verifier's budget are neither proven nor refuted; keep them
    // a small minority so the test really covers the search.
    assert!(
        t.too_big * 10 <= t.claims,
        "too many unverified claims: {t:?}"
    );
}

#[test]
fn every_claimed_win_over_a_generated_corpus_is_real() {
    let boards = corpus::generate(250, 2026);
    assert!(boards.len() >= 1000, "corpus too small: {}", boards.len());
    assert_all_real_and_enough_checked(&check_corpus(boards, 5_000));
}

/// The brain plays on any board from 5×5 to 32×32, rectangular ones too: near the edges
/// and corners of small boards the walls cut lines short, and a long thin board has lines
/// of different lengths in its two directions.
#[test]
fn every_claimed_win_on_other_board_shapes_is_real() {
    const SHAPES: [(usize, usize); 8] = [
        (5, 5),
        (6, 6),
        (7, 7),
        (9, 9),
        (10, 6),
        (12, 17),
        (20, 20),
        (32, 32),
    ];
    let boards = corpus::generate_shapes(100, 2027, &SHAPES);
    assert!(boards.len() >= 400, "corpus too small: {}", boards.len());
    for &(w, h) in &SHAPES {
        assert!(
            boards.iter().any(|b| (b.width(), b.height()) == (w, h)),
            "no {w}x{h} board in the corpus"
        );
    }
    assert_all_real_and_enough_checked(&check_corpus(boards, 5_000));
}

#[test]
#[ignore = "slow: a second corpus with a larger verifier budget"]
fn every_claimed_win_over_a_second_corpus_is_real() {
    let t = check_corpus(corpus::generate(250, 7), 100_000);
    println!("{t:?}");
    assert!(
        t.false_wins.is_empty(),
        "false wins:\n{}",
        t.false_wins.join("\n")
    );
}

#[test]
fn verifier_recognises_fives_by_the_rule() {
    let mut b = Board::new(15, 15, Rule::Standard).unwrap();
    for x in [2, 3, 4, 6, 7] {
        b.place(b.pos(Coord::new(x, 7)).unwrap(), Color::Black);
    }
    let gap = b.pos(Coord::new(5, 7)).unwrap();
    assert!(
        !is_five_move(&mut b, gap, Color::Black),
        "six is no five in standard"
    );
    let mut f = Board::new(15, 15, Rule::Freestyle).unwrap();
    for x in [2, 3, 4, 6, 7] {
        f.place(f.pos(Coord::new(x, 7)).unwrap(), Color::Black);
    }
    assert!(is_five_move(&mut f, gap, Color::Black));
    // Caro: blocked at both ends by the opponent does not win.
    let mut c = Board::new(15, 15, Rule::Caro).unwrap();
    for x in [2, 3, 4, 5] {
        c.place(c.pos(Coord::new(x, 7)).unwrap(), Color::Black);
    }
    c.place(c.pos(Coord::new(1, 7)).unwrap(), Color::White);
    c.place(c.pos(Coord::new(7, 7)).unwrap(), Color::White);
    let end = c.pos(Coord::new(6, 7)).unwrap();
    assert!(!is_five_move(&mut c, end, Color::Black));
}

/// `map_in_order`, which shares out this corpus and the other slow tests' items, returns
/// the results in the items' order.
#[test]
fn results_keep_the_items_order_whatever_the_workers_take() {
    // Items of very different cost, so the workers finish them out of order.
    let items: Vec<u64> = (0..40).rev().collect();
    let squares = map_in_order(&items, |&n| {
        std::thread::sleep(std::time::Duration::from_millis(n % 7));
        n * n
    });
    let expected: Vec<u64> = items.iter().map(|n| n * n).collect();
    assert_eq!(squares, expected);
}
