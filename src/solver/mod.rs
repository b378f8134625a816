//! A proof-number solver over the threat-space search, after Allis's Victoria: the
//! threat search finds wins made of threats alone, and a proof-number search above it
//! handles the quiet moves and defences in between. Every win it claims comes with a
//! proof tree that an independent checker has replayed against the rules.
//!
//! Files, one concern each:
//! - `format`: the proof file, read and written;
//! - `check`: the independent checker of proof files.
//!
//! No code in play calls this module.

pub mod check;
pub mod format;
