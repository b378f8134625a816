//! `wuzi-tools`: the side tools' command line. `main` only picks the subcommand; each
//! lives in its own module, parses its own arguments and prints its own output.

mod book;
mod openings;
mod progress;
mod puzzles;
mod soak;

use std::process::ExitCode;

fn usage() -> String {
    format!(
        "usage: {}\n       {}\n       {}\n       {}\n       wuzi-tools --version",
        puzzles::USAGE,
        openings::USAGE,
        book::USAGE,
        soak::USAGE
    )
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = match args.first().map(String::as_str) {
        Some("puzzles") => puzzles::run(&args[1..]),
        Some("openings") => openings::run(&args[1..]),
        Some("book") => book::run(&args[1..]),
        Some("soak") => soak::run(&args[1..]),
        Some("help" | "--help" | "-h") => {
            println!("{}", usage());
            0
        }
        Some("--version" | "-V") => {
            println!("wuzi-tools {}", env!("CARGO_PKG_VERSION"));
            0
        }
        Some(other) => {
            eprintln!("wuzi-tools: unknown command '{other}'\n{}", usage());
            2
        }
        None => {
            eprintln!("{}", usage());
            2
        }
    };
    ExitCode::from(code)
}
