//! The families that register with `inventory`, how they expand into cases, and how a run picks them.
//!
//! Two stages, as divan does it: a [`Family`] is a small static entry (name, order, axes, an
//! `expand` function); at run time [`expand`] calls each family with an [`Env`] (its axis values
//! and, when a device is open, the device's facts) and gets owned [`CaseSpec`]s back. Then the
//! cases are filtered (skips win) and kept in family order, each family's in its own order.

mod axis;
mod case;
pub mod data;
mod format;
mod resource;
pub mod suggest;
mod validate;
mod value;

pub use axis::{
    floor_power_of_two, parse_setting, parse_values, string_axes, Axis, AxisSetting, AxisUnit, Env,
    MAX_VALUES,
};
pub use case::{
    CaseSpec, Copies, FaultLog, Glsl, Mode, Push, Reference, Scale, Unit, Work, HEADER_BYTES, INJECTED,
    MAX_PUSH_BYTES, NO_SHADER, SENTINEL, VERIFY_DISPATCHES, VERIFY_GROUPS,
};
pub use format::{format_info, originals, texel_bytes, FormatInfo, FORMATS};
pub use resource::{Access, Fill, Placement, Reset, Resource, ResourceKind};
pub use value::{Value, NEAR};

use crate::caps::DeviceCaps;
use crate::error::{Error, Result};

/// What a family measures, in words, for `--describe`.
#[derive(Clone, Copy, Debug)]
pub struct About {
    /// What the family measures and why a programmer would care.
    pub measures: &'static str,
    /// What one invocation does.
    pub invocation: &'static str,
    /// What the rate counts.
    pub rate: &'static str,
}

/// A self-registering family of cases (submit one with `inventory::submit!`).
pub struct Family {
    /// What it measures, for `--describe`.
    pub about: About,
    /// Short name (`branch`), used by `--axis branch.n=...` and in results files.
    pub name: &'static str,
    /// Families run in ascending `order`.
    pub order: u32,
    /// The axes its cases are swept over.
    pub axes: &'static [Axis],
    /// What the ratio in its lines is against, for the run's header (`"NX Coherent branch baseline"`).
    pub ratio_note: Option<&'static str>,
    /// Whether its cases sweep a working set, so a run ends with the memory levels each variant
    /// shows (`levels:` lines; see `report::levels`).
    pub levels: bool,
    /// Whether a device adds cases that `--list` (no device) cannot name: the cooperative-matrix
    /// shapes it advertises. `perftest check` accepts a run's extra cases of such a family.
    pub device_cases: bool,
    /// Its headline cases, by their names at the axes' defaults: what `--quick` runs of it (a
    /// family's baseline among them, so its ratios stand).
    pub quick: &'static [&'static str],
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
            // A string axis setting keeps the cases with one of its values on that axis.
            let labelled: Vec<&AxisSetting> =
                settings.iter().filter(|s| s.family == family.name && !s.labels.is_empty()).collect();
            (family.expand)(&env)
                .into_iter()
                .filter(move |case| {
                    let selected = labelled
                        .iter()
                        .all(|s| case.label_of(s.axis).is_some_and(|v| s.labels.iter().any(|l| l == v)));
                    // A case on request runs where a setting of its axis selected it.
                    let requested =
                        case.on_request.is_none_or(|axis| labelled.iter().any(|s| s.axis == axis));
                    selected && requested
                })
                .map(move |mut case| {
                    case.family = family.name;
                    if case.group.is_empty() {
                        case.group = family.name.to_owned();
                    }
                    case
                })
        })
        .collect()
}

/// What `--describe` prints for `cases`: each family that has some of them, then the flags.
pub fn describe(cases: &[CaseSpec]) -> String {
    let mut out = index(cases);
    for family in families() {
        let count = cases.iter().filter(|c| c.family == family.name).count();
        if count == 0 {
            continue;
        }
        let About { measures, invocation, rate } = family.about;
        out.push_str(&format!("{} ({} selected)\n", family.name, crate::format::count(count, "case")));
        let ratio = family.ratio_note.map_or("none (rates only)".to_owned(), |n| {
            format!("the rate over {n}'s (above 1 = faster); time lines give ms for 2^32 of the first unit")
        });
        out.push_str(&wrapped("measures", measures));
        out.push_str(&wrapped("one invocation", invocation));
        out.push_str(&wrapped("rate", rate));
        out.push_str(&wrapped("ratio", &ratio));
        let mut ceilings: Vec<&str> = Vec::new();
        for work in cases.iter().filter(|c| c.family == family.name).flat_map(|c| &c.work) {
            let name = work.ceiling.map_or("none", |c| c.name());
            if !ceilings.contains(&name) {
                ceilings.push(name);
            }
        }
        ceilings.retain(|c| *c != "none");
        let peak = if ceilings.is_empty() {
            "none: no peak is known for what it counts, so lines say \"peak unknown\"".to_owned()
        } else {
            format!("% of the {} peak, where the architecture is known", ceilings.join(", "))
        };
        out.push_str(&wrapped("peak", &peak));
        for axis in family.axes {
            let text = format!("{}: {} (--axis {}.{}=VALUES)", axis.name, axis.about, family.name, axis.name);
            out.push_str(&wrapped("axis", &text));
        }
        for (axis, values) in axis::string_axes(family) {
            let text = format!("{axis}: {} (--axis {}.{axis}=VALUE,...)", values.join(", "), family.name);
            out.push_str(&wrapped("axis", &text));
        }
        out.push_str(&wrapped("--quick runs", &family.quick.join("; ")));
        out.push_str(&wrapped("more", &format!("docs/families/{}.md", family.name)));
        out.push('\n');
    }
    out.push_str(FLAGS);
    out
}

/// Where several families are selected, a line first naming each with its cases, in the order
/// they follow; empty for one.
fn index(cases: &[CaseSpec]) -> String {
    let counts: Vec<String> = families()
        .iter()
        .map(|f| (f.name, cases.iter().filter(|c| c.family == f.name).count()))
        .filter(|&(_, n)| n > 0)
        .map(|(name, n)| format!("{name} {n}"))
        .collect();
    if counts.len() < 2 {
        return String::new();
    }
    let title = format!(
        "{} families, {} (`--describe --family NAME` describes one):",
        counts.len(),
        crate::format::count(cases.len(), "case")
    );
    // Packed a family at a time, so a name and its count stay on one line.
    let mut lines = vec![String::from(" ")];
    for (i, item) in counts.iter().enumerate() {
        let item = if i + 1 < counts.len() { format!(" {item},") } else { format!(" {item}") };
        let line = lines.last_mut().expect("one line at least");
        if line.len() + item.len() > 100 {
            lines.push(format!(" {item}"));
        } else {
            line.push_str(&item);
        }
    }
    format!("{title}\n{}\n\n", lines.join("\n"))
}

/// `  label:  text`, wrapped at 100 columns under the text's first column.
fn wrapped(label: &str, text: &str) -> String {
    const INDENT: usize = 18;
    let mut out = format!("  {:<width$}", format!("{label}:"), width = INDENT - 2);
    let mut column = INDENT;
    for word in text.split_whitespace() {
        if column > INDENT && column + 1 + word.len() > 100 {
            out.push('\n');
            out.push_str(&" ".repeat(INDENT));
            column = INDENT;
        } else if column > INDENT {
            out.push(' ');
            column += 1;
        }
        out.push_str(word);
        column += word.len();
    }
    out.push('\n');
    out
}

/// How to read the marks a result line can carry (the same for every family).
const FLAGS: &str = "\
After the rates
  = N unit/clk/SM at F MHz, P% of X peak
                         each rate per clock per compute unit, at the clock measured around the
                         samples (VK_KHR_shader_clock), and the share of the architecture's peak
                         for the unit that has one (src/caps/peaks.rs); \"unknown\" where the
                         device cannot tell (no shader clock, no compute-unit count, an unknown
                         architecture)

Flags on a result line
  [noisy: cv above 3%]   the samples disagree; rerun, or distrust the median
  [unsettled: ...]       warm-up rates never agreed within 2% (clocks ramping, a busy machine;
                         on a CPU implementation, no two runs at one size reached the target)
  [over the submission cap: ...]
                         one workgroup per dispatch already takes over 100 ms: lower the axis value
  [unsteady clock: ...]  the clock before and after the samples differs by 5% or more
  [below the warm-up clock: ...]
                         the case ran 5% or more below the level the warm-up settled at
  [re-measured N times: ...]
                         a case unsteady or below the warm-up clock is warmed up and measured again,
                         twice at most; this says why, when the last try was no better
  [throttled: ...]       the case ran 5% or more off the run's median clock: not comparable
  [implausible: ...]     above 102% of a known peak: the shader may not do the work it counts
                         (check --shader-stats and --verify); --strict makes it exit code 12
  [ratio against a flagged baseline (...)]
                         the baseline this ratio divides by has the flags named (it was measured
                         again first); --strict makes it exit code 13
  skipped (reason)       the device lacks what the case needs, one reason per missing item
  verified (N results match the CPU reference), with --verify; a mismatch is exit 7, named
";

/// Every case with the default axes and no device: what `--list` prints.
pub fn all() -> Vec<CaseSpec> {
    expand(&[], None)
}

fn contains_ignore_case(name: &str, text: &str) -> bool {
    name.to_lowercase().contains(&text.to_lowercase())
}

/// Which cases a run takes: those of `families` (all when empty) whose names contain `filter`
/// and none of `skip` (case-insensitive), and are among `names` where it lists any.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selection {
    /// `--family`: family names, exactly as [`Family::name`] spells them.
    pub families: Vec<String>,
    /// `--filter`.
    pub filter: Option<String>,
    /// `--skip`.
    pub skip: Vec<String>,
    /// `--quick`: only each family's headline cases ([`Family::quick`]).
    pub quick: bool,
    /// `--case`: only the cases of exactly these names (all when empty).
    pub names: Vec<String>,
}

impl Selection {
    /// Whether `case` is selected.
    pub fn keeps(&self, case: &CaseSpec) -> bool {
        let headline =
            || families().iter().any(|f| f.name == case.family && f.quick.contains(&case.name.as_str()));
        (self.families.is_empty() || self.families.iter().any(|f| f == case.family))
            && (!self.quick || headline())
            && self.filter.as_deref().is_none_or(|f| contains_ignore_case(&case.name, f))
            && !self.skip.iter().any(|x| contains_ignore_case(&case.name, x))
            && (self.names.is_empty() || self.names.contains(&case.name))
    }

    /// The selected cases of `cases`; none is an error naming the selection.
    pub fn apply(&self, cases: Vec<CaseSpec>) -> Result<Vec<CaseSpec>> {
        let kept: Vec<CaseSpec> = cases.into_iter().filter(|c| self.keeps(c)).collect();
        if kept.is_empty() {
            let mut what: Vec<String> = self.families.iter().map(|f| format!("--family {f}")).collect();
            what.extend(self.quick.then(|| "--quick".to_owned()));
            what.extend(self.filter.iter().map(|f| format!("--filter \"{f}\"")));
            what.extend(self.skip.iter().map(|s| format!("--skip \"{s}\"")));
            what.extend(self.names.iter().map(|n| format!("--case \"{n}\"")));
            return Err(Error::NothingMatched { what: what.join(" with ") });
        }
        Ok(kept)
    }
}

/// The names of every family, in run order (what `--family` takes).
pub fn family_names() -> Vec<&'static str> {
    families().into_iter().map(|f| f.name).collect()
}

#[cfg(test)]
mod tests;
