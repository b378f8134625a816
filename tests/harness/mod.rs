//! One-input harnesses shared by the fuzz targets (`fuzz/`, run with cargo-fuzz) and
//! by `tests/fuzz_regressions.rs`, which replays the inputs they found; with the board
//! checks `tests/board_incremental.rs` uses too. Each harness takes arbitrary bytes and
//! panics on a finding. They use the `wuzi` library only, so that the fuzz crate can
//! include them by path.

#![allow(dead_code)] // each includer uses a part

pub mod board;
pub mod board_checks;
pub mod protocol;
pub mod session;
