//! The brain executable's modes other than the protocol: the version, the usage, and
//! arguments it does not know (which must not start the protocol silently).

use std::process::{Command, Output, Stdio};

fn pbrain_wuzi(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pbrain-wuzi"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("cannot start pbrain-wuzi")
}

#[test]
fn version_names_the_brain_and_its_version() {
    let out = pbrain_wuzi(&["--version"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("pbrain-wuzi {}\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn help_lists_every_mode() {
    let out = pbrain_wuzi(&["help"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    for mode in ["bench", "solve", "--version"] {
        assert!(text.contains(&format!("pbrain-wuzi {mode}")), "{text}");
    }
}

#[test]
fn unknown_arguments_are_refused_with_the_usage_on_stderr() {
    for args in [
        &["bogus"][..],
        &["--rule", "0"],
        &["bench", "99"],
        &["bench", "5", "6"],
    ] {
        let out = pbrain_wuzi(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("usage: pbrain-wuzi"),
            "{args:?}"
        );
    }
}

#[test]
fn solve_answers_on_stdout() {
    let out = pbrain_wuzi(&["solve", "--rule", "0", "h8h9i8i9j8j9k8k9"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    let first = text.lines().next().unwrap_or_default();
    assert!(first == "win g8" || first == "win l8", "{text}");
}

#[test]
fn solve_pn_reports_progress_on_stderr_and_the_verdict_on_stdout() {
    let out = pbrain_wuzi(&["solve", "--pn", "--rule", "4", "h8h9i8i9j8j9k8k9"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("win "), "{text}");
    let progress = String::from_utf8_lossy(&out.stderr);
    assert!(
        progress.contains("root pn 0 dn inf") && progress.contains("nodes/s"),
        "{progress}"
    );
}
