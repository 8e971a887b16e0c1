//! The header a run prints before its cases, rendered from the record's facts for a live run and
//! `perftest show` alike; a format-6 file's header as it was printed; an older file's device row.

use crate::analysis::trust::per_clock_unit;
use crate::format::{ns_text, sig4};
use crate::report::columns::fit;
use crate::results::header::{Facts, MatrixShape, Pipelines, Timer};
use crate::results::model::{Device, Run};

/// The header of `run`: by default its short form (what ran, on which device and
/// driver, at what clock), each line fitting 120 columns; with `verbose`, whole.
pub fn header(run: &Run, verbose: bool) -> String {
    let text = match (&run.facts, verbose) {
        (Some(facts), true) => of_facts(run, facts),
        (Some(facts), false) => short_form(&of_facts(run, facts)),
        (None, true) if !run.header.is_empty() => run.header.clone(),
        (None, false) if !run.header.is_empty() => short_form(&run.header),
        (None, _) => of_device_row(run),
    };
    match verbose {
        true => text,
        false => match text.strip_suffix('\n') {
            Some(body) => fit(body) + "\n",
            None => fit(&text),
        },
    }
}

/// The labels of the lines the short header keeps, after its first (`perftest 0.1.0 (git ...)`).
const SHORT: [&str; 7] = ["device:", "driver:", "clock:", "simulating:", "warm-up:", "energy:", "together:"];

/// The short form of a whole header: its first line, which says that `--verbose` prints the rest,
/// and the lines labelled one of [`SHORT`] with the lines that continue them.
fn short_form(whole: &str) -> String {
    let mut lines = whole.lines();
    let mut text = match lines.next() {
        Some(first) => format!("{first}; --verbose prints the whole header\n"),
        None => return String::new(),
    };
    let mut keep = false;
    for line in lines {
        if !line.starts_with(' ') {
            keep = SHORT.iter().any(|label| line.starts_with(label));
        }
        if keep {
            text.push_str(line);
            text.push('\n');
        }
    }
    text
}

/// The header of a run that kept its facts.
fn of_facts(run: &Run, facts: &Facts) -> String {
    let d = &run.device;
    let steps = match (&facts.timestamp_steps, &facts.timestamp_steps_error) {
        (Some(s), _) => format!(
            "; back to back {} apart at the least, {} median ({} pairs, {} equal)",
            ns_text(s.min_ns),
            ns_text(s.median_ns),
            s.pairs,
            s.equal
        ),
        (None, Some(error)) => format!("; steps not measured ({error})"),
        (None, None) => String::new(),
    };
    let units = match (d.compute_units, &d.compute_unit, &facts.compute_units_source) {
        (Some(count), Some(name), Some(source)) => format!("{count} {name} ({source})"),
        _ => "unknown: the driver reports no compute-unit count (VK_NV_shader_sm_builtins, \
              VK_AMD_shader_core_properties, VK_ARM_shader_core_builtins), so rates per compute unit \
              are unknown"
            .into(),
    };
    let peaks = match &d.architecture {
        Some(arch) if !facts.peaks.is_empty() => {
            let unit = d.compute_unit.as_deref().unwrap_or("compute unit");
            let list: Vec<String> = facts
                .peaks
                .iter()
                .map(|p| format!("{} {} {}", p.ceiling, sig4(p.per_clock), per_clock_unit(p.unit, unit)))
                .collect();
            format!("{arch}: {}", list.join(", "))
        }
        _ => format!(
            "unknown for vendor 0x{:04x} device 0x{:04x}, so no % of peak (src/caps/peaks.rs lists the \
             known architectures)",
            d.vendor_id, d.device_id
        ),
    };
    let link = match (&facts.host_link, &facts.host_link_unknown) {
        (Some(link), _) => link.describe(),
        (None, why) => why.clone().unwrap_or_default(),
    };
    let pipelines = match facts.pipelines {
        Pipelines::Lazy => "each case's built just before it runs: a worker died building them all at once \
                            (a driver crash), and this way a crash costs one case"
            .to_owned(),
        Pipelines::FirstFamily { pipelines, cases, seconds, threads } => format!(
            "the first family's {pipelines} for its {cases} cases compiled and created in {seconds:.2} s on \
             {threads} threads before the first case; the other families' when the run reaches them"
        ),
        Pipelines::BesideCases { pipelines, cases, seconds, threads, later, later_threads } => format!(
            "the first family's {pipelines} for its {cases} cases compiled and created in {seconds:.2} s on \
             {threads} threads before the first case; the other families' {later} family by family on \
             {later_threads} threads while the cases ran (a case's pipeline phase is its wait)"
        ),
        Pipelines::WhileWarming { pipelines, cases, seconds, threads } => format!(
            "{pipelines} for {cases} cases compiled and created in {seconds:.2} s on {threads} threads, the first \
             family's before the warm-up and the others' while the device warmed up"
        ),
        Pipelines::Built { pipelines, cases, seconds, threads } => {
            format!(
                "{pipelines} for {cases} cases compiled and created in {seconds:.2} s on {threads} threads"
            )
        }
    };
    let mut text = format!(
        "perftest {} (git {})\n\
         compiler:   {}\n\
         {}\
         timestamps: {} ns per tick, {} valid bits{steps}\n\
         clock:      {}\n\
         units:      {units}\n\
         peaks:      {peaks}\n\
         link:       {link}\n\
         pipelines:  {pipelines}\n",
        run.perftest_version,
        facts.git_commit,
        facts.compiler,
        device_lines(d) + &where_lines(run),
        d.timestamp_period_ns,
        facts.timestamp_valid_bits,
        d.clock.as_deref().unwrap_or("unknown"),
    );
    if let Some(profile) = &d.simulating {
        text.push_str(&format!(
            "simulating: {profile} (limits, features, format uses and timestamp bits clamped to it; the \
             subgroup size is this device's)\n"
        ));
    }
    if let Some(warm_up) = &run.warm_up {
        text.push_str(&format!("warm-up:    {}\n", warm_up.text()));
    }
    if let Some(energy) = &run.energy {
        text.push_str(&format!("energy:     {}\n", energy.line()));
    }
    text.push_str(&format!("settings:   {}\n", settings(run, facts)));
    if !facts.cooperative_matrix.is_empty() {
        let list: Vec<String> = facts.cooperative_matrix.iter().map(shape).collect();
        let head = format!("{} shapes advertised (VK_KHR_cooperative_matrix)", list.len());
        text.push_str(&format!("coopmat:    {head}: {}\n", list.join(", ")));
    }
    if !facts.cooperative_matrix_flexible.is_empty() {
        let list: Vec<String> = facts.cooperative_matrix_flexible.iter().map(flexible).collect();
        let head = format!("{} flexible shapes advertised (VK_NV_cooperative_matrix2)", list.len());
        let mut rest = format!(": {}", list.join("; "));
        if let Some(limits) = facts.cooperative_matrix2_limits {
            rest.push_str(&format!(
                "; at most {} rows or columns, {} invocations at workgroup scope, {} bytes of shared memory \
                 reserved",
                limits.dimension, limits.invocations, limits.shared_bytes
            ));
        }
        text.push_str(&format!("coopmat2:   {head}{rest}\n"));
    }
    if let Some(features) = &facts.bfloat16 {
        let list = if features.is_empty() { "none".to_owned() } else { features.join(", ") };
        text.push_str(&format!("bfloat16:   {list} (VK_KHR_shader_bfloat16)\n"));
    }
    if let Some(dot) = facts.integer_dot_accelerated {
        let says = |on: bool| if on { "accelerated" } else { "not accelerated" };
        text.push_str(&format!(
            "int dot:    packed 4x8-bit dot products: signed {}, unsigned {} (VK_KHR_shader_integer_dot_product)\n",
            says(dot.signed),
            says(dot.unsigned)
        ));
    }
    text
}

/// `16x16x16 FLOAT16*FLOAT16+FLOAT32 SUBGROUP` (`->R` where the result type differs).
fn shape(s: &MatrixShape) -> String {
    let sat = if s.saturating { " saturating" } else { "" };
    format!("{}x{}x{} {} {}{sat}", s.m, s.n, s.k, types(s), s.scope)
}

/// `FLOAT16*FLOAT16+FLOAT32 WORKGROUP in multiples of 16x16x16, 256 invocations`.
fn flexible(s: &MatrixShape) -> String {
    let sat = if s.saturating { " saturating" } else { "" };
    let size = s.invocations.map_or_else(String::new, |n| format!(", {n} invocations"));
    format!("{} {}{sat} in multiples of {}x{}x{}{size}", types(s), s.scope, s.m, s.n, s.k)
}

/// `A*B+C`, with `->R` where the result type differs.
fn types(s: &MatrixShape) -> String {
    let [a, b, c, result] = &s.types;
    let result = if result == c { String::new() } else { format!("->{result}") };
    format!("{a}*{b}+{c}{result}")
}

/// The `settings:` text: how cases are timed (or verified), whether `--quick` chose them, and
/// what ratios are against.
fn settings(run: &Run, facts: &Facts) -> String {
    let s = &run.settings;
    if s.verify {
        return "verify: each case writes its results and they are compared with a CPU reference".into();
    }
    if s.compile_only {
        return "compile only: each case's pipeline is built and the driver's statistics of it shown; \
                nothing runs"
            .into();
    }
    let timer = match facts.timer {
        Timer::Timestamps => "",
        Timer::FencesAsked => "\ntimer: CPU fences (--fence-timing): each time is the CPU's, from just before a submission to its fence's wait returning; measurements aim at 50 ms at least, so the fence costs under 1%",
        Timer::FencesNoTimestamps => "\ntimer: CPU fences: this queue has no GPU timestamps, so each time is the CPU's, from just before a submission to its fence's wait returning; measurements aim at 50 ms at least, so the fence costs under 1%",
    };
    let mut notes: Vec<(String, &str)> = Vec::new();
    for family in &run.families {
        let Some(note) = family.ratio_note.as_deref() else { continue };
        match notes.iter_mut().find(|(_, n)| *n == note) {
            Some((names, _)) => names.push_str(&format!(", {}", family.name)),
            None => notes.push((family.name.clone(), note)),
        }
    }
    let notes: Vec<String> = notes.iter().map(|(names, note)| format!("{names}: {note}")).collect();
    let samples = match facts.converging {
        Some(c) => format!(
            "{} to {} samples after warm-up (stopping once their mean's standard error is under {}%)",
            c.least,
            s.samples,
            c.spread * 100.0
        ),
        None => format!("{} samples after warm-up", s.samples),
    };
    let mut text = format!(
        "target {} ms per measurement ({} dispatches between two timestamps), {samples}",
        s.target_ms, facts.dispatches
    );
    if s.quick {
        let planned = run.cases.len() + run.not_run.len();
        text.push_str(&format!("; --quick: each family's headline cases, {planned} in all"));
    }
    if !notes.is_empty() {
        text.push_str(&format!(
            "\nratio lines: ms for 2^32 of the first unit (loads, invocations), then the rate over the case's \
             baseline, above 1 = faster ({})",
            notes.join("; ")
        ));
    }
    text.push_str(timer);
    text
}

/// The device row's `device:`, `type:`, `driver:` and `queue:` lines, each ending in a newline.
fn device_lines(d: &Device) -> String {
    format!(
        "device:     {}\n\
         type:       {} (vendor 0x{:04x}, device 0x{:04x})\n\
         driver:     {} (Vulkan {})\n\
         queue:      family {}, subgroup size {}\n",
        d.name, d.kind, d.vendor_id, d.device_id, d.driver, d.vulkan_version, d.queue_family, d.subgroup_size,
    )
}

/// Where the run ran, where the record says (files before it was kept say nothing): the host,
/// the device's PCI address and UUIDs, the driver's version; and the devices that ran at the
/// same time.
fn where_lines(run: &Run) -> String {
    let parts = where_parts(run);
    let mut text = match parts.is_empty() {
        true => String::new(),
        false => format!("where:      {}\n", parts.join(", ")),
    };
    if let Some(peers) = together(run) {
        text.push_str(&format!("together:   {peers}\n"));
    }
    text
}

/// What the record says of where `run` ran: `host vm`, `PCI 0000:1b:00.0`, the device's and the
/// driver's UUIDs, the driver's version (none for files before it was kept).
pub fn where_parts(run: &Run) -> Vec<String> {
    let d = &run.device;
    [
        run.host.as_ref().map(|h| format!("host {h}")),
        d.pci.as_ref().map(|p| format!("PCI {p}")),
        d.uuid.as_ref().map(|u| format!("device UUID {u}")),
        d.driver_uuid.as_ref().map(|u| format!("driver UUID {u}")),
        d.driver_version.map(|v| format!("driver version 0x{v:08x}")),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// The devices that ran at the same time as `run`'s, as a sentence; `None` for a run alone.
pub fn together(run: &Run) -> Option<String> {
    let peers: Vec<String> = run
        .together
        .iter()
        .map(|p| match &p.slot {
            Some(slot) => format!("{} ({slot})", p.name),
            None => p.name.clone(),
        })
        .collect();
    (!peers.is_empty()).then(|| format!("ran at the same time as {}", peers.join(", ")))
}

/// The header of a file older than format 6, which did not keep it: the device row's facts.
fn of_device_row(run: &Run) -> String {
    let d = &run.device;
    format!(
        "perftest {} (a format {} file, which did not keep the header; the device row:)\n\
         {}\
         timestamps: {} ns per tick\n\
         clock:      {}\n",
        run.perftest_version,
        run.format_version,
        device_lines(d),
        d.timestamp_period_ns,
        d.clock.as_deref().unwrap_or("unknown"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::caps::Steps;
    use crate::results::header::ArchitecturePeak;

    /// The sample run with facts of an H100 that advertises `shapes` shapes.
    fn h100(shapes: usize) -> Run {
        let mut run = crate::results::model::tests::sample_run();
        let shape = MatrixShape {
            m: 16,
            n: 16,
            k: 16,
            types: ["FLOAT16", "FLOAT16", "FLOAT16", "FLOAT16"].map(str::to_owned),
            scope: "SUBGROUP".into(),
            saturating: false,
            invocations: None,
        };
        run.facts = Some(Facts {
            git_commit: "0123456789ab".into(),
            compute_units_source: Some("VK_NV_shader_sm_builtins".into()),
            peaks: ArchitecturePeak::of_device(0x10de, 0x2330),
            timestamp_steps: Some(Steps { min_ns: 32.0, median_ns: 22_503.0, equal: 1, pairs: 63 }),
            host_link_unknown: Some("none: an integrated device".into()),
            cooperative_matrix: vec![shape; shapes],
            ..Facts::default()
        });
        run.header.clear();
        run
    }

    #[test]
    fn the_hopper_header_lists_units_peaks_and_timer_steps() {
        let text = header(&h100(1), true);
        let line = |label: &str| text.lines().find(|l| l.starts_with(label)).unwrap_or_default().to_owned();
        assert_eq!(line("units:"), "units:      132 SM (VK_NV_shader_sm_builtins)");
        let peaks = line("peaks:");
        assert!(
            peaks.starts_with("peaks:      NVIDIA Hopper (GH100): fp32 FMA 256.0 FLOP/clk/SM, "),
            "{peaks}"
        );
        assert!(peaks.contains("int32 multiply-add 128.0 IOP/clk/SM, L1 128.0 B/clk/SM"), "{peaks}");
        assert!(
            line("timestamps:")
                .ends_with("; back to back 32.00 ns apart at the least, 22.50 µs median (63 pairs, 1 equal)"),
            "{text}"
        );
        assert_eq!(line("coopmat:"), "coopmat:    1 shapes advertised (VK_KHR_cooperative_matrix): 16x16x16 FLOAT16*FLOAT16+FLOAT16 SUBGROUP");
        assert_eq!(line("link:"), "link:       none: an integrated device");
    }

    #[test]
    fn the_pipelines_line_says_when_the_later_families_were_built() {
        let mut run = h100(0);
        let pipelines = Pipelines::WhileWarming { pipelines: 49, cases: 70, seconds: 2.1, threads: 15 };
        run.facts.as_mut().unwrap().pipelines = pipelines;
        let text = header(&run, true);
        let line = text.lines().find(|l| l.starts_with("pipelines:")).unwrap_or_default();
        assert_eq!(
            line,
            "pipelines:  49 for 70 cases compiled and created in 2.10 s on 15 threads, the first family's before \
             the warm-up and the others' while the device warmed up"
        );
        // It reads back from a results file as itself.
        let json = serde_json::to_string(&pipelines).unwrap();
        assert_eq!(serde_json::from_str::<Pipelines>(&json).unwrap(), pipelines, "{json}");
        let beside = Pipelines::BesideCases {
            pipelines: 33,
            cases: 57,
            seconds: 0.28,
            threads: 16,
            later: 424,
            later_threads: 15,
        };
        run.facts.as_mut().unwrap().pipelines = beside;
        let text = header(&run, true);
        let line = text.lines().find(|l| l.starts_with("pipelines:")).unwrap_or_default();
        assert_eq!(
            line,
            "pipelines:  the first family's 33 for its 57 cases compiled and created in 0.28 s on 16 threads \
             before the first case; the other families' 424 family by family on 15 threads while the cases ran \
             (a case's pipeline phase is its wait)"
        );
        let json = serde_json::to_string(&beside).unwrap();
        assert_eq!(serde_json::from_str::<Pipelines>(&json).unwrap(), beside, "{json}");
    }

    #[test]
    fn an_unknown_architecture_says_so() {
        let mut run = h100(0);
        (run.device.vendor_id, run.device.architecture) = (0x10005, None);
        run.facts.as_mut().unwrap().peaks.clear();
        let text = header(&run, true);
        assert!(text.contains("peaks:      unknown for vendor 0x10005"), "{text}");
    }

    #[test]
    fn the_short_header_says_what_ran_where_and_the_whole_one_the_rest() {
        let run = h100(6);
        let short = header(&run, false);
        let labels: Vec<&str> = short.lines().skip(1).filter_map(|l| l.split_whitespace().next()).collect();
        assert_eq!(labels, ["device:", "driver:", "clock:"], "{short}");
        assert!(short.lines().next().unwrap().ends_with("; --verbose prints the whole header"), "{short}");
        let whole = header(&run, true);
        assert!(whole.contains("SUBGROUP, 16x16x16") && whole.contains("units:      132 SM"), "{whole}");
        // A format-6 file's printed header is cut the same way.
        let mut six = crate::results::model::tests::sample_run();
        let list = "16x16x16 FLOAT16*FLOAT16+FLOAT16 SUBGROUP, ".repeat(6);
        six.header = format!(
            "perftest 0.1.0 (git 0)\ndevice:     X\nclock:      at\n            1980 MHz\n\
             coopmat:    6 shapes advertised (VK_KHR_cooperative_matrix): {list}\n"
        );
        assert_eq!(
            header(&six, false),
            "perftest 0.1.0 (git 0); --verbose prints the whole header\ndevice:     X\nclock:      at\n            \
             1980 MHz\n"
        );
        assert_eq!(header(&six, true), six.header);
    }
}
