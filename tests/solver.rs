//! The proof-number solver on the puzzles of `tests/data/pn-puzzles.txt` (copied from the
//! shared suite, see its header): each win is proven, with the move the suite's oracle
//! lists, and its proof passes the independent checker; damaged proofs are rejected;
//! positions without a win are not claimed; and one win needs a quiet move the threat
//! search alone cannot find.

use wuzi::board::Board;
use wuzi::solver::check::check;
use wuzi::solver::format::{self, Move, Node, ProofFile};
use wuzi::solver::{solve, SolveLimits, Verdict};
use wuzi::threat::threats::MoveShape;
use wuzi::threat::{self, Level, Limits};
use wuzi::types::{Color, Coord, Rule};

/// One row of the data file.
struct Puzzle {
    id: String,
    rule: Rule,
    size: usize,
    kind: String,
    moves: String,
    /// The winning first moves, or `None` for "any move of a checked proof" (`*`).
    answers: Option<Vec<Coord>>,
}

fn puzzles() -> Vec<Puzzle> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/pn-puzzles.txt");
    let text = std::fs::read_to_string(path).expect("tests/data/pn-puzzles.txt");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            let answers = (f[5] != "*").then(|| {
                f[5].split(',')
                    .map(|a| Coord::from_pos_notation(a).unwrap())
                    .collect()
            });
            Puzzle {
                id: f[0].to_string(),
                rule: Rule::parse(f[1]).unwrap(),
                size: f[2].parse().unwrap(),
                kind: f[3].to_string(),
                moves: f[4].to_string(),
                answers,
            }
        })
        .collect()
}

fn puzzle(id: &str) -> Puzzle {
    puzzles().into_iter().find(|p| p.id == id).unwrap()
}

fn board(p: &Puzzle) -> Board {
    Board::from_moves(p.size, p.rule, &p.moves).unwrap()
}

fn limits(nodes: u64) -> SolveLimits {
    SolveLimits {
        nodes,
        time: None,
        table_bytes: 16 << 20,
    }
}

/// Solves a win puzzle and checks the answer: a win by one of the listed moves, whose
/// proof passes the checker after a trip through its text. Returns the proof.
fn prove_win(p: &Puzzle) -> ProofFile {
    let mut b = board(p);
    let before = b.hash();
    let report = solve(&mut b, &limits(2_000_000), &mut |_| {});
    assert_eq!(b.hash(), before, "{}", p.id);
    let Verdict::Win(m) = report.verdict else {
        panic!("{}: {:?} ({:?})", p.id, report.verdict, report.note);
    };
    let first = b.coord(m);
    if let Some(answers) = &p.answers {
        assert!(answers.contains(&first), "{}: {first}", p.id);
    }
    let proof = report.proof.expect("a win comes with its proof");
    assert_eq!(proof.roots[0].mv, Move::At(first), "{}", p.id);
    assert_eq!(proof.attacker, b.side_to_move(), "{}", p.id);
    let text = format::to_text(&proof);
    let back = format::parse(&text).unwrap();
    let checked = check(&back).unwrap_or_else(|e| panic!("{}: {e}", p.id));
    assert!(checked.attacker_moves >= 1, "{}", p.id);
    back
}

#[test]
fn the_win_puzzles_of_every_rule_are_proven_with_checked_proofs() {
    let mut rules = Vec::new();
    for p in puzzles().iter().filter(|p| p.kind == "win") {
        // The quiet-move win has a test of its own.
        if p.id == "pub-free-win001" {
            continue;
        }
        prove_win(p);
        if !rules.contains(&p.rule) {
            rules.push(p.rule);
        }
    }
    assert_eq!(rules.len(), 4, "a win of every rule");
}

/// pub-free-win001: white's only winning move j9 makes neither a four nor a three, so the
/// threat search alone finds no win (it finds no threat to start with); the proof-number
/// search finds it and proves it.
#[test]
fn a_win_through_a_quiet_move_is_beyond_the_threat_search_alone() {
    let p = puzzle("pub-free-win001");
    let mut b = board(&p);
    let alone = Limits {
        level: Level::Vct,
        max_nodes: 2_000_000,
        max_depth: threat::ROOT_DEPTH,
        deadline: None,
        stop: None,
    };
    assert!(threat::find_win(&mut b, Color::White, &alone).is_none());
    let j9 = b.pos(Coord::new(9, 8)).unwrap();
    let shape = MoveShape::of(&b, j9, Color::White);
    assert!(!shape.is_four() && shape.open_threes == 0, "{shape:?}");
    let proof = prove_win(&p);
    assert_eq!(proof.roots[0].mv, Move::At(Coord::new(9, 8)));
}

#[test]
fn positions_without_a_win_are_not_claimed() {
    for p in puzzles().iter().filter(|p| p.kind == "defend") {
        let mut b = board(p);
        let report = solve(&mut b, &limits(200_000), &mut |_| {});
        assert!(
            !matches!(report.verdict, Verdict::Win(_)),
            "{}: {:?}",
            p.id,
            report.verdict
        );
    }
}

/// The first attacker line below the tree's lines `nodes` (attacker lines at even
/// depth) with a defender node that lists a reply and has no `*` line: its replies.
fn listed_replies_without_default(nodes: &mut [Node]) -> Option<&mut Vec<Node>> {
    for n in nodes {
        let replies = &n.children;
        let has_default = replies.iter().any(|r| r.mv == Move::Others);
        if !replies.is_empty() && !has_default {
            return Some(&mut n.children);
        }
        for r in &mut n.children {
            if let Some(found) = listed_replies_without_default(&mut r.children) {
                return Some(found);
            }
        }
    }
    None
}

/// The deepest attacker line along the first listed replies.
fn deep_attacker_move(node: &mut Node) -> &mut Node {
    match node.children.iter().position(|r| r.mv != Move::Others) {
        Some(i) => deep_attacker_move(&mut node.children[i].children[0]),
        None => node,
    }
}

#[test]
fn damaged_proofs_are_rejected() {
    let proof = prove_win(&puzzle("pub-std-win018"));
    assert!(check(&proof).is_ok());

    // A defender reply taken out of a node that has no `*` line.
    let mut missing = proof.clone();
    let replies = listed_replies_without_default(&mut missing.roots).expect("a listed reply");
    let Move::At(gone) = replies.remove(0).mv else {
        unreachable!()
    };
    let e = check(&missing).unwrap_err();
    assert!(
        e.reason
            .contains(&format!("reply {} is not answered", gone.to_pos_notation())),
        "{e}"
    );

    // The first move moved to a corner.
    let mut moved = proof.clone();
    moved.roots[0].mv = Move::At(Coord::new(0, 0));
    assert!(check(&moved).is_err());

    // A move deep in the tree moved to a corner.
    let mut deep = proof.clone();
    let node = deep_attacker_move(&mut deep.roots[0]);
    assert_ne!(node.mv, Move::At(Coord::new(14, 14)));
    node.mv = Move::At(Coord::new(14, 14));
    node.children.clear();
    assert!(check(&deep).is_err());

    // A proof for the wrong side.
    let mut wrong = proof;
    wrong.attacker = Color::Black;
    assert!(check(&wrong).is_err());
}
