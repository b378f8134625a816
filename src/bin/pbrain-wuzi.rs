//! The brain executable: the Piskvork protocol on stdin/stdout, or a side tool when the
//! first argument names one (`bench`, `solve`).

use std::process::ExitCode;

fn main() -> ExitCode {
    // stdout belongs to the protocol and Piskvork merges stderr into it: a panic message
    // must never reach either. Panics go to the log (when one is configured).
    std::panic::set_hook(Box::new(|info| log::error!("panic: {info}")));
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("bench") => {
            let code = wuzi::bench::run(&args[1..]);
            ExitCode::from(code)
        }
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
            wuzi::protocol::run(std::io::stdin(), std::io::stdout());
            ExitCode::SUCCESS
        }
    }
}
