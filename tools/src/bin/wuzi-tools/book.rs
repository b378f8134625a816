//! `wuzi-tools book …`: builds an opening book from the empty board and the given
//! opening lists (see `wuzi_tools::book_builder`) and writes it to the file `--out`
//! names: by default a new file in the working directory, never the book compiled into
//! the brain (`openings/book-*.txt`), which is replaced only when `--out` names it.
//! With `--prove NODES` the proof-number solver then runs on every position and marks
//! those it proves won (`win:MOVE`, see `wuzi::book`). Progress goes to stderr.

use crate::progress::Progress;
use wuzi::book::Book;
use wuzi::solver::SolveLimits;
use wuzi::types::Rule;
use wuzi_tools::book_builder::{build, mark_proven_wins, BuildOptions};
use wuzi_tools::openings::parse_list;

pub const USAGE: &str = "\
wuzi-tools book --rule R --size N [--depth D] [--positions P] [--width K] [--ply-cost C]
                 [--openings FILE]... [--prove NODES] [--out FILE]
                 build an opening book (drop-out expansion) into FILE (default
                 book-RULE-N.new.txt in the working directory; - for stdout);
                 --prove: mark the positions the proof-number solver proves won
                 within NODES nodes each";

/// What the command line asks for.
struct Args {
    build: BuildOptions,
    /// The opening list files whose openings are roots of the book.
    lists: Vec<String>,
    /// Where the book goes: a file, or stdout for `-`.
    out: String,
    /// The solver's node budget per position, when the proven wins are to be marked.
    prove: Option<u64>,
}

pub fn run(args: &[String]) -> u8 {
    let Args {
        build: mut opts,
        lists,
        out,
        prove,
    } = match parse(args) {
        Ok(parsed) => parsed,
        Err(e) => {
            eprintln!("{e}\nusage: {USAGE}");
            return 2;
        }
    };
    if let Err(e) = check_out(&out) {
        eprintln!("{e}");
        return 2;
    }
    for path in &lists {
        let parsed = std::fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|text| parse_list(&text, opts.size));
        match parsed {
            Ok(list) => opts.roots.extend(list),
            Err(e) => {
                eprintln!("{path}: {e}");
                return 2;
            }
        }
    }
    let mut progress = Progress::new("positions expanded", opts.positions as u64);
    let mut expanded = 0;
    let mut book = build(&opts, &mut |done, _| {
        expanded = done;
        progress.update(done as u64, "");
    });
    progress.finish(expanded as u64, "");
    let proven_line = prove.map(|nodes| mark_proven(&mut book, nodes));
    let lists_args: String = lists.iter().map(|l| format!(" --openings {l}")).collect();
    let prove_arg = prove.map_or(String::new(), |n| format!(" --prove {n}"));
    let mut header = vec![
        format!(
            "Opening book: rule {} ({}), {}x{}, {} positions.",
            opts.rule.info_value(),
            opts.rule,
            opts.size,
            opts.size,
            book.entries.len()
        ),
        format!(
            "Built by `wuzi-tools book --rule {} --size {} --depth {} --positions {} --width {} --ply-cost {}{lists_args}{prove_arg}`",
            opts.rule.info_value(), opts.size, opts.depth, opts.positions, opts.width, opts.ply_cost
        ),
        "Format (openings/README.md): BLACK WHITE MOVE VALUE DEPTH per position, canonical orientation.".to_string(),
    ];
    header.extend(proven_line);
    let text = book.to_text(&header);
    if out == "-" {
        print!("{text}");
        return 0;
    }
    match std::fs::write(&out, text) {
        Ok(()) => {
            eprintln!("wrote {} positions to {out}", book.entries.len());
            0
        }
        Err(e) => {
            eprintln!("cannot write {out}: {e}");
            1
        }
    }
}

/// Marks the book's positions the solver proves won within `nodes` nodes each, with
/// progress on stderr; returns the header line that says so.
fn mark_proven(book: &mut Book, nodes: u64) -> String {
    let limits = SolveLimits {
        nodes,
        ..SolveLimits::default()
    };
    let total = book.entries.len() as u64;
    let mut progress = Progress::new("positions solved", total);
    let marked = mark_proven_wins(book, &limits, &mut |done, _| {
        progress.update(done as u64, "");
    });
    progress.finish(total, "");
    format!(
        "Proven wins: {marked} positions marked win:MOVE (the solver's first move, its proof checked; {nodes} nodes a position)."
    )
}

/// Refuses, before the build, an output whose folder does not exist: the book is
/// written only once it is complete, which can take a long time.
fn check_out(out: &str) -> Result<(), String> {
    let folder = match std::path::Path::new(out).parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => return Ok(()),
    };
    if out != "-" && !folder.is_dir() {
        return Err(format!(
            "cannot write {out}: no folder {}",
            folder.display()
        ));
    }
    Ok(())
}

/// The file a book goes to when `--out` does not say: in the working directory, named
/// after the compiled-in book of the same rule and size but never equal to it.
fn default_out(rule: Rule, size: usize) -> String {
    format!("book-{}-{size}.new.txt", rule.name())
}

/// The build options of the command line (without the lists' openings), the opening
/// list files to read and the output; `--rule` is required.
fn parse(args: &[String]) -> Result<Args, String> {
    let mut opts = BuildOptions {
        rule: Rule::Freestyle,
        size: 15,
        depth: 6,
        positions: 300,
        width: 6,
        ply_cost: 30,
        roots: Vec::new(),
    };
    let mut rule_given = false;
    let mut lists = Vec::new();
    let mut out = None;
    let mut prove = None;
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let value = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let number = value.parse::<u32>();
        match (flag.as_str(), number) {
            ("--rule", _) => {
                opts.rule = Rule::parse(value).ok_or(format!("unknown rule {value}"))?;
                rule_given = true;
            }
            ("--openings", _) => lists.push(value.clone()),
            ("--out", _) => out = Some(value.clone()),
            ("--size", Ok(n)) if (5..=32).contains(&n) => opts.size = n as usize,
            ("--depth", Ok(n)) if (2..=12).contains(&n) => opts.depth = n as i32,
            ("--positions", Ok(n)) => opts.positions = n as usize,
            ("--width", Ok(n)) if n >= 1 => opts.width = n as usize,
            ("--ply-cost", Ok(n)) => opts.ply_cost = n as i32,
            ("--prove", _) => match value.parse::<u64>() {
                Ok(n) if n >= 1 => prove = Some(n),
                _ => return Err(format!("bad option {flag} {value}")),
            },
            _ => return Err(format!("bad option {flag} {value}")),
        }
    }
    if !rule_given {
        return Err("--rule is required".into());
    }
    let out = out.unwrap_or_else(|| default_out(opts.rule, opts.size));
    Ok(Args {
        build: opts,
        lists,
        out,
        prove,
    })
}
