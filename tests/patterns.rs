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
