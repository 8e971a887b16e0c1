//! Axes: the named, unit-carrying values a family's cases are swept over, and their syntax.
//!
//! A family declares its axes with defaults (`branch.n` = `0:256:8` iterations); `--axis
//! FAMILY.AXIS=VALUES` sets any of them for a run. VALUES is a comma-separated list of
//!
//! - `V`: one value;
//! - `FROM:TO:STEP`: FROM to TO inclusive, every STEP (`0:256:8`);
//! - `FROM..TO*FACTOR`: FROM, FROM x FACTOR, ... up to TO (`16K..1G*2`).
//!
//! Numbers take binary suffixes `K`, `M`, `G`, `T` (also written `KiB`, `MiB`, ...), so `16K` is 16384.

use std::collections::BTreeSet;

use super::Family;

/// What an axis counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AxisUnit {
    /// A count of something, named (`iterations`).
    Count(&'static str),
    /// Bytes (names print them in KiB, MiB, GiB).
    Bytes,
}

/// An axis a family declares.
#[derive(Clone, Copy, Debug)]
pub struct Axis {
    /// Its name, unique within the family (`n`); a [`AxisUnit::Bytes`] axis, and only such an
    /// axis, has `bytes` in its name (plots draw it on a log scale; a test checks).
    pub name: &'static str,
    /// What it counts.
    pub unit: AxisUnit,
    /// The values of a run that does not set it, in the syntax above.
    pub default: &'static str,
    /// The largest value the family accepts.
    pub max: u64,
    /// One line for `--help` and errors.
    pub about: &'static str,
}

/// The most values one axis may take in a run.
pub const MAX_VALUES: usize = 65_536;

/// One `--axis FAMILY.AXIS=VALUES` option, parsed and checked against the registry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AxisSetting {
    /// The family's name.
    pub family: &'static str,
    /// The axis's name.
    pub axis: &'static str,
    /// VALUES as given.
    pub text: String,
    /// The values, in order, without repeats (a string axis: none).
    pub values: Vec<u64>,
    /// For a string axis, the values the cases must have on it (a numeric axis: none).
    pub labels: Vec<String>,
}

/// The string axes of `family` with their values, in the order its cases first show them, as
/// its expansion with the default axes and no device gives them; an axis with one value selects
/// nothing and is left out.
pub fn string_axes(family: &'static Family) -> Vec<(&'static str, Vec<String>)> {
    let cases = (family.expand)(&Env { family, settings: &[], device: None });
    let mut axes: Vec<(&'static str, Vec<String>)> = Vec::new();
    for (axis, value) in cases.iter().flat_map(|c| &c.labels) {
        match axes.iter_mut().find(|(a, _)| a == axis) {
            Some((_, values)) if !values.contains(value) => values.push(value.clone()),
            Some(_) => {}
            None => axes.push((axis, vec![value.clone()])),
        }
    }
    axes.retain(|(_, values)| values.len() > 1);
    axes
}

/// A string axis setting: each of the comma-separated `values` must be one of the axis's values
/// (in any case); they are kept as the axis spells them.
fn string_setting(
    family: &'static Family,
    axis: &'static str,
    known: &[String],
    values: &str,
) -> Result<AxisSetting, String> {
    let mut labels = Vec::new();
    for value in values.split(',').map(str::trim) {
        let found = known.iter().find(|k| k.eq_ignore_ascii_case(value)).ok_or_else(|| {
            format!("`{value}` is not a value of {}.{}; it takes {}", family.name, axis, known.join(", "))
        })?;
        if !labels.contains(found) {
            labels.push(found.clone());
        }
    }
    Ok(AxisSetting { family: family.name, axis, text: values.to_owned(), values: Vec::new(), labels })
}

fn number(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let digits = text.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let suffix = text[digits.len()..].to_ascii_lowercase();
    let shift = match suffix.trim_end_matches("ib").trim_end_matches('i') {
        "" if suffix.is_empty() => 0,
        "k" => 10,
        "m" => 20,
        "g" => 30,
        "t" => 40,
        _ => return Err(format!("`{text}` is not a number (suffixes: K, M, G, T)")),
    };
    let value: u64 =
        digits.parse().map_err(|_| format!("`{text}` is not a number (suffixes: K, M, G, T)"))?;
    value.checked_mul(1 << shift).ok_or_else(|| format!("`{text}` is too large"))
}

/// FROM, next(FROM), next(next(FROM)), ... up to TO; ends early where `next` overflows (`None`).
fn walk(from: u64, to: u64, next: impl Fn(u64) -> Option<u64>) -> impl Iterator<Item = u64> {
    std::iter::successors(Some(from), move |&v| next(v)).take_while(move |&v| v <= to)
}

/// Parses VALUES (see the module documentation); every value at most `max`.
pub fn parse_values(text: &str, max: u64) -> Result<Vec<u64>, String> {
    let mut values = Vec::new();
    let mut seen = BTreeSet::new();
    let mut push = |v: u64, values: &mut Vec<u64>| -> Result<(), String> {
        if v > max {
            return Err(format!("{v} is above this axis's largest value, {max}"));
        }
        if seen.insert(v) {
            values.push(v);
        }
        if values.len() > MAX_VALUES {
            return Err(format!("more than {MAX_VALUES} values"));
        }
        Ok(())
    };
    for part in text.split(',') {
        if let Some((from, rest)) = part.split_once("..") {
            let (to, factor) = rest.split_once('*').ok_or_else(|| {
                format!("`{part}`: a geometric range is FROM..TO*FACTOR, for example 16K..1G*2")
            })?;
            let (from, to, factor) = (number(from)?, number(to)?, number(factor)?);
            if from == 0 || factor < 2 || from > to {
                return Err(format!("`{part}`: FROM..TO*FACTOR needs 0 < FROM <= TO and FACTOR >= 2"));
            }
            for v in walk(from, to, |v| v.checked_mul(factor)) {
                push(v, &mut values)?;
            }
        } else if part.contains(':') {
            let numbers: Vec<&str> = part.split(':').collect();
            let [from, to, step] = numbers[..] else {
                return Err(format!("`{part}`: expected FROM:TO:STEP, for example 0:256:8"));
            };
            let (from, to, step) = (number(from)?, number(to)?, number(step)?);
            if from > to || step == 0 {
                return Err(format!("`{part}`: FROM:TO:STEP needs FROM <= TO and STEP >= 1"));
            }
            if (to - from) / step >= MAX_VALUES as u64 {
                return Err(format!("`{part}`: more than {MAX_VALUES} values"));
            }
            for v in walk(from, to, |v| v.checked_add(step)) {
                push(v, &mut values)?;
            }
        } else {
            push(number(part)?, &mut values)?;
        }
    }
    Ok(values)
}

/// A family's axes, numeric then named, each with what it takes (`n (iterations per loop)`,
/// `format (R8, RG8, ...)`).
fn axes_of(family: &'static Family) -> Vec<(String, String)> {
    let numeric = family.axes.iter().map(|a| (a.name.to_owned(), a.about.to_owned()));
    let strings = string_axes(family).into_iter().map(|(a, v)| (a.to_owned(), v.join(", ")));
    numeric.chain(strings).collect()
}

/// Parses `FAMILY.AXIS=VALUES` against the registered families' axes.
pub fn parse_setting(text: &str) -> Result<AxisSetting, String> {
    let (path, values) = text.split_once('=').ok_or_else(|| {
        "expected FAMILY.AXIS=VALUES, for example branch.n=0:256:8 (--describe lists each family's axes)"
            .to_owned()
    })?;
    let (family_name, axis_name) = path.split_once('.').unwrap_or((path, ""));
    let families = super::families();
    let family = *families.iter().find(|f| f.name.eq_ignore_ascii_case(family_name)).ok_or_else(|| {
        let names: Vec<&str> = families.iter().filter(|f| !axes_of(f).is_empty()).map(|f| f.name).collect();
        format!(
            "no family is named `{family_name}`{}; the families with axes: {} (--describe shows them)",
            super::suggest::did_you_mean(family_name, names.iter().copied()),
            names.join(", ")
        )
    })?;
    let Some(axis) = family.axes.iter().find(|a| a.name.eq_ignore_ascii_case(axis_name)) else {
        let strings = string_axes(family);
        let (axis, known_values) =
            strings.iter().find(|(a, _)| a.eq_ignore_ascii_case(axis_name)).ok_or_else(|| {
                let axes = axes_of(family);
                let names = axes.iter().map(|(name, _)| name.as_str());
                let about: Vec<String> =
                    axes.iter().map(|(name, about)| format!("{name} ({about})")).collect();
                format!(
                    "the family `{}` has no axis `{axis_name}`{}; its axes: {}",
                    family.name,
                    super::suggest::did_you_mean(axis_name, names),
                    about.join(", ")
                )
            })?;
        return string_setting(family, axis, known_values, values);
    };
    let parsed = parse_values(values, axis.max)?;
    let setting = AxisSetting {
        family: family.name,
        axis: axis.name,
        text: values.to_owned(),
        values: parsed,
        labels: Vec::new(),
    };
    // A value the family rounds to nothing would drop its cases without a word: say so now. A
    // value counts if it adds cases to those the family has with no value on this axis.
    let cases = |values: Vec<u64>| {
        let alone = [AxisSetting { values, ..setting.clone() }];
        (family.expand)(&Env { family, settings: &alone, device: None }).len()
    };
    let without = cases(Vec::new());
    let yields = |values: Vec<u64>| cases(values) > without;
    let unusable = match setting.values.len() {
        0..=CHECKED_ONE_BY_ONE => setting.values.iter().find(|&&v| !yields(vec![v])).map(u64::to_string),
        _ => (!yields(setting.values.clone())).then(|| values.to_owned()),
    };
    match unusable {
        Some(value) => Err(format!(
            "{value} is not a value {}.{} can use (it would run no case); it takes {}",
            family.name, axis.name, axis.about
        )),
        None => Ok(setting),
    }
}

/// Settings with at most this many values have each value checked on its own.
const CHECKED_ONE_BY_ONE: usize = 256;

/// What a family's `expand` sees: its axes' values for this run, and the device's facts if known.
pub struct Env<'a> {
    /// The family being expanded.
    pub family: &'static Family,
    /// Every `--axis` setting of the run (later ones win).
    pub settings: &'a [AxisSetting],
    /// The device's facts; `None` for `--list`, which needs no Vulkan.
    pub device: Option<&'a crate::caps::DeviceCaps>,
}

impl Env<'_> {
    /// The invocations along x of a one-dimensional workgroup that wants `want` (a power of two):
    /// `want`, or the largest power of two the device allows (all of `want` without a device).
    pub fn workgroup_width(&self, want: u32) -> u32 {
        self.device.map_or(want, |d| d.limits.workgroup_width(want))
    }

    /// The rows of a workgroup `width` invocations wide that wants `want` rows (a power of two):
    /// `want`, or the largest power of two the device allows (all of `want` without a device).
    pub fn workgroup_rows(&self, width: u32, want: u32) -> u32 {
        self.device.map_or(want, |d| d.limits.workgroup_rows(width, want))
    }

    /// The values of the family's axis `name`: the last `--axis` setting, else its default.
    /// An axis the family did not declare has no values.
    pub fn axis(&self, name: &str) -> Vec<u64> {
        let set = self.settings.iter().rev().find(|s| s.family == self.family.name && s.axis == name);
        match set {
            Some(setting) => setting.values.clone(),
            None => {
                let axis = self.family.axes.iter().find(|a| a.name == name);
                axis.and_then(|a| parse_values(a.default, a.max).ok()).unwrap_or_default()
            }
        }
    }

    /// The values of axis `name` as the family uses them: each mapped by `round` (`None` leaves
    /// it out), and two values that round alike kept once, where the first appears.
    pub fn axis_rounded(&self, name: &str, round: impl Fn(u64) -> Option<u64>) -> Vec<u64> {
        let mut seen = std::collections::HashSet::new();
        self.axis(name).into_iter().filter_map(round).filter(|v| seen.insert(*v)).collect()
    }
}

/// The largest power of two at most `n` (which is at least 1).
pub fn floor_power_of_two(n: u64) -> u64 {
    1 << (63 - n.leading_zeros())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_geometric_and_listed_values() {
        assert_eq!(parse_values("0:256:64", 65535).unwrap(), [0, 64, 128, 192, 256]);
        assert_eq!(parse_values("0:10:4", 65535).unwrap(), [0, 4, 8]);
        assert_eq!(parse_values("16K..128K*2", u64::MAX).unwrap(), [16384, 32768, 65536, 131072]);
        assert_eq!(parse_values("1G..4GiB*4", u64::MAX).unwrap(), [1 << 30, 4 << 30]);
        assert_eq!(parse_values("8,1,8,3", 100).unwrap(), [8, 1, 3], "repeats dropped, order kept");
        assert_eq!(parse_values("7", 100).unwrap(), [7]);
    }

    #[test]
    fn a_value_that_rounds_to_nothing_is_a_usage_error_naming_the_axis() {
        for (text, value) in [
            ("sweep.bytes=0", "0"),
            ("latency.bytes=3", "3"),
            ("conv.m=0", "0"),
            ("sweep.bytes=16K,1K", "1024"),
        ] {
            let error = parse_setting(text).unwrap_err();
            let axis = text.split('=').next().unwrap();
            assert!(error.starts_with(&format!("{value} is not a value {axis} can use")), "{error}");
        }
        assert!(parse_setting("sweep.bytes=16K,2G").is_ok());
        assert!(parse_setting("branch.n=0:65535:1").is_ok(), "many values are checked as a whole");
    }

    #[test]
    fn bad_values_say_what_is_wrong() {
        let error = |text: &str| parse_values(text, 65535).unwrap_err();
        assert!(error("8:0:8").contains("FROM <= TO"), "{}", error("8:0:8"));
        assert!(error("0:8:0").contains("STEP >= 1"));
        assert!(error("0:8").contains("expected FROM:TO:STEP"));
        assert!(error("x").contains("is not a number"));
        assert!(error("70000").contains("largest value, 65535"));
        assert!(error("1..8").contains("FROM..TO*FACTOR"));
        assert!(error("0..8*2").contains("0 < FROM"));
        assert!(parse_values("0:4294967295:1", u64::MAX).unwrap_err().contains("more than"));
        assert!(parse_values("99999999999T", u64::MAX).unwrap_err().contains("too large"));
        let top = u64::MAX.to_string();
        assert_eq!(parse_values(&format!("{top}:{top}:2"), u64::MAX).unwrap(), [u64::MAX], "no overflow");
    }
}
