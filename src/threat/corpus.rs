//! Positions from random-but-sensible games, for tests and the bench: moves near the
//! stones, weighted by what they make for either side, from a seeded generator, so the
//! same seed always gives the same positions.

use crate::board::{Board, Pos};
use crate::pattern::Pattern;
use crate::types::{Color, Coord, Rule};

/// A tiny deterministic generator (splitmix64): stable across crate versions.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x2545_f491_4f6c_dd1d)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}

/// How attractive a move is for a sensible-looking game: what it makes for the mover
/// plus what it takes from the opponent.
fn weight(board: &Board, p: Pos, mover: Color) -> u64 {
    let value = |class: Pattern| -> u64 {
        match class {
            Pattern::Five => 400,
            Pattern::OpenFour | Pattern::DoubleFour => 120,
            Pattern::Four => 30,
            Pattern::OpenThree => 25,
            Pattern::Three => 8,
            Pattern::OpenTwo => 6,
            Pattern::Two => 3,
            Pattern::One => 1,
            _ => 0,
        }
    };
    let pats = board.cell_patterns(p);
    let own: u64 = pats[mover.index()].iter().map(|&c| value(c)).sum();
    let theirs: u64 = pats[mover.opponent().index()]
        .iter()
        .map(|&c| value(c))
        .sum();
    1 + own + theirs * 2 / 3
}

/// Whether an empty cell has a stone within Chebyshev distance 2.
fn near_stones(board: &Board, p: Pos) -> bool {
    let c = board.coord(p);
    (-2..=2).any(|dy| {
        (-2..=2).any(|dx| {
            board
                .pos(Coord::new(c.x + dx, c.y + dy))
                .is_some_and(|q| !board.is_empty(q))
        })
    })
}

/// Plays one game from the centre of a `width` × `height` board and returns the position
/// after `stop_at` moves (or earlier, just before a five would be made, or when no move
/// is left). Moves are drawn near the stones, weighted by [`weight`] (squared, so strong
/// moves dominate).
pub fn random_position(
    rule: Rule,
    (width, height): (usize, usize),
    stop_at: usize,
    rng: &mut Rng,
) -> Option<Board> {
    let mut board = Board::new(width, height, rule).ok()?;
    let centre = board.pos(Coord::new(width as i32 / 2, height as i32 / 2))?;
    board.make(centre);
    while board.move_count() < stop_at {
        let mover = board.side_to_move();
        let mut choices: Vec<(Pos, u64)> = Vec::new();
        let cells: Vec<Pos> = board.positions().collect();
        for p in cells {
            if !board.is_empty(p) || !near_stones(&board, p) {
                continue;
            }
            if !crate::threat::threats::is_legal(&mut board, p, mover) {
                continue;
            }
            let w = weight(&board, p, mover);
            choices.push((p, w * w));
        }
        let total: u64 = choices.iter().map(|c| c.1).sum();
        if total == 0 {
            break;
        }
        let mut pick = rng.below(total);
        let mut chosen = choices[0].0;
        for &(p, w) in &choices {
            if pick < w {
                chosen = p;
                break;
            }
            pick -= w;
        }
        if crate::rules::is_winning_move(&board, chosen, mover) {
            break; // keep positions where the game is still on
        }
        board.make(chosen);
    }
    Some(board)
}

/// `count` positions per rule (all four rules), 15×15, with lengths spread over the
/// opening and middle game, from `seed`.
pub fn generate(count_per_rule: usize, seed: u64) -> Vec<Board> {
    generate_shapes(count_per_rule, seed, &[(15, 15)])
}

/// [`generate`] over boards of the given shapes (width, height), taken in turn; a game
/// is at most as long as the board has cells for (the small boards fill up).
pub fn generate_shapes(count_per_rule: usize, seed: u64, shapes: &[(usize, usize)]) -> Vec<Board> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    for rule in Rule::ALL {
        for i in 0..count_per_rule {
            let shape = shapes[i % shapes.len()];
            let stop_at = 6 + rng.below(40) as usize;
            if let Some(b) = random_position(rule, shape, stop_at, &mut rng) {
                out.push(b);
            }
        }
    }
    out
}
