//! What a perftest invocation does: list cases, list devices, or run (time or verify) the selected cases.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::cli::{Cli, Command, CompareFormat, Format};
use crate::error::{Error, ExitCode, Result};
use crate::registry::{self, Selected};
use crate::runner::bench::{Bench, DISPATCHES};
use crate::runner::measure::measure;
use crate::runner::progress::{write_line, Progress};
use crate::runner::report::{self, Outcome};
use crate::runner::scaling::{Policy, MAX_SUBMIT_MS};
use crate::vk::context::ContextOptions;
use crate::vk::debug::{drain, Sink};
use crate::vk::instance::Instance;
use crate::vk::{select, Context};
use crate::{compare, results};

/// Set by Ctrl-C: the run stops after the case in progress and writes what finished.
pub static STOP: AtomicBool = AtomicBool::new(false);

/// How to run the selected cases.
#[derive(Clone, Copy, Debug)]
pub struct RunSettings {
    /// Target milliseconds per measurement.
    pub target_ms: f64,
    /// Samples after warm-up.
    pub samples: u32,
    /// Verify instead of timing.
    pub verify: bool,
    /// Report the driver's shader statistics of each case.
    pub shader_stats: bool,
}

impl RunSettings {
    /// GPU time that warm-up may spend per case before it gives up on settled clocks.
    pub fn warmup_cap_ms(&self) -> f64 {
        50.0 * self.target_ms
    }

    fn describe(&self) -> String {
        if self.verify {
            "verify: each case writes its results and they are compared with a CPU reference".into()
        } else {
            format!(
                "target {} ms per measurement ({DISPATCHES} dispatches between two timestamps), \
                 {} samples after warm-up\n\
                 ratio lines: ms for 2^32 loads (branch: invocations), then the rate over the \
                 baseline, above 1 = faster (loads: \"{}\"; branch: NX Coherent branch baseline)",
                self.target_ms,
                self.samples,
                crate::cases::BASELINE
            )
        }
    }
}

/// Runs the command line: the binary's whole behaviour.
pub fn run(cli: &Cli) -> Result<()> {
    match &cli.command {
        Some(Command::Compare { files, format, output }) => {
            return run_compare(files, *format, output.as_deref())
        }
        Some(Command::Plot { files, metric, output }) => {
            let (labels, runs) = load_all(files)?;
            return crate::plot::plot(&labels, &runs, *metric, output);
        }
        None => {}
    }
    let selected =
        registry::filter(registry::all_with(cli.branch_iterations), cli.filter.as_deref(), &cli.skip)?;
    if cli.list {
        for s in &selected {
            write_line(s.case.name)?;
        }
        return Ok(());
    }
    if cli.devices {
        let instance = Instance::new(cli.validation)?;
        let (_, rows) = select::enumerate(&instance)?;
        write_line(select::format_rows(&rows.iter().collect::<Vec<_>>()).trim_end())?;
        let sink = instance.sink();
        drop(instance);
        return check_validation(&sink);
    }
    benchmark(cli, &selected)
}

/// Times or verifies `selected` on the chosen row and writes the results as `cli` asks.
fn benchmark(cli: &Cli, selected: &[Selected]) -> Result<()> {
    let options = ContextOptions {
        device_name: cli.device_name.clone(),
        device_index: cli.device_index.map(|n| n as usize),
        validation: cli.validation,
    };
    let settings = RunSettings {
        target_ms: cli.target_ms,
        samples: cli.samples,
        verify: cli.verify,
        shader_stats: cli.shader_stats,
    };
    let date = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    // The first Ctrl-C asks the run to stop after the current case; a second one ends it now.
    let _ = ctrlc::set_handler(|| {
        if STOP.swap(true, Ordering::SeqCst) {
            std::process::exit(ExitCode::Interrupted as i32);
        }
    });
    let ctx = Context::new(&options)?;
    let sink = ctx.validation_sink();
    let device = results::Device::from(&ctx.info);
    let header = report::header(&ctx.info, &settings.describe());
    // Text goes to stdout line by line; every other destination gets one document at the end.
    let stream = cli.format == Format::Text && cli.output.is_none();
    if stream {
        write_line(&header)?;
    }
    let mut text = format!("{header}\n");
    let mut records: Vec<results::CaseResult> = Vec::new();
    let mut write_error = None;
    let mut current: Option<Selected> = None;
    let progress = Progress::new(selected.len());
    let outcome = run_cases(
        &ctx,
        selected,
        &settings,
        |s| {
            progress.start(s.case.name);
            current = Some(s);
        },
        |s, outcome, notes| {
            let mut line = report::line(s.case.name, outcome);
            for note in notes {
                line.push_str(&format!("\n    {note}"));
            }
            text.push_str(&line);
            text.push('\n');
            records.push(results::CaseResult::new(s.case.name, s.family.name, outcome));
            if !stream {
                progress.advance();
            } else if let Err(e) = progress.finish_case(&line) {
                write_error.get_or_insert(e);
            }
        },
    );
    progress.finish();
    drop(ctx);
    if let (Err(error), Some(s)) = (&outcome, current) {
        if !records.iter().any(|r| r.name == s.case.name) {
            records.push(results::CaseResult::failed(s.case.name, s.family.name, error));
        }
    }
    let run = results::Run {
        format_version: results::FORMAT_VERSION,
        perftest_version: env!("CARGO_PKG_VERSION").to_owned(),
        date,
        settings: results::Settings {
            target_ms: cli.target_ms,
            samples: cli.samples,
            verify: cli.verify,
            filter: cli.filter.clone(),
            skip: cli.skip.clone(),
            branch_iterations: format!(
                "{}:{}:{}",
                cli.branch_iterations.from, cli.branch_iterations.to, cli.branch_iterations.step
            ),
        },
        device,
        interrupted: outcome.is_err() || STOP.load(Ordering::SeqCst),
        cases: records,
    };
    let document = match cli.format {
        Format::Text => text,
        Format::Json => results::to_json(&run),
        Format::Csv => results::to_csv(&run)?,
        Format::Markdown => results::to_markdown(&run),
    };
    match &cli.output {
        Some(path) => results::write_atomic(path, &document)?,
        None if !stream => write_line(document.trim_end())?,
        None => {}
    }
    outcome?;
    if let Some(e) = write_error {
        return Err(e.into());
    }
    check_validation(&sink)?;
    if STOP.load(Ordering::SeqCst) {
        return Err(Error::Interrupted { finished: run.cases.len(), selected: selected.len() });
    }
    Ok(())
}

/// Loads every results file (a bad one fails before anything is written), labelled by its path.
fn load_all(files: &[std::path::PathBuf]) -> Result<(Vec<String>, Vec<results::Run>)> {
    let runs = files.iter().map(|f| results::load(f)).collect::<Result<Vec<_>>>()?;
    Ok((files.iter().map(|f| f.display().to_string()).collect(), runs))
}

/// `perftest compare`: loads every file first, so a bad one fails before anything is printed.
fn run_compare(
    files: &[std::path::PathBuf],
    format: CompareFormat,
    output: Option<&std::path::Path>,
) -> Result<()> {
    let (labels, runs) = load_all(files)?;
    let comparison = compare::compare(&labels, &runs);
    let document = match format {
        CompareFormat::Text => compare::to_text(&comparison),
        CompareFormat::Markdown => compare::to_markdown(&comparison),
        CompareFormat::Json => serde_json::to_string_pretty(&comparison).unwrap_or_default(),
    };
    match output {
        Some(path) => results::write_atomic(path, &document),
        None => Ok(write_line(document.trim_end())?),
    }
}

/// Fails if the validation layer said anything (read after every Vulkan object is destroyed,
/// so leaks reported at vkDestroyDevice count too).
pub fn check_validation(sink: &Sink) -> Result<()> {
    let messages = drain(sink);
    if messages.is_empty() {
        Ok(())
    } else {
        Err(Error::Validation { messages })
    }
}

/// Runs `cases` in order on `ctx`, calling `on_start` before and `on_done` after each (with
/// notes such as shader statistics). A case whose requirements the device lacks is skipped with the reason.
pub fn run_cases(
    ctx: &Context,
    cases: &[Selected],
    settings: &RunSettings,
    mut on_start: impl FnMut(Selected),
    mut on_done: impl FnMut(Selected, &Outcome, &[String]),
) -> Result<Vec<(&'static str, Outcome)>> {
    let max = ctx.info.max_group_count;
    let policy = Policy {
        target_ms: settings.target_ms,
        max_submit_ms: MAX_SUBMIT_MS,
        max_groups: u64::from(max[0]) * u64::from(max[1]),
    };
    // A family with a baseline prints ratios: measure each baseline first, so that the lines
    // still come in order, each with its ratio.
    let mut early: Vec<(&'static str, Outcome, Vec<String>)> = Vec::new();
    if !settings.verify {
        for baseline in cases.iter().filter_map(|s| s.baseline) {
            let already = early.iter().any(|(name, ..)| *name == baseline);
            if let (false, Some(&selected)) = (already, cases.iter().find(|s| s.case.name == baseline)) {
                on_start(selected);
                let (outcome, notes) = run_or_skip(ctx, selected, settings, &policy)?;
                early.push((baseline, outcome, notes));
            }
        }
    }
    let base_rates: Vec<(&str, f64)> =
        early.iter().filter_map(|(n, o, _)| o.rate().map(|r| (*n, r))).collect();
    let mut results = Vec::with_capacity(cases.len());
    let mut said_no_ratio = false;
    for &selected in cases {
        if STOP.load(Ordering::SeqCst) {
            break;
        }
        let name = selected.case.name;
        on_start(selected);
        let (mut outcome, mut notes) = match early.iter().position(|(n, ..)| *n == name) {
            Some(i) => {
                let (_, outcome, notes) = early.swap_remove(i);
                (outcome, notes)
            }
            None => run_or_skip(ctx, selected, settings, &policy)?,
        };
        let own_rate = outcome.rate();
        if let (Some(baseline), Outcome::Timed { ratio, with_time, .. }) = (selected.baseline, &mut outcome) {
            *with_time = true;
            match base_rates.iter().find(|(n, _)| *n == baseline) {
                Some((_, base)) => *ratio = own_rate.map(|r| r / base),
                None if !said_no_ratio => {
                    notes.push(format!(
                        "no ratios: the baseline \"{baseline}\" was not timed (filtered out or skipped)"
                    ));
                    said_no_ratio = true;
                }
                None => {}
            }
        }
        on_done(selected, &outcome, &notes);
        results.push((name, outcome));
    }
    Ok(results)
}

fn run_or_skip(
    ctx: &Context,
    selected: Selected,
    settings: &RunSettings,
    policy: &Policy,
) -> Result<(Outcome, Vec<String>)> {
    let name = selected.case.name;
    match selected.case.requires.iter().find_map(|r| r.unmet(&ctx.caps)) {
        Some(reason) => Ok((Outcome::Skipped(reason), Vec::new())),
        None => run_case(ctx, selected, settings, policy).map_err(|e| e.in_case(name)),
    }
}

fn run_case(
    ctx: &Context,
    selected: Selected,
    settings: &RunSettings,
    policy: &Policy,
) -> Result<(Outcome, Vec<String>)> {
    let mut bench = Bench::new(ctx, selected)?;
    let statistics = if settings.shader_stats { Some(bench.shader_statistics()?) } else { None };
    let notes = match statistics {
        None => Vec::new(),
        Some(Some(lines)) => lines.into_iter().map(|l| format!("shader {l}")).collect(),
        Some(None) => {
            vec!["shader statistics: not offered by this driver (VK_KHR_pipeline_executable_properties)"
                .into()]
        }
    };
    if settings.verify {
        return Ok((Outcome::Verified { checked: bench.verify()? }, notes));
    }
    let measurement = measure(&mut bench, policy, settings.samples as usize, settings.warmup_cap_ms())?;
    let work = bench.work(measurement.groups);
    Ok((Outcome::Timed { measurement, work, ratio: None, with_time: false }, notes))
}
