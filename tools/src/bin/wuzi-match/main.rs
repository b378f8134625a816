//! `wuzi-match`: plays two Piskvork-protocol brains against each other, or merges the
//! shards of a match. See `--help`.

mod progress;

use progress::Progress;
use std::path::Path;
use std::process::ExitCode;
use wuzi_tools::matchrunner::html::report_html;
use wuzi_tools::matchrunner::merge::merge_dirs;
use wuzi_tools::matchrunner::options::{parse_args, Invocation};
use wuzi_tools::matchrunner::report::{final_table, progress_line};
use wuzi_tools::matchrunner::summary::Summary;
use wuzi_tools::matchrunner::tournament::{run_match, MatchConfig, MatchResult};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match parse_args(&args) {
        Ok(Invocation::Help(text)) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Ok(Invocation::Run { config, quiet }) => play(&config, quiet),
        Ok(Invocation::Merge { dirs, out, quiet }) => match merge_dirs(&dirs) {
            Ok((config, result)) => finish(&config, &result, &out, quiet),
            Err(e) => {
                eprintln!("wuzi-match merge: {e}");
                ExitCode::FAILURE
            }
        },
        Err(message) => {
            eprint!("{message}");
            ExitCode::from(2)
        }
    }
}

fn play(config: &MatchConfig, quiet: bool) -> ExitCode {
    for engine in &config.engines {
        // A bare name is looked up in PATH when started; a path must exist.
        let is_path = engine.path.components().count() > 1;
        if is_path && !engine.path.is_file() {
            eprintln!("wuzi-match: no such executable: {}", engine.path.display());
            return ExitCode::from(2);
        }
    }
    let progress = Progress::new(config, quiet);
    let played = run_match(config, &|game, state| {
        let line = (!quiet).then(|| progress_line(config, game, state));
        progress.game_done(config, state, line);
    });
    progress.finish();
    let result = match played {
        Ok(result) => result,
        Err(e) => {
            eprintln!("wuzi-match: {}", e);
            return ExitCode::FAILURE;
        }
    };
    match &config.out_dir {
        Some(dir) => finish(config, &result, dir, false),
        None => {
            print!("{}", final_table(config, &result));
            ExitCode::SUCCESS
        }
    }
}

/// Prints the final table (unless `quiet`) and writes summary.json and report.html into
/// `dir`.
fn finish(config: &MatchConfig, result: &MatchResult, dir: &Path, quiet: bool) -> ExitCode {
    if !quiet {
        print!("{}", final_table(config, result));
    }
    let files = [
        ("summary.json", Summary::new(config, result).to_json()),
        ("report.html", report_html(config, result)),
    ];
    for (name, text) in files {
        let path = dir.join(name);
        if let Err(e) = std::fs::create_dir_all(dir).and_then(|()| std::fs::write(&path, text)) {
            eprintln!("wuzi-match: cannot write {}: {}", path.display(), e);
            return ExitCode::FAILURE;
        }
    }
    if !quiet {
        let what = if result.merged_from.is_empty() {
            "Records, summary.json and report.html"
        } else {
            "Merged summary.json and report.html"
        };
        println!("{what} in {}", dir.display());
    }
    ExitCode::SUCCESS
}
