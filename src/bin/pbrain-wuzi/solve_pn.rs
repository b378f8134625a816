//! `pbrain-wuzi solve --pn` and `solve --check`: the proof-number solver and the proof
//! checker on the command line. The verdict (`win MOVE`, `loss` or `unknown`) and one
//! line of statistics go to stdout; progress reports and notes to stderr.

use crate::solve::Request;
use std::io::Write;
use std::time::Instant;
use wuzi::board::Board;
use wuzi::solver::{check, format, prove_win, solve, Progress, SolveLimits, Verdict};
use wuzi::types::Color;

fn color_name(c: Color) -> &'static str {
    match c {
        Color::Black => "black",
        Color::White => "white",
    }
}

/// One progress line on stderr.
fn print_progress(p: &Progress) {
    let nodes = p.pn_nodes + p.threat_nodes;
    let secs = p.elapsed.as_secs_f64().max(1e-3);
    let number = |n: u32| {
        if n >= u32::MAX / 4 {
            "inf".to_string()
        } else {
            n.to_string()
        }
    };
    eprintln!(
        "pn {} to win: root pn {} dn {}, nodes {} (pn {}, threat {}), {:.0} nodes/s, table {:.1}%",
        color_name(p.attacker),
        number(p.root_pn),
        number(p.root_dn),
        nodes,
        p.pn_nodes,
        p.threat_nodes,
        nodes as f64 / secs,
        f64::from(p.table_permille) / 10.0,
    );
}

/// Runs the solver for `req` on `board`; returns the exit code (0 answered, 2 the proof
/// file could not be written).
pub fn run(req: &Request, board: &mut Board, out: &mut dyn Write) -> u8 {
    let limits = SolveLimits {
        nodes: req.nodes,
        time: Some(req.time),
        table_bytes: req
            .hash_mb
            .map_or(SolveLimits::default().table_bytes, |mb| mb << 20),
    };
    let start = Instant::now();
    let report = match req.attacker {
        Some(attacker) => prove_win(board, attacker, &limits, &mut print_progress),
        None => solve(board, &limits, &mut print_progress),
    };
    let verdict = match report.verdict {
        Verdict::Win(p) => format!("win {}", board.coord(p).to_pos_notation()),
        Verdict::Loss => "loss".to_string(),
        Verdict::Unknown => "unknown".to_string(),
    };
    let lines = report
        .proof
        .as_ref()
        .map_or(0, |p| p.roots.iter().map(format::Node::size).sum::<usize>());
    let _ = writeln!(out, "{verdict}");
    let _ = writeln!(
        out,
        "nodes {} pn {} threat {} time {:.3} ms proof {} lines",
        report.pn_nodes + report.threat_nodes,
        report.pn_nodes,
        report.threat_nodes,
        start.elapsed().as_secs_f64() * 1000.0,
        lines,
    );
    if let Some(note) = &report.note {
        eprintln!("note: {note}");
    }
    match (&req.proof, &report.proof) {
        (Some(path), Some(proof)) => write_proof(path, proof),
        (Some(path), None) => {
            eprintln!("note: no proof, {path} not written");
            0
        }
        _ => 0,
    }
}

fn write_proof(path: &str, proof: &format::ProofFile) -> u8 {
    let written = std::fs::File::create(path).and_then(|f| {
        let mut w = std::io::BufWriter::new(f);
        format::write(proof, &mut w)?;
        w.flush()
    });
    match written {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("error: cannot write {path}: {e}");
            2
        }
    }
}

/// Checks the proof file at `path`: prints `ok …` (exit 0) or `rejected: …` (exit 1);
/// an unreadable file is exit 2.
pub fn check_file(path: &str, out: &mut dyn Write) -> u8 {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            let _ = writeln!(out, "error: cannot read {path}: {e}");
            return 2;
        }
    };
    let proof = match format::parse(&text) {
        Ok(p) => p,
        Err(e) => {
            let _ = writeln!(out, "rejected: {e}");
            return 1;
        }
    };
    let start = Instant::now();
    match check::check(&proof) {
        Ok(r) => {
            let _ = writeln!(
                out,
                "ok: {} wins ({} rule): {} attacker moves, {} defender nodes, {} replies \
answered by a five, {} transpositions, {} plies at most, {:.3} ms",
                color_name(proof.attacker),
                proof.rule,
                r.attacker_moves,
                r.defender_nodes,
                r.implicit_replies,
                r.transpositions,
                r.max_plies,
                start.elapsed().as_secs_f64() * 1000.0
            );
            0
        }
        Err(e) => {
            let _ = writeln!(out, "rejected: {e}");
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::solve;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    /// Runs the solve command; its exit code and stdout.
    fn run(line: &str) -> (u8, String) {
        let mut out = Vec::new();
        let code = solve::run(&args(line), &mut out);
        (code, String::from_utf8_lossy(&out).into_owned())
    }

    /// A fresh file path in the system's temporary folder.
    fn temp_path(name: &str) -> std::path::PathBuf {
        std::env::temp_dir().join(format!("wuzi-pn-{}-{name}", std::process::id()))
    }

    #[test]
    fn a_four_is_a_win_whose_proof_file_checks() {
        let path = temp_path("four.txt");
        let p = path.display();
        let (code, text) = run(&format!("--pn --rule 0 --proof {p} h8h9i8i9j8j9k8k9"));
        assert_eq!(code, 0, "{text}");
        let first = text.lines().next().unwrap_or_default();
        assert!(first == "win g8" || first == "win l8", "{text}");
        assert!(text.lines().nth(1).is_some_and(|l| l.starts_with("nodes ")));
        let (code, text) = run(&format!("--check {p}"));
        assert_eq!(code, 0, "{text}");
        assert!(
            text.starts_with("ok: black wins (freestyle rule)"),
            "{text}"
        );
        // The attacker's move moved off the four: rejected.
        let proof = std::fs::read_to_string(&path).unwrap();
        let damaged = proof
            .replace("\ng8\n", "\na1\n")
            .replace("\nl8\n", "\na1\n");
        assert_ne!(damaged, proof);
        std::fs::write(&path, damaged).unwrap();
        let (code, text) = run(&format!("--check {p}"));
        assert_eq!(code, 1, "{text}");
        assert!(text.starts_with("rejected: line 7:"), "{text}");
        std::fs::write(&path, "not a proof").unwrap();
        let (code, text) = run(&format!("--check {p}"));
        assert_eq!(code, 1, "{text}");
        let _ = std::fs::remove_file(&path);
        let (code, text) = run(&format!("--check {p}"));
        assert_eq!(code, 2, "{text}");
        assert!(text.starts_with("error: cannot read"), "{text}");
    }

    #[test]
    fn no_proof_no_file() {
        let path = temp_path("none.txt");
        let p = path.display();
        let (code, text) = run(&format!("--pn --nodes 20000 --proof {p} h8"));
        assert_eq!(code, 0, "{text}");
        assert!(text.starts_with("unknown\n"), "{text}");
        assert!(!path.exists());
    }

    /// `--attacker` proves that side's win only: black's open three, white to move, is
    /// white's loss; white's own win is not looked for, and is not there.
    #[test]
    fn the_attacker_can_be_named() {
        let path = temp_path("attacker.txt");
        let p = path.display();
        let three = "f5a1g5a3h5";
        let (code, text) = run(&format!("--pn --attacker black --proof {p} d5a1e5a3f5a9g5"));
        assert_eq!(code, 0, "{text}");
        assert!(text.starts_with("loss\n"), "{text}");
        let (code, text) = run(&format!("--check {p}"));
        assert_eq!(code, 0, "{text}");
        assert!(text.starts_with("ok: black wins"), "{text}");
        let _ = std::fs::remove_file(&path);
        let (code, text) = run(&format!("--pn --attacker white --nodes 20000 {three}a9"));
        assert_eq!(code, 0, "{text}");
        assert!(text.starts_with("unknown\n"), "{text}");
        let (code, text) = run(&format!("--attacker black {three}"));
        assert_eq!(code, 2, "{text}");
        let (code, text) = run(&format!("--pn --attacker red {three}"));
        assert_eq!(code, 2, "{text}");
    }

    #[test]
    fn a_rectangular_board_is_solved() {
        let (code, text) = run("--pn --size 20x9 --rule 1 f5a1g5a3h5a9");
        assert_eq!(code, 0, "{text}");
        assert!(text.starts_with("win "), "{text}");
    }
}
