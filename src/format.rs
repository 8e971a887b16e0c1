//! One way to write numbers and text for people, a leaf every layer may use: SI-prefixed rates
//! with three significant digits, per-clock figures with four, times, byte sizes, ratios, padding
//! that cannot panic, and text made safe for a terminal or XML.

/// Formats `value` with three significant digits and an SI prefix: `65.2 TFLOPS`.
pub fn si(value: f64, unit: &str) -> String {
    const PREFIXES: [&str; 9] = ["n", "µ", "m", "", "k", "M", "G", "T", "P"];
    if value == 0.0 || !value.is_finite() {
        return format!("{value} {unit}");
    }
    let mut exponent = (value.abs().log10() / 3.0).floor() as i32;
    let digits = |e: i32| {
        let scaled = value / 10f64.powi(3 * e);
        let decimals = if scaled.abs() >= 100.0 {
            0
        } else if scaled.abs() >= 10.0 {
            1
        } else {
            2
        };
        (format!("{scaled:.decimals$}"), scaled)
    };
    let (mut text, scaled) = digits(exponent);
    if text.trim_start_matches('-').starts_with("1000") && scaled.abs() < 1000.0 {
        exponent += 1; // 999.7 rounds to 1000: say 1.00 k instead
        text = digits(exponent).0;
    }
    let index = (exponent + 3).clamp(0, PREFIXES.len() as i32 - 1) as usize;
    if index as i32 != exponent + 3 {
        return format!("{value:e} {unit}");
    }
    format!("{text} {}{unit}", PREFIXES[index])
}

/// A number with four significant digits, for per-clock figures (`124.7`, `15.50`, `0.08600`);
/// never rounded to 0: below 10^-6 it switches to an exponent (`3.000e-7`).
pub fn sig4(value: f64) -> String {
    let magnitude = value.abs();
    if magnitude >= 1000.0 {
        return format!("{value:.0}");
    }
    if magnitude < 1e-6 {
        return format!("{value:.3e}");
    }
    // Digits after the point so that four significant ones show: 3 for [1, 10), 4 for [0.1, 1), ...
    let decimals = (3 - magnitude.log10().floor() as i32).max(0) as usize;
    format!("{value:.decimals$}")
}

/// A time in nanoseconds as text, in ns below a microsecond and in µs from one (`813.0 ns`,
/// `22.50 µs`), four significant digits.
pub fn ns_text(ns: f64) -> String {
    match ns < 1000.0 {
        true => format!("{} ns", sig4(ns)),
        false => format!("{} µs", sig4(ns / 1e3)),
    }
}

/// Seconds as run times are said: `415 s`, `12.3 s`, `0.42 s`.
pub fn seconds_text(s: f64) -> String {
    match s {
        s if s >= 100.0 => format!("{s:.0} s"),
        s if s >= 10.0 => format!("{s:.1} s"),
        s => format!("{s:.2} s"),
    }
}

/// Sizes in names: the largest binary unit that divides the value (`64 MiB`, `1536 KiB`, `100 B`).
pub fn format_bytes(bytes: u64) -> String {
    const UNITS: [(u32, &str); 4] = [(40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")];
    for (shift, unit) in UNITS {
        if bytes >= 1 << shift && bytes % (1 << shift) == 0 {
            return format!("{} {unit}", bytes >> shift);
        }
    }
    format!("{bytes} B")
}

/// Sizes in sentences, to a tenth of the largest binary unit not above them (`125.8 GiB`,
/// `3.9 GiB`, `512.0 KiB`, `100 B`).
pub fn size_text(bytes: u64) -> String {
    const UNITS: [(u32, &str); 4] = [(40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")];
    match UNITS.iter().find(|(shift, _)| bytes >= 1 << shift) {
        Some((shift, unit)) => format!("{:.1} {unit}", bytes as f64 / (1u64 << shift) as f64),
        None => format!("{bytes} B"),
    }
}

/// `text` padded with spaces after it to `width` characters. By hand: `format!`'s width
/// argument panics above 65,535, and a results file can hold a name that long.
pub fn pad_end(text: &str, width: usize) -> String {
    format!("{text}{}", " ".repeat(width.saturating_sub(text.chars().count())))
}

/// `text` padded with spaces before it to `width` characters (see [`pad_end`]).
pub fn pad_start(text: &str, width: usize) -> String {
    format!("{}{text}", " ".repeat(width.saturating_sub(text.chars().count())))
}

/// `noun` as `n` of them are said: the singular for one, else the plural (`case`, `cases`;
/// `family`, `families`; `copy`, `copies`). The one plural perftest's text uses.
pub fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        return noun.to_owned();
    }
    let consonant_y = noun.ends_with('y') && !noun[..noun.len() - 1].ends_with(['a', 'e', 'i', 'o', 'u']);
    match consonant_y {
        true => format!("{}ies", &noun[..noun.len() - 1]),
        false => format!("{noun}s"),
    }
}

/// The verb for `n` of something: `is` for one, else `are`.
pub fn is_are(n: usize) -> &'static str {
    if n == 1 {
        "is"
    } else {
        "are"
    }
}

/// `n` and the noun it counts: `1 case`, `4 cases`, `0 GPUs`.
pub fn count(n: usize, noun: &str) -> String {
    format!("{n} {}", plural(n, noun))
}

/// `text` as a terminal may show it: as [`printable`], but line breaks and tabs kept; what every
/// line perftest prints to stdout or stderr passes through, so a results file, a profile or a
/// driver cannot retitle, clear or overwrite the terminal with ESC, BEL or CR.
pub fn printable_lines(text: &str) -> std::borrow::Cow<'_, str> {
    let kept = |c: char| c == '\n' || c == '\t';
    if !text.chars().any(|c| !kept(c) && (c.is_control() || c == '\u{FFFE}' || c == '\u{FFFF}')) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            c if kept(c) => out.push(c),
            c => out.push_str(&printable(c.encode_utf8(&mut [0; 4]))),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// `text` safe to show on a terminal or put in XML: control characters (C0, DEL, C1) become
/// visible escapes (`\u{1b}`), and U+FFFE/U+FFFF (not characters in XML) become U+FFFD. Results
/// files are input like any other: their names must not move a cursor or break an SVG.
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    let bad = |c: char| c.is_control() || c == '\u{FFFE}' || c == '\u{FFFF}';
    if !text.chars().any(bad) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\u{FFFE}' | '\u{FFFF}' => out.push('\u{FFFD}'),
            c if c.is_control() => out.push_str(&c.escape_unicode().to_string()),
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// A ratio with three decimals, or three significant digits below 0.01 (`4.34e-4x`).
pub fn ratio_text(ratio: f64) -> String {
    if ratio >= 0.01 || ratio == 0.0 {
        format!("{ratio:.3}x")
    } else {
        format!("{ratio:.2e}x")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_is_singular_and_every_other_count_plural() {
        assert_eq!(count(1, "case"), "1 case");
        assert_eq!(count(0, "GPU"), "0 GPUs");
        assert_eq!(count(2, "family"), "2 families");
        assert_eq!(count(3, "copy"), "3 copies");
        assert_eq!(count(2, "day"), "2 days", "a vowel before the y");
        assert_eq!(plural(4, "compute queue family"), "compute queue families");
        assert_eq!((is_are(1), is_are(5)), ("is", "are"));
    }

    #[test]
    fn sizes_in_sentences_take_a_tenth_of_the_largest_unit() {
        assert_eq!(size_text(135_083_458_560), "125.8 GiB");
        assert_eq!(size_text(512 << 10), "512.0 KiB");
        assert_eq!(size_text(100), "100 B");
        assert_eq!(size_text(3 << 40), "3.0 TiB");
    }

    #[test]
    fn sizes_print_with_binary_units() {
        assert_eq!(format_bytes(16 << 10), "16 KiB");
        assert_eq!(format_bytes(64 << 20), "64 MiB");
        assert_eq!(format_bytes(2 << 30), "2 GiB");
        assert_eq!(format_bytes(1536 << 10), "1536 KiB");
        assert_eq!(format_bytes(100), "100 B");
    }

    #[test]
    fn si_keeps_three_significant_digits() {
        assert_eq!(si(65.21e12, "FLOPS"), "65.2 TFLOPS");
        assert_eq!(si(16.44e12, "IOPS"), "16.4 TIOPS");
        assert_eq!(si(1.234e9, "FLOPS"), "1.23 GFLOPS");
        assert_eq!(si(133.8e12, "FLOPS"), "134 TFLOPS");
        assert_eq!(si(999.7e9, "FLOPS"), "1.00 TFLOPS");
        assert_eq!(si(512.0, "B/s"), "512 B/s");
        assert_eq!(si(0.0201, "s"), "20.1 ms");
    }

    #[test]
    fn control_characters_are_shown_not_obeyed() {
        assert_eq!(printable("Buffer<R8>.Load uniform"), "Buffer<R8>.Load uniform");
        assert_eq!(printable("a\u{1b}[31mb"), "a\\u{1b}[31mb");
        assert_eq!(printable("nul\0 c1\u{9b} del\u{7f}"), "nul\\u{0} c1\\u{9b} del\\u{7f}");
        assert_eq!(printable("x\u{FFFE}y\u{FFFF}"), "x\u{FFFD}y\u{FFFD}");
    }

    #[test]
    fn small_ratios_keep_three_significant_digits() {
        assert_eq!(ratio_text(0.2), "0.200x");
        assert_eq!(ratio_text(0.000434), "4.34e-4x");
        assert_eq!(ratio_text(2.985), "2.985x");
    }
}
