//! report.html in a real browser: headless Chromium loads the report of a real match,
//! runs its script, renders it to PNG, and the page shows the match's numbers without a
//! script error. Skipped, saying so, where no Chromium is installed (Debian: `chromium`;
//! another binary can be named in `$CHROMIUM`).

mod common;

use common::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

/// The browser: `$CHROMIUM`, else the first of the usual names found in PATH.
fn chromium() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("CHROMIUM") {
        return Some(PathBuf::from(path));
    }
    let path = std::env::var_os("PATH")?;
    [
        "chromium",
        "chromium-browser",
        "google-chrome",
        "google-chrome-stable",
    ]
    .iter()
    .flat_map(|name| std::env::split_paths(&path).map(move |dir| dir.join(name)))
    .find(|candidate| candidate.is_file())
}

/// Runs the browser headless on `page` with `extra` flags, in a profile of its own, and
/// kills it if it takes over a minute.
fn headless(browser: &Path, profile: &Path, page: &Path, extra: &[&str]) -> Output {
    let mut command = Command::new(browser);
    command
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(format!("file://{}", page.display()));
    run_with_timeout(&mut command, Duration::from_secs(60))
}

/// Width and height from a PNG's header.
fn png_size(bytes: &[u8]) -> Option<(u32, u32)> {
    if bytes.len() < 24 || &bytes[..8] != b"\x89PNG\r\n\x1a\n" || &bytes[12..16] != b"IHDR" {
        return None;
    }
    let number =
        |at: usize| u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    Some((number(16), number(20)))
}

#[test]
fn the_report_of_a_real_match_renders_in_chromium() {
    let Some(browser) = chromium() else {
        skip(
            "report_browser",
            "no Chromium found (apt-get install chromium, or set CHROMIUM)",
        );
        return;
    };
    let dir = scratch("report-browser");
    let out = dir.join("match");
    let mut args = fixed_node_match_args();
    args.extend(["--out".to_string(), out.display().to_string()]);
    wuzi_match(&args);
    let summary = summary(&out);
    let page = out.join("report.html");
    assert!(page.is_file());

    // The page as the browser built it, after its script ran.
    let dom = headless(&browser, &dir.join("profile-dom"), &page, &["--dump-dom"]);
    let (html, log) = (
        String::from_utf8_lossy(&dom.stdout),
        String::from_utf8_lossy(&dom.stderr),
    );
    assert!(dom.status.success(), "{log}");
    assert!(
        html.contains("data-script=\"ok\""),
        "the page's script did not run to its end:\n{log}"
    );
    let console_errors: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("CONSOLE") && (l.contains("Uncaught") || l.contains("Error")))
        .collect();
    assert!(
        console_errors.is_empty(),
        "script errors: {console_errors:?}"
    );

    // The numbers of summary.json appear where the page shows them.
    let tally = &summary["tally"];
    let tally = format!("{}-{}-{}", tally["wins"], tally["losses"], tally["draws"]);
    assert!(html.contains(&format!("id=\"tally\">{tally}<")), "{tally}");
    let signed = |v: &serde_json::Value| match v.as_f64() {
        Some(x) => format!("{:+.1}", x + 0.0),
        None => "inf".to_string(),
    };
    assert!(
        html.contains(&format!("id=\"elo\">{}", signed(&summary["elo"]))),
        "Elo {}",
        summary["elo"]
    );
    let pairs: Vec<String> = summary["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.to_string())
        .collect();
    assert!(html.contains(&format!("id=\"pentanomial\">{}<", pairs.join(" "))));
    let llr = summary["sprt"]["llr"].as_f64().unwrap();
    assert!(html.contains(&format!("id=\"llr\">{llr:.3}<")));
    for engine in summary["engines"].as_array().unwrap() {
        let row = format!(
            "<td>{}</td><td>{}</td><td>{}</td>",
            engine["total"]["wins"], engine["total"]["losses"], engine["total"]["draws"]
        );
        assert!(html.contains(&row), "{row}");
    }
    let decisive = summary["games"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| !g["winner"].is_null())
        .count();
    assert!(html.contains(&format!("Decisive games ({decisive})")));
    assert_eq!(
        html.matches("<svg class=\"board\"").count(),
        decisive.min(48)
    );

    // The rendered picture: a page of the window's width, not blank.
    let png = dir.join("report.png");
    let shot = headless(
        &browser,
        &dir.join("profile-shot"),
        &page,
        &[
            "--window-size=1200,2400",
            &format!("--screenshot={}", png.display()),
        ],
    );
    assert!(
        shot.status.success(),
        "{}",
        String::from_utf8_lossy(&shot.stderr)
    );
    let bytes = std::fs::read(&png).expect("the screenshot");
    assert_eq!(png_size(&bytes), Some((1200, 2400)));
    assert!(
        bytes.len() > 50_000,
        "a nearly empty picture: {} bytes",
        bytes.len()
    );
    println!("report rendered to {}", png.display());
}
