//! The brain executable: the Piskvork protocol on stdin/stdout, or a side tool when the
//! first argument names one (`bench`, `solve`).

use std::process::ExitCode;

fn main() -> ExitCode {
    // stdout belongs to the protocol and Piskvork merges stderr into it: a panic message
    // must never reach either. Panics go to the log (when one is configured).
    wuzi::logging::install_panic_hook();
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("bench") => {
            let code = wuzi::bench::run(&args[1..]);
            ExitCode::from(code)
        }
        Some("puzzles") => ExitCode::from(run_puzzles(&args[1..])),
        Some("help" | "--help" | "-h") => {
            println!(
                "usage: pbrain-wuzi            play the Piskvork/Gomocup protocol on stdin/stdout"
            );
            println!(
                "       pbrain-wuzi bench      fixed-depth benchmark (nodes, speed, signature)"
            );
            ExitCode::SUCCESS
        }
        _ => {
            let config = wuzi::config::Config::load();
            let log_dir = wuzi::logging::log_dir(None, wuzi::config::exe_dir().as_deref());
            if let Some(warning) = wuzi::logging::init(
                wuzi::logging::LogSettings::from_config(&config),
                log_dir.as_deref(),
            ) {
                // Reported with the configuration's own warnings at the first command.
                config.add_warning(warning);
            }
            let engine = wuzi::engine::Engine::with_config(config);
            wuzi::protocol::run(engine, std::io::stdin(), std::io::stdout());
            ExitCode::SUCCESS
        }
    }
}

/// `puzzles FILE [MS]`: plays every position of FILE through the engine and prints one
/// line per position and a summary. Exit code 0 when all are solved, 1 otherwise.
fn run_puzzles(args: &[String]) -> u8 {
    let Some(path) = args.first() else {
        println!("usage: pbrain-wuzi puzzles FILE [MS]");
        return 2;
    };
    let ms = match args.get(1).map(|a| a.parse::<u64>()) {
        None => 1000,
        Some(Ok(ms)) => ms,
        Some(Err(_)) => {
            println!("MS must be a number of milliseconds");
            return 2;
        }
    };
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            println!("cannot read {path}: {e}");
            return 2;
        }
    };
    let puzzles = match wuzi::puzzles::parse(&text) {
        Ok(p) => p,
        Err(e) => {
            println!("{path}: {e}");
            return 2;
        }
    };
    let mut solved = 0;
    for p in &puzzles {
        let a = wuzi::puzzles::attempt(p, ms);
        solved += a.solved as usize;
        let reply = a.reply.map_or("none".to_string(), |c| c.to_pos_notation());
        println!(
            "{:<20} {:<6} {} {:>5} ms  {}",
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
