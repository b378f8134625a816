//! The brain executable. Without arguments it plays the Piskvork protocol on
//! stdin/stdout, as every manager starts it; a first argument names another mode. `main`
//! only picks the mode: each lives in its own module, which parses its own arguments.

mod bench;
mod play;
mod solve;
mod solve_pn;

use std::process::ExitCode;

const USAGE: &str = "\
usage: pbrain-wuzi                      play the Piskvork/Gomocup protocol on stdin/stdout
       pbrain-wuzi bench [DEPTH]        fixed-depth benchmark (nodes, speed, signature)
       pbrain-wuzi solve [--rule R] [--size N] [--nodes N] [--time-ms N] [--win-only] MOVES
                                        threat-space search: win, defend, lost or none
       pbrain-wuzi solve --pn [--nodes N] [--time-ms N] [--hash-mb N] [--proof FILE]
                         [--attacker black|white] MOVES
                                        proof-number solver: win, loss or unknown
       pbrain-wuzi solve --check FILE   replay a proof file against the rules
       pbrain-wuzi --version            name and version
       pbrain-wuzi help                 this text
The side tools (match runner, book, openings, puzzles) are wuzi-match and wuzi-tools.";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = match args.first().map(String::as_str) {
        None => play::run(),
        Some("bench") => bench::run(&args[1..]),
        Some("solve") => solve::run(&args[1..], &mut std::io::stdout()),
        Some("help" | "--help" | "-h") => {
            println!("{USAGE}");
            0
        }
        Some("--version" | "-V") => {
            println!("pbrain-wuzi {}", env!("CARGO_PKG_VERSION"));
            0
        }
        // Not a manager (they start the brain without arguments): say so rather than
        // wait silently for protocol commands.
        Some(other) => {
            eprintln!("pbrain-wuzi: unknown argument '{other}'\n{USAGE}");
            2
        }
    };
    ExitCode::from(code)
}
