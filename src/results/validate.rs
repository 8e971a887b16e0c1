//! A results file is input like any other: after loading, every number and name a renderer uses
//! must be one perftest could have written, so an edited or hostile file is refused with a
//! sentence instead of drawing an endless chart or padding a line to a million columns.

use super::flag::Flag;
use super::measure::Measure;
use super::model::{Amount, CaseResult, Run, IMPLAUSIBLE};
use crate::format::printable;

/// The longest name perftest writes is under 100 characters; a case, family, group, variant,
/// baseline, axis or label name, a device name or driver above this was edited.
pub const MAX_NAME_CHARS: usize = 1024;

/// The most headline (`--quick`) cases a family lists; perftest's have at most a few dozen.
const MAX_QUICK: usize = 1024;

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
    // Who ran where: a fleet repeats these per outlier, so each is bounded like a name.
    let identity = [&d.uuid, &d.driver_uuid, &d.pci, &run.host, &d.clock].into_iter().flatten();
    for text in identity {
        name("the run", "a host, device or clock field", text)?;
    }
    for peer in &run.together {
        name("the devices that ran together", "a name", &peer.name)?;
        peer.slot.iter().try_for_each(|slot| name("the devices that ran together", "a slot", slot))?;
    }
    let s = &run.settings;
    let settings = s.families.iter().chain(&s.skip).chain(&s.axes).chain(&s.cases).chain(&s.filter);
    for text in settings.chain(&s.branch_iterations) {
        name("the run's settings", "an option's value", text)?;
    }
    if let Some(sharing) = &run.sharing {
        name("the GPU's other processes", "a watch note", &sharing.watched)?;
        if sharing.shared_readings > sharing.readings || sharing.others.len() > MAX_PROCESSES {
            return Err("has impossible counts of the GPU's other processes; was it edited?".into());
        }
        for other in &sharing.others {
            other.name.iter().try_for_each(|n| name("the GPU's other processes", "a name", n))?;
        }
    }
    if let Some(facts) = &run.facts {
        self::facts(facts)?;
    }
    if let Some(energy) = &run.energy {
        if energy.sensor.is_some() == energy.unknown.is_some() {
            return Err(
                "has an energy record with both a sensor and why there is none, or neither; was it edited?"
                    .into(),
            );
        }
        let texts = energy.sensor.iter().chain(&energy.unknown);
        texts.into_iter().try_for_each(|t| name("the run's energy", "a sensor or reason", t))?;
        for watts in [energy.window_s, energy.idle_w, energy.idle_end_w] {
            positive("the run's energy", "window or idle power", watts)?;
        }
    }
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
        if family.quick.len() > MAX_QUICK {
            return Err(format!(
                "lists {} headline cases of a family, more than any family has; was it edited?",
                family.quick.len()
            ));
        }
        family.quick.iter().try_for_each(|case| name("the families", "a headline case", case))?;
    }
    // A case keeps at most the samples its run asked for: a fleet keeps every run's.
    let most = run.settings.samples.max(1) as usize;
    if let Some(c) = run.cases.iter().find(|c| c.samples_ms.len() > most) {
        return Err(format!(
            "has {} samples for case \"{}\", more than the run's {most} (--samples); was it edited?",
            c.samples_ms.len(),
            printable(&c.name)
        ));
    }
    run.cases.iter().try_for_each(case)
}

/// The first problem with one case.
fn case(c: &CaseResult) -> Result<(), String> {
    name("a case", "a name", &c.name)?;
    let who = format!("case \"{}\"", printable(&c.name));
    for text in [&c.family, &c.group, &c.variant].into_iter().chain(&c.baseline) {
        name(&who, "a family, group, variant or baseline", text)?;
    }
    for (key, value) in &c.labels {
        name(&who, "a label", key)?;
        name(&who, "a label", value)?;
    }
    for key in c.axes.keys() {
        name(&who, "an axis", key)?;
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
    if let Some(f) = &c.faults {
        if f.mismatches > f.checked
            || f.faults.len() > crate::record::faults::RECORDS
            || f.faults.len() as u64 > f.mismatches
        {
            return Err(format!(
                "has more faults than results checked, or more recorded than counted, for {who}"
            ));
        }
        f.injected.iter().try_for_each(|i| name(&who, "an injected fault", i))?;
        if f.first_flip.is_some_and(|share| !(0.0..=1.0).contains(&share)) {
            return Err(format!("has a first injected flip outside its case's draws for {who}"));
        }
    }
    if let Some(peak) = &c.peak {
        name(&who, "a peak", &peak.ceiling)?;
        peak.detail.iter().try_for_each(|d| name(&who, "a peak", d))?;
        unit(&who, &peak.unit.to_string())?;
        positive(&who, "peak", Some(peak.value))?;
    }
    if let Some(clock) = &c.clock {
        let readings = clock.readings.iter().copied().map(Some);
        readings.chain([clock.uncertainty]).try_for_each(|v| positive(&who, "clock reading", v))?;
        if clock.readings.len() > MAX_READINGS {
            return Err(format!("has more clock readings than perftest takes for {who}; was it edited?"));
        }
        if clock.witness_change.is_some_and(|w| !(w.is_finite() && w.abs() < IMPLAUSIBLE)) {
            return Err(format!("has an impossible witness change for {who}; was it edited?"));
        }
    }
    if let Some(energy) = &c.energy {
        for figure in [energy.seconds, energy.joules, energy.measurements as f64] {
            positive(&who, "energy window, joules or measurements", Some(figure))?;
        }
        if energy.busy.is_some_and(|b| !(0.0..=1.5).contains(&b)) {
            return Err(format!(
                "has an impossible share of its energy window busy for {who}; was it edited?"
            ));
        }
        for amount in energy.per_unit.iter().chain(&energy.above_idle) {
            self::amount(&who, amount)?;
            if !matches!(amount.unit, Measure::Energy(_)) {
                return Err(format!("has energy per unit in {} for {who}; was it edited?", amount.unit));
            }
        }
        let board = |above: &Amount| energy.per_unit.iter().find(|b| b.unit == above.unit).map(|b| b.value);
        if energy.above_idle.iter().any(|a| board(a).is_none_or(|b| a.value > b)) {
            return Err(format!(
                "has energy above idle that is not below its board's for {who}; was it edited?"
            ));
        }
    }
    c.flags.iter().try_for_each(|f| flag(&who, f))
}

/// More clock readings than a measurement takes (four witnesses, or the probe's two).
const MAX_READINGS: usize = 16;

/// More other processes than the watch keeps.
const MAX_PROCESSES: usize = 4096;

/// The numbers a flag prints, each one perftest could have written.
fn flag(who: &str, flag: &Flag) -> Result<(), String> {
    let numbers: Vec<f64> = match flag {
        Flag::OverCap { ms, cap_ms, .. } => vec![*ms, *cap_ms],
        Flag::Unsteady { before_mhz, after_mhz, .. } => vec![*before_mhz, *after_mhz],
        Flag::BelowWarmUp { mhz, reference_mhz } => vec![*mhz, *reference_mhz],
        Flag::Throttled { mhz, median_mhz } => vec![*mhz, *median_mhz],
        Flag::AboveMax { mhz, max_mhz } => vec![*mhz, *max_mhz],
        Flag::Implausible { percent, ceiling, peak, why, allowed } => {
            name(who, "a flag", ceiling)?;
            name(who, "a flag", peak)?;
            why.iter().try_for_each(|w| name(who, "a flag", w))?;
            [*percent].into_iter().chain(*allowed).collect()
        }
        Flag::Remeasured { retries } => {
            retries.iter().try_for_each(|r| name(who, "a flag", r))?;
            Vec::new()
        }
        Flag::Baseline(names) => {
            names.iter().try_for_each(|n| name(who, "a flag", n))?;
            Vec::new()
        }
        Flag::Other(text) => {
            name(who, "a flag", text)?;
            Vec::new()
        }
        Flag::Fenced | Flag::Noisy | Flag::Unsettled => Vec::new(),
    };
    numbers.into_iter().try_for_each(|v| positive(who, "flag's number", Some(v)))
}

/// The numbers and names the header prints from the run's facts.
fn facts(facts: &super::header::Facts) -> Result<(), String> {
    for text in [&facts.git_commit, &facts.compiler].into_iter().chain(&facts.timestamp_steps_error) {
        name("the header", "a field", text)?;
    }
    for text in facts.compute_units_source.iter().chain(&facts.host_link_unknown) {
        name("the header", "a field", text)?;
    }
    for peak in &facts.peaks {
        name("the header's peaks", "a ceiling", &peak.ceiling)?;
        positive("the header's peaks", "peak", Some(peak.per_clock))?;
    }
    if let Some(steps) = &facts.timestamp_steps {
        positive("the header's timestamps", "step", Some(steps.median_ns))?;
        positive("the header's timestamps", "step", Some(steps.min_ns))?;
    }
    if let Some(link) = &facts.host_link {
        name("the header's link", "an address", &link.address)?;
        for lanes in [link.lanes, link.current] {
            positive("the header's link", "transfer rate", Some(lanes.gts))?;
            if lanes.width == 0 || lanes.width > 1024 {
                return Err("has an impossible link width in the header; was it edited?".into());
            }
        }
    }
    if let Some(converging) = &facts.converging {
        positive("the header's sampling", "spread", Some(converging.spread))?;
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
            "has {what} of {} characters for {who} (\"{}...\"; perftest writes at most {MAX_NAME_CHARS}); was it \
             edited?",
            text.chars().count(),
            printable(&start)
        ));
    }
    Ok(())
}

/// A unit perftest writes: a work unit's total, rate, or rate per clock per compute unit (whose
/// name is a short word: `SM`, `CU`, `core`), clocks or nanoseconds per one of them (`clk/load`,
/// `ns per load`), or a link's `GB/s`. Anything else (markup, a sentence) was edited in, and a
/// renderer would print it raw.
fn unit(who: &str, text: &str) -> Result<(), String> {
    let word =
        |w: &str| !w.is_empty() && w.len() <= 16 && w.chars().all(|c| c.is_ascii_alphanumeric() || c == ' ');
    let known = match Measure::from(text) {
        Measure::PerClock { compute_unit, .. } => word(&compute_unit),
        Measure::Other(other) => {
            other == "GB/s"
                || other.strip_prefix("clk/").or_else(|| other.strip_prefix("ns per ")).is_some_and(word)
        }
        _ => true,
    };
    if text.chars().count() > MAX_UNIT_CHARS || !known {
        return Err(format!(
            "has a unit perftest does not write for {who} (\"{}\"); was it edited?",
            printable(&text.chars().take(40).collect::<String>())
        ));
    }
    Ok(())
}
