//! Wuzi: a Gomoku engine for the Piskvork/Gomocup brain protocol.
//!
//! Layers, lowest first (dependencies point down only; see `docs/architecture.md`):
//! `types` → `pattern` → `board` → `rules` → `movegen`, `eval` → `threat` → `time`,
//! `tt` → `search`, `book` → `engine` → `protocol`; `solver` (the proof-number solver
//! behind `pbrain-wuzi solve --pn`) stands beside `search`, and nothing in play uses it.
//! The side tools (match runner, opening book builder, openings generator, puzzles
//! runner, training) are the `wuzi-tools` package in `tools/`, which uses this library;
//! the library never depends on them.

pub mod bench;
pub mod board;
pub mod book;
pub mod config;
pub mod engine;
pub mod eval;
pub mod logging;
pub mod movegen;
pub mod params;
pub mod pattern;
pub mod protocol;
pub mod rules;
pub mod search;
pub mod solver;
pub mod threat;
pub mod time;
pub mod tt;
pub mod types;
