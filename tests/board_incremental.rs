//! Incremental board state (line codes, patterns, counts, hash) equals a recomputation
//! after long random make/undo runs, on every rule and on odd board shapes.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use wuzi::board::{Board, Pos};
use wuzi::types::Rule;

fn random_walk(width: usize, height: usize, rule: Rule, seed: u64, steps: usize) {
    let mut board = Board::new(width, height, rule).unwrap();
    let empty_hash = board.hash();
    let mut rng = StdRng::seed_from_u64(seed);
    for step in 0..steps {
        let empties: Vec<Pos> = board.positions().filter(|&p| board.is_empty(p)).collect();
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
        }
    }
    while board.move_count() > 0 {
        board.undo();
    }
    board.verify_incremental_state().unwrap();
    assert_eq!(board.hash(), empty_hash);
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
