//! `perftest fleet`'s document: per group of like runs, its devices, how far apart they are, the
//! ranking and the outliers, as text or markdown (JSON is the analysis's own serialization).

use crate::analysis::fleet::{Fleet, Group, Outlier, Standing, MIN_DEVICES, SLOW_SHARE};
use crate::format::{printable, si};

/// `-5.2%`.
pub(super) fn percent(change: f64) -> String {
    format!("{:+.1}%", change * 100.0)
}

/// An outlier as a sentence's end: `1.79 Tloads/s against the fleet's 1.89 (-5.0%, 9.1 spreads, its noise 0.1%)`.
fn outlier_text(o: &Outlier) -> String {
    let spreads = o.spreads.map_or("the others all equal".to_owned(), |s| format!("{s:.1} spreads"));
    let clock = o
        .clock_mhz
        .map_or(String::new(), |(mine, fleet)| format!("; at {mine:.0} MHz against the fleet's {fleet:.0}"));
    format!(
        "{} against the fleet's {} ({}, {spreads}, its noise {:.2}%{clock})",
        si(o.rate, &o.unit),
        si(o.median, &o.unit),
        percent(o.change),
        o.noise * 100.0
    )
}

/// How a group's devices stand, a line each.
fn ranking_lines(group: &Group) -> Vec<String> {
    group
        .ranking
        .iter()
        .enumerate()
        .map(|(n, s)| {
            let worst = s.worst.map_or(String::new(), |w| {
                format!(" (worst {}, {:.1}% in all)", percent(w), s.shortfall * 100.0)
            });
            let units = match s.slow_units {
                0 => String::new(),
                n => format!(", {n} slow compute unit(s)"),
            };
            let verdict = if s.slow { " [slower than its fleet]" } else { "" };
            format!(
                "{}. {}: {} slower{worst}, {} faster, of {} cases judged{units}{verdict}",
                n + 1,
                printable(&s.label),
                s.slower,
                s.faster,
                s.judged
            )
        })
        .collect()
}

/// What a group is, in a line.
pub(super) fn group_title(group: &Group) -> String {
    printable(&format!("{} ({}), {} devices", group.key.device, group.key.driver, group.devices.len()))
        .into_owned()
}

/// The group's typical spread: `0.13%`, or `unknown`.
pub(super) fn typical_spread(group: &Group) -> String {
    group.typical_spread.map_or("unknown".to_owned(), |s| format!("{:.2}%", s * 100.0))
}

/// What was judged, in a line.
fn judged_line(group: &Group) -> String {
    let spread = typical_spread(group);
    let mut line = format!(
        "{} cases judged (timed on {MIN_DEVICES} or more devices), {} on fewer; the fleet's typical spread \
         (1.4826 x MAD over the median) {spread}",
        group.judged, group.too_few
    );
    if group.devices.len() < MIN_DEVICES {
        line.push_str(&format!(
            "; with {} device(s) no case can be judged: no device can be told to be the odd one",
            group.devices.len()
        ));
    }
    line
}

/// A slow device and why: `node07/0000:1b:00.0 (12 of 65 cases)`, `... (1 slow compute unit(s))`.
pub fn slow_device(s: &Standing) -> String {
    let mut why = Vec::new();
    if s.slower > 0 {
        why.push(format!("{} of {} cases", s.slower, s.judged));
    }
    if s.slow_units > 0 {
        why.push(format!("{} slow compute unit(s)", s.slow_units));
    }
    printable(&format!("{} ({})", s.label, why.join(", "))).into_owned()
}

/// The verdict's last line.
fn verdict(fleet: &Fleet) -> String {
    let slow: Vec<String> = fleet.slow_devices().into_iter().map(slow_device).collect();
    let outliers: usize = fleet.groups.iter().map(|g| g.outliers.len()).sum();
    match slow.is_empty() {
        true if outliers > 0 => format!(
            "fleet: no device is slower than its fleet ({outliers} case(s) outside it, on no device in {:.0}% of its \
             cases: rerun those before acting on them)",
            SLOW_SHARE * 100.0
        ),
        true => "fleet: no device is slower than its fleet".to_owned(),
        false => printable(&format!(
            "fleet: slower than its fleet (slow in {:.0}% of its cases or more, or a compute unit slower than its \
             others): {}",
            SLOW_SHARE * 100.0,
            slow.join(", ")
        ))
        .into_owned(),
    }
}

/// The text document.
pub fn to_text(fleet: &Fleet) -> String {
    let mut out = String::new();
    for (n, group) in fleet.groups.iter().enumerate() {
        out.push_str(&format!("group {}: {}\n", n + 1, group_title(group)));
        out.push_str(&format!("  settings: {}\n", printable(&group.key.settings)));
        out.push_str(&format!("  {}\n", judged_line(group)));
        out.push_str("  devices, most slow cases first:\n");
        for line in ranking_lines(group) {
            out.push_str(&format!("    {line}\n"));
        }
        if !group.slow_units.is_empty() {
            out.push_str(&format!(
                "  compute units slower than their own GPU's others ({}):\n",
                group.slow_units.len()
            ));
            for u in &group.slow_units {
                let device = printable(&group.devices[u.device]).into_owned();
                out.push_str(&format!(
                    "    {device}  {}: unit {} {}\n",
                    printable(&u.case),
                    u.unit,
                    percent(u.change)
                ));
            }
        }
        if !group.outliers.is_empty() {
            out.push_str(&format!("  outside the fleet ({}), slowest first:\n", group.outliers.len()));
            for o in &group.outliers {
                let device = printable(&group.devices[o.device]).into_owned();
                out.push_str(&format!("    {device}  {}: {}\n", printable(&o.case), outlier_text(o)));
            }
        }
        out.push('\n');
    }
    for label in &fleet.untimed {
        out.push_str(&format!(
            "not judged: {} times nothing (--verify or --compile-only)\n",
            printable(label)
        ));
    }
    out.push_str(&verdict(fleet));
    out.push('\n');
    out
}

/// The markdown document.
pub fn to_markdown(fleet: &Fleet) -> String {
    let md = super::markdown::text;
    let mut out = String::from("# perftest fleet\n\n");
    for (n, group) in fleet.groups.iter().enumerate() {
        out.push_str(&format!("## Group {}: {}\n\n", n + 1, md(&group_title(group))));
        out.push_str(&format!("Settings: {}. {}.\n\n", md(&group.key.settings), md(&judged_line(group))));
        out.push_str("| rank | device | slower | worst | faster | judged |\n|---|---|---|---|---|---|\n");
        for (i, s) in group.ranking.iter().enumerate() {
            let worst = s.worst.map_or("-".to_owned(), percent);
            out.push_str(&format!(
                "| {} | {} | {} | {worst} | {} | {} |\n",
                i + 1,
                md(&s.label),
                s.slower,
                s.faster,
                s.judged
            ));
        }
        if !group.slow_units.is_empty() {
            out.push_str("\n| device | case | slow compute unit | against its GPU's median unit |\n|---|---|---|---|\n");
            for u in &group.slow_units {
                out.push_str(&format!(
                    "| {} | {} | {} | {} |\n",
                    md(&group.devices[u.device]),
                    md(&u.case),
                    u.unit,
                    percent(u.change)
                ));
            }
        }
        if !group.outliers.is_empty() {
            out.push_str("\n| device | case | rate | fleet median | change | spreads | its noise |\n");
            out.push_str("|---|---|---|---|---|---|---|\n");
            for o in &group.outliers {
                let spreads = o.spreads.map_or("-".to_owned(), |s| format!("{s:.1}"));
                out.push_str(&format!(
                    "| {} | {} | {} | {} | {} | {spreads} | {:.2}% |\n",
                    md(&group.devices[o.device]),
                    md(&o.case),
                    si(o.rate, &o.unit),
                    si(o.median, &o.unit),
                    percent(o.change),
                    o.noise * 100.0
                ));
            }
        }
        out.push('\n');
    }
    for label in &fleet.untimed {
        out.push_str(&format!("Not judged: {} times nothing.\n\n", md(label)));
    }
    out.push_str(&md(&verdict(fleet)));
    out.push('\n');
    out
}
