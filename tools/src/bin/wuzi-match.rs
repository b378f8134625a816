//! `wuzi-match`: plays two Piskvork-protocol brains against each other. See `--help`.

use std::process::ExitCode;
use wuzi_tools::matchrunner::options::{parse_args, Invocation};
use wuzi_tools::matchrunner::report::{final_table, progress_line};
use wuzi_tools::matchrunner::summary::Summary;
use wuzi_tools::matchrunner::tournament::run_match;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (config, quiet) = match parse_args(&args) {
        Ok(Invocation::Help(text)) => {
            print!("{text}");
            return ExitCode::SUCCESS;
        }
        Ok(Invocation::Run { config, quiet }) => (config, quiet),
        Err(message) => {
            eprint!("{message}");
            return ExitCode::from(2);
        }
    };
    for engine in &config.engines {
        // A bare name is looked up in PATH when started; a path must exist.
        let is_path = engine.path.components().count() > 1;
        if is_path && !engine.path.is_file() {
            eprintln!("wuzi-match: no such executable: {}", engine.path.display());
            return ExitCode::from(2);
        }
    }
    let result = match run_match(&config, &|game, state| {
        if !quiet {
            println!("{}", progress_line(&config, game, state));
        }
    }) {
        Ok(result) => result,
        Err(e) => {
            eprintln!("wuzi-match: {}", e);
            return ExitCode::FAILURE;
        }
    };
    print!("{}", final_table(&config, &result));
    if let Some(dir) = &config.out_dir {
        let path = dir.join("summary.json");
        match std::fs::write(&path, Summary::new(&config, &result).to_json()) {
            Ok(()) => println!("Records and summary in {}", dir.display()),
            Err(e) => {
                eprintln!("wuzi-match: cannot write {}: {}", path.display(), e);
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}
