//! The protocol fuzz target: arbitrary bytes, split into lines as the reader splits
//! them, through every parsing function of `protocol::command` and, for `INFO`, the
//! settings' check of the value. Nothing may panic; every text a reply would carry is
//! one short line of printable ASCII; a parsed coordinate, size or stone line reads back
//! the same from its canonical form; the parser's helpers agree with the parser.

use wuzi::engine::Settings;
use wuzi::protocol::command::{
    command_word, is_done, looks_like_command, parse_command, parse_coord, parse_stone_line, quote,
    quote_start, Command, ParseError,
};

/// The longest reply text the parser or an `INFO` check may produce (the quoted input
/// is at most 64 characters of it).
const MAX_REPLY_CHARS: usize = 200;

/// Runs one input; panics on a finding.
pub fn run(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    for line in text.split(['\n', '\r']) {
        check_line(line);
    }
}

/// A reply's text (or part of it): one line of printable ASCII, short.
fn check_reply_text(text: &str, line: &str) {
    assert!(
        text.chars().count() <= MAX_REPLY_CHARS,
        "{text:?} ({} characters) for the line {line:?}",
        text.chars().count()
    );
    assert!(
        text.chars().all(|c| (' '..='~').contains(&c)),
        "{text:?} is not printable ASCII, for the line {line:?}"
    );
}

fn check_line(line: &str) {
    let parsed = parse_command(line);
    assert_eq!(
        looks_like_command(line),
        !matches!(parsed, Err(ParseError::Unknown(_))),
        "looks_like_command disagrees with parse_command on {line:?}"
    );
    if is_done(line) {
        assert_eq!(parsed, Ok(Command::Done), "{line:?}");
    }
    let word = command_word(line);
    match &parsed {
        Err(e) => check_reply_text(&e.to_string(), line),
        Ok(Command::Info { key, value }) => check_info(key, value, line),
        Ok(command) => {
            // The canonical form of the command parses to the same command.
            let canonical = match command {
                Command::Start(n) => format!("START {n}"),
                Command::RectStart(w, h) => format!("RECTSTART {w},{h}"),
                Command::Turn(c) => format!("TURN {c}"),
                Command::Play(c) => format!("PLAY {c}"),
                Command::Takeback(c) => format!("TAKEBACK {c}"),
                Command::YxNbest(n) => format!("YXNBEST {n}"),
                _ => word.clone(),
            };
            assert_eq!(parse_command(&canonical).as_ref(), Ok(command), "{line:?}");
            assert!(canonical.starts_with(&word), "{line:?}: word {word:?}");
        }
    }
    match parse_stone_line(line) {
        Ok((c, f)) => {
            assert!((1..=3).contains(&f), "{line:?}: stone flag {f}");
            let canonical = format!("{},{},{f}", c.x, c.y);
            assert_eq!(parse_stone_line(&canonical), Ok((c, f)), "{line:?}");
            assert!(
                !looks_like_command(line),
                "{line:?} is a stone line and a command"
            );
        }
        Err(e) => check_reply_text(&e.to_string(), line),
    }
    match parse_coord(line) {
        Ok(c) => assert_eq!(parse_coord(&c.to_string()), Ok(c), "{line:?}"),
        Err(e) => check_reply_text(&e.to_string(), line),
    }
    check_reply_text(&quote(line), line);
    check_reply_text(&quote_start(line), line);
}

/// `INFO key value` through the settings' check, as the engine applies it: a value not
/// taken as sent is described in one short printable line.
fn check_info(key: &str, value: &str, line: &str) {
    assert_eq!(
        key,
        key.to_ascii_lowercase(),
        "{line:?}: key not lower case"
    );
    let mut settings = Settings::default();
    if let Err(problem) = settings.apply(key, value) {
        check_reply_text(&problem.describe(quote), line);
    }
    assert!(
        (1..=wuzi::search::MAX_THREADS).contains(&settings.thread_num),
        "{line:?}"
    );
}
