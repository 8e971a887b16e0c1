//! The families that register with `inventory`, how they expand into cases, and how a run picks them.
//!
//! Two stages, as divan does it: a [`Family`] is a small static entry (name, order, axes, an
//! `expand` function); at run time [`expand`] calls each family with an [`Env`] (its axis values
//! and, when a device is open, the device's facts) and gets owned [`CaseSpec`]s back. Then the
//! cases are filtered (skips win) and kept in family order, each family's in its own order.

mod axis;
mod case;
mod resource;
mod value;

pub use axis::{format_bytes, parse_setting, parse_values, Axis, AxisSetting, AxisUnit, Env, MAX_VALUES};
pub use case::{CaseSpec, Glsl, Mode, Push, Reference, Unit, Work, HEADER_BYTES, MAX_PUSH_BYTES, SENTINEL};
pub use resource::{texel_bytes, Access, Fill, Placement, Reset, Resource, ResourceKind};
pub use value::{Value, NEAR};

use crate::caps::DeviceCaps;
use crate::error::{Error, Result};

/// A self-registering family of cases (submit one with `inventory::submit!`).
pub struct Family {
    /// Short name (`branch`), used by `--axis branch.n=...` and in results files.
    pub name: &'static str,
    /// Families run in ascending `order`.
    pub order: u32,
    /// The axes its cases are swept over.
    pub axes: &'static [Axis],
    /// What the ratio in its lines is against, for the run's header (`"NX Coherent branch baseline"`).
    pub ratio_note: Option<&'static str>,
    /// Builds the cases, in run order.
    pub expand: fn(&Env) -> Vec<CaseSpec>,
}

inventory::collect!(Family);

/// The registered families, in run order.
pub fn families() -> Vec<&'static Family> {
    let mut families: Vec<&'static Family> = inventory::iter::<Family>.into_iter().collect();
    families.sort_by_key(|f| (f.order, f.name));
    families
}

/// Every case of every family, in run order, for these axis settings and device.
pub fn expand(settings: &[AxisSetting], device: Option<&DeviceCaps>) -> Vec<CaseSpec> {
    families()
        .into_iter()
        .flat_map(|family| {
            let env = Env { family, settings, device };
            (family.expand)(&env).into_iter().map(move |mut case| {
                case.family = family.name;
                if case.group.is_empty() {
                    case.group = family.name.to_owned();
                }
                case
            })
        })
        .collect()
}

/// Every case with the default axes and no device: what `--list` prints.
pub fn all() -> Vec<CaseSpec> {
    expand(&[], None)
}

fn contains_ignore_case(name: &str, text: &str) -> bool {
    name.to_lowercase().contains(&text.to_lowercase())
}

/// Keeps the cases whose names contain `filter` and none of `skip` (case-insensitive).
pub fn filter(cases: Vec<CaseSpec>, filter: Option<&str>, skip: &[String]) -> Result<Vec<CaseSpec>> {
    let kept: Vec<CaseSpec> = cases
        .into_iter()
        .filter(|c| filter.is_none_or(|f| contains_ignore_case(&c.name, f)))
        .filter(|c| !skip.iter().any(|x| contains_ignore_case(&c.name, x)))
        .collect();
    if kept.is_empty() {
        let mut what = Vec::new();
        if let Some(f) = filter {
            what.push(format!("--filter \"{f}\""));
        }
        what.extend(skip.iter().map(|s| format!("--skip \"{s}\"")));
        return Err(Error::NothingMatched { what: what.join(" with ") });
    }
    Ok(kept)
}

#[cfg(test)]
mod tests;
