//! Incremental board state (line codes, patterns, counts, combination counts, hash)
//! equals a recomputation after long random make/undo runs, on every rule and on odd
//! board shapes.

mod harness;

use harness::board_checks::{check_against_rebuilt, check_combinations, check_near_cells};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use wuzi::board::{Board, Pos};
use wuzi::eval::Evaluator;
use wuzi::pattern::{self, slot_shift, Cell, Pattern, CODE_COUNT};
use wuzi::types::{Color, Coord, Rule};

/// The empty cells of `board`, row by row.
fn empty_cells(board: &Board) -> Vec<Pos> {
    board.positions().filter(|&p| board.is_empty(p)).collect()
}

fn random_walk(width: usize, height: usize, rule: Rule, seed: u64, steps: usize) {
    let mut board = Board::new(width, height, rule).unwrap();
    let empty_hash = board.hash();
    let mut rng = StdRng::seed_from_u64(seed);
    for step in 0..steps {
        let empties = empty_cells(&board);
        // Mostly play, sometimes take back, so the walk goes deep and also unwinds.
        if !empties.is_empty() && (board.move_count() == 0 || rng.gen_bool(0.65)) {
            board.make(empties[rng.gen_range(0..empties.len())]);
        } else {
            board.undo();
        }
        if step % 7 == 0 {
            if let Err(e) = board.verify_incremental_state() {
                panic!("{rule} {width}x{height} seed {seed} step {step}: {e}\n{board}");
            }
            check_near_cells(
                &board,
                &format!("{rule} {width}x{height} seed {seed} step {step}"),
            );
        }
        check_combinations(
            &board,
            &format!("{rule} {width}x{height} seed {seed} step {step}"),
        );
        // Now and then carry on with a copy: a clone must undo moves made before it.
        if step % 500 == 499 {
            board = board.clone();
        }
        if step % 97 == 96 {
            paused_excursion(
                &mut board,
                &mut rng,
                &format!("{rule} seed {seed} step {step}"),
            );
        }
    }
    while board.move_count() > 0 {
        board.undo();
    }
    board.verify_incremental_state().unwrap();
    assert_eq!(board.hash(), empty_hash);
}

/// A few moves made and taken back with the search extras paused (as the threat search
/// does), one pause nested in another: the lines and the counts of threes and better
/// stay exact throughout, and once the pauses end the counts of every class, the
/// combination counts and nearby cells are exact again.
fn paused_excursion(board: &mut Board, rng: &mut StdRng, what: &str) {
    let start = board.move_count();
    board.pause_search_extras();
    let mut inner_start = start;
    for depth in 0..2 {
        if depth == 1 {
            inner_start = board.move_count();
            board.pause_search_extras();
        }
        for _ in 0..rng.gen_range(1..6) {
            let empties = empty_cells(board);
            if empties.is_empty() {
                break;
            }
            board.make(empties[rng.gen_range(0..empties.len())]);
            if let Err(e) = board.verify_incremental_state() {
                panic!("{what}, paused: {e}\n{board}");
            }
        }
    }
    loop {
        if board.move_count() == inner_start {
            board.resume_search_extras();
        }
        if board.move_count() == start {
            break;
        }
        board.undo();
        if let Err(e) = board.verify_incremental_state() {
            panic!("{what}, undone while paused: {e}\n{board}");
        }
    }
    board.resume_search_extras();
    board.verify_incremental_state().unwrap();
    check_near_cells(board, &format!("{what}, after a pause"));
    check_combinations(board, &format!("{what}, after a pause"));
}

#[test]
fn incremental_state_matches_recomputation_on_square_boards() {
    for (i, rule) in Rule::ALL.into_iter().enumerate() {
        random_walk(15, 15, rule, 11 + i as u64, 3000);
        random_walk(20, 20, rule, 23 + i as u64, 2000);
    }
}

#[test]
fn incremental_state_matches_recomputation_on_small_and_rectangular_boards() {
    random_walk(5, 5, Rule::Freestyle, 1, 2000);
    random_walk(32, 7, Rule::Standard, 2, 2000);
    random_walk(6, 32, Rule::Caro, 3, 2000);
    random_walk(32, 32, Rule::Renju, 4, 1500);
}

/// Walks that build threats: each move is taken among the cells next to the stones, so
/// lines fill up and the combination points (four-threes, double threes, renju black's
/// forbidden double threes, double fours) appear far more often than at random.
/// Returns how many combination cells it met (four-three, double three, winning four).
fn dense_walk(size: usize, rule: Rule, seed: u64, steps: usize) -> [u32; 3] {
    let mut board = Board::new(size, size, rule).unwrap();
    let mut rng = StdRng::seed_from_u64(seed);
    let mut seen = [0u32; 3];
    for step in 0..steps {
        let near: Vec<Pos> = board
            .positions()
            .filter(|&p| {
                board.is_empty(p) && (board.move_count() == 0 || board.stones_nearby(p) > 0)
            })
            .collect();
        if !near.is_empty() && (board.move_count() < 4 || rng.gen_bool(0.6)) {
            board.make(near[rng.gen_range(0..near.len())]);
        } else {
            board.undo();
        }
        if let Err(e) = board.verify_incremental_state() {
            panic!("{rule} {size}x{size} seed {seed} step {step}: {e}\n{board}");
        }
        check_combinations(&board, &format!("{rule} dense seed {seed} step {step}"));
        for c in Color::BOTH {
            seen[0] += board.four_three_cells(c);
            seen[1] += board.double_three_cells(c);
            seen[2] += board.winning_four_cells(c);
        }
    }
    seen
}

#[test]
fn combination_counts_match_a_scan_in_threat_rich_walks() {
    for (i, rule) in Rule::ALL.into_iter().enumerate() {
        let mut seen = [0u32; 3];
        for seed in 0..4 {
            let walk = dense_walk(15, rule, 100 * i as u64 + seed, 600);
            (0..3).for_each(|k| seen[k] += walk[k]);
        }
        // The walks must have exercised every counter, or they prove little (renju
        // black's double threes are never counted, white's are).
        assert!(
            seen.iter().all(|&n| n > 0),
            "{rule}: combinations seen {seen:?}"
        );
    }
    dense_walk(7, Rule::Renju, 77, 600);
}

/// A cell with no stone within two cells holds no open three and nothing stronger on any
/// line, for either colour under any rule: the evaluation's old scan skipped such cells,
/// the board's counters include them, and this is why the two agree.
#[test]
fn cells_without_near_stones_make_no_three_or_four() {
    let is_stone = |code: u32, offset: i32| {
        matches!(
            Cell::from_bits(code >> slot_shift(offset)),
            Cell::Black | Cell::White
        )
    };
    for rule in Rule::ALL {
        let table = pattern::table(rule);
        for code in 0..CODE_COUNT as u32 {
            if [-2, -1, 1, 2].iter().any(|&o| is_stone(code, o)) {
                continue;
            }
            for class in table.lookup(code) {
                assert!(
                    class < Pattern::OpenThree,
                    "{rule} code {code:#x}: {class:?}"
                );
            }
        }
    }
}

/// Cell values set with stones already on the board (a search sets them on the position
/// it is given) stay exact when those stones are taken back, and when stones are played
/// and taken back again on the way.
#[test]
fn cell_values_set_with_stones_on_the_board_stay_exact_through_undos() {
    for rule in Rule::ALL {
        let mut board = Board::from_moves(15, rule, "h8i9h9i10h10j8g7").unwrap();
        Evaluator::default().prepare(&mut board);
        let what = |step: &str| format!("{rule}, cell values set on 7 stones, {step}");
        board.verify_incremental_state().unwrap();
        while board.move_count() > 0 {
            board.undo();
            if board.move_count() == 4 {
                // Down to four stones, out to six and back.
                board.make(board.pos(Coord::new(0, 0)).unwrap());
                board.make(board.pos(Coord::new(14, 14)).unwrap());
                check_against_rebuilt(&board, 0, false, &what("at six again"));
                board.undo();
                board.undo();
            }
            if let Err(e) = board.verify_incremental_state() {
                panic!("{}: {e}\n{board}", what("taken back"));
            }
            check_against_rebuilt(&board, 0, false, &what("taken back"));
        }
    }
}
