//! `wuzi-tools puzzles FILE [MS] [--symmetries]`: plays every position of FILE through
//! the engine (in each of the board's eight orientations with `--symmetries`) and prints
//! one line per position and a summary. Exit code 0 when all are solved, 1 otherwise,
//! 2 on bad arguments.

use std::time::Instant;
use wuzi::search::SearchEvent;
use wuzi_tools::puzzles::{attempt, parse};

pub const USAGE: &str = "\
wuzi-tools puzzles FILE [MS] [--symmetries]
                 play each test position at MS per move (default 1000), with --symmetries
                 in all eight orientations of the board; with WUZI_PUZZLE_TRACE set, each
                 search's iterations (depth, value, nodes, line), new best moves and notes
                 go to stderr";

pub fn run(args: &[String]) -> u8 {
    let symmetries = args.iter().any(|a| a == "--symmetries");
    let args: Vec<&String> = args.iter().filter(|a| *a != "--symmetries").collect();
    let Some(path) = args.first() else {
        eprintln!("usage: {USAGE}");
        return 2;
    };
    let ms = match args.get(1).map(|a| a.parse::<u64>()) {
        None => 1000,
        Some(Ok(ms)) => ms,
        Some(Err(_)) => {
            eprintln!("MS must be a number of milliseconds");
            return 2;
        }
    };
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("cannot read {path}: {e}");
            return 2;
        }
    };
    let puzzles = match parse(&text) {
        Ok(p) if symmetries => p
            .iter()
            .flat_map(|p| (0..8).map(|sym| p.transformed(sym)))
            .collect::<Vec<_>>(),
        Ok(p) => p,
        Err(e) => {
            eprintln!("{path}: {e}");
            return 2;
        }
    };
    let trace = std::env::var_os("WUZI_PUZZLE_TRACE").is_some();
    let mut solved = 0;
    for p in &puzzles {
        let started = Instant::now();
        let a = attempt(p, ms, &mut |event| {
            if trace {
                show_event(started, event);
            }
        });
        solved += a.solved as usize;
        let reply = a.reply.map_or("none".to_string(), |c| c.to_pos_notation());
        println!(
            "{:<23} {:<6} {} {:>5} ms  {}",
            p.id,
            format!("{:?}", p.kind),
            if a.solved { "ok  " } else { "FAIL" },
            a.elapsed.as_millis(),
            reply
        );
    }
    println!("solved {solved}/{} at {ms} ms per move", puzzles.len());
    u8::from(solved != puzzles.len())
}

/// One line on stderr for an iteration or a note of the search (the puzzle trace).
fn show_event(started: Instant, event: &SearchEvent) {
    let ms = started.elapsed().as_millis();
    match event {
        SearchEvent::Iteration(r) => {
            let pv: String = r.pv.iter().map(|c| c.to_pos_notation()).collect();
            eprintln!(
                "  {ms:>5} ms depth {} value {} nodes {} best {} pv {pv}",
                r.depth, r.value, r.nodes, r.best
            )
        }
        SearchEvent::Note(n) => eprintln!("  {ms:>5} ms {n}"),
        SearchEvent::NewBest(c) => eprintln!("  {ms:>5} ms new best {c}"),
        _ => {}
    }
}
