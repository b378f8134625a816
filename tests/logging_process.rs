//! The process-wide side of logging: the installed logger, moving it to the INFO folder,
//! and the panic hook. Runs the scenario in a child process (this same test binary) so
//! the global logger and hook do not leak into other tests, and so the child's stderr can
//! be checked: it must stay empty, as it is the protocol pipe under Piskvork.

use log::LevelFilter;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use wuzi::logging::{self, LogSettings};

const CHILD_DIR_ENV: &str = "WUZI_LOGGING_TEST_DIR";
const TEST_NAME: &str = "logger_and_panic_hook_write_to_the_file_and_never_to_stderr";

#[test]
fn logger_and_panic_hook_write_to_the_file_and_never_to_stderr() {
    if let Some(dir) = std::env::var_os(CHILD_DIR_ENV) {
        child(Path::new(&dir));
        return;
    }
    let dir = std::env::temp_dir().join(format!("wuzi-logging-process-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    let exe = std::env::current_exe().expect("the test binary knows its path");
    let output = Command::new(exe)
        .args([TEST_NAME, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD_DIR_ENV, &dir)
        .output()
        .expect("the test binary can run itself");

    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "child failed:\n{stdout}\n{stderr}");
    assert!(stderr.is_empty(), "stderr must stay clean, got: {stderr}");
    assert!(
        !stdout.contains("deliberate"),
        "the panic reached stdout: {stdout}"
    );

    let first = fs::read_to_string(dir.join("wuzi.log")).unwrap_or_default();
    assert!(first.contains("hello from the engine"), "{first}");
    assert!(
        first.contains("PANIC") && first.contains("deliberate failure"),
        "{first}"
    );
    let moved = fs::read_to_string(info_folder(&dir).join("wuzi").join("wuzi.log"));
    let moved = moved.unwrap_or_default();
    assert!(
        moved.contains("after INFO folder") && !moved.contains("hello"),
        "{moved}"
    );
    let _ = fs::remove_dir_all(dir);
}

fn info_folder(dir: &Path) -> PathBuf {
    dir.join("info")
}

/// The scenario, run inside the child process.
fn child(dir: &Path) {
    let settings = LogSettings {
        level: LevelFilter::Info,
        file_name: "wuzi.log".to_string(),
    };
    assert_eq!(logging::init(settings, Some(dir)), None);
    assert_eq!(logging::current_path(), Some(dir.join("wuzi.log")));
    logging::install_panic_hook();
    log::info!("hello from the engine");
    log::debug!("below the level");
    let joined = std::thread::spawn(|| panic!("deliberate failure")).join();
    assert!(joined.is_err());

    assert_eq!(logging::use_info_folder(&info_folder(dir)), None);
    log::info!("after INFO folder");
    log::logger().flush();
}
