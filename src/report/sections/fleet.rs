//! The fleet's verdict as one view: per group of like runs its devices, how far apart they are,
//! the ranking, the slow compute units and the outliers; then what could not be judged and the
//! verdict. `perftest fleet` renders it as text or markdown (its JSON is the analysis's own
//! serialization), and the report's page holds its groups.

use super::super::doc::{self, Block};
use crate::analysis::confirm::{Confirmation, Rejudged};
use crate::analysis::fleet::{
    judge, Conclusion, Fleet, Group, Hungry, Member, Outlier, Standing, State, ENERGY_MARGIN, MIN_DEVICES,
};
use crate::format::{count, si};
use crate::results::model::Run;

/// `-5.2%`.
fn percent(change: f64) -> String {
    format!("{:+.1}%", change * 100.0)
}

/// An outlier as a sentence's end: `1.79 Tloads/s against the fleet's 1.89 (-5.0%, 9.1 spreads, its noise 0.1%)`.
fn outlier_text(o: &Outlier, whose: &str) -> String {
    let spreads = o.spreads.map_or("the others all equal".to_owned(), |s| format!("{s:.1} spreads"));
    let clock = o
        .clock_mhz
        .map_or(String::new(), |(mine, fleet)| format!("; at {mine:.0} MHz against the fleet's {fleet:.0}"));
    format!(
        "{} against the {whose} {} ({}, {spreads}, its noise {:.2}%{clock})",
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
        .map(|s| {
            let worst = s.worst.map_or(String::new(), |w| {
                format!(" (worst {}, {:.1}% in all)", percent(w), s.shortfall * 100.0)
            });
            let units = match s.slow_units {
                0 => String::new(),
                n => format!(", {} slow", count(n, "compute unit")),
            };
            let verdict = match s.state {
                State::Healthy => String::new(),
                State::Differs => {
                    format!(
                        " [differs within the {:.1}% tolerance: {}]",
                        group.tolerance * 100.0,
                        s.size_text()
                    )
                }
                State::Slow => {
                    format!(" [slow beyond the {:.1}% tolerance: {}]", group.tolerance * 100.0, s.size_text())
                }
            };
            let unresolved = match s.unresolved.is_empty() {
                true => String::new(),
                false => format!(
                    " [not judged: {}: a slowdown past the {:.1}% tolerance can be neither found nor ruled out]",
                    s.unresolved_text(),
                    group.tolerance * 100.0
                ),
            };
            format!(
                "{}: {} slower{worst}, {} faster, of {} judged{units}{}{verdict}{unresolved}",
                s.label,
                s.slower,
                s.faster,
                count(s.judged, "case"),
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

/// How a re-measurement went: `-9.8% ± 0.4% against 0000:00:06.0 alone (118 of 122 cases
/// slower, worst -12.1%)`.
fn rejudged(r: &Rejudged) -> String {
    let worst = r.worst.map_or(String::new(), |w| format!(", worst {}", percent(w)));
    let noisy = match r.noisy {
        0 => String::new(),
        n => format!(", {n} noisy"),
    };
    format!(
        "{} against {} ({} of {} slower{worst}{noisy})",
        r.effect_text(),
        r.against,
        r.slow,
        count(r.judged, "quiet case")
    )
}

/// A confirmation, in a line.
fn confirmation(c: &Confirmation) -> String {
    format!("{}: {} (families {}); {}", c.label, c.verdict.word(), c.families.join(", "), measured_again(c))
}

/// How a confirmation measured its suspect again, and what it found: `alone: -9.8% ± ...`,
/// `again, at once with 0000:00:07.0: ...`, and with its host's GPUs at once where it was.
pub(super) fn measured_again(c: &Confirmation) -> String {
    let together = c
        .together
        .as_ref()
        .map_or(String::new(), |t| format!("; with {} at once: {}", c.with.join(", "), rejudged(t)));
    let how = match c.at_once {
        true if c.with.is_empty() => "again".to_owned(),
        true => format!("again, at once with {}", c.with.join(", ")),
        false => "alone".to_owned(),
    };
    format!("{how}: {}{together}", rejudged(&c.alone))
}

/// Lines for what fails the screen without a rate to judge, and what was left out.
fn screen_lines(fleet: &Fleet) -> Vec<String> {
    let mut lines = Vec::new();
    for left in &fleet.faulty {
        lines.push(format!("failed: {}: {}", left.label, left.why));
    }
    for line in fleet.unjudged() {
        lines.push(format!("cannot be judged: {line}"));
    }
    for left in &fleet.skipped {
        lines.push(format!("skipped: {} {}", left.label, left.why));
    }
    for label in &fleet.untimed {
        lines.push(format!("not judged: {label} times nothing (--verify or --compile-only)"));
    }
    for group in &fleet.groups {
        for (device, label) in group.devices.iter().enumerate() {
            let mine: Vec<&Hungry> = group.hungry.iter().filter(|h| h.device == device).collect();
            if let Some(most) = mine.first() {
                lines.push(format!(
                    "more energy than its fleet for the same work: {label} ({}, up to {} in {})",
                    count(mine.len(), "case"),
                    percent(most.change),
                    most.case
                ));
            }
        }
    }
    for c in &fleet.confirmations {
        lines.push(format!("confirmed: {}", confirmation(c)));
    }
    lines
}

/// What a group is, in a line.
fn group_title(group: &Group) -> String {
    format!("{} ({}), {}", group.key.device, group.key.driver, count(group.devices.len(), "device"))
}

/// The group's typical spread: `0.13%`, or `unknown`.
fn typical_spread(group: &Group) -> String {
    group.typical_spread.map_or("unknown".to_owned(), |s| format!("{:.2}%", s * 100.0))
}

/// Whose median an outlier is held against: `fleet's` or `reference's`.
fn whose(group: &Group) -> &'static str {
    match group.reference {
        Some(_) => "reference's",
        None => "fleet's",
    }
}

/// What was judged, in a line.
fn judged_line(group: &Group) -> String {
    judged_only(group) + &heavy_text(group)
}

/// `; 5 cases heavy-tailed (...): in a verdict only beyond their tail`, where any.
fn heavy_text(group: &Group) -> String {
    match group.heavy.len() {
        0 => String::new(),
        n => {
            let shown: Vec<&str> = group.heavy.iter().take(5).map(String::as_str).collect();
            let more = if n > 5 { format!(" and {} more", n - 5) } else { String::new() };
            format!(
                "; {} heavy-tailed (healthy runs stray past the {:.1}% tolerance: {}{more}), listed where \
                 outside, in a verdict only beyond their tail",
                count(n, "case"),
                group.tolerance * 100.0,
                shown.join(", ")
            )
        }
    }
}

/// How many cases were judged, and against what.
fn judged_only(group: &Group) -> String {
    if let Some(r) = &group.reference {
        let driver = match r.driver == group.key.driver {
            true => String::new(),
            false => format!("; made with {}, not this driver: refresh it", r.driver),
        };
        return format!(
            "{} judged against the reference (made {} from {}, {}{driver}), {} not in it",
            count(group.judged, "case"),
            r.made,
            count(r.devices, "device"),
            count(r.runs, "run"),
            group.too_few
        );
    }
    let spread = typical_spread(group);
    let mut line = format!(
        "{} judged (timed on {MIN_DEVICES} or more devices), {} on fewer; the fleet's typical spread \
         (1.4826 x MAD over the median) {spread}",
        count(group.judged, "case"),
        group.too_few
    );
    if group.devices.len() < MIN_DEVICES && group.reference.is_none() {
        line.push_str(&format!(
            "; with {} no case can be judged: no device can be told to be the odd one",
            count(group.devices.len(), "device")
        ));
    }
    line
}

/// The tolerance the groups were held to: `2%`, or each where they differ.
fn tolerance(fleet: &Fleet) -> String {
    let mut all: Vec<String> = fleet.groups.iter().map(|g| format!("{}%", g.tolerance * 100.0)).collect();
    all.dedup();
    if all.is_empty() {
        all.push(format!("{}%", crate::analysis::fleet::TOLERANCE * 100.0));
    }
    all.join(", ")
}

/// `; not judged on 3 devices: dispatch (...)`: the families whose slowdown past the tolerance a
/// device's runs could neither show nor rule out, where any; among siblings alone, what would.
fn unresolved_text(fleet: &Fleet) -> String {
    let groups = fleet.groups.iter().filter(|g| g.ranking.iter().any(|s| !s.unresolved.is_empty()));
    let siblings = groups.clone().any(|g| g.reference.is_none());
    let standings = groups.flat_map(|g| &g.ranking).filter(|s| !s.unresolved.is_empty());
    let devices = standings.clone().count();
    let mut families: Vec<&str> = standings.flat_map(|s| s.unresolved.iter().map(|e| e.what())).collect();
    families.sort_unstable();
    families.dedup();
    let advice = match siblings {
        true => ": judge against a reference, or with more runs of each GPU",
        false => "",
    };
    match devices {
        0 => String::new(),
        _ => format!(
            "; not judged on {}: {} (its cases stray from run to run further than these runs can tell from a \
             slowdown past the tolerance{advice})",
            count(devices, "device"),
            families.join(", ")
        ),
    }
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
    let mut listed = match not_reproduced.is_empty() {
        true => String::new(),
        false => format!("; not reproduced when measured again: {}", not_reproduced.join(", ")),
    };
    listed.push_str(&unresolved_text(fleet));
    // Judged against a reference only (a health check of one node): no fleet to speak of.
    let referenced = !fleet.groups.is_empty() && fleet.groups.iter().all(|g| g.reference.is_some());
    let (who, against, outside) = match referenced {
        true => ("GPU", " against the reference", "outside it"),
        false => ("device", "", "outside the fleet"),
    };
    let line = match fleet.conclusion() {
        Conclusion::Healthy if outliers > 0 => format!(
            "fleet: no {who} is slow beyond the {} tolerance{against} ({} {outside}, each family within \
             it){listed}",
            tolerance(fleet),
            count(outliers, "case"),
        ),
        Conclusion::Healthy => {
            format!("fleet: no {who} is slow beyond the {} tolerance{against}{listed}", tolerance(fleet))
        }
        Conclusion::Corrupt(devices) => {
            format!("fleet: wrong bits, silent data corruption (drain and confirm): {}", devices.join("; "))
        }
        Conclusion::Faulty(devices) => {
            format!(
                "fleet: a case lost the device, crashed or hung (drain and look at the GPU): {}",
                devices.join("; ")
            )
        }
        Conclusion::Slow(devices) if referenced => {
            format!("fleet: slow against the reference: {}", devices.join(", "))
        }
        Conclusion::Slow(devices) => format!("fleet: slow, alone as among its fleet: {}", devices.join(", ")),
        Conclusion::Unjudged(devices) => format!("fleet: cannot be judged: {}", devices.join("; ")),
        Conclusion::Interference(devices) => {
            format!("fleet: slow only beside its host's other GPUs (interference): {}", devices.join("; "))
        }
        Conclusion::Unconfirmed(devices) => format!(
            "fleet: slow beyond the {} tolerance, not yet measured again alone: {}; run perftest fleet \
             --confirm with these runs on its host",
            tolerance(fleet),
            devices.join(", ")
        ),
    };
    line
}

/// `bits no CPU knows: CASE: 0x17c9909a in all 4 runs of the 2 devices, bit for bit`, and
/// `, as the reference's` where a reference keeps them.
fn same_bits_line(same: &crate::analysis::fleet::SameBits) -> String {
    let runs = match (same.runs, same.devices) {
        (1, _) => "in its one run".to_owned(),
        (n, 1) => format!("in all {n} runs of the one device"),
        (n, d) => format!("in all {n} runs of the {d} devices"),
    };
    let reference = if same.reference { ", as the reference's" } else { "" };
    format!("bits no CPU knows: {}: {:#010x} {runs}, bit for bit{reference}", same.case, same.fingerprint)
}

/// The most outliers a node's log lists (`brief`): the slowest; the runs it keeps hold the rest.
const BRIEF_OUTLIERS: usize = 10;

/// A group as a section: its settings and spread, the ranking, the slow units and the outliers;
/// anchored on a page. `brief` (a health check's log, which says each GPU in a line of its own):
/// no ranking, and the slowest [`BRIEF_OUTLIERS`] outliers.
pub(super) fn group_section(n: usize, group: &Group, anchored: bool, brief: bool) -> Block {
    let mut blocks =
        vec![Block::Para(format!("settings: {}", group.key.settings)), Block::Para(judged_line(group))];
    blocks.extend(group.same_bits.iter().map(|s| Block::Para(same_bits_line(s))));
    if !brief {
        blocks.push(Block::Section {
            title: "devices, most slow cases first:".into(),
            id: String::new(),
            blocks: vec![Block::Numbered(ranking_lines(group))],
        });
    }
    if !group.slow_units.is_empty() {
        let lines = group
            .slow_units
            .iter()
            .map(|u| {
                let line =
                    format!("{}  {}: unit {} {}", group.devices[u.device], u.case, u.unit, percent(u.change));
                (line, Vec::new())
            })
            .collect();
        blocks.push(Block::Section {
            title: format!("compute units slower than their own GPU's others ({}):", group.slow_units.len()),
            id: String::new(),
            blocks: vec![Block::List(lines)],
        });
    }
    if !group.hungry.is_empty() {
        let lines = group
            .hungry
            .iter()
            .map(|h| {
                let line = format!(
                    "{}  {}: {} {} against the fleet's {} ({})",
                    group.devices[h.device],
                    h.case,
                    crate::format::sig4(h.picojoules),
                    h.unit,
                    crate::format::sig4(h.median),
                    percent(h.change)
                );
                (line, Vec::new())
            })
            .collect();
        blocks.push(Block::Section {
            title: format!(
                "more energy than the fleet for the same work ({}), {:.0}% or more above its median:",
                group.hungry.len(),
                ENERGY_MARGIN * 100.0
            ),
            id: String::new(),
            blocks: vec![Block::List(lines)],
        });
    }
    if !group.outliers.is_empty() {
        let shown = if brief { BRIEF_OUTLIERS } else { usize::MAX };
        let mut lines: Vec<(String, Vec<(String, String)>)> = group
            .outliers
            .iter()
            .take(shown)
            .map(|o| {
                (
                    format!("{}  {}: {}", group.devices[o.device], o.case, outlier_text(o, whose(group))),
                    Vec::new(),
                )
            })
            .collect();
        if group.outliers.len() > shown {
            let more = group.outliers.len() - shown;
            lines.push((
                format!("and {} more (--keep DIR keeps the runs that hold them)", count(more, "case")),
                Vec::new(),
            ));
        }
        let outside = match group.reference {
            Some(_) => "outside the reference",
            None => "outside the fleet",
        };
        blocks.push(Block::Fold {
            summary: format!("{outside} ({}), slowest first:", group.outliers.len()),
            blocks: vec![Block::List(lines)],
        });
    }
    let id = match anchored {
        true => {
            format!("fleet-{}", doc::anchor(&group.key.device).trim_start_matches("case-"))
        }
        false => String::new(),
    };
    Block::Section { title: format!("group {}: {}", n + 1, group_title(group)), id, blocks }
}

/// The whole verdict: its line first (the devices to act on, and what to do), then what was not
/// judged or was confirmed, then each group.
pub fn blocks(fleet: &Fleet) -> Vec<Block> {
    let mut blocks = vec![Block::Para(verdict(fleet)), Block::Gap];
    let screen = screen_lines(fleet);
    if !screen.is_empty() {
        blocks.push(Block::List(screen.into_iter().map(|line| (line, Vec::new())).collect()));
        blocks.push(Block::Gap);
    }
    let groups = fleet.groups.iter().enumerate();
    blocks.extend(groups.flat_map(|(n, g)| [Block::Gap, group_section(n, g, false, false)]).skip(1));
    blocks
}

/// The verdict as text, each line fitting 120 columns.
pub fn to_text(fleet: &Fleet) -> String {
    crate::report::columns::fit(doc::text(&blocks(fleet)).trim_end()) + "\n"
}

/// The verdict as markdown.
pub fn to_markdown(fleet: &Fleet) -> String {
    doc::markdown_document("perftest fleet", &blocks(fleet))
}

/// The report page's part: where three or more of its runs are of one device model, driver and
/// settings, those groups; none otherwise.
pub fn page(labels: &[String], runs: &[Run]) -> Vec<Block> {
    let members: Vec<Member> =
        labels.iter().zip(runs).map(|(label, run)| Member { label: label.clone(), run }).collect();
    let fleet = judge(&members);
    let groups: Vec<Block> = fleet
        .groups
        .iter()
        .enumerate()
        .filter(|(_, g)| g.devices.len() >= MIN_DEVICES)
        .map(|(n, g)| group_section(n, g, true, false))
        .collect();
    if groups.is_empty() {
        return Vec::new();
    }
    let intro = Block::Para(
        "Runs of one device model, driver and settings, each device's rates held against the others': a rate is \
         outside its fleet beyond 3.5 scaled median absolute deviations from the median and beyond its own noise \
         (docs/fleet.md)."
            .into(),
    );
    vec![Block::Section {
        title: "The fleet".into(),
        id: "fleet".into(),
        blocks: [vec![intro], groups].concat(),
    }]
}

#[cfg(test)]
mod tests {
    use super::same_bits_line;
    use crate::analysis::fleet::SameBits;

    #[test]
    fn the_same_bits_say_how_many_runs_and_devices_and_against_what() {
        let mut same = SameBits {
            case: "SDC sin".into(),
            fingerprint: 0x17c9909a,
            devices: 2,
            runs: 4,
            reference: false,
        };
        assert_eq!(
            same_bits_line(&same),
            "bits no CPU knows: SDC sin: 0x17c9909a in all 4 runs of the 2 devices, bit for bit"
        );
        (same.devices, same.runs, same.reference) = (1, 1, true);
        assert_eq!(
            same_bits_line(&same),
            "bits no CPU knows: SDC sin: 0x17c9909a in its one run, bit for bit, as the reference's"
        );
    }
}
