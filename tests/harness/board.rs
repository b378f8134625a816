//! The board fuzz target: arbitrary bytes read as a board (rule, width, height) and a
//! sequence of operations on it (stones for the side to move or of a given colour,
//! undos, null moves, pauses of the search extras, clones, the evaluation's cell
//! values), each used only as the board's contract allows. After every operation the
//! incremental state must equal its recomputation ([`Board::verify_incremental_state`])
//! and a board built afresh from the same stones (`board_checks`), the combination
//! counters a scan of the board, and asking renju's forbidden points must leave the
//! board as it was. At the end every stone is taken back: the empty board's key again.

use super::board_checks::{check_against_rebuilt, check_combinations, check_near_cells};
use wuzi::board::{Board, Pos};
use wuzi::eval::Evaluator;
use wuzi::rules;
use wuzi::types::{Color, Rule};

/// One entry of the stack of what was played: undo takes back the top one.
#[derive(Clone, Copy, Debug)]
enum Played {
    Stone(Pos, Color),
    Null,
}

struct Walk {
    board: Board,
    played: Vec<Played>,
    /// Pauses of the search extras in force, and the stone count when the outer began.
    pauses: u32,
    paused_at: usize,
    empty_hash: u64,
    /// What the input did so far, for the failure message.
    log: String,
}

/// Runs one input; panics on a finding.
pub fn run(data: &[u8]) {
    let mut bytes = data.iter().copied();
    let (Some(rule), Some(width), Some(height)) = (bytes.next(), bytes.next(), bytes.next()) else {
        return;
    };
    let rule = Rule::ALL[rule as usize % Rule::ALL.len()];
    let (width, height) = (5 + width as usize % 28, 5 + height as usize % 28);
    let board = Board::new(width, height, rule).expect("sides 5 to 32 are valid");
    let mut walk = Walk {
        empty_hash: board.hash(),
        board,
        played: Vec::new(),
        pauses: 0,
        paused_at: 0,
        log: format!("{rule} {width}x{height}"),
    };
    while let Some(op) = bytes.next() {
        let arg = u16::from_le_bytes([bytes.next().unwrap_or(0), bytes.next().unwrap_or(0)]);
        if let Some(what) = walk.step(op, arg) {
            walk.log.push_str(", ");
            walk.log.push_str(&what);
            check(&mut walk.board, &walk.played, walk.pauses > 0, &walk.log);
        }
    }
    walk.unwind();
}

impl Walk {
    fn stones(&self) -> usize {
        self.board.move_count()
    }

    /// The first empty cell from cell `arg` on (row by row, wrapping round).
    fn empty_cell_from(&self, arg: u16) -> Option<Pos> {
        let cells: Vec<Pos> = self.board.positions().collect();
        let start = arg as usize % cells.len();
        (0..cells.len())
            .map(|k| cells[(start + k) % cells.len()])
            .find(|&p| self.board.is_empty(p))
    }

    /// Carries out operation `op` (argument `arg`) if the board's contract allows it
    /// now; returns what it did.
    fn step(&mut self, op: u8, arg: u16) -> Option<String> {
        match op % 16 {
            0..=7 => self.place(arg, None),
            8 => self.place(arg, Some(Color::Black)),
            9 => self.place(arg, Some(Color::White)),
            10 | 11 => self.undo(),
            12 => {
                self.board.make_null();
                self.played.push(Played::Null);
                Some("null move".to_string())
            }
            13 => {
                if self.pauses == 0 {
                    self.paused_at = self.stones();
                }
                self.pauses += 1;
                self.board.pause_search_extras();
                Some("pause".to_string())
            }
            // The outermost pause ends only when the stones placed under it are gone.
            14 if self.pauses > 1 || (self.pauses == 1 && self.stones() == self.paused_at) => {
                self.pauses -= 1;
                self.board.resume_search_extras();
                Some("resume".to_string())
            }
            // Cell values are set once per search, never under a pause.
            15 if self.pauses == 0 && arg & 1 == 0 => {
                Evaluator::default().prepare(&mut self.board);
                Some("cell values".to_string())
            }
            15 => {
                self.board = self.board.clone();
                Some("clone".to_string())
            }
            _ => None,
        }
    }

    fn place(&mut self, arg: u16, color: Option<Color>) -> Option<String> {
        let p = self.empty_cell_from(arg)?;
        let color = match color {
            Some(color) => {
                self.board.place(p, color);
                color
            }
            None => {
                let color = self.board.side_to_move();
                self.board.make(p);
                color
            }
        };
        self.played.push(Played::Stone(p, color));
        Some(format!("{color:?} {}", self.board.coord(p)))
    }

    /// Takes back the top of the stack, unless it is a stone placed before the pause.
    fn undo(&mut self) -> Option<String> {
        match *self.played.last()? {
            Played::Null => self.board.undo_null(),
            Played::Stone(..) if self.pauses > 0 && self.stones() == self.paused_at => return None,
            Played::Stone(..) => self.board.undo(),
        }
        self.played.pop();
        Some("undo".to_string())
    }

    /// Ends the pauses and takes everything back: the empty board again.
    fn unwind(&mut self) {
        while let Some(played) = self.played.pop() {
            match played {
                Played::Null => self.board.undo_null(),
                Played::Stone(..) => {
                    if self.pauses > 0 && self.stones() == self.paused_at {
                        while self.pauses > 0 {
                            self.pauses -= 1;
                            self.board.resume_search_extras();
                        }
                    }
                    self.board.undo();
                }
            }
        }
        while self.pauses > 0 {
            self.pauses -= 1;
            self.board.resume_search_extras();
        }
        let what = format!("{}, all taken back", self.log);
        if let Err(e) = self.board.verify_incremental_state() {
            panic!("{what}: {e}\n{}", self.board);
        }
        assert_eq!(self.board.hash(), self.empty_hash, "{what}: key");
        check_against_rebuilt(&self.board, 0, false, &what);
    }
}

/// The checks after each operation: `played` is what the walk placed and passed.
fn check(board: &mut Board, played: &[Played], paused: bool, what: &str) {
    if let Err(e) = board.verify_incremental_state() {
        panic!("{what}: {e}\n{board}");
    }
    let mut stones = Vec::new();
    let mut counts = [0usize; 2];
    let mut passes = 0u32;
    for entry in played {
        match *entry {
            Played::Stone(p, color) => {
                let c = board.coord(p);
                assert_eq!(board.stone_at(c), Some(color), "{what}: the stone at {c}");
                stones.push(p);
                counts[color.index()] += 1;
            }
            Played::Null => passes += 1,
        }
    }
    assert_eq!(board.history(), stones, "{what}: the history");
    // Black moves on equal counts (after a BOARD setup too); each pass hands over.
    let by_counts = if counts[0] > counts[1] {
        Color::White
    } else {
        Color::Black
    };
    let to_move = if passes % 2 == 1 {
        by_counts.opponent()
    } else {
        by_counts
    };
    assert_eq!(board.side_to_move(), to_move, "{what}: the side to move");
    check_against_rebuilt(board, passes, paused, what);
    if !paused {
        check_near_cells(board, what);
        check_combinations(board, what);
    }
    if board.rule() == Rule::Renju {
        // The queries use the board as scratch space and must leave it as it was.
        let hash = board.hash();
        let cells: Vec<Pos> = board.positions().collect();
        for p in cells {
            if board.is_empty(p) {
                rules::is_forbidden(board, p);
            }
        }
        assert_eq!(
            board.hash(),
            hash,
            "{what}: the key after forbidden-point queries"
        );
        if let Err(e) = board.verify_incremental_state() {
            panic!("{what}: after forbidden-point queries: {e}\n{board}");
        }
    }
}
