//! The `session` fuzz target: `tests/harness/session.rs` says what it feeds and checks.
#![no_main]

#[path = "../../tests/harness/mod.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::session::run(data));
