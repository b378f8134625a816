//! The brain executable: the Piskvork protocol on stdin/stdout, or a side tool when the
//! first argument names one (`bench`, `solve`).

use std::process::ExitCode;

const USAGE: &str = "\
usage: pbrain-wuzi                      play the Piskvork/Gomocup protocol on stdin/stdout
       pbrain-wuzi bench [DEPTH]        fixed-depth benchmark (nodes, speed, signature)
       pbrain-wuzi puzzles FILE [MS] [--symmetries]
                                        play each test position at MS per move (default 1000),
                                        with --symmetries in all eight orientations of the board;
                                        with WUZI_PUZZLE_TRACE set, each search's iterations
                                        (depth, value, nodes, line), new best moves and notes
                                        go to stderr
       pbrain-wuzi solve --rule R --size N POS
                                        threat-space search: win, defend, lost or none
       pbrain-wuzi openings --rule R --size N [--count K] [--seed S] [--depth D] [--window W]
                       [--reference-size M]     write a balanced opening list (offset format)
       pbrain-wuzi book --rule R --size N [--depth D] [--positions P] [--width K]
                       [--ply-cost C] [--openings FILE]...
                                        build an opening book (drop-out expansion)";

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
        Some("solve") => {
            let code = wuzi::threat::solve_cli(&args[1..], &mut std::io::stdout());
            ExitCode::from(code.clamp(0, 255) as u8)
        }
        Some("openings") => ExitCode::from(run_openings(&args[1..])),
        Some("book") => ExitCode::from(run_book(&args[1..])),
        Some("help" | "--help" | "-h") => {
            println!("{USAGE}");
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

/// `puzzles FILE [MS] [--symmetries]`: plays every position of FILE through the engine
/// (in each of the board's eight orientations with `--symmetries`) and prints one line
/// per position and a summary. Exit code 0 when all are solved, 1 otherwise.
fn run_puzzles(args: &[String]) -> u8 {
    let symmetries = args.iter().any(|a| a == "--symmetries");
    let args: Vec<&String> = args.iter().filter(|a| *a != "--symmetries").collect();
    let Some(path) = args.first() else {
        println!("usage: pbrain-wuzi puzzles FILE [MS] [--symmetries]");
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
        Ok(p) if symmetries => p
            .iter()
            .flat_map(|p| (0..8).map(|sym| p.transformed(sym)))
            .collect::<Vec<_>>(),
        Ok(p) => p,
        Err(e) => {
            println!("{path}: {e}");
            return 2;
        }
    };
    // WUZI_PUZZLE_TRACE set: each position's iterations, new best moves and notes go to
    // stderr (see `show_event`).
    let trace = std::env::var_os("WUZI_PUZZLE_TRACE").is_some();
    let mut solved = 0;
    for p in &puzzles {
        let started = std::time::Instant::now();
        let a = wuzi::puzzles::attempt(p, ms, &mut |event| {
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

/// `openings …`: generates a balanced opening list (see `wuzi::openings`).
fn run_openings(args: &[String]) -> u8 {
    use wuzi::openings::{generate, to_offset_line, GenerateOptions};
    let usage = "usage: pbrain-wuzi openings --rule R --size N [--count K] [--seed S] [--depth D] [--window W] [--reference-size M]";
    let mut rule = None;
    let mut size = 15usize;
    let mut rest: Vec<(String, i64)> = Vec::new();
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let Some(value) = it.next() else {
            println!("{usage}");
            return 2;
        };
        match flag.as_str() {
            "--rule" => rule = wuzi::types::Rule::parse(value),
            "--size" => match value.parse() {
                Ok(n) => size = n,
                Err(_) => rule = None,
            },
            "--count" | "--seed" | "--depth" | "--window" | "--reference-size" => {
                match value.parse::<i64>() {
                    Ok(v) if v >= 0 => rest.push((flag.clone(), v)),
                    _ => {
                        println!("{flag} needs a non-negative number\n{usage}");
                        return 2;
                    }
                }
            }
            _ => {
                println!("unknown option {flag}\n{usage}");
                return 2;
            }
        }
    }
    let Some(rule) = rule.filter(|_| (5..=32).contains(&size)) else {
        println!("{usage}");
        return 2;
    };
    let mut opts = GenerateOptions::new(rule, size);
    for (flag, v) in rest {
        match flag.as_str() {
            "--count" => opts.count = v as usize,
            "--seed" => opts.seed = v as u64,
            "--depth" => opts.depth = v.clamp(1, 20) as i32,
            "--reference-size" => opts.reference_size = v.clamp(5, 32) as usize,
            _ => opts.window = v as i32,
        }
    }
    let list = generate(&opts);
    println!("# Balanced openings: rule {} ({}), {}x{}, offset format (dx,dy from the centre, black first).", rule.info_value(), rule, size, size);
    let reference = if opts.reference_size == size {
        String::new()
    } else {
        format!(" --reference-size {}", opts.reference_size)
    };
    println!(
        "# Generated by `pbrain-wuzi openings --rule {} --size {} --count {} --seed {} --depth {} --window {}{reference}`:",
        rule.info_value(), size, opts.count, opts.seed, opts.depth, opts.window
    );
    println!("# random compact openings of {}-{} stones, kept when the engine's depth-{} search values the", opts.min_stones, opts.max_stones, opts.depth);
    println!(
        "# side to move within +-{} and no side has a proven result; symmetric duplicates removed.",
        opts.window
    );
    if !reference.is_empty() {
        let offset = wuzi::openings::size_offset(rule, size, opts.reference_size, opts.depth);
        println!(
            "# Values are measured as on a {0}x{0} board: the search value minus {offset}, the difference",
            opts.reference_size
        );
        println!("# of the empty boards' static values (the evaluation's tempo on empty space).");
    }
    for o in &list {
        println!("{}", to_offset_line(&o.stones, size));
    }
    if list.len() < opts.count {
        println!("# only {} of {} openings found", list.len(), opts.count);
    }
    0
}

/// `book …`: builds an opening book from the empty board and the given opening lists
/// (see `wuzi::book::build`) and writes it to stdout; progress goes to stderr.
fn run_book(args: &[String]) -> u8 {
    use wuzi::book::{build, BuildOptions};
    let usage = "usage: pbrain-wuzi book --rule R --size N [--depth D] [--positions P] [--width K] [--ply-cost C] [--openings FILE]...";
    let mut opts = BuildOptions {
        rule: wuzi::types::Rule::Freestyle,
        size: 15,
        depth: 6,
        positions: 300,
        width: 6,
        ply_cost: 30,
        roots: Vec::new(),
    };
    let mut rule_given = false;
    let mut lists = Vec::new();
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let Some(value) = it.next() else {
            println!("{usage}");
            return 2;
        };
        let number = value.parse::<u32>();
        match (flag.as_str(), number) {
            ("--rule", _) => match wuzi::types::Rule::parse(value) {
                Some(r) => {
                    opts.rule = r;
                    rule_given = true;
                }
                None => {
                    println!("unknown rule {value}\n{usage}");
                    return 2;
                }
            },
            ("--openings", _) => lists.push(value.clone()),
            ("--size", Ok(n)) if (5..=32).contains(&n) => opts.size = n as usize,
            ("--depth", Ok(n)) if (2..=12).contains(&n) => opts.depth = n as i32,
            ("--positions", Ok(n)) => opts.positions = n as usize,
            ("--width", Ok(n)) if n >= 1 => opts.width = n as usize,
            ("--ply-cost", Ok(n)) => opts.ply_cost = n as i32,
            _ => {
                println!("bad option {flag} {value}\n{usage}");
                return 2;
            }
        }
    }
    if !rule_given {
        println!("{usage}");
        return 2;
    }
    for path in &lists {
        let parsed = std::fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|text| wuzi::openings::parse_list(&text, opts.size));
        match parsed {
            Ok(list) => opts.roots.extend(list),
            Err(e) => {
                println!("{path}: {e}");
                return 2;
            }
        }
    }
    let book = build(&opts, &mut |done, total| {
        if done % 25 == 0 || done == total {
            eprintln!("expanded {done}/{total}");
        }
    });
    let lists_args: String = lists.iter().map(|l| format!(" --openings {l}")).collect();
    let header = vec![
        format!(
            "Opening book: rule {} ({}), {}x{}, {} positions.",
            opts.rule.info_value(),
            opts.rule,
            opts.size,
            opts.size,
            book.entries.len()
        ),
        format!(
            "Built by `pbrain-wuzi book --rule {} --size {} --depth {} --positions {} --width {} --ply-cost {}{lists_args}`",
            opts.rule.info_value(), opts.size, opts.depth, opts.positions, opts.width, opts.ply_cost
        ),
        "Format (openings/README.md): BLACK WHITE MOVE VALUE DEPTH per position, canonical orientation.".to_string(),
    ];
    print!("{}", book.to_text(&header));
    0
}

/// One line on stderr for an iteration or a note of the search (the puzzle trace).
fn show_event(started: std::time::Instant, event: &wuzi::search::SearchEvent) {
    use wuzi::search::SearchEvent;
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
