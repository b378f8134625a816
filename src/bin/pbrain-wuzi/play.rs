//! Protocol mode: the configuration and the log are set up, then the engine answers
//! the manager's commands on stdin/stdout until `END` or the end of input.

use wuzi::config::{exe_dir, Config};
use wuzi::engine::Engine;
use wuzi::logging::{self, LogSettings};

pub fn run() -> u8 {
    // stdout belongs to the protocol and Piskvork merges stderr into it: a panic message
    // must never reach either. Panics go to the log (when one is configured).
    logging::install_panic_hook();
    let config = Config::load();
    let log_dir = logging::log_dir(None, exe_dir().as_deref());
    if let Some(warning) = logging::init(LogSettings::from_config(&config), log_dir.as_deref()) {
        // Reported with the configuration's own warnings at the first command.
        config.add_warning(warning);
    }
    let engine = Engine::with_config(config);
    wuzi::protocol::run(engine, std::io::stdin(), std::io::stdout());
    0
}
