//! Shards: one match split into N slices that run apart (on the nodes of a cluster) and
//! are merged afterwards (`merge`).
//!
//! A shard is a contiguous slice of the game pairs: games 2k and 2k+1 play one opening
//! with colours swapped (`opening::schedule`), so both colours of an opening are always
//! in the same shard and the pair statistics of the merge see whole pairs. Every shard
//! computes the whole schedule and keeps the match's game numbers, so records and
//! summaries of different shards never collide.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::Range;

/// The `index`-th (1-based) of `count` shards.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl Shard {
    /// Parses `K/N` with 1 ≤ K ≤ N.
    pub fn parse(text: &str) -> Result<Shard, String> {
        let (k, n) = text
            .split_once('/')
            .ok_or_else(|| format!("expected K/N, got {text:?}"))?;
        let number = |s: &str| {
            s.trim()
                .parse::<usize>()
                .map_err(|_| format!("expected K/N, got {text:?}"))
        };
        let shard = Shard {
            index: number(k)?,
            count: number(n)?,
        };
        if shard.index == 0 || shard.index > shard.count {
            return Err(format!("shard {shard}: K must be between 1 and N"));
        }
        Ok(shard)
    }

    /// The 0-based game numbers of this shard in a match of `games` games: the pairs
    /// `⌊(K−1)·P/N⌋ .. ⌊K·P/N⌋` of its P = ⌈games/2⌉ pairs (a last, odd game is a pair
    /// of its own). Shards differ in size by at most one pair; some are empty when there
    /// are more shards than pairs.
    pub fn games(&self, games: usize) -> Range<usize> {
        let pairs = games.div_ceil(2);
        let first_pair = (self.index - 1) * pairs / self.count;
        let end_pair = self.index * pairs / self.count;
        (2 * first_pair).min(games)..(2 * end_pair).min(games)
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl TryFrom<String> for Shard {
    type Error = String;
    fn try_from(text: String) -> Result<Shard, String> {
        Shard::parse(&text)
    }
}

impl From<Shard> for String {
    fn from(shard: Shard) -> String {
        shard.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_k_of_n() {
        assert_eq!(Shard::parse("2/4"), Ok(Shard { index: 2, count: 4 }));
        assert_eq!(
            Shard::parse(" 1 / 1 ").map(|s| s.to_string()),
            Ok("1/1".into())
        );
        for bad in ["0/4", "5/4", "2", "a/4", "2/0", "-1/4"] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn shards_cover_every_game_once_and_keep_pairs_together() {
        for games in [0, 1, 2, 7, 8, 240, 241] {
            for count in 1..=9 {
                let mut seen = Vec::new();
                for index in 1..=count {
                    let range = Shard { index, count }.games(games);
                    // Slices start on a pair, so 2k and 2k+1 are never split.
                    assert!(
                        range.start.is_multiple_of(2),
                        "{games} games, {index}/{count}"
                    );
                    assert!(range.end.is_multiple_of(2) || range.end == games);
                    seen.extend(range);
                }
                assert_eq!(
                    seen,
                    (0..games).collect::<Vec<_>>(),
                    "{games} games / {count}"
                );
            }
        }
        // 8 pairs in 3 shards: 2, 3 and 3 pairs.
        let sizes: Vec<usize> = (1..=3)
            .map(|index| Shard { index, count: 3 }.games(16).len())
            .collect();
        assert_eq!(sizes, [4, 6, 6]);
    }

    #[test]
    fn json_form_is_k_slash_n() {
        let shard = Shard { index: 3, count: 8 };
        assert_eq!(serde_json::to_string(&shard).unwrap(), "\"3/8\"");
        assert_eq!(serde_json::from_str::<Shard>("\"3/8\"").unwrap(), shard);
        assert!(serde_json::from_str::<Shard>("\"9/8\"").is_err());
    }
}
