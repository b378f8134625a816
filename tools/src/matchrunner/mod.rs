//! The match runner behind `wuzi-match`: plays two Piskvork-protocol brains against each
//! other the way the managers do and measures the difference.
//!
//! One concern per file: `engine` (a brain process), `clock` (time control), `opening`
//! (opening files and the schedule), `adjudicate` (what the game loop needs from the
//! rules), `game` (one game), `tournament` (the match, workers, restarts), `shard` (a
//! slice of a match) and `merge` (the slices put together), `elo` and `sprt` (statistics),
//! `record` (SGF and PSQ), `summary` (JSON), `report` (what is printed), `html` and `svg`
//! (report.html), `options` (the command line).

pub mod adjudicate;
pub mod clock;
pub mod elo;
pub mod engine;
pub mod game;
pub mod html;
pub mod merge;
pub mod opening;
pub mod options;
pub mod record;
pub mod report;
pub mod shard;
pub mod sprt;
pub mod summary;
pub mod svg;
pub mod tournament;
