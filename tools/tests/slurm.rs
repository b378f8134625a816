//! scripts/slurm-match.sh on a real Slurm cluster: scripts/slurm-local.sh starts a
//! single-node cluster on this machine, the small fixed-node match runs as a 4-task job
//! array and a dependent merge job, and the merged results equal the same match played
//! whole. Skipped, saying so, where the cluster cannot be started (Slurm or munge not
//! installed, or not root); `scripts/slurm-local.sh install` installs them on Debian.

mod common;

use common::*;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

/// Stops the local cluster when the test ends, whether it passed or not.
struct Cluster {
    dir: PathBuf,
}

impl Cluster {
    fn script(&self, action: &str) -> Command {
        let mut command = Command::new(workspace().join("scripts/slurm-local.sh"));
        command
            .arg(action)
            .env("WUZI_SLURM_DIR", &self.dir)
            // Not the port of a cluster started by hand from the script's defaults.
            .env("WUZI_SLURM_PORT", "16837");
        command
    }

    fn conf(&self) -> PathBuf {
        self.dir.join("slurm.conf")
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = run_with_timeout(&mut self.script("stop"), Duration::from_secs(60));
    }
}

#[test]
fn a_four_shard_match_through_slurm_equals_the_match_played_whole() {
    let dir = scratch("slurm");
    // Outside the scratch folder, so that `start` finds the pid files of a cluster an
    // interrupted run left behind and stops it first.
    let cluster = Cluster {
        dir: std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("slurm-cluster"),
    };
    let started = run_with_timeout(&mut cluster.script("start"), Duration::from_secs(60));
    if !started.status.success() {
        skip(
            "slurm",
            &format!(
                "no local Slurm cluster: {}{}",
                String::from_utf8_lossy(&started.stdout).trim(),
                String::from_utf8_lossy(&started.stderr).trim()
            ),
        );
        return;
    }

    let whole = dir.join("whole");
    let mut args = fixed_node_match_args();
    args.extend(["--out".to_string(), whole.display().to_string()]);
    wuzi_match(&args);

    let results = dir.join("results");
    let [first, second] = fixed_node_engines();
    let mut command = Command::new(workspace().join("scripts/slurm-match.sh"));
    command
        .args(["-e", &first, "-e", &second])
        .arg("-o")
        .arg(fixed_node_openings())
        .args(["-g", &FIXED_NODE_GAMES.to_string(), "-n", "4", "-w"])
        .arg("-m")
        .arg(WUZI_MATCH)
        .arg("-d")
        .arg(&results)
        .arg("--")
        .args(fixed_node_options())
        .env("SLURM_CONF", cluster.conf())
        .env("WUZI_CONFIG", data("fixed-node.conf"));
    let run = run_with_timeout(&mut command, Duration::from_secs(180));
    let (out, err) = (
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr),
    );
    assert!(run.status.success(), "{out}\n{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].starts_with("shards: job ") && lines[0].contains(", array 1-4 "),
        "{out}"
    );
    assert!(lines[1].starts_with("merge:  job "), "{out}");
    let report = results.join("merged/report.html");
    assert_eq!(
        lines[2],
        format!(
            "merged report: {} (summary.json beside it)",
            report.display()
        )
    );
    assert!(out.contains(": COMPLETED\n"), "{out}");
    assert!(out.contains("Merged 4 shards: 1/4 "), "{out}");
    assert!(report.is_file());
    for k in 1..=4 {
        let shard = summary(&results.join(format!("shard-{k}")));
        assert_eq!(shard["shard"], format!("{k}/4"));
    }
    assert_same_results(&summary(&whole), &summary(&results.join("merged")));
}
