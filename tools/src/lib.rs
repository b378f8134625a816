//! Wuzi's side tools: programs that drive the brain's library or its executable from
//! outside. The brain (`wuzi`, `pbrain-wuzi`) never depends on this crate.
//!
//! - `matchrunner`: plays two Piskvork-protocol brains against each other (`wuzi-match`).

pub mod matchrunner;
