//! The report's fleet section: where three or more of its runs are of one device model, driver
//! and settings, each device held against the others (`perftest fleet`'s verdict as blocks).

use super::Block;
use crate::analysis::fleet::{judge, Member, MIN_DEVICES};
use crate::format::si;
use crate::report::fleet::{group_title, percent, typical_spread};
use crate::results::model::Run;

/// The fleet's blocks, or none where no group has [`MIN_DEVICES`] runs.
pub fn blocks(labels: &[String], runs: &[Run]) -> Vec<Block> {
    let members: Vec<Member> =
        labels.iter().zip(runs).map(|(label, run)| Member { label: label.clone(), run }).collect();
    let fleet = judge(&members);
    let groups: Vec<_> = fleet.groups.iter().filter(|g| g.devices.len() >= MIN_DEVICES).collect();
    if groups.is_empty() {
        return Vec::new();
    }
    let mut blocks = vec![
        Block::Heading { level: 2, text: "The fleet".into(), id: "fleet".into() },
        Block::Para(
            "Runs of one device model, driver and settings, each device's rates held against the others': a \
             rate is outside its fleet beyond 3.5 scaled median absolute deviations from the median and beyond \
             its own noise (docs/fleet.md)."
                .into(),
        ),
    ];
    for group in groups {
        blocks.push(Block::Heading {
            level: 3,
            text: group_title(group),
            id: format!("fleet-{}", super::anchor(&group.key.device).trim_start_matches("case-")),
        });
        blocks.push(Block::Para(format!(
            "{} cases judged; the fleet's typical spread {}; {} outside it.",
            group.judged,
            typical_spread(group),
            group.outliers.len()
        )));
        let head = ["device", "slower", "worst", "faster", "judged"].map(str::to_owned).to_vec();
        let rows = group
            .ranking
            .iter()
            .map(|s| {
                let worst = s.worst.map_or(String::new(), percent);
                let cells = vec![
                    s.label.clone(),
                    s.slower.to_string(),
                    worst,
                    s.faster.to_string(),
                    s.judged.to_string(),
                ];
                (None, cells)
            })
            .collect();
        blocks.push(Block::Table { head, rows });
        if !group.outliers.is_empty() {
            let head = ["device", "case", "rate", "fleet median", "change"].map(str::to_owned).to_vec();
            let rows = group
                .outliers
                .iter()
                .map(|o| {
                    let cells = vec![
                        group.devices[o.device].clone(),
                        o.case.clone(),
                        si(o.rate, &o.unit),
                        si(o.median, &o.unit),
                        percent(o.change),
                    ];
                    (None, cells)
                })
                .collect();
            blocks.push(Block::Fold {
                summary: format!("The {} cases outside the fleet", group.outliers.len()),
                blocks: vec![Block::Table { head, rows }],
            });
        }
    }
    blocks
}
