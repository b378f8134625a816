//! Parsing protocol lines into commands. Parsing is total: every line becomes a
//! `Command` or a `ParseError` that says precisely what is wrong; nothing panics.

use crate::types::Coord;
use std::fmt;

/// One command of the Piskvork protocol or its Yixin extensions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Start(usize),
    RectStart(usize, usize),
    Restart,
    Begin,
    Turn(Coord),
    /// Starts a `BOARD` block: stone lines follow until `DONE`; we reply with a move.
    Board,
    /// Starts a `YXBOARD` block: like `BOARD` but no move is asked for.
    YxBoard,
    /// Starts a `SWAP2BOARD` block of 0, 3 or 5 stones.
    Swap2Board,
    Info {
        key: String,
        value: String,
    },
    Takeback(Coord),
    Play(Coord),
    About,
    End,
    /// `STOP` or `YXSTOP`: answer now with the best move so far.
    Stop,
    YxShowForbid,
    YxHashClear,
    YxShowInfo,
    YxNbest(usize),
    /// `DONE` outside a block.
    Done,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseError {
    Unknown(String),
    MissingArgument(&'static str),
    BadNumber(String),
    BadCoordinate(String),
    BadStoneLine(String),
    ExtraArguments(String),
}

/// At most this many characters of the input are quoted in a reply.
pub const MAX_QUOTED_CHARS: usize = 64;

/// `text` as a reply quotes it, in single quotes: printable ASCII only (any other
/// character, a NUL or a byte that was not UTF-8 shows as `?`), at most
/// [`MAX_QUOTED_CHARS`] characters; a longer text is cut, marked `...` and followed by
/// its length. A reply stays one short line whatever the input was.
pub fn quote(text: &str) -> String {
    if text.chars().nth(MAX_QUOTED_CHARS).is_some() {
        format!("{} ({} bytes)", quote_start(text), text.len())
    } else {
        format!("'{}'", printable(text))
    }
}

/// The start of `text` (the kept part of a line cut by the reader), quoted as
/// [`quote`] does, with `...` for the rest.
pub fn quote_start(text: &str) -> String {
    let start: String = text.chars().take(MAX_QUOTED_CHARS).collect();
    format!("'{}...'", printable(&start))
}

fn printable(text: &str) -> String {
    text.chars()
        .map(|c| if (' '..='~').contains(&c) { c } else { '?' })
        .collect()
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::Unknown(word) => write!(f, "unknown command {}", quote(word)),
            ParseError::MissingArgument(what) => write!(f, "missing argument: {what}"),
            ParseError::BadNumber(s) => write!(f, "not a valid number: {}", quote(s)),
            ParseError::BadCoordinate(s) => {
                write!(f, "not a valid coordinate 'x,y': {}", quote(s))
            }
            ParseError::BadStoneLine(s) => write!(
                f,
                "not a valid stone line 'x,y,f' (f = 1, 2 or 3): {}",
                quote(s)
            ),
            ParseError::ExtraArguments(s) => write!(f, "unexpected arguments: {}", quote(s)),
        }
    }
}

impl ParseError {
    /// Unknown commands get `UNKNOWN` (managers fall back), everything else `ERROR`.
    pub fn is_unknown(&self) -> bool {
        matches!(self, ParseError::Unknown(_))
    }
}

/// Parses one non-empty line (without its line end).
pub fn parse_command(line: &str) -> Result<Command, ParseError> {
    let line = line.trim();
    let (word, rest) = match line.find(char::is_whitespace) {
        Some(i) => (&line[..i], line[i..].trim()),
        None => (line, ""),
    };
    let word_upper = word.to_ascii_uppercase();
    let no_args = |cmd: Command| {
        if rest.is_empty() {
            Ok(cmd)
        } else {
            Err(ParseError::ExtraArguments(rest.to_string()))
        }
    };
    match word_upper.as_str() {
        "START" => Ok(Command::Start(parse_number(rest, "board size")?)),
        "RECTSTART" => {
            let (w, h) =
                parse_pair(rest).ok_or_else(|| ParseError::BadCoordinate(rest.to_string()))?;
            Ok(Command::RectStart(to_size(w, rest)?, to_size(h, rest)?))
        }
        "RESTART" => no_args(Command::Restart),
        "BEGIN" => no_args(Command::Begin),
        "TURN" => Ok(Command::Turn(parse_coord(rest)?)),
        "BOARD" => no_args(Command::Board),
        "YXBOARD" => no_args(Command::YxBoard),
        "SWAP2BOARD" => no_args(Command::Swap2Board),
        "INFO" => {
            // Even a bare `INFO` is an INFO: managers do not read replies to INFO, so
            // its problem is reported later (an empty key), never answered now.
            let (key, value) = match rest.find(char::is_whitespace) {
                Some(i) => (&rest[..i], rest[i..].trim()),
                None => (rest, ""),
            };
            Ok(Command::Info {
                key: key.to_ascii_lowercase(),
                value: value.to_string(),
            })
        }
        "TAKEBACK" => Ok(Command::Takeback(parse_coord(rest)?)),
        "PLAY" => Ok(Command::Play(parse_coord(rest)?)),
        "ABOUT" => Ok(Command::About),
        "END" => Ok(Command::End),
        "STOP" | "YXSTOP" => Ok(Command::Stop),
        "YXSHOWFORBID" => Ok(Command::YxShowForbid),
        "YXHASHCLEAR" => Ok(Command::YxHashClear),
        "YXSHOWINFO" => Ok(Command::YxShowInfo),
        "YXNBEST" => Ok(Command::YxNbest(parse_number(
            rest,
            "number of best moves",
        )?)),
        "DONE" => Ok(Command::Done),
        _ => Err(ParseError::Unknown(word.to_string())),
    }
}

/// The command word of a line that [`looks_like_command`], in upper case.
pub fn command_word(line: &str) -> String {
    line.split_whitespace()
        .next()
        .unwrap_or("")
        .to_ascii_uppercase()
}

/// Whether a line inside a `BOARD` block is the `DONE` that ends it.
pub fn is_done(line: &str) -> bool {
    line.trim().eq_ignore_ascii_case("DONE")
}

/// Whether a line inside a block starts with a command word rather than being block
/// data: a manager that abandons a block mid-way (or a confused one) gets its command
/// processed. Only known command words count: a malformed stone line such as `x,y,z`
/// is bad data of the block (one `ERROR` for the block), not a new command.
pub fn looks_like_command(line: &str) -> bool {
    !matches!(parse_command(line), Err(ParseError::Unknown(_)))
}

/// A stone line of a `BOARD`/`YXBOARD` block: `x,y,f`, f = 1 own, 2 opponent, 3 marked.
pub fn parse_stone_line(line: &str) -> Result<(Coord, u8), ParseError> {
    let bad = || ParseError::BadStoneLine(line.trim().to_string());
    let parts: Vec<&str> = line.split(',').map(str::trim).collect();
    if parts.len() != 3 {
        return Err(bad());
    }
    let x: i32 = parts[0].parse().map_err(|_| bad())?;
    let y: i32 = parts[1].parse().map_err(|_| bad())?;
    let f: u8 = parts[2].parse().map_err(|_| bad())?;
    if !(1..=3).contains(&f) {
        return Err(bad());
    }
    Ok((Coord::new(x, y), f))
}

/// A plain coordinate line `x,y` (SWAP2BOARD blocks).
pub fn parse_coord(text: &str) -> Result<Coord, ParseError> {
    if text.trim().is_empty() {
        return Err(ParseError::MissingArgument("coordinate x,y"));
    }
    parse_pair(text)
        .map(|(x, y)| Coord::new(x, y))
        .ok_or_else(|| ParseError::BadCoordinate(text.trim().to_string()))
}

fn parse_pair(text: &str) -> Option<(i32, i32)> {
    let (a, b) = text.split_once(',')?;
    Some((a.trim().parse().ok()?, b.trim().parse().ok()?))
}

fn parse_number(text: &str, what: &'static str) -> Result<usize, ParseError> {
    if text.is_empty() {
        return Err(ParseError::MissingArgument(what));
    }
    text.parse()
        .map_err(|_| ParseError::BadNumber(text.to_string()))
}

fn to_size(v: i32, text: &str) -> Result<usize, ParseError> {
    usize::try_from(v).map_err(|_| ParseError::BadNumber(text.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_parse_in_any_case_with_extra_spaces() {
        assert_eq!(parse_command("  start   15 "), Ok(Command::Start(15)));
        assert_eq!(
            parse_command("RectStart 20, 15"),
            Ok(Command::RectStart(20, 15))
        );
        assert_eq!(
            parse_command("turn 3, 4"),
            Ok(Command::Turn(Coord::new(3, 4)))
        );
        assert_eq!(parse_command("yxstop"), Ok(Command::Stop));
        assert_eq!(
            parse_command("INFO Timeout_Turn 1000"),
            Ok(Command::Info {
                key: "timeout_turn".into(),
                value: "1000".into()
            })
        );
    }

    #[test]
    fn malformed_lines_are_precise_errors() {
        assert_eq!(
            parse_command("FOO 1"),
            Err(ParseError::Unknown("FOO".into()))
        );
        assert!(matches!(
            parse_command("START"),
            Err(ParseError::MissingArgument(_))
        ));
        assert!(matches!(
            parse_command("START abc"),
            Err(ParseError::BadNumber(_))
        ));
        assert!(matches!(
            parse_command("START -3"),
            Err(ParseError::BadNumber(_))
        ));
        assert!(matches!(
            parse_command("TURN 3"),
            Err(ParseError::BadCoordinate(_))
        ));
        assert!(matches!(
            parse_command("TURN a,b"),
            Err(ParseError::BadCoordinate(_))
        ));
        assert!(matches!(
            parse_command("TURN 99999999999,1"),
            Err(ParseError::BadCoordinate(_))
        ));
        assert!(matches!(
            parse_command("RECTSTART -1,5"),
            Err(ParseError::BadNumber(_))
        ));
        assert!(matches!(
            parse_command("BEGIN now"),
            Err(ParseError::ExtraArguments(_))
        ));
        assert!(parse_command("ÄÖÜ").is_err());
    }

    #[test]
    fn quoted_input_is_short_printable_ascii() {
        assert_eq!(quote("FOO"), "'FOO'");
        assert_eq!(quote("a\0b\u{fffd}\u{7f}é"), "'a?b???'");
        let long = "x".repeat(100_000);
        let quoted = quote(&long);
        assert_eq!(quoted, format!("'{}...' (100000 bytes)", "x".repeat(64)));
        let exact = "y".repeat(MAX_QUOTED_CHARS);
        assert_eq!(quote(&exact), format!("'{exact}'"));
        assert_eq!(quote_start("ab\ncd"), "'ab?cd...'");
        let error = parse_command(&format!("TURN {long}")).unwrap_err();
        assert!(error.to_string().len() < 120, "{error}");
    }

    #[test]
    fn a_bare_info_is_an_info_with_an_empty_key() {
        assert_eq!(
            parse_command("INFO"),
            Ok(Command::Info {
                key: String::new(),
                value: String::new()
            })
        );
    }

    #[test]
    fn stone_lines() {
        assert_eq!(parse_stone_line("7,7,1"), Ok((Coord::new(7, 7), 1)));
        assert_eq!(parse_stone_line(" 7 , 8 , 2 "), Ok((Coord::new(7, 8), 2)));
        assert!(parse_stone_line("7,7").is_err());
        assert!(parse_stone_line("7,7,4").is_err());
        assert!(parse_stone_line("x,7,1").is_err());
        assert!(is_done("done\r"));
        assert!(looks_like_command("TURN 1,1"));
        assert!(looks_like_command("turn x"));
        assert!(!looks_like_command("1,1,1"));
        assert!(!looks_like_command("x,y,z"));
        assert!(!looks_like_command("a,1,1"));
        assert_eq!(command_word("  turn 1,1"), "TURN");
    }
}
