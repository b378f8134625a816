//! A cell's code for the learned tables: what one colour makes on all four lines of an
//! empty cell, as the multiset of its four line classes.
//!
//! The four classes in direction order form a *key* (`KEY_COUNT` of them), the index the
//! board's tables are read with on every make/undo. Keys that differ only by the order of
//! their directions describe the same shape turned or mirrored, so the learned values are
//! indexed by the sorted multiset instead (a *pcode*, `PCODE_COUNT` of them): a value
//! table expanded over keys is the same for every orientation of the board by
//! construction.

pub use crate::pattern::cell_key as key;
use crate::pattern::{Pattern, CELL_KEY_COUNT as KEY_COUNT, CELL_KEY_DIGIT as DIGIT};
use once_cell::sync::Lazy;

/// Line classes per direction.
const CLASSES: usize = Pattern::COUNT;
/// Distinct multisets of four classes: C(CLASSES + 3, 4).
pub const PCODE_COUNT: usize = 1001;

/// The classes of a key, direction 0 first.
pub fn classes_of_key(key: usize) -> [Pattern; 4] {
    std::array::from_fn(|d| Pattern::from_u8(((key / DIGIT[d]) % CLASSES) as u8))
}

/// For every key, its pcode; and for every pcode, its classes, strongest first.
struct Codes {
    pcode_of_key: Box<[u16]>,
    classes_of_pcode: Vec<[Pattern; 4]>,
}

static CODES: Lazy<Codes> = Lazy::new(|| {
    let mut classes_of_pcode = Vec::with_capacity(PCODE_COUNT);
    for a in 0..CLASSES {
        for b in 0..=a {
            for c in 0..=b {
                for d in 0..=c {
                    classes_of_pcode.push([a, b, c, d].map(|v| Pattern::from_u8(v as u8)));
                }
            }
        }
    }
    debug_assert_eq!(classes_of_pcode.len(), PCODE_COUNT);
    let pcode_of_key = (0..KEY_COUNT)
        .map(|k| {
            let mut lines = classes_of_key(k);
            lines.sort_unstable_by(|x, y| y.cmp(x));
            let i = classes_of_pcode.binary_search(&lines).unwrap_or(0);
            i as u16
        })
        .collect();
    Codes {
        pcode_of_key,
        classes_of_pcode,
    }
});

/// The pcode of a key.
#[inline]
pub fn pcode_of_key(key: usize) -> usize {
    CODES.pcode_of_key[key % KEY_COUNT] as usize
}

/// The pcode of four line classes.
#[inline]
pub fn pcode(lines: &[Pattern; 4]) -> usize {
    pcode_of_key(key(lines))
}

/// The classes of a pcode, strongest first.
pub fn classes_of_pcode(pcode: usize) -> [Pattern; 4] {
    CODES.classes_of_pcode[pcode.min(PCODE_COUNT - 1)]
}

/// A table over pcodes spread over keys, for lookups by key.
pub fn expand<T: Copy>(by_pcode: &[T; PCODE_COUNT]) -> Box<[T]> {
    (0..KEY_COUNT).map(|k| by_pcode[pcode_of_key(k)]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pcodes_are_the_sorted_multisets_of_the_four_classes() {
        // Every multiset is reached, the order of the directions never matters, and the
        // classes a pcode stands for are those of its keys.
        let mut seen = vec![false; PCODE_COUNT];
        for k in 0..KEY_COUNT {
            let lines = classes_of_key(k);
            assert_eq!(key(&lines), k);
            let p = pcode(&lines);
            seen[p] = true;
            let mut sorted = lines;
            sorted.sort_unstable_by(|x, y| y.cmp(x));
            assert_eq!(classes_of_pcode(p), sorted);
            let turned = [lines[1], lines[0], lines[3], lines[2]];
            assert_eq!(pcode(&turned), p);
        }
        assert!(seen.iter().all(|&s| s));
    }
}
