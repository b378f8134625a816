//! Checks of a board's incremental state against what a scan or a fresh board finds,
//! beyond [`Board::verify_incremental_state`]: the random walks of
//! `tests/board_incremental.rs` and the board fuzz target (`harness::board`) run them.

use wuzi::board::{Board, Pos};
use wuzi::movegen::{threat_of, Threat};
use wuzi::pattern::Pattern;
use wuzi::rules;
use wuzi::types::{Color, Rule};

/// The combination cells as the evaluation first found them, by scanning the board:
/// `[four-three, double three, winning four]` per colour. Written independently of the
/// board's counters (the scan the evaluation used, and `threat_of` for winning fours).
pub fn scanned_combinations(board: &Board) -> [[u32; 3]; 2] {
    let mut out = [[0u32; 3]; 2];
    const CODE: [u16; Pattern::COUNT] = [0, 0, 0, 0, 0, 0, 1, 1 << 4, 1 << 8, 1 << 8, 1 << 8];
    let renju = board.rule() == Rule::Renju;
    for p in board.positions() {
        if !board.is_empty(p) {
            continue;
        }
        for color in Color::BOTH {
            let c = color.index();
            if threat_of(board, p, color) == Threat::WinningFour {
                out[c][2] += 1;
            }
            // The evaluation skipped cells without a stone within two cells.
            if board.stones_nearby(p) == 0 {
                continue;
            }
            let s: u16 = board.cell_patterns(p)[c]
                .iter()
                .map(|&class| CODE[class as usize])
                .sum();
            if s >> 8 != 0 {
                continue;
            }
            let (fours, threes) = ((s >> 4) & 15, s & 15);
            if fours >= 1 && fours + threes >= 2 {
                out[c][0] += 1;
            } else if fours == 0 && threes >= 2 && !(renju && color == Color::Black) {
                out[c][1] += 1;
            }
        }
    }
    out
}

/// The board's combination counters equal [`scanned_combinations`].
pub fn check_combinations(board: &Board, what: &str) {
    let counted = Color::BOTH.map(|c| {
        [
            board.four_three_cells(c),
            board.double_three_cells(c),
            board.winning_four_cells(c),
        ]
    });
    assert_eq!(counted, scanned_combinations(board), "{what}\n{board}");
}

/// The board's scan for candidate cells lists, row by row, exactly the empty cells with
/// a stone within two cells in both directions, found here from the stones' coordinates.
pub fn check_near_cells(board: &Board, what: &str) {
    let stones: Vec<_> = board
        .positions()
        .filter(|&p| !board.is_empty(p))
        .map(|p| board.coord(p))
        .collect();
    let expected: Vec<Pos> = board
        .positions()
        .filter(|&p| {
            let c = board.coord(p);
            board.is_empty(p)
                && stones
                    .iter()
                    .any(|s| (s.x - c.x).abs() <= 2 && (s.y - c.y).abs() <= 2)
        })
        .collect();
    let mut scanned = Vec::new();
    board.for_cells_near_stones(|p| scanned.push(p));
    assert_eq!(scanned, expected, "{what}\n{board}");
}

/// `board` built afresh: an empty board of its shape and rule, its stones placed in the
/// order and colours of its history, then `passes` null moves, summing the same cell
/// values. A board reached through undos, pauses and clones must answer every query as
/// this one does.
pub fn rebuilt(board: &Board, passes: u32) -> Board {
    let mut fresh = Board::new(board.width(), board.height(), board.rule())
        .expect("a board's own shape is valid");
    for &p in board.history() {
        let color = match board.stone_at(board.coord(p)) {
            Some(color) => color,
            None => panic!("history cell {} is empty\n{board}", board.coord(p)),
        };
        fresh.place(p, color);
    }
    for _ in 0..passes {
        fresh.make_null();
    }
    fresh.set_cell_values(board.cell_values());
    fresh
}

/// Every query of `board` answers as on [`rebuilt`]: key, side to move, history, the
/// line codes and classes of each empty cell, the class counts and renju black's
/// forbidden points; when the search extras are not `paused`, also the combination
/// counts, the nearby stones, the candidate cells and the cell value sums.
pub fn check_against_rebuilt(board: &Board, passes: u32, paused: bool, what: &str) {
    let fresh = rebuilt(board, passes);
    let fail =
        |field: &str| -> ! { panic!("{what}: {field} differs from a board built afresh\n{board}") };
    if board.hash() != fresh.hash() {
        fail("the key");
    }
    if board.side_to_move() != fresh.side_to_move() {
        fail("the side to move");
    }
    if board.history() != fresh.history() {
        fail("the history");
    }
    for p in board.positions() {
        if board.cell(p) != fresh.cell(p) {
            fail(&format!("the cell {}", board.coord(p)));
        }
        if !board.is_empty(p) {
            continue;
        }
        if board.cell_patterns(p) != fresh.cell_patterns(p) {
            fail(&format!("the classes of {}", board.coord(p)));
        }
        if (0..4).any(|dir| board.line_code(p, dir) != fresh.line_code(p, dir)) {
            fail(&format!("a line code of {}", board.coord(p)));
        }
        if !paused && board.stones_nearby(p) != fresh.stones_nearby(p) {
            fail(&format!("the stones near {}", board.coord(p)));
        }
    }
    let least = if paused { Pattern::Three as usize } else { 0 };
    for color in Color::BOTH {
        for class in (least..Pattern::COUNT).map(|i| Pattern::from_u8(i as u8)) {
            if board.pattern_count(color, class) != fresh.pattern_count(color, class) {
                fail(&format!("the count of {color:?} {class:?}"));
            }
        }
    }
    if rules::forbidden_points(board) != rules::forbidden_points(&fresh) {
        fail("the forbidden points");
    }
    if paused {
        return;
    }
    for color in Color::BOTH {
        let counts = |b: &Board| {
            [
                b.four_three_cells(color),
                b.double_three_cells(color),
                b.winning_four_cells(color),
                b.big_four_cells(color),
            ]
        };
        if counts(board) != counts(&fresh) {
            fail(&format!("the combination counts of {color:?}"));
        }
        for to_move in [false, true] {
            if board.cell_value_sum(color, to_move) != fresh.cell_value_sum(color, to_move) {
                fail(&format!("the cell value sum of {color:?}"));
            }
        }
    }
    let near = |b: &Board| {
        let mut cells = Vec::new();
        b.for_cells_near_stones(|p| cells.push(p));
        cells
    };
    if near(board) != near(&fresh) {
        fail("the candidate cells");
    }
}
