//! What every chart draws alike: a colour per run that reads on white and apart from the others
//! (the Okabe-Ito palette, kind to colour-blind eyes), and hover values: transparent rectangles
//! over the marks, each with an SVG `<title>` a browser shows under the pointer.

use plotters::style::RGBColor;

/// Okabe and Ito's colours, less the yellow that does not read on white.
const PALETTE: [RGBColor; 7] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(0, 0, 0),
];

/// The colour of run (or series) `i`.
pub fn colour(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// The hover values of a chart: what to say over which rectangle.
#[derive(Debug, Default)]
pub struct Hovers(Vec<([i32; 4], String)>);

impl Hovers {
    /// Says `title` when the pointer is over the rectangle from (`x0`, `y0`) to (`x1`, `y1`).
    pub fn push(&mut self, (x0, y0): (i32, i32), (x1, y1): (i32, i32), title: String) {
        self.0.push(([x0, y0, x1.max(x0 + 1), y1.max(y0 + 1)], title));
    }

    /// `svg` with the hovers drawn last, over everything else.
    pub fn over(self, svg: &str) -> String {
        let Some(end) = svg.rfind("</svg>") else { return svg.to_owned() };
        let mut out = String::with_capacity(svg.len() + self.0.len() * 120);
        out.push_str(&svg[..end]);
        out.push_str("<g fill-opacity=\"0\">\n");
        for ([x0, y0, x1, y1], title) in self.0 {
            let title = crate::report::doc::escape(&crate::format::printable(&title));
            out.push_str(&format!(
                "<rect x=\"{x0}\" y=\"{y0}\" width=\"{}\" height=\"{}\"><title>{title}</title></rect>\n",
                x1 - x0,
                y1 - y0
            ));
        }
        out.push_str("</g>\n");
        out.push_str(&svg[end..]);
        out
    }
}

/// A sans-serif character's average width in ems (0.55: Helvetica's and DejaVu Sans's lower case
/// and digits average 0.5 to 0.6): how a chart without its font's metrics sizes a label.
const EM_PER_CHAR: f64 = 0.55;

/// The smallest label size a chart shrinks a long name to, pixels (no chart text is smaller).
pub const LEAST_LABEL: u32 = 11;

/// About how wide `text` is drawn `size` pixels tall, pixels.
pub fn label_px(text: &str, size: u32) -> f64 {
    text.chars().count() as f64 * f64::from(size) * EM_PER_CHAR
}

/// `name` as a label `size` pixels tall fits in `width` pixels: itself at `size` where it fits, at
/// a smaller size down to [`LEAST_LABEL`] where that fits, else cut in the middle at that size with
/// an ellipsis, keeping two thirds from its start and a third from its end (where the size or the
/// data is); the whole name is in its bars' hovers.
pub fn fitted(name: &str, size: u32, width: i32) -> (String, u32) {
    let chars = |px: u32| (f64::from(width.max(0)) / label_px("m", px)).floor() as usize;
    let count = name.chars().count();
    if let Some(px) = (LEAST_LABEL..=size.max(LEAST_LABEL)).rev().find(|&px| count <= chars(px)) {
        return (name.to_owned(), px);
    }
    let room = chars(LEAST_LABEL).saturating_sub(1);
    let tail = room / 3;
    let head = room - tail;
    let start: String = name.chars().take(head).collect();
    let end: String = name.chars().skip(count - tail).collect();
    // Whole words: "tiles … on random data", not "tiles…ions) on random data" (the start keeps
    // its partial last word where cutting it would lose more than half).
    let start = match start.rfind(' ') {
        Some(at) if at >= start.len() / 2 && !name[start.len()..].starts_with(' ') => &start[..at],
        _ => start.as_str(),
    };
    let end = match end.find(' ') {
        Some(at) if at + 1 < end.len() && !name[..name.len() - end.len()].ends_with(' ') => &end[at + 1..],
        _ => end.as_str(),
    };
    (format!("{} … {}", start.trim_end(), end.trim_start()), LEAST_LABEL)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hovers_go_last_escaped_and_colours_differ() {
        let mut hovers = Hovers::default();
        hovers.push((10, 20), (10, 30), "Buffer<R8>: 1.97 Tloads/s".into());
        let svg = hovers.over("<svg>\n<rect/>\n</svg>\n");
        assert!(svg.starts_with("<svg>\n<rect/>\n<g fill-opacity=\"0\">"), "{svg}");
        assert!(
            svg.contains("width=\"1\" height=\"10\"><title>Buffer&lt;R8&gt;: 1.97 Tloads/s</title></rect>"),
            "{svg}"
        );
        assert!(svg.ends_with("</g>\n</svg>\n"), "{svg}");
        assert!((0..7).all(|i| colour(i) != colour(i + 1)));
    }

    #[test]
    fn a_name_that_fits_keeps_its_size_a_longer_one_shrinks_then_is_cut_in_the_middle() {
        assert_eq!(fitted("ALU fp32 FMA", 13, 340), ("ALU fp32 FMA".to_owned(), 13));
        let long = "Copy host to device on a transfer-only queue 64 MiB";
        let (text, px) = fitted(long, 13, 340);
        assert_eq!(text, long);
        assert!((LEAST_LABEL..13).contains(&px) && label_px(&text, px) <= 340.0);
        let longer = "CoopMat bf16*bf16+f32 128x128x16 workgroup (256 invocations) on random data";
        let (text, px) = fitted(longer, 13, 340);
        assert_eq!(px, LEAST_LABEL);
        assert!(text.starts_with("CoopMat bf16*bf16+f32") && text.ends_with(" … on random data"), "{text}");
        assert!(text.contains('…') && label_px(&text, px) <= 340.0, "{text}");
    }
}
