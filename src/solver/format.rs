//! The proof file: a header naming the position and the attacker, and the proof tree,
//! one move a line, indented one space per ply (see `docs/solver.md`).
//!
//! ```text
//! wuzi-proof 2
//! rule freestyle
//! size 15 15
//! moves h8 h9 i8
//! attacker white
//! tree
//! g8
//!  f8
//!   ...
//!  *
//!   j8
//! end
//! ```
//!
//! Lines at even depth are moves of the side to move at the root, at odd depth of the
//! other side. An attacker line lists below it the defender's replies it answers; a
//! defender line (or `*`, "every reply not listed") holds exactly one attacker line, or
//! `=` ("this position is proven above in the file": a transposition). Version 1 files,
//! which have no `=`, are read too. This module only reads and writes the text; what
//! makes a tree a proof is `check`.

use crate::types::{parse_pos_sequence, Color, Coord, Rule};
use std::fmt;
use std::io::{self, Write};

/// The first line of every proof file this module writes.
pub const MAGIC: &str = "wuzi-proof 2";
/// The first line of the files of the first version (no `=` lines), still read.
const MAGIC_V1: &str = "wuzi-proof 1";

/// A node's move: a cell, `*` (a defender node's "every other reply") or `=` (in the
/// attacker's place: the position here is proven above in the file).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Move {
    At(Coord),
    Others,
    ProvenAbove,
}

/// One line of the tree and the lines below it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    pub mv: Move,
    pub children: Vec<Node>,
    /// The line it was read from (1-based; 0 for a tree built in memory).
    pub line: usize,
}

impl Node {
    pub fn new(mv: Move, children: Vec<Node>) -> Node {
        Node {
            mv,
            children,
            line: 0,
        }
    }

    /// Lines in this subtree.
    pub fn size(&self) -> usize {
        1 + self.children.iter().map(Node::size).sum::<usize>()
    }
}

/// A whole proof file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProofFile {
    pub rule: Rule,
    pub width: usize,
    pub height: usize,
    /// The position: its moves, black first.
    pub moves: Vec<Coord>,
    /// The side the tree proves a win for.
    pub attacker: Color,
    /// The tree's top lines: one attacker move when the attacker is to move, else the
    /// defender's replies.
    pub roots: Vec<Node>,
}

/// Why a proof file could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub line: usize,
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for ParseError {}

/// A cell as the file writes it: pos notation (`h8`) on boards up to 26 columns wide,
/// else `x,y`.
pub fn cell_text(c: Coord, width: usize) -> String {
    if width <= 26 {
        c.to_pos_notation()
    } else {
        format!("{},{}", c.x, c.y)
    }
}

/// One cell token: `x,y` or pos notation.
fn parse_cell(token: &str) -> Option<Coord> {
    match token.split_once(',') {
        Some((x, y)) => Some(Coord::new(x.trim().parse().ok()?, y.trim().parse().ok()?)),
        None => Coord::from_pos_notation(token),
    }
}

/// The moves of the `moves` line: `-` for none, else tokens of `x,y` or pos notation
/// (several pos cells may run together, as in `h8h9i10`).
fn parse_moves(text: &str) -> Option<Vec<Coord>> {
    let mut out = Vec::new();
    for token in text.split_whitespace() {
        if token == "-" {
            continue;
        }
        if token.contains(',') {
            out.push(parse_cell(token)?);
        } else {
            out.extend(parse_pos_sequence(token)?);
        }
    }
    Some(out)
}

/// Writes `proof` in the file format.
pub fn write(proof: &ProofFile, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "{MAGIC}")?;
    writeln!(out, "rule {}", proof.rule.name())?;
    writeln!(out, "size {} {}", proof.width, proof.height)?;
    let moves: Vec<String> = proof
        .moves
        .iter()
        .map(|&c| cell_text(c, proof.width))
        .collect();
    let moves = if moves.is_empty() {
        "-".to_string()
    } else {
        moves.join(" ")
    };
    writeln!(out, "moves {moves}")?;
    let attacker = match proof.attacker {
        Color::Black => "black",
        Color::White => "white",
    };
    writeln!(out, "attacker {attacker}")?;
    writeln!(out, "tree")?;
    for root in &proof.roots {
        write_node(root, 0, proof.width, out)?;
    }
    writeln!(out, "end")
}

fn write_node(node: &Node, depth: usize, width: usize, out: &mut dyn Write) -> io::Result<()> {
    let token = match node.mv {
        Move::At(c) => cell_text(c, width),
        Move::Others => "*".to_string(),
        Move::ProvenAbove => "=".to_string(),
    };
    writeln!(out, "{:depth$}{token}", "")?;
    for child in &node.children {
        write_node(child, depth + 1, width, out)?;
    }
    Ok(())
}

/// The text of `proof`.
pub fn to_text(proof: &ProofFile) -> String {
    let mut buf = Vec::new();
    // Writing to a vector cannot fail.
    let _ = write(proof, &mut buf);
    String::from_utf8_lossy(&buf).into_owned()
}

/// Reads a proof file. Lines starting with `#` and blank lines are skipped anywhere.
pub fn parse(text: &str) -> Result<ProofFile, ParseError> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim_end()))
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'));
    let mut header = |key: &str| -> Result<(usize, String), ParseError> {
        let (n, l) = lines.next().ok_or_else(|| ParseError {
            line: 0,
            message: format!("missing '{key}' line"),
        })?;
        let l = l.trim();
        let rest = if key == MAGIC {
            (l == MAGIC || l == MAGIC_V1).then(|| l.to_string())
        } else if key == "tree" {
            (l == key).then(String::new)
        } else {
            l.strip_prefix(key)
                .and_then(|r| r.strip_prefix(' '))
                .map(|r| r.trim().to_string())
        };
        rest.map(|r| (n, r)).ok_or_else(|| ParseError {
            line: n,
            message: format!("expected '{key}', found '{l}'"),
        })
    };
    let (_, magic) = header(MAGIC)?;
    let references_allowed = magic == MAGIC;
    let (n, rule) = header("rule")?;
    let rule = Rule::parse(&rule).ok_or_else(|| err(n, format!("unknown rule '{rule}'")))?;
    let (n, size) = header("size")?;
    let dims: Vec<usize> = size
        .split_whitespace()
        .map(str::parse)
        .collect::<Result<_, _>>()
        .map_err(|_| err(n, format!("bad size '{size}'")))?;
    let (width, height) = match dims[..] {
        [w, h] => (w, h),
        [s] => (s, s),
        _ => return Err(err(n, format!("bad size '{size}'"))),
    };
    let (n, moves) = header("moves")?;
    let moves = parse_moves(&moves).ok_or_else(|| err(n, format!("bad moves '{moves}'")))?;
    let (n, attacker) = header("attacker")?;
    let attacker =
        Color::from_name(&attacker).ok_or_else(|| err(n, format!("bad attacker '{attacker}'")))?;
    header("tree")?;
    let roots = parse_tree(&mut lines, references_allowed)?;
    Ok(ProofFile {
        rule,
        width,
        height,
        moves,
        attacker,
        roots,
    })
}

fn err(line: usize, message: String) -> ParseError {
    ParseError { line, message }
}

/// The tree lines up to `end`, nested by their indentation; `=` lines only when
/// `references_allowed` (version 2).
fn parse_tree<'t>(
    lines: &mut impl Iterator<Item = (usize, &'t str)>,
    references_allowed: bool,
) -> Result<Vec<Node>, ParseError> {
    // The open nodes, one per depth: each is added to its parent when a line at its
    // depth or above comes.
    let mut open: Vec<Node> = Vec::new();
    let mut roots = Vec::new();
    let mut ended = false;
    for (n, l) in lines.by_ref() {
        if l.trim() == "end" {
            ended = true;
            break;
        }
        let depth = l.len() - l.trim_start_matches(' ').len();
        let token = l.trim();
        if token.contains(char::is_whitespace) || l[depth..].starts_with('\t') {
            return Err(err(n, format!("bad tree line '{l}'")));
        }
        if depth > open.len() {
            return Err(err(
                n,
                format!("line indented {depth}, deeper than its parent"),
            ));
        }
        let mv = if token == "*" {
            Move::Others
        } else if token == "=" && references_allowed {
            Move::ProvenAbove
        } else {
            Move::At(parse_cell(token).ok_or_else(|| err(n, format!("bad move '{token}'")))?)
        };
        close_to(&mut open, &mut roots, depth);
        open.push(Node {
            mv,
            children: Vec::new(),
            line: n,
        });
    }
    if !ended {
        return Err(err(0, "missing 'end' line".into()));
    }
    if let Some((n, l)) = lines.next() {
        return Err(err(n, format!("text after 'end': '{l}'")));
    }
    close_to(&mut open, &mut roots, 0);
    Ok(roots)
}

/// Closes the open nodes deeper than `depth`, each into its parent (or the roots).
fn close_to(open: &mut Vec<Node>, roots: &mut Vec<Node>, depth: usize) {
    while open.len() > depth {
        let Some(node) = open.pop() else { break };
        match open.last_mut() {
            Some(parent) => parent.children.push(node),
            None => roots.push(node),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(name: &str) -> Move {
        Move::At(Coord::from_pos_notation(name).unwrap())
    }

    fn sample() -> ProofFile {
        ProofFile {
            rule: Rule::Renju,
            width: 15,
            height: 15,
            moves: parse_pos_sequence("h8h9i8").unwrap(),
            attacker: Color::White,
            roots: vec![Node::new(
                at("g8"),
                vec![
                    Node::new(at("f8"), vec![Node::new(at("j8"), vec![])]),
                    Node::new(Move::Others, vec![Node::new(at("k8"), vec![])]),
                ],
            )],
        }
    }

    fn without_lines(mut nodes: Vec<Node>) -> Vec<Node> {
        for n in &mut nodes {
            n.line = 0;
            n.children = without_lines(std::mem::take(&mut n.children));
        }
        nodes
    }

    #[test]
    fn a_proof_survives_writing_and_reading() {
        let proof = sample();
        let text = to_text(&proof);
        assert!(text.starts_with("wuzi-proof 2\nrule renju\nsize 15 15\nmoves h8 h9 i8\n"));
        assert!(text.contains("\ng8\n f8\n  j8\n *\n  k8\nend\n"), "{text}");
        let mut back = parse(&text).unwrap();
        back.roots = without_lines(back.roots);
        assert_eq!(back, proof);
        assert_eq!(proof.roots[0].size(), 5);
    }

    #[test]
    fn a_transposition_line_is_read_in_version_2_only() {
        let mut proof = sample();
        proof.roots[0].children[1].children = vec![Node::new(Move::ProvenAbove, vec![])];
        let text = to_text(&proof);
        assert!(text.contains("\n *\n  =\nend\n"), "{text}");
        let mut back = parse(&text).unwrap();
        back.roots = without_lines(back.roots);
        assert_eq!(back, proof);
        // The first version had no `=`: there it is a bad move, with its line.
        let v1 = text.replace("wuzi-proof 2", "wuzi-proof 1");
        let e = parse(&v1).unwrap_err();
        assert_eq!((e.line, e.message.as_str()), (11, "bad move '='"));
        // Version 1 files without it are read as before.
        let plain = to_text(&sample()).replace("wuzi-proof 2", "wuzi-proof 1");
        assert_eq!(
            parse(&plain).map(|p| without_lines(p.roots)),
            Ok(sample().roots)
        );
    }

    #[test]
    fn wide_boards_write_numeric_cells() {
        let mut proof = sample();
        proof.width = 30;
        proof.height = 7;
        let text = to_text(&proof);
        assert!(text.contains("moves 7,7 7,8 8,7\n") && !text.contains("\n f8\n"));
        let mut back = parse(&text).unwrap();
        back.roots = without_lines(back.roots);
        assert_eq!(back, proof);
    }

    #[test]
    fn damaged_files_are_errors_with_their_line() {
        let good = to_text(&sample());
        let cases = [
            good.replace("rule renju", "rule go"),
            good.replace("size 15 15", "size x"),
            good.replace("attacker white", "attacker red"),
            good.replace("\n f8\n", "\n   f8\n"),
            good.replace("\n  j8\n", "\n  j8 k9\n"),
            good.replace("\n *\n", "\n zz\n"),
            good.replace("end\n", ""),
            good.replace("end\n", "end\nh8\n"),
            good.replace("wuzi-proof 2", "proof"),
            good.replace("wuzi-proof 2", "wuzi-proof 3"),
        ];
        for bad in cases {
            assert_ne!(bad, good);
            assert!(parse(&bad).is_err(), "{bad}");
        }
        // Comments and blank lines are skipped.
        let commented = good.replace("tree\n", "tree\n# a comment\n\n");
        assert!(parse(&commented).is_ok());
    }
}
