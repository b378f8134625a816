//! Building the proof tree of a proven node, from the search's table.
//!
//! An attacker line is the proving move the table holds (a five, the first move of a
//! threat-space win, or the child the search proved); where the table has lost the
//! node, or holds only a threat-space verdict further down, the search runs again from
//! there. A defender node lists every reply the search had to answer (see
//! `expand::defender_replies`), each with its own subtree; replies that leave a five
//! are not listed (the checker finds the five), and replies answered by a straight
//! four share one `*` line where their sure win point is the same. A position whose
//! attacker line was written before is written again as `=` (a transposition): the
//! defender's replies reach the same positions in many orders, and without it a tree
//! repeats their subtrees many times over.

use super::expand;
use super::format::{Move, Node};
use super::pn::Search;
use crate::board::Pos;
use crate::params::solver::PROOF_THREAT_NODES;
use crate::threat::threats;
use std::collections::HashSet;
use std::fmt;

/// Why no proof tree came out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BuildError {
    /// A node of the tree could not be proven again within the budget.
    Unproven,
    /// The tree grew past the line limit.
    TooBig,
    /// The search's verdict does not hold at a node (the defender makes five there).
    Unsound,
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BuildError::Unproven => "a node of the proof could not be proven again",
            BuildError::TooBig => "the proof tree is too big to write",
            BuildError::Unsound => "a node of the proof does not hold",
        })
    }
}

/// Builds proof trees from one search.
pub struct Builder<'s, 'a> {
    pub search: &'s mut Search<'a>,
    /// Lines written so far, and the most allowed.
    lines: usize,
    max_lines: usize,
    /// Plies below the search's root.
    depth: usize,
    /// Nodes of the threat-space search that re-proves a node the table has no proof
    /// of.
    threat_cap: u64,
    /// The positions (board hashes) whose attacker lines are written.
    written: HashSet<u64>,
}

impl<'s, 'a> Builder<'s, 'a> {
    /// A builder whose re-proving threat searches get `threat_cap` nodes (at least
    /// `PROOF_THREAT_NODES`).
    pub fn new(search: &'s mut Search<'a>, max_lines: usize, threat_cap: u64) -> Self {
        Builder {
            search,
            lines: 0,
            max_lines,
            depth: 0,
            threat_cap: threat_cap.max(PROOF_THREAT_NODES),
            written: HashSet::new(),
        }
    }

    fn count_line(&mut self) -> Result<(), BuildError> {
        self.lines += 1;
        if self.lines > self.max_lines {
            Err(BuildError::TooBig)
        } else {
            Ok(())
        }
    }

    /// The attacker line of the position on the board (the attacker to move), or `=`
    /// when it is written above.
    pub fn attacker_line(&mut self) -> Result<Node, BuildError> {
        self.count_line()?;
        let key = self.search.board.hash();
        if self.written.contains(&key) {
            return Ok(Node::new(Move::ProvenAbove, Vec::new()));
        }
        let line = self.new_attacker_line()?;
        self.written.insert(key);
        Ok(line)
    }

    /// [`Self::attacker_line`] for a position not written yet.
    fn new_attacker_line(&mut self) -> Result<Node, BuildError> {
        let attacker = self.search.attacker;
        let board = &mut *self.search.board;
        if let Some(p) = threats::five_point(board, attacker) {
            return Ok(Node::new(Move::At(board.coord(p)), Vec::new()));
        }
        let key = board.hash();
        let entry = match self.search.table.get(key).filter(|e| e.is_proven()) {
            Some(e) => e,
            None => self
                .search
                .prove_here(self.depth, self.threat_cap)
                .ok_or(BuildError::Unproven)?,
        };
        let m = entry.best;
        if m.is_none() || !self.search.board.is_empty(m) {
            return Err(BuildError::Unproven);
        }
        let c = self.search.board.coord(m);
        let replies = self.after(m, |b| b.defender_lines())?;
        Ok(Node::new(Move::At(c), replies))
    }

    /// Runs `f` with `m` played (by the side to move) and taken back after.
    fn after<T>(
        &mut self,
        m: Pos,
        f: impl FnOnce(&mut Self) -> Result<T, BuildError>,
    ) -> Result<T, BuildError> {
        self.search.board.make(m);
        self.depth += 1;
        let result = f(self);
        self.depth -= 1;
        self.search.board.undo();
        result
    }

    /// The defender lines of the position on the board (the defender to move).
    pub fn defender_lines(&mut self) -> Result<Vec<Node>, BuildError> {
        let attacker = self.search.attacker;
        let replies = expand::defender_replies(self.search.board, attacker);
        if replies.defender_five {
            return Err(BuildError::Unsound);
        }
        let mut lines = Vec::new();
        for &d in &replies.real {
            self.count_line()?;
            let c = self.search.board.coord(d);
            let answer = self.after(d, |b| b.attacker_line())?;
            lines.push(Node::new(Move::At(c), vec![answer]));
        }
        self.sure_lines(&replies.sure, &mut lines)?;
        Ok(lines)
    }

    /// The lines of the replies answered by a sure win point: those sharing the most
    /// common point under one `*` line, the others each with its own.
    fn sure_lines(
        &mut self,
        sure: &[(Pos, smallvec::SmallVec<[Pos; 4]>)],
        lines: &mut Vec<Node>,
    ) -> Result<(), BuildError> {
        let Some(shared) = most_common_point(sure) else {
            return Ok(());
        };
        let board = &*self.search.board;
        let leaf = |p: Pos| Node::new(Move::At(board.coord(p)), Vec::new());
        let mut own = Vec::new();
        for (d, points) in sure {
            if !points.contains(&shared) {
                own.push(Node::new(Move::At(board.coord(*d)), vec![leaf(points[0])]));
            }
        }
        own.push(Node::new(Move::Others, vec![leaf(shared)]));
        for _ in 0..own.len() * 2 {
            self.count_line()?;
        }
        lines.extend(own);
        Ok(())
    }
}

/// The sure win point answering the most replies (the first such in board order).
fn most_common_point(sure: &[(Pos, smallvec::SmallVec<[Pos; 4]>)]) -> Option<Pos> {
    let mut counts: Vec<(Pos, usize)> = Vec::new();
    for (_, points) in sure {
        for &p in points {
            match counts.iter_mut().find(|(q, _)| *q == p) {
                Some((_, n)) => *n += 1,
                None => counts.push((p, 1)),
            }
        }
    }
    counts.sort_by_key(|&(p, n)| (std::cmp::Reverse(n), p));
    counts.first().map(|&(p, _)| p)
}
