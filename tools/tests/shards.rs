//! A match split into shards (`--shard K/N`) and merged (`wuzi-match merge`) gives the
//! same results as the match played whole: the same games, move for move, and so the
//! same totals, pairs, Elo and SPRT state.

mod common;

use common::*;
use std::path::Path;

/// Plays the fixed-node match (or a shard of it) into `dir`; returns the final table.
fn run_into(dir: &Path, extra: &[&str]) -> String {
    let mut args = fixed_node_match_args();
    args.extend(extra.iter().map(|s| s.to_string()));
    args.push("--out".into());
    args.push(dir.display().to_string());
    String::from_utf8_lossy(&wuzi_match(&args).stdout).into_owned()
}

/// The lines of a final table about results, not about time or where files went.
fn result_lines(table: &str) -> Vec<&str> {
    table
        .lines()
        .filter(|l| {
            !["Clock of", "Time per move of", "Time:", "Merged", "Records"]
                .iter()
                .any(|p| l.starts_with(p))
        })
        .collect()
}

#[test]
fn four_shards_merged_equal_the_match_played_whole() {
    let dir = scratch("shards");
    let whole = dir.join("whole");
    let whole_table = run_into(&whole, &[]);
    // Shards run at once (and two games at once within each), as on a cluster.
    let shards: Vec<_> = (1..=4).map(|k| dir.join(format!("shard-{k}"))).collect();
    std::thread::scope(|scope| {
        for (k, shard_dir) in shards.iter().enumerate() {
            let spec = format!("{}/4", k + 1);
            scope.spawn(move || run_into(shard_dir, &["--shard", &spec, "-j", "2"]));
        }
    });
    // Each shard holds the records of its own slice of pairs: games 4k+1 .. 4k+4.
    for (k, shard_dir) in shards.iter().enumerate() {
        let s = summary(shard_dir);
        assert_eq!(s["shard"], format!("{}/4", k + 1));
        let numbers: Vec<u64> = s["games"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["game"].as_u64().unwrap())
            .collect();
        let first = 4 * k as u64 + 1;
        assert_eq!(numbers, (first..first + 4).collect::<Vec<_>>());
        assert!(shard_dir.join(format!("game-{:04}.sgf", first)).is_file());
        assert!(!shard_dir.join("game-0017.sgf").exists());
    }
    let merged = dir.join("merged");
    let mut args = vec!["merge".to_string()];
    args.extend(shards.iter().map(|d| d.display().to_string()));
    args.extend(["--out".to_string(), merged.display().to_string()]);
    let output = wuzi_match(&args);
    let merged_table = String::from_utf8_lossy(&output.stdout);
    assert!(
        merged_table.contains("Merged 4 shards: 1/4 "),
        "{merged_table}"
    );
    assert_eq!(result_lines(&whole_table), result_lines(&merged_table));
    assert!(whole_table.contains("SPRT elo0=0 elo1=5"), "{whole_table}");
    for dir in [&whole, &merged] {
        let page = std::fs::read_to_string(dir.join("report.html")).unwrap();
        assert!(page.contains("<h2>Decisive games"), "{}", dir.display());
    }
    let (unsharded, merged) = (summary(&whole), summary(&merged));
    assert_eq!(merged["games_played"], 16);
    assert_eq!(merged["merged_from"].as_array().unwrap().len(), 4);
    assert_same_results(&unsharded, &merged);
}

#[test]
fn merge_refuses_what_is_not_one_match() {
    let dir = scratch("merge-refusals");
    let missing = wuzi_tools_merge(&[dir.join("nothing-here")]);
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("summary.json"));
}

fn wuzi_tools_merge(dirs: &[std::path::PathBuf]) -> std::process::Output {
    std::process::Command::new(WUZI_MATCH)
        .arg("merge")
        .args(dirs)
        .output()
        .unwrap()
}
