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
}
