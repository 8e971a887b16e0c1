//! Bits no CPU knows, compared across the GPUs of one model and driver: the fingerprint of each
//! case that keeps one (the `sdc` family's transcendental chains, [`FaultCount::fingerprint`]).
//! A healthy GPU computes the same bits every run, and every GPU of its model and driver the same
//! as it; a GPU whose fingerprint differs from the reference's, from a strict majority of its
//! siblings', or between its own runs computed wrong bits. Where two GPUs disagree and nothing
//! says which is right, neither is passed.
//!
//! [`FaultCount::fingerprint`]: crate::record::faults::FaultCount::fingerprint

use std::collections::BTreeMap;

use super::device::{devices, Device};
use super::{Left, Member, SameBits};

/// What the fingerprints of one group's devices say: the devices that computed other bits, and
/// those that cannot be judged (two that differ, no majority), each with why, by device label.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Verdicts {
    pub(super) corrupt: Vec<Left>,
    pub(super) unjudged: Vec<Left>,
    /// The cases whose every run on every device computed the same bits (and the reference's,
    /// where it keeps them).
    pub(super) same: Vec<SameBits>,
}

/// The fingerprint every run of case `name` of a group's devices gave, per device label.
fn fingerprints(devices: &[Device<'_>], name: &str) -> Vec<(String, Vec<u32>)> {
    devices
        .iter()
        .filter_map(|d| {
            let prints: Vec<u32> =
                d.cases_named(name).iter().filter_map(|c| c.faults.as_ref()?.fingerprint).collect();
            (!prints.is_empty()).then(|| (d.label.clone(), prints))
        })
        .collect()
}

/// The names of the cases of `members` that keep a fingerprint, in order.
fn fingerprinted(members: &[&Member<'_>]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for m in members {
        for c in m.run.cases.iter().filter(|c| c.faults.as_ref().is_some_and(|f| f.fingerprint.is_some())) {
            if !names.contains(&c.name) {
                names.push(c.name.clone());
            }
        }
    }
    names
}

/// Judges one group's fingerprints, against the fingerprint `expected` gives for a case (a
/// reference's model keeps one for each case that has one), else among its devices.
pub(super) fn judge(members: &[&Member<'_>], expected: impl Fn(&str) -> Option<u32>) -> Verdicts {
    let mut out = Verdicts::default();
    let names = fingerprinted(members);
    let devices = match names.is_empty() {
        true => Vec::new(),
        false => devices(members),
    };
    for name in names {
        let mut agreed: Vec<(String, u32)> = Vec::new();
        let prints = fingerprints(&devices, &name);
        let runs = prints.iter().map(|(_, p)| p.len()).sum();
        let (alike, held) = (alike(&prints), prints.len());
        for (label, prints) in prints {
            match prints.iter().any(|p| *p != prints[0]) {
                true => out.corrupt.push(Left {
                    label,
                    why: format!(
                        "{name}: its runs computed different bits ({}): a healthy GPU repeats its own",
                        hex_list(&prints)
                    ),
                }),
                false => agreed.push((label, prints[0])),
            }
        }
        let expected = expected(&name);
        if let Some(print) = alike.filter(|p| expected.is_none_or(|k| k == *p)) {
            let reference = expected.is_some();
            out.same.push(SameBits {
                case: name.clone(),
                fingerprint: print,
                devices: held,
                runs,
                reference,
            });
        }
        match expected {
            Some(known) => out.corrupt.extend(agreed.iter().filter(|(_, p)| *p != known).map(|(label, p)| Left {
                label: label.clone(),
                why: format!(
                    "{name}: its bits (fingerprint {p:#010x}) differ from the reference's ({known:#010x}), which \
                     every GPU of this model and driver computed"
                ),
            })),
            None => among_siblings(&name, &agreed, &mut out),
        }
    }
    out
}

/// Judges `agreed` (each device's one fingerprint of case `name`) among themselves: a strict
/// majority's is right; without one, any that differ cannot be judged.
fn among_siblings(name: &str, agreed: &[(String, u32)], out: &mut Verdicts) {
    let mut counts: BTreeMap<u32, usize> = BTreeMap::new();
    for (_, p) in agreed {
        *counts.entry(*p).or_default() += 1;
    }
    if counts.len() < 2 {
        return;
    }
    let (common, held) = counts.iter().max_by_key(|(_, n)| **n).map(|(p, n)| (*p, *n)).unwrap_or_default();
    if held * 2 > agreed.len() {
        out.corrupt.extend(agreed.iter().filter(|(_, p)| *p != common).map(|(label, p)| Left {
            label: label.clone(),
            why: format!(
                "{name}: its bits (fingerprint {p:#010x}) differ from those of {held} of its {} siblings of this \
                 model and driver ({common:#010x})",
                agreed.len() - 1
            ),
        }));
    } else {
        out.unjudged.extend(agreed.iter().map(|(label, p)| Left {
            label: label.clone(),
            why: format!(
                "{name}: its bits (fingerprint {p:#010x}) are not those of a majority of the {} GPUs of this model \
                 and driver ({}): no majority says which are right; judge it against a reference or among more \
                 of its siblings",
                agreed.len(),
                hex_list(&counts.keys().copied().collect::<Vec<_>>())
            ),
        }));
    }
}

/// `0x0000002a, 0x0000002b`.
fn hex_list(prints: &[u32]) -> String {
    prints.iter().map(|p| format!("{p:#010x}")).collect::<Vec<_>>().join(", ")
}

/// The fingerprint to keep in a reference for case `name` of a group's `devices`: the one every run
/// of every device gave; `None` where they differ (that screen's verdict names the odd GPU) or none
/// gave one.
pub(super) fn common(devices: &[Device<'_>], name: &str) -> Option<u32> {
    alike(&fingerprints(devices, name))
}

/// The one fingerprint every run of every device in `prints` gave; `None` where they differ or
/// none gave one.
fn alike(prints: &[(String, Vec<u32>)]) -> Option<u32> {
    let mut all = prints.iter().flat_map(|(_, p)| p);
    let first = *all.next()?;
    all.all(|p| *p == first).then_some(first)
}
