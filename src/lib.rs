//! Wuzi: a Gomoku engine for the Piskvork/Gomocup brain protocol.
//!
//! Layers, lowest first (dependencies point down only; see ARCHITECTURE.md):
//! `types` → `pattern` → `board` → `rules` → `eval` → `threat` → `search` → `time` →
//! `engine` → `protocol`. Side tools (match runner, bench, solver) use the library; the
//! library never depends on them.

pub mod board;
pub mod pattern;
pub mod rules;
pub mod threat;
pub mod types;
