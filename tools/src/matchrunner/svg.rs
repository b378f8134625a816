//! Inline SVG for the match report: line charts with bands, grouped histograms and
//! Gomoku boards. Plain strings, no external resources; colours come from the page's
//! CSS classes (`report.css` in `html`), so the pictures follow the page's style.

use std::fmt::Write;
use wuzi::types::{Color, Coord};

/// Escapes text for HTML and SVG content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A polyline of a chart, styled by a CSS class.
pub struct Line {
    pub class: &'static str,
    pub points: Vec<(f64, f64)>,
}

/// The area between two curves over the same x values.
pub struct Band {
    pub class: &'static str,
    pub lower: Vec<(f64, f64)>,
    pub upper: Vec<(f64, f64)>,
}

/// A labelled horizontal line (a bound, zero).
pub struct Level {
    pub class: &'static str,
    pub y: f64,
    pub label: String,
}

/// A line chart: `x_range` and `y_range` are the axes' extents; values outside the y
/// range are drawn on its edge.
pub struct Chart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub x_range: (f64, f64),
    pub y_range: (f64, f64),
    pub bands: Vec<Band>,
    pub lines: Vec<Line>,
    pub levels: Vec<Level>,
}

const WIDTH: f64 = 640.0;
const HEIGHT: f64 = 260.0;
const LEFT: f64 = 56.0;
const RIGHT: f64 = 16.0;
const TOP: f64 = 12.0;
const BOTTOM: f64 = 40.0;

/// Tick values for an axis: steps of 1, 2 or 5 times a power of ten, about `count`.
pub fn ticks(low: f64, high: f64, count: usize) -> Vec<f64> {
    if high <= low || !low.is_finite() || !high.is_finite() {
        return vec![low];
    }
    let raw = (high - low) / count.max(1) as f64;
    let power = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * power)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * power);
    let mut out = Vec::new();
    let mut value = (low / step).ceil() * step;
    while value <= high + step * 1e-9 {
        // Adding 0.0 turns −0.0 into +0.0.
        out.push((value / step).round() * step + 0.0);
        value += step;
    }
    out
}

/// A tick label: no decimals for whole numbers.
fn tick_label(value: f64) -> String {
    if value.fract().abs() < 1e-9 {
        format!("{}", value.round() as i64)
    } else {
        format!("{}", (value * 1000.0).round() / 1000.0)
    }
}

/// Maps data coordinates to the plot area.
struct Frame {
    x: (f64, f64),
    y: (f64, f64),
}

impl Frame {
    fn px(&self, x: f64) -> f64 {
        let span = (self.x.1 - self.x.0).max(1e-12);
        LEFT + (x - self.x.0) / span * (WIDTH - LEFT - RIGHT)
    }

    fn py(&self, y: f64) -> f64 {
        let span = (self.y.1 - self.y.0).max(1e-12);
        let y = y.clamp(self.y.0, self.y.1);
        HEIGHT - BOTTOM - (y - self.y.0) / span * (HEIGHT - TOP - BOTTOM)
    }

    fn path(&self, points: &[(f64, f64)]) -> String {
        let mut out = String::new();
        for &(x, y) in points {
            let _ = write!(out, "{:.1},{:.1} ", self.px(x), self.py(y));
        }
        out.trim_end().to_string()
    }
}

/// The axes, grid and labels of a chart.
fn axes(frame: &Frame, title: &str, x_label: &str, y_label: &str, x_ticks: &[f64]) -> String {
    let mut svg = format!(
        "<svg class=\"chart\" viewBox=\"0 0 {WIDTH} {HEIGHT}\" role=\"img\" aria-label=\"{}\">",
        escape(title)
    );
    let (bottom, right) = (HEIGHT - BOTTOM, WIDTH - RIGHT);
    for y in ticks(frame.y.0, frame.y.1, 6) {
        let py = frame.py(y);
        let _ = write!(
            svg,
            "<line class=\"grid\" x1=\"{LEFT}\" y1=\"{py:.1}\" x2=\"{right}\" y2=\"{py:.1}\"/>\
             <text class=\"tick\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            LEFT - 4.0,
            py + 4.0,
            tick_label(y)
        );
    }
    for &x in x_ticks {
        let px = frame.px(x);
        let _ = write!(
            svg,
            "<line class=\"grid\" x1=\"{px:.1}\" y1=\"{TOP}\" x2=\"{px:.1}\" y2=\"{bottom}\"/>\
             <text class=\"tick\" x=\"{px:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            bottom + 14.0,
            tick_label(x)
        );
    }
    let _ = write!(
        svg,
        "<rect class=\"frame\" x=\"{LEFT}\" y=\"{TOP}\" width=\"{:.1}\" height=\"{:.1}\"/>\
         <text class=\"axis\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>\
         <text class=\"axis\" transform=\"translate(14 {:.1}) rotate(-90)\" text-anchor=\"middle\">{}</text>",
        right - LEFT,
        bottom - TOP,
        (LEFT + right) / 2.0,
        HEIGHT - 6.0,
        escape(x_label),
        (TOP + bottom) / 2.0,
        escape(y_label)
    );
    svg
}

pub fn line_chart(chart: &Chart) -> String {
    let frame = Frame {
        x: chart.x_range,
        y: chart.y_range,
    };
    let x_ticks = ticks(chart.x_range.0, chart.x_range.1, 8);
    let mut svg = axes(
        &frame,
        &chart.title,
        &chart.x_label,
        &chart.y_label,
        &x_ticks,
    );
    for band in &chart.bands {
        let mut outline: Vec<(f64, f64)> = band.upper.clone();
        outline.extend(band.lower.iter().rev());
        let _ = write!(
            svg,
            "<polygon class=\"{}\" points=\"{}\"/>",
            band.class,
            frame.path(&outline)
        );
    }
    for level in &chart.levels {
        let py = frame.py(level.y);
        let _ = write!(
            svg,
            "<line class=\"{}\" x1=\"{LEFT}\" y1=\"{py:.1}\" x2=\"{:.1}\" y2=\"{py:.1}\"/>\
             <text class=\"level\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            level.class,
            WIDTH - RIGHT,
            WIDTH - RIGHT - 4.0,
            py - 4.0,
            escape(&level.label)
        );
    }
    for line in &chart.lines {
        let _ = write!(
            svg,
            "<polyline class=\"{}\" points=\"{}\"/>",
            line.class,
            frame.path(&line.points)
        );
    }
    svg.push_str("</svg>");
    svg
}

/// A histogram of one or two series over the same bins: `edges` has one more value than
/// there are bins; `counts[bin][series]`; bars of a bin stand side by side. `marks` are
/// labelled vertical lines (a time limit).
pub fn histogram(
    title: &str,
    x_label: &str,
    edges: &[f64],
    counts: &[Vec<u64>],
    classes: &[&str],
    marks: &[(f64, String)],
) -> String {
    let (Some(&first), Some(&last)) = (edges.first(), edges.last()) else {
        return String::new();
    };
    let highest = counts.iter().flatten().copied().max().unwrap_or(0).max(1) as f64;
    let frame = Frame {
        x: (first, last),
        y: (0.0, highest * 1.05),
    };
    let mut svg = axes(&frame, title, x_label, "moves", &ticks(first, last, 8));
    let series = classes.len().max(1) as f64;
    for (bin, bin_counts) in counts.iter().enumerate() {
        let (left, right) = (frame.px(edges[bin]), frame.px(edges[bin + 1]));
        let width = (right - left) / series;
        for (s, &count) in bin_counts.iter().enumerate() {
            if count == 0 {
                continue;
            }
            let top = frame.py(count as f64);
            let _ = write!(
                svg,
                "<rect class=\"{}\" x=\"{:.1}\" y=\"{top:.1}\" width=\"{:.1}\" height=\"{:.1}\"><title>{} moves</title></rect>",
                classes.get(s).unwrap_or(&"bar"),
                left + s as f64 * width + 0.5,
                (width - 1.0).max(0.5),
                (HEIGHT - BOTTOM - top).max(0.0),
                count
            );
        }
    }
    for (x, label) in marks {
        let px = frame.px(*x);
        let _ = write!(
            svg,
            "<line class=\"limit\" x1=\"{px:.1}\" y1=\"{TOP}\" x2=\"{px:.1}\" y2=\"{:.1}\"/>\
             <text class=\"level\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            HEIGHT - BOTTOM,
            px - 4.0,
            TOP + 12.0,
            escape(label)
        );
    }
    svg.push_str("</svg>");
    svg
}

/// What a board picture shows besides the stones.
pub struct BoardMarks<'a> {
    /// The first stones that came from the opening (their numbers are drawn lighter).
    pub opening_stones: usize,
    /// Stones of a winning line, drawn through.
    pub winning_line: &'a [Coord],
}

/// Column label: letters as in "pos" notation (a = x 0), numbers past z.
fn column_label(x: usize) -> String {
    if x < 26 {
        ((b'a' + x as u8) as char).to_string()
    } else {
        (x + 1).to_string()
    }
}

/// A board with its stones numbered in move order (black first); the last move is
/// ringed, the one before it marked with a smaller ring. Row 1 is the protocol's y = 0,
/// at the top.
pub fn board(width: usize, height: usize, stones: &[Coord], marks: &BoardMarks) -> String {
    const CELL: f64 = 22.0;
    const MARGIN: f64 = 22.0;
    let pixel = |v: i32| MARGIN + CELL * v as f64;
    let (w_px, h_px) = (
        2.0 * MARGIN + CELL * (width.max(1) - 1) as f64,
        2.0 * MARGIN + CELL * (height.max(1) - 1) as f64,
    );
    let mut svg = format!(
        "<svg class=\"board\" viewBox=\"0 0 {w_px} {h_px}\" role=\"img\" aria-label=\"board\">\
         <rect class=\"wood\" x=\"0\" y=\"0\" width=\"{w_px}\" height=\"{h_px}\"/>"
    );
    for x in 0..width {
        let px = pixel(x as i32);
        let _ = write!(
            svg,
            "<line class=\"gridline\" x1=\"{px}\" y1=\"{MARGIN}\" x2=\"{px}\" y2=\"{}\"/>\
             <text class=\"coord\" x=\"{px}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
            h_px - MARGIN,
            MARGIN - 9.0,
            column_label(x)
        );
    }
    for y in 0..height {
        let py = pixel(y as i32);
        let _ = write!(
            svg,
            "<line class=\"gridline\" x1=\"{MARGIN}\" y1=\"{py}\" x2=\"{}\" y2=\"{py}\"/>\
             <text class=\"coord\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
            w_px - MARGIN,
            MARGIN - 12.0,
            py + 3.5,
            y + 1
        );
    }
    for (i, c) in stones.iter().enumerate() {
        let color = Color::BOTH[i % 2];
        let (cx, cy) = (pixel(c.x), pixel(c.y));
        let (stone, number) = match color {
            Color::Black => ("black", "on-black"),
            Color::White => ("white", "on-white"),
        };
        let opening = if i < marks.opening_stones {
            " opening"
        } else {
            ""
        };
        let _ = write!(
            svg,
            "<circle class=\"stone {stone}\" cx=\"{cx}\" cy=\"{cy}\" r=\"{:.1}\"><title>{} {}</title></circle>\
             <text class=\"number {number}{opening}\" x=\"{cx}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            CELL * 0.46,
            i + 1,
            c.to_pos_notation(),
            cy + 3.5,
            i + 1
        );
    }
    if let (Some(first), Some(last)) = (marks.winning_line.first(), marks.winning_line.last()) {
        let _ = write!(
            svg,
            "<line class=\"win\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>",
            pixel(first.x),
            pixel(first.y),
            pixel(last.x),
            pixel(last.y)
        );
    }
    for (back, class, radius) in [(2, "previous", 0.36), (1, "last", 0.58)] {
        if let Some(c) = stones.len().checked_sub(back).map(|i| stones[i]) {
            let _ = write!(
                svg,
                "<circle class=\"{class}\" cx=\"{}\" cy=\"{}\" r=\"{:.1}\"/>",
                pixel(c.x),
                pixel(c.y),
                CELL * radius
            );
        }
    }
    svg.push_str("</svg>");
    svg
}

/// The longest line of `stones`' colour through the last stone (for a won game: its
/// five), in order along the line; empty when shorter than five.
pub fn line_through_last(stones: &[Coord]) -> Vec<Coord> {
    let Some(&last) = stones.last() else {
        return Vec::new();
    };
    let parity = (stones.len() - 1) % 2;
    let own: std::collections::HashSet<Coord> = stones
        .iter()
        .enumerate()
        .filter(|(i, _)| i % 2 == parity)
        .map(|(_, &c)| c)
        .collect();
    let mut best = Vec::new();
    for (dx, dy) in [(1, 0), (0, 1), (1, 1), (1, -1)] {
        let walk = |sign: i32| {
            (1..)
                .map(move |k| Coord::new(last.x + sign * k * dx, last.y + sign * k * dy))
                .take_while(|c| own.contains(c))
                .collect::<Vec<_>>()
        };
        let mut line: Vec<Coord> = walk(-1).into_iter().rev().collect();
        line.push(last);
        line.extend(walk(1));
        if line.len() > best.len() {
            best = line;
        }
    }
    if best.len() >= 5 {
        best
    } else {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_numbers_inside_the_range() {
        assert_eq!(ticks(0.0, 10.0, 5), [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        assert_eq!(ticks(-140.0, 120.0, 6), [-100.0, -50.0, 0.0, 50.0, 100.0]);
        assert_eq!(ticks(1.0, 1.0, 5), [1.0]);
        assert_eq!(tick_label(0.25), "0.25");
        assert_eq!(tick_label(-50.0), "-50");
    }

    #[test]
    fn text_is_escaped() {
        assert_eq!(escape("a<b & \"c\"'"), "a&lt;b &amp; &quot;c&quot;&#39;");
    }

    #[test]
    fn boards_number_the_stones_and_mark_the_last_moves() {
        let stones: Vec<Coord> = [(7, 7), (8, 8), (6, 7)]
            .iter()
            .map(|&(x, y)| Coord::new(x, y))
            .collect();
        let svg = board(
            15,
            15,
            &stones,
            &BoardMarks {
                opening_stones: 1,
                winning_line: &[],
            },
        );
        assert_eq!(svg.matches("<circle class=\"stone black\"").count(), 2);
        assert_eq!(svg.matches("<circle class=\"stone white\"").count(), 1);
        assert!(svg.contains("<title>3 g8</title>"));
        assert!(svg.contains("class=\"number on-black opening\""));
        assert_eq!(svg.matches("class=\"last\"").count(), 1);
        assert_eq!(svg.matches("class=\"previous\"").count(), 1);
        assert!(svg.contains(">o</text>") && svg.contains(">15</text>"));
    }

    #[test]
    fn the_winning_line_is_found_through_the_last_stone() {
        // Black: (0,0) (1,1) (2,2) (4,4), then (3,3) completes the diagonal.
        let stones: Vec<Coord> = [
            (0, 0),
            (0, 5),
            (1, 1),
            (1, 5),
            (2, 2),
            (2, 5),
            (4, 4),
            (3, 5),
            (3, 3),
        ]
        .iter()
        .map(|&(x, y)| Coord::new(x, y))
        .collect();
        let line = line_through_last(&stones);
        assert_eq!(line.first(), Some(&Coord::new(0, 0)));
        assert_eq!(line.last(), Some(&Coord::new(4, 4)));
        assert_eq!(line.len(), 5);
        assert!(line_through_last(&stones[..8]).is_empty());
    }

    #[test]
    fn charts_draw_their_parts() {
        let chart = Chart {
            title: "Elo".into(),
            x_label: "games".into(),
            y_label: "Elo".into(),
            x_range: (0.0, 10.0),
            y_range: (-100.0, 100.0),
            bands: vec![Band {
                class: "band",
                lower: vec![(1.0, -50.0), (2.0, -500.0)],
                upper: vec![(1.0, 50.0), (2.0, 500.0)],
            }],
            lines: vec![Line {
                class: "elo",
                points: vec![(1.0, 0.0), (2.0, 10.0)],
            }],
            levels: vec![Level {
                class: "bound",
                y: 0.0,
                label: "zero".into(),
            }],
        };
        let svg = line_chart(&chart);
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
        assert!(svg.contains("<polygon class=\"band\""));
        assert!(svg.contains("<polyline class=\"elo\""));
        assert!(svg.contains(">zero</text>"));
        // 500 is clamped to the top of the plot area.
        assert!(svg.contains(&format!("{:.1},{:.1}", 56.0 + 2.0 / 10.0 * 568.0, TOP)));
        let h = histogram(
            "t",
            "ms",
            &[0.0, 1.0, 2.0],
            &[vec![3, 0], vec![1, 2]],
            &["a", "b"],
            &[(1.5, "limit".into())],
        );
        assert!(h.contains("<line class=\"limit\"") && h.contains(">limit</text>"));
        assert_eq!(h.matches("<rect class=\"a\"").count(), 2);
        assert_eq!(h.matches("<rect class=\"b\"").count(), 1);
    }
}
