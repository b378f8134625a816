//! Positions of the training games as sparse feature vectors, with their labels.

use crate::games::{Game, Result3, NO_VALUE};
use crate::model::Model;
use crate::progress::Progress;
use wuzi::board::Board;
use wuzi::eval::pcode;
use wuzi::types::{Color, Rule};

/// All positions of one rule, flattened: sample `i` has the features
/// `index[start[i]..start[i + 1]]` with the counts `count[…]`.
#[derive(Default)]
pub struct Dataset {
    pub start: Vec<u32>,
    pub index: Vec<u32>,
    pub count: Vec<f32>,
    /// The game's result for the side to move: 1 won, 0.5 drawn, 0 lost.
    pub result: Vec<f32>,
    /// The search's value for the side to move, in evaluation units.
    pub search: Vec<f32>,
    /// The hand-set evaluation's value for the side to move (a baseline to beat).
    pub baseline: Vec<f32>,
    /// Held out of the fit, to measure it.
    pub held_out: Vec<bool>,
    /// The side to move's colour index.
    pub stm: Vec<u8>,
    /// The move policy's samples: sample `i`'s candidates (the cells the search
    /// considers) are `cand_own/cand_opp[cand_start[i]..cand_start[i + 1]]`, each the
    /// pcode of the cell for the side to move and for the opponent; `chosen[i]` is the
    /// index among them of the move the search played.
    pub cand_start: Vec<u32>,
    pub cand_own: Vec<u16>,
    pub cand_opp: Vec<u16>,
    pub chosen: Vec<u32>,
}

impl Dataset {
    pub fn len(&self) -> usize {
        self.result.len()
    }

    pub fn candidates(&self, i: usize) -> std::ops::Range<usize> {
        self.cand_start[i] as usize..self.cand_start[i + 1] as usize
    }

    pub fn features(&self, i: usize) -> impl Iterator<Item = (usize, f32)> + '_ {
        let (a, b) = (self.start[i] as usize, self.start[i + 1] as usize);
        self.index[a..b]
            .iter()
            .zip(&self.count[a..b])
            .map(|(&i, &c)| (i as usize, c))
    }
}

/// Builds the dataset of `rule` from `games`: every position a search chose a move in
/// where neither side can make five (the positions the evaluation is asked about), the
/// games of every `holdout`-th index held out; with `valued_only`, only the positions
/// whose ply carries a value (a search's or a judge's).
pub fn build(
    games: &[Game],
    rule: Rule,
    model: &Model,
    holdout: usize,
    valued_only: bool,
) -> Dataset {
    let mut d = Dataset {
        start: vec![0],
        cand_start: vec![0],
        ..Dataset::default()
    };
    let games: Vec<&Game> = games.iter().filter(|g| g.rule == rule).collect();
    let progress = Progress::new(&format!("features {}", rule.name()), games.len() as u64);
    let mut features = Vec::new();
    let mut scratch = vec![0.0; model.len()];
    for (gi, g) in games.iter().enumerate() {
        if gi % 256 == 0 {
            progress.update(gi as u64, &format!("{} positions", d.len()));
        }
        let Ok(mut board) = Board::new(g.width, g.height, g.rule) else {
            continue;
        };
        for (ply, p) in g.plies.iter().enumerate() {
            let us = board.side_to_move();
            let quiet = !board.has_five_point(us) && !board.has_five_point(us.opponent());
            if ply >= g.opening_plies && quiet && (!valued_only || p.value != NO_VALUE) {
                features.clear();
                model.features(&board, &mut scratch, &mut features);
                for &(i, c) in &features {
                    d.index.push(i as u32);
                    d.count.push(c);
                }
                d.start.push(d.index.len() as u32);
                d.result.push(result_for(g.result, us));
                // A move no search of ours chose (a game against another engine) has
                // no value: its position is labelled by the result alone.
                d.search.push(if p.value == NO_VALUE {
                    f32::NAN
                } else {
                    p.value as f32
                });
                d.baseline
                    .push(crate::hand_set::Weights::default_for(rule).evaluate(&board) as f32);
                d.held_out.push(holdout > 0 && gi % holdout == 0);
                d.stm.push(us.index() as u8);
                let mut chosen = u32::MAX;
                // Moves of another engine teach the policy only where they won.
                let learn = p.value != NO_VALUE || result_for(g.result, us) == 1.0;
                let played = if learn { board.pos(p.at) } else { None };
                board.for_cells_near_stones(|q| {
                    if Some(q) == played {
                        chosen =
                            (d.cand_own.len() - *d.cand_start.last().unwrap_or(&0) as usize) as u32;
                    }
                    let lines = board.cell_patterns(q);
                    d.cand_own.push(pcode::pcode(&lines[us.index()]) as u16);
                    d.cand_opp
                        .push(pcode::pcode(&lines[us.opponent().index()]) as u16);
                });
                d.cand_start.push(d.cand_own.len() as u32);
                d.chosen.push(chosen);
            }
            if board.play(p.at).is_err() {
                break;
            }
        }
    }
    progress.finish(games.len() as u64, &format!("{} positions", d.len()));
    d
}

fn result_for(r: Result3, us: Color) -> f32 {
    match (r, us) {
        (Result3::Draw, _) => 0.5,
        (Result3::BlackWon, Color::Black) | (Result3::WhiteWon, Color::White) => 1.0,
        _ => 0.0,
    }
}
