//! The brain executable: the Piskvork protocol on stdin/stdout, or a side tool when the
//! first argument names one (`bench`, `solve`).

use std::process::ExitCode;

const USAGE: &str = "\
usage: pbrain-wuzi                      play the Piskvork/Gomocup protocol on stdin/stdout
       pbrain-wuzi bench [DEPTH]        fixed-depth benchmark (nodes, speed, signature)
       pbrain-wuzi solve --rule R --size N POS
                                        threat-space search: win, defend, lost or none";

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
        Some("solve") => {
            let code = wuzi::threat::solve_cli(&args[1..], &mut std::io::stdout());
            ExitCode::from(code.clamp(0, 255) as u8)
        }
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
