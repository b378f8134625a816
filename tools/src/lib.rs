//! Wuzi's side tools: programs that drive the brain's library or its executable from
//! outside. The brain (`wuzi`, `pbrain-wuzi`) never depends on this crate.
//!
//! - `matchrunner`: plays two Piskvork-protocol brains against each other (`wuzi-match`);
//! - `openings`: balanced opening lists (generation and the "offset" file format);
//! - `book_builder`: builds the opening books the brain compiles in;
//! - `puzzles`: plays positions with known answers through the engine;
//! - `soak`: many short games of a brain against itself, disturbed as managers and users
//!   do, every answer judged (`wuzi-tools soak`).
//!
//! Their command lines are the `wuzi-tools` binary's subcommands.

pub mod book_builder;
pub mod matchrunner;
pub mod openings;
pub mod puzzles;
pub mod soak;
