//! The fuzz targets' checks (`tests/harness/`, run by `fuzz/`: docs/testing.md) on the
//! inputs they failed on, kept once fixed in `tests/data/fuzz-regressions/<target>/`
//! (one file per input, as libFuzzer wrote it, minimised), and on the hand-written
//! sessions the fuzzing starts from (`fuzz/seeds/session/`).

mod harness;

use std::path::{Path, PathBuf};

/// The files of `dir` (relative to the repository), sorted.
fn inputs(dir: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("a readable directory entry").path())
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    files
}

/// Runs `check` on every file of `dir`; returns how many there were.
fn replay(dir: &str, check: fn(&[u8])) -> usize {
    let files = inputs(dir);
    for path in &files {
        let data = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        eprintln!("replaying {}", path.display());
        check(&data);
    }
    files.len()
}

/// The seeds are sessions a manager could send, under several rules and board shapes:
/// the brain answers each command as the protocol promises, with legal moves, lists
/// renju's forbidden points, and refuses what it must (a `TAKEBACK` of a stone that is
/// not the last, a command inside a block, `DONE` alone, unknown commands).
#[test]
fn the_seed_sessions_pass_the_referee() {
    let seeds = "fuzz/seeds/session";
    assert!(replay(seeds, harness::session::run) >= 5);
    replay(seeds, harness::protocol::run);
}

#[test]
fn the_board_findings_stay_fixed() {
    assert!(replay("tests/data/fuzz-regressions/board", harness::board::run) > 0);
}
