//! The pattern tables against the reference classifier, every line code that can occur
//! on a board (`is_realisable`), every rule; the others must stay `Dead`.

use wuzi::pattern::reference::{classify_placed, decode, new_memo};
use wuzi::pattern::{is_realisable, table, Cell, Pattern, CODE_COUNT};
use wuzi::types::{Color, Rule};

#[test]
fn every_line_code_of_every_rule_matches_the_reference_classifier() {
    for rule in Rule::ALL {
        let t = table(rule);
        for color in Color::BOTH {
            // A fresh memo filled in the opposite order from the table's build, so an
            // order-dependent memo bug would show up as a mismatch.
            let mut memo = new_memo();
            for code in (0..CODE_COUNT as u32).rev() {
                if !is_realisable(code) {
                    assert_eq!(t.lookup(code), [Pattern::Dead; 2], "code {code:#07x}");
                    continue;
                }
                let expected = classify_placed(
                    &decode(code, Cell::stone(color)),
                    color,
                    rule,
                    Some(&mut memo),
                );
                let got = t.lookup(code)[color.index()];
                assert_eq!(got, expected, "rule {rule}, {color:?}, code {code:#07x}");
            }
        }
    }
}

/// `Board` leaves out of a line code the stones five cells away where the rule's reach
/// says they never change a class (`reach_of`): checked here over every line code, and
/// the rules that keep them must have codes where such a stone does change the class.
#[test]
fn a_stone_out_of_the_rules_reach_never_changes_a_class() {
    use wuzi::board::reach_of;
    use wuzi::pattern::{slot_shift, HALF_LINE};
    let far = |code: u32| {
        [-(HALF_LINE as i32), HALF_LINE as i32]
            .map(|k| (slot_shift(k), Cell::from_bits(code >> slot_shift(k))))
    };
    for rule in Rule::ALL {
        let t = table(rule);
        let mut changed = 0;
        for code in (0..CODE_COUNT as u32).filter(|&c| is_realisable(c)) {
            // The same line with the far stones taken off (the edge stays).
            let mut near = code;
            for (shift, cell) in far(code) {
                if cell != Cell::Wall {
                    near &= !(3 << shift);
                }
            }
            if t.lookup(code) != t.lookup(near) {
                changed += 1;
                assert_eq!(
                    reach_of(rule),
                    HALF_LINE,
                    "rule {rule}: a stone five away changes code {code:#07x}"
                );
            }
        }
        if reach_of(rule) == HALF_LINE {
            assert!(changed > 0, "rule {rule} never needs the stones five away");
        }
    }
}
