//! The `board` fuzz target: `tests/harness/board.rs` says what it feeds and checks.
#![no_main]

#[path = "../../tests/harness/mod.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::board::run(data));
