//! What the runner needs from the rules: judge a reply before it is played, play it, and
//! know when the board is full. The rules themselves live in `wuzi::rules`; this trait
//! only keeps the game loop independent of how they are reached.

use crate::types::{Coord, Rule};

/// The judgement of a move before the side to move plays it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    OffBoard,
    Occupied,
    /// A renju foul by black.
    Forbidden,
    /// The move completes a winning line under the rule in force.
    Win,
    Normal,
}

/// One game's position as the referee sees it.
pub trait Referee: Send {
    /// Judges `c` for the side to move, without playing it.
    fn judge(&self, c: Coord) -> Verdict;
    /// Plays `c` for the side to move; only called after a `Normal` or `Win` verdict.
    fn play(&mut self, c: Coord) -> Result<(), String>;
    /// Stones on the board.
    fn move_count(&self) -> usize;
    /// Points on the board.
    fn capacity(&self) -> usize;
}

/// Creates the referee for a new game on a `width` × `height` board.
pub type RefereeFactory = fn(usize, usize, Rule) -> Result<Box<dyn Referee>, String>;
