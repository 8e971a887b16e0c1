//! A results file is input like any other: after loading, every number and name a renderer uses
//! must be one perftest could have written, so an edited or hostile file is refused with a
//! sentence instead of drawing an endless chart or padding a line to a million columns.

use super::model::{Amount, CaseResult, Run, IMPLAUSIBLE};
use crate::format::printable;

/// The longest name perftest writes is under 100 characters; a case, family, group, variant,
/// baseline, axis or label name, a device name or driver above this was edited.
pub const MAX_NAME_CHARS: usize = 1024;

/// The longest unit (`loads/clk/SM`, `B/s`).
const MAX_UNIT_CHARS: usize = 64;

/// The smallest positive figure perftest writes anywhere (a rate per clock per compute unit of
/// one submission a second on a 2 GHz GPU of a thousand units is 5e-13).
const TINY: f64 = 1e-15;

/// The first problem with `run`, as the end of a sentence that starts with the file's name.
pub fn check(run: &Run) -> Result<(), String> {
    let d = &run.device;
    let optional = [&d.compute_unit, &d.architecture, &d.simulating].into_iter().flatten();
    for text in [&d.name, &d.kind, &d.driver, &d.vulkan_version].into_iter().chain(optional) {
        name("the device", "a device field", text)?;
    }
    name("the run", "its perftest version", &run.perftest_version)?;
    name("the run", "its date", &run.date)?;
    if d.compute_units == Some(0) {
        return Err(
            "says the device has 0 compute units (perftest writes a count or null); was it edited?".into()
        );
    }
    positive("the device", "timestamp period", Some(f64::from(d.timestamp_period_ns)))?;
    positive("the run", "target time", Some(run.settings.target_ms))?;
    positive("the run", "median clock", run.clock_median_mhz)?;
    if let Some(warm) = &run.warm_up {
        let figures = warm.readings.iter().flat_map(|(load, mhz)| [load, mhz]).chain([&warm.load_ms]);
        if figures.into_iter().any(|v| !(0.0..IMPLAUSIBLE).contains(v)) {
            return Err("has an impossible warm-up reading; was it edited?".into());
        }
        positive("the warm-up", "clock", warm.settled_mhz)?;
        positive("the warm-up", "clock", warm.reference_mhz)?;
    }
    positive("the run", "wall time", run.wall_s)?;
    for levels in &run.levels {
        name("the levels", "a variant", &levels.variant)?;
        unit("the levels", &levels.unit)?;
        for level in &levels.levels {
            name("the levels", "a level", &level.name)?;
            positive("the levels", "rate", Some(level.rate))?;
        }
    }
    for (family, (width, _)) in &run.legacy_line_widths {
        name("the line widths", "a family", family)?;
        if *width > MAX_NAME_CHARS {
            return Err(format!(
                "has a line width of {width} characters for family \"{}\" (perftest writes at most \
                 {MAX_NAME_CHARS}); was it edited?",
                printable(family)
            ));
        }
    }
    for not_run in &run.not_run {
        name("the cases not run", "a family", &not_run.family)?;
        name("the cases not run", "a name", &not_run.name)?;
    }
    for family in &run.families {
        name("the families", "a name", &family.name)?;
    }
    run.cases.iter().try_for_each(case)
}

/// The first problem with one case.
fn case(c: &CaseResult) -> Result<(), String> {
    name("a case", "name", &c.name)?;
    let who = format!("case \"{}\"", printable(&c.name));
    for text in [&c.family, &c.group, &c.variant].into_iter().chain(&c.baseline) {
        name(&who, "family, group, variant or baseline", text)?;
    }
    for (key, value) in &c.labels {
        name(&who, "label", key)?;
        name(&who, "label", value)?;
    }
    for key in c.axes.keys() {
        name(&who, "axis", key)?;
    }
    if let Some(phases) = &c.phases {
        let all = phases
            .named()
            .into_iter()
            .chain([("samples' GPU", phases.samples_gpu_ms), ("total", phases.total_ms)]);
        for (phase, ms) in all {
            // 0 is a phase the case did not have.
            if !(0.0..IMPLAUSIBLE).contains(&ms) {
                return Err(format!("has an impossible {phase} time for {who}: {ms:e} ms; was it edited?"));
            }
        }
    }
    if c.samples_ms.iter().any(|ms| !(*ms > 0.0 && *ms < IMPLAUSIBLE)) {
        return Err(format!("has an impossible sample time for {who}"));
    }
    for amount in c.rate.iter().chain(&c.rates).chain(&c.work).chain(&c.per_clock) {
        self::amount(&who, amount)?;
    }
    let figures = [c.ratio, c.clock_mhz, c.peak_percent, c.median_ms, c.min_ms];
    if figures.iter().flatten().any(|r| !(TINY..IMPLAUSIBLE).contains(r)) {
        return Err(format!("has an impossible ratio, clock, time or % of peak for {who}"));
    }
    if c.cv.is_some_and(|cv| !(0.0..IMPLAUSIBLE).contains(&cv)) {
        return Err(format!("has an impossible spread (cv) for {who}"));
    }
    if c.units.len() > MAX_UNITS || c.units.iter().any(|u| !(TINY..IMPLAUSIBLE).contains(&u.per_clock)) {
        return Err(format!("has an impossible rate per compute unit, or too many units, for {who}"));
    }
    Ok(())
}

/// More compute units than any GPU has (the largest have a few hundred).
const MAX_UNITS: usize = 65_536;

fn amount(who: &str, amount: &Amount) -> Result<(), String> {
    let text = amount.unit.to_string();
    unit(who, &text)?;
    if !(TINY..IMPLAUSIBLE).contains(&amount.value) {
        return Err(format!(
            "has an impossible value for {who}: {:e} {} (perftest writes only positive, finite values from \
             {TINY:e} to {IMPLAUSIBLE:e}); was it edited?",
            amount.value,
            printable(&text)
        ));
    }
    Ok(())
}

fn positive(who: &str, what: &str, value: Option<f64>) -> Result<(), String> {
    match value {
        Some(v) if !(TINY..IMPLAUSIBLE).contains(&v) => {
            Err(format!("has an impossible {what} for {who}: {v:e}; was it edited?"))
        }
        _ => Ok(()),
    }
}

fn name(who: &str, what: &str, text: &str) -> Result<(), String> {
    if text.chars().count() > MAX_NAME_CHARS {
        let start: String = text.chars().take(40).collect();
        return Err(format!(
            "has a {what} of {} characters for {who} (\"{}...\"; perftest writes at most {MAX_NAME_CHARS}); was it \
             edited?",
            text.chars().count(),
            printable(&start)
        ));
    }
    Ok(())
}

fn unit(who: &str, text: &str) -> Result<(), String> {
    if text.chars().count() > MAX_UNIT_CHARS {
        return Err(format!("has a unit of more than {MAX_UNIT_CHARS} characters for {who}; was it edited?"));
    }
    Ok(())
}
