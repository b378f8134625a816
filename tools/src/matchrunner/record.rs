//! Game records: SGF (`GM[4]`, Gomoku/Renju) and Piskvork's `.psq`.
//!
//! `.psq` as Piskvork reads it: a header `Piskvorky WxH, 11:11, 0`, one line `x,y,ms` per
//! stone with 1-based coordinates, then the two players' names and `-1`.

use super::game::{EndReason, GameOutcome};
use wuzi::types::{Color, Coord, Rule};

/// What a record needs besides the moves.
pub struct RecordInfo<'a> {
    pub black: &'a str,
    pub white: &'a str,
    pub width: usize,
    pub height: usize,
    pub rule: Rule,
    /// 1-based game number in the match.
    pub round: usize,
    pub outcome: &'a GameOutcome,
}

/// SGF result: `B+`/`W+` for a win over the board, `+T` on time, `+F` for any other
/// forfeit (crash, illegal or garbled reply), `0` for a draw.
pub fn sgf_result(outcome: &GameOutcome) -> String {
    let Some(winner) = outcome.winner else {
        return "0".to_string();
    };
    let side = if winner == Color::Black { "B" } else { "W" };
    let suffix = match outcome.reason {
        EndReason::Five => "",
        EndReason::Timeout => "T",
        _ => "F",
    };
    format!("{}+{}", side, suffix)
}

pub fn to_sgf(info: &RecordInfo) -> String {
    let size = if info.width == info.height {
        info.width.to_string()
    } else {
        format!("{}:{}", info.width, info.height)
    };
    let mut sgf = format!(
        "(;FF[4]GM[4]CA[UTF-8]AP[wuzi-match]SZ[{}]RU[{}]GN[game {}]PB[{}]PW[{}]RE[{}]C[{}: {}]",
        size,
        info.rule.name(),
        info.round,
        sgf_escape(info.black),
        sgf_escape(info.white),
        sgf_result(info.outcome),
        info.outcome.reason,
        sgf_escape(&info.outcome.detail),
    );
    for m in &info.outcome.moves {
        let tag = if m.color == Color::Black { "B" } else { "W" };
        sgf.push_str(&format!(";{}[{}]", tag, sgf_point(m.coord)));
        if m.from_opening {
            sgf.push_str("C[opening]");
        }
    }
    sgf.push_str(")\n");
    sgf
}

/// SGF point letters: a–z then A–Z (up to 52 lines), x first, y from the top row, which
/// matches the protocol's y = 0 at the top.
fn sgf_point(c: Coord) -> String {
    fn letter(v: i32) -> char {
        match v {
            0..=25 => (b'a' + v as u8) as char,
            26..=51 => (b'A' + (v - 26) as u8) as char,
            _ => '?',
        }
    }
    format!("{}{}", letter(c.x), letter(c.y))
}

/// Escapes `]` and `\` inside an SGF text value.
fn sgf_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        if ch == ']' || ch == '\\' {
            out.push('\\');
        }
        out.push(ch);
    }
    out
}

pub fn to_psq(info: &RecordInfo) -> String {
    let mut psq = format!("Piskvorky {}x{}, 11:11, 0\n", info.width, info.height);
    for m in &info.outcome.moves {
        psq.push_str(&format!(
            "{},{},{}\n",
            m.coord.x + 1,
            m.coord.y + 1,
            m.time.as_millis()
        ));
    }
    // Names on their own lines; a newline inside a name would break the format.
    psq.push_str(&format!(
        "{}\n{}\n-1\n",
        one_line(info.black),
        one_line(info.white)
    ));
    psq
}

fn one_line(text: &str) -> String {
    text.replace(['\r', '\n'], " ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matchrunner::game::PlayedMove;
    use std::time::Duration;

    fn outcome(winner: Option<Color>, reason: EndReason) -> GameOutcome {
        let mv = |x, y, color, from_opening| PlayedMove {
            coord: Coord::new(x, y),
            color,
            time: Duration::from_millis(if from_opening { 0 } else { 120 }),
            from_opening,
        };
        GameOutcome {
            winner,
            reason,
            detail: "a]b".to_string(),
            moves: vec![
                mv(7, 7, Color::Black, true),
                mv(8, 6, Color::White, false),
                mv(27, 0, Color::Black, false),
            ],
            logs: [Vec::new(), Vec::new()],
        }
    }

    fn info<'a>(o: &'a GameOutcome, width: usize) -> RecordInfo<'a> {
        RecordInfo {
            black: "alpha",
            white: "beta",
            width,
            height: 30,
            rule: Rule::Renju,
            round: 3,
            outcome: o,
        }
    }

    #[test]
    fn sgf_has_header_moves_and_escaped_text() {
        let o = outcome(Some(Color::White), EndReason::Timeout);
        let sgf = to_sgf(&info(&o, 30));
        assert_eq!(
            sgf,
            "(;FF[4]GM[4]CA[UTF-8]AP[wuzi-match]SZ[30]RU[renju]GN[game 3]PB[alpha]PW[beta]\
             RE[W+T]C[timeout: a\\]b];B[hh]C[opening];W[ig];B[Ba])\n"
        );
        assert!(to_sgf(&info(&o, 32)).contains("SZ[32:30]"));
    }

    #[test]
    fn sgf_results() {
        assert_eq!(
            sgf_result(&outcome(Some(Color::Black), EndReason::Five)),
            "B+"
        );
        assert_eq!(
            sgf_result(&outcome(Some(Color::Black), EndReason::Crash)),
            "B+F"
        );
        assert_eq!(sgf_result(&outcome(None, EndReason::BoardFull)), "0");
    }

    #[test]
    fn psq_is_one_based_with_times() {
        let o = outcome(Some(Color::Black), EndReason::Five);
        assert_eq!(
            to_psq(&info(&o, 30)),
            "Piskvorky 30x30, 11:11, 0\n8,8,0\n9,7,120\n28,1,120\nalpha\nbeta\n-1\n"
        );
    }
}
