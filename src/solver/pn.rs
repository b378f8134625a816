//! Depth-first proof-number search (df-pn) with Pawlewicz's 1+ε thresholds.
//!
//! Each node's proof number (pn) is how many leaves must still be proven for the
//! attacker to win there, its disproof number (dn) how many for the defender to hold.
//! An attacker node takes the least pn of its children and the sum of their dn; a
//! defender node the sum of their pn and the least dn. [`Search::mid`] explores a node
//! until its numbers reach the thresholds its parent gave (the child's share of the
//! parent's), keeping only the current line on the stack and everything else in the
//! transposition table: memory stays within the table's bytes however long it runs.
//!
//! The child thresholds follow Pawlewicz and Lew's 1+ε trick: the best child may grow
//! to `(1+ε)` times the second best's number before control returns, which spares the
//! re-expansions plain df-pn makes when two children's numbers are close.

use super::budget::Budget;
use super::expand::{self, Expansion, ThreatProbe};
use super::table::{Entry, Table, INFINITY};
use super::Progress;
use crate::board::{Board, Pos};
use crate::params::solver::{
    EPSILON_DIVISOR, PROGRESS_INTERVAL, ROOT_THREAT_NODES_MAX, ROOT_THREAT_SHARE, THREAT_NODES,
};
use crate::types::Color;
use std::collections::HashMap;
use std::time::Instant;

/// A child of the node being searched, with its current numbers.
#[derive(Clone, Copy, Debug)]
struct Child {
    mv: Pos,
    pn: u32,
    dn: u32,
}

/// The moves of nodes expanded before, so that a node entered again does not repeat its
/// generation (threat searches, defences, the defender's full reply scan). Bounded in
/// bytes: it is cleared whole when full.
struct MoveCache {
    moves: HashMap<u64, Box<[Pos]>>,
    bytes: usize,
    max_bytes: usize,
}

impl MoveCache {
    fn get(&self, key: u64) -> Option<&[Pos]> {
        self.moves.get(&key).map(|m| &m[..])
    }

    fn put(&mut self, key: u64, moves: &[Pos]) {
        // Key, box and map overhead, roughly.
        let cost = 48 + std::mem::size_of_val(moves);
        if self.bytes + cost > self.max_bytes {
            self.moves.clear();
            self.bytes = 0;
        }
        self.bytes += cost;
        self.moves.insert(key, moves.into());
    }
}

/// One df-pn search: a fixed attacker, a table, a budget.
pub struct Search<'a> {
    pub board: &'a mut Board,
    pub attacker: Color,
    pub table: Table,
    pub budget: Budget,
    /// The threat-space searches of the nodes.
    pub probe: ThreatProbe,
    cache: MoveCache,
    /// The root's numbers as last computed (for the progress reports).
    pub root: (u32, u32),
    progress: &'a mut dyn FnMut(&Progress),
    started: Instant,
    last_report: Instant,
}

impl<'a> Search<'a> {
    /// A search of `board` for `attacker`'s win, with a table of `table_bytes` and a move
    /// cache of a quarter of that on top.
    pub fn new(
        board: &'a mut Board,
        attacker: Color,
        table_bytes: usize,
        budget: Budget,
        progress: &'a mut dyn FnMut(&Progress),
    ) -> Search<'a> {
        let now = Instant::now();
        Search {
            board,
            attacker,
            table: Table::with_bytes(table_bytes),
            budget,
            probe: ThreatProbe::new(),
            cache: MoveCache {
                moves: HashMap::new(),
                bytes: 0,
                max_bytes: table_bytes / 4,
            },
            root: (1, 1),
            progress,
            started: now,
            last_report: now,
        }
    }

    /// Searches the board's position until it is solved or the budget runs out; returns
    /// its numbers (`pn == 0`: proven, `dn == 0`: disproven).
    pub fn run(&mut self) -> (u32, u32) {
        if self.board.side_to_move() == self.attacker {
            // The root's own threat-space search gets a large share of the budget: a
            // win by threats alone is found there at a fraction of what the
            // proof-number search would spend reaching it node by node.
            let cap = (self.budget.max_nodes / ROOT_THREAT_SHARE)
                .clamp(THREAT_NODES, ROOT_THREAT_NODES_MAX);
            if self.threat_proof(cap).is_some() {
                self.root = (0, INFINITY);
                self.report();
                return self.root;
            }
        }
        let mut numbers = (1, 1);
        while numbers.0 != 0 && numbers.1 != 0 && !self.budget.exhausted() {
            numbers = self.mid(INFINITY, INFINITY, 0);
        }
        self.root = numbers;
        self.report();
        numbers
    }

    /// Proves the attacker node on the board (at `depth` plies below the root): by a
    /// threat-space search of its own first (of `cap` nodes, more than the node's
    /// searches may have had), else by searching it until it is solved or the budget
    /// runs out. Returns its table entry when it is proven.
    pub fn prove_here(&mut self, depth: usize, cap: u64) -> Option<Entry> {
        let key = self.board.hash();
        if let Some(e) = self.table.get(key).filter(Entry::is_proven) {
            return Some(e);
        }
        if let Some(entry) = self.threat_proof(cap) {
            return Some(entry);
        }
        let mut numbers = (1, 1);
        while numbers.0 != 0 && numbers.1 != 0 && !self.budget.exhausted() {
            numbers = self.mid(INFINITY, INFINITY, depth);
        }
        self.table.get(key).filter(Entry::is_proven)
    }

    /// The attacker node on the board proven by a threat-space search of at most `cap`
    /// nodes, stored in the table.
    fn threat_proof(&mut self, cap: u64) -> Option<Entry> {
        let first = self
            .probe
            .win(self.board, self.attacker, true, cap, &mut self.budget)?;
        let entry = Entry {
            key: self.board.hash(),
            pn: 0,
            dn: INFINITY,
            work: 1,
            best: first,
            threat_level: 0,
            by_threats: true,
        };
        self.table.put(entry);
        Some(entry)
    }

    /// Explores the node on the board until its pn reaches `th_pn` or its dn `th_dn` (or
    /// it is solved, or the budget runs out), stores it and returns its numbers.
    fn mid(&mut self, th_pn: u32, th_dn: u32, depth: usize) -> (u32, u32) {
        self.budget.pn_nodes += 1;
        self.maybe_report();
        let key = self.board.hash();
        let at_attacker = self.board.side_to_move() == self.attacker;
        let stored = self.table.get(key);
        if let Some(e) = stored.filter(|e| e.is_proven() || e.is_disproven()) {
            return (e.pn, e.dn);
        }
        let work_before = self.budget.used();
        let moves = match self.moves_of(key, stored) {
            Ok(moves) => moves,
            Err(entry) => {
                self.table.put(entry);
                return (entry.pn, entry.dn);
            }
        };
        let mut children: Vec<Child> = moves
            .iter()
            .map(|&mv| self.child_numbers(mv, at_attacker))
            .collect();
        let mut best = Pos::NONE;
        let (pn, dn) = loop {
            let (pn, dn) = combine(at_attacker, &children);
            if depth == 0 {
                self.root = (pn, dn);
            }
            let (i, second) = select(at_attacker, &children);
            if at_attacker || best.is_none() {
                best = children[i].mv;
            }
            if pn == 0 || dn == 0 || pn >= th_pn || dn >= th_dn || self.budget.exhausted() {
                break (pn, dn);
            }
            let c = children[i];
            let (c_pn, c_dn) = if at_attacker {
                (th_pn.min(widen(second)), add(th_dn - dn, c.dn))
            } else {
                (add(th_pn - pn, c.pn), th_dn.min(widen(second)))
            };
            self.board.make(c.mv);
            let (got_pn, got_dn) = self.mid(c_pn, c_dn, depth + 1);
            self.board.undo();
            children[i].pn = got_pn;
            children[i].dn = got_dn;
        };
        let old_work = stored.map_or(0, |e| e.work);
        let spent = self.budget.used() - work_before;
        self.table.put(Entry {
            key,
            pn,
            dn,
            work: old_work.saturating_add(spent.min(u64::from(u32::MAX)) as u32),
            best,
            threat_level: stored.map_or(0, |e| e.threat_level).saturating_add(1),
            by_threats: false,
        });
        (pn, dn)
    }

    /// The moves of the node on the board, or its entry when the node is settled here:
    /// at once by a five point, or by its threat-space search (run again, with the cap
    /// of the node's next level, each time the node is expanded), or by its moves
    /// (taken from the cache when it has them).
    fn moves_of(&mut self, key: u64, stored: Option<Entry>) -> Result<Box<[Pos]>, Entry> {
        let attacker = self.attacker;
        let level = stored.map_or(0, |e| e.threat_level);
        let settled = expand::at_once(self.board, attacker).or_else(|| {
            let cap = expand::threat_cap(level)?;
            expand::by_threats(self.board, attacker, cap, &mut self.probe, &mut self.budget)
        });
        let expansion = match settled {
            Some(x) => x,
            None => match self.cache.get(key) {
                Some(moves) => return Ok(moves.into()),
                None => expand::moves(self.board, attacker, &mut self.budget),
            },
        };
        let solved = |pn, dn, best, by_threats| Entry {
            key,
            pn,
            dn,
            work: 1,
            best,
            threat_level: level,
            by_threats,
        };
        match expansion {
            Expansion::Proven { best, by_threats } => Err(solved(0, INFINITY, best, by_threats)),
            Expansion::Disproven => Err(solved(INFINITY, 0, Pos::NONE, false)),
            Expansion::Children(moves) => {
                self.cache.put(key, &moves);
                Ok(moves.into())
            }
        }
    }

    /// A child's numbers: from the table, else the heuristic first guess.
    fn child_numbers(&self, mv: Pos, at_attacker: bool) -> Child {
        if let Some(e) = self.table.get(self.board.hash_after(mv)) {
            return Child {
                mv,
                pn: e.pn,
                dn: e.dn,
            };
        }
        let pn = if at_attacker {
            expand::initial_defender_pn(self.board, self.attacker, mv)
        } else {
            1
        };
        Child { mv, pn, dn: 1 }
    }

    fn maybe_report(&mut self) {
        if self.last_report.elapsed() >= PROGRESS_INTERVAL {
            self.report();
        }
    }

    fn report(&mut self) {
        self.last_report = Instant::now();
        let progress = Progress {
            attacker: self.attacker,
            root_pn: self.root.0,
            root_dn: self.root.1,
            pn_nodes: self.budget.pn_nodes,
            threat_nodes: self.budget.threat_nodes,
            elapsed: self.started.elapsed(),
            table_permille: self.table.permille(),
        };
        (self.progress)(&progress);
    }
}

/// `a + b`, saturating just below [`INFINITY`] (a sum of unsolved numbers is unsolved).
fn add(a: u32, b: u32) -> u32 {
    if a >= INFINITY || b >= INFINITY {
        INFINITY
    } else {
        (a + b).min(INFINITY - 1)
    }
}

/// The 1+ε threshold above the second-best child's number `second`.
fn widen(second: u32) -> u32 {
    if second >= INFINITY {
        INFINITY
    } else {
        add(second, second / EPSILON_DIVISOR + 1)
    }
}

/// The node's numbers from its children's.
fn combine(at_attacker: bool, children: &[Child]) -> (u32, u32) {
    let (mut least, mut sum) = (INFINITY, 0u32);
    for c in children {
        let (own, other) = if at_attacker {
            (c.pn, c.dn)
        } else {
            (c.dn, c.pn)
        };
        least = least.min(own);
        sum = add(sum, other);
    }
    if least == 0 {
        sum = INFINITY;
    }
    if at_attacker {
        (least, sum)
    } else {
        (sum, least)
    }
}

/// The child to search (least pn at an attacker node, least dn at a defender node; ties
/// to the first, the generation's best) and the second-least number.
fn select(at_attacker: bool, children: &[Child]) -> (usize, u32) {
    let number = |c: &Child| if at_attacker { c.pn } else { c.dn };
    let mut best = 0;
    let mut second = INFINITY;
    for (i, c) in children.iter().enumerate().skip(1) {
        if number(c) < number(&children[best]) {
            second = number(&children[best]);
            best = i;
        } else {
            second = second.min(number(c));
        }
    }
    (best, second)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn child(pn: u32, dn: u32) -> Child {
        Child {
            mv: Pos::NONE,
            pn,
            dn,
        }
    }

    #[test]
    fn numbers_combine_by_min_and_sum() {
        let kids = [child(3, 2), child(1, 5), child(4, 1)];
        assert_eq!(combine(true, &kids), (1, 8));
        assert_eq!(combine(false, &kids), (8, 1));
        let proven = [child(0, INFINITY), child(2, 2)];
        assert_eq!(combine(true, &proven), (0, INFINITY));
        let refuted = [child(INFINITY, 0), child(2, 2)];
        assert_eq!(combine(false, &refuted), (INFINITY, 0));
        assert_eq!(combine(true, &[child(INFINITY, 0)]), (INFINITY, 0));
    }

    #[test]
    fn the_best_child_and_the_runner_up_are_found() {
        let kids = [child(3, 2), child(1, 5), child(4, 1), child(1, 1)];
        assert_eq!(select(true, &kids), (1, 1));
        assert_eq!(select(false, &kids), (2, 1));
        assert_eq!(select(true, &[child(7, 7)]), (0, INFINITY));
        assert!(widen(4) > 4 && widen(INFINITY) == INFINITY);
        assert_eq!(add(INFINITY - 2, 5), INFINITY - 1);
    }
}
