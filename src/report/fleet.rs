//! `perftest fleet`'s document: per group of like runs, its devices, how far apart they are, the
//! ranking and the outliers, as text or markdown (JSON is the analysis's own serialization).

use crate::analysis::confirm::{Confirmation, Rejudged};
use crate::analysis::fleet::{Conclusion, Fleet, Group, Outlier, Standing, MIN_DEVICES, SLOW_SHARE};
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
                "{}. {}: {} slower{worst}, {} faster, of {} cases judged{units}{}{verdict}",
                n + 1,
                printable(&s.label),
                s.slower,
                s.faster,
                s.judged,
                runs(s)
            )
        })
        .collect()
}

/// A device's runs, where it has more than one: `; 2 runs of one GPU, 0.04% apart`.
fn runs(s: &Standing) -> String {
    match (s.runs, s.run_spread) {
        (0 | 1, _) => String::new(),
        (n, Some(spread)) => {
            format!("; {n} runs of one GPU, {:.2}% apart (median over its cases)", spread * 100.0)
        }
        (n, None) => format!("; {n} runs of one GPU"),
    }
}

/// How a re-measurement went: `118 of 122 case(s) slower than 0000:00:06.0 alone`.
fn rejudged(r: &Rejudged) -> String {
    let worst = r.worst.map_or(String::new(), |w| format!(", worst {}", percent(w)));
    format!("{} of {} case(s) slower than {}{worst}", r.slow, r.judged, printable(&r.against))
}

/// A confirmation, in a line.
fn confirmation(c: &Confirmation) -> String {
    let together = c.together.as_ref().map_or(String::new(), |t| {
        format!("; with {} at once: {}", printable(&c.with.join(", ")), rejudged(t))
    });
    format!(
        "{}: {} (families {}); alone: {}{together}",
        printable(&c.label),
        c.verdict.word(),
        c.families.join(", "),
        rejudged(&c.alone)
    )
}

/// Lines for what fails the screen without a rate to judge, and what was left out.
fn screen_lines(fleet: &Fleet) -> Vec<String> {
    let mut lines = Vec::new();
    for line in fleet.unjudged() {
        lines.push(format!("cannot be judged: {}", printable(&line)));
    }
    for left in &fleet.skipped {
        lines.push(format!("skipped: {} {}", printable(&left.label), printable(&left.why)));
    }
    for label in &fleet.untimed {
        lines.push(format!("not judged: {} times nothing (--verify or --compile-only)", printable(label)));
    }
    for c in &fleet.confirmations {
        lines.push(format!("confirmed: {}", confirmation(c)));
    }
    lines
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

/// The verdict's last line.
fn verdict(fleet: &Fleet) -> String {
    let outliers: usize = fleet.groups.iter().map(|g| g.outliers.len()).sum();
    let not_reproduced: Vec<&str> = fleet
        .confirmations
        .iter()
        .filter(|c| c.verdict == crate::analysis::confirm::Verdict::NotReproduced)
        .map(|c| c.label.as_str())
        .collect();
    let listed = match not_reproduced.is_empty() {
        true => String::new(),
        false => format!("; not reproduced when measured again: {}", not_reproduced.join(", ")),
    };
    let line = match fleet.conclusion() {
        Conclusion::Healthy if outliers > 0 => format!(
            "fleet: no device is slower than its fleet ({outliers} case(s) outside it, on no device in {:.0}% of its \
             cases){listed}",
            SLOW_SHARE * 100.0
        ),
        Conclusion::Healthy => format!("fleet: no device is slower than its fleet{listed}"),
        Conclusion::Slow(devices) => format!("fleet: slow, alone as among its fleet: {}", devices.join(", ")),
        Conclusion::Unjudged(devices) => format!("fleet: cannot be judged: {}", devices.join("; ")),
        Conclusion::Interference(devices) => {
            format!("fleet: slow only beside its host's other GPUs (interference): {}", devices.join("; "))
        }
        Conclusion::Unconfirmed(devices) => format!(
            "fleet: slower than its fleet (slow in {:.0}% of its cases or more), not yet measured again alone: {}; \
             run perftest fleet --confirm with these runs on its host",
            SLOW_SHARE * 100.0,
            devices.join(", ")
        ),
    };
    printable(&line).into_owned()
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
    for line in screen_lines(fleet) {
        out.push_str(&line);
        out.push('\n');
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
                    md(&si(o.rate, &o.unit)),
                    md(&si(o.median, &o.unit)),
                    percent(o.change),
                    o.noise * 100.0
                ));
            }
        }
        out.push('\n');
    }
    for line in screen_lines(fleet) {
        out.push_str(&format!("- {}\n", md(&line)));
    }
    out.push('\n');
    out.push_str(&md(&verdict(fleet)));
    out.push('\n');
    out
}
