//! A whole run: open the device row, expand the families with its facts, create the device with
//! what the selection needs, build the pipelines, run, and write the results document.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::SystemTime;

use super::bench::DISPATCHES;
use super::progress::{write_line, Progress};
use super::run::{prepare, run_cases, Finished, RunSettings, STOP};
use crate::caps::{Feature, Requirements};
use crate::cli::{Cli, Format};
use crate::error::{Error, ExitCode, Result};
use crate::registry::{self, CaseSpec};
use crate::report::trust::Trust;
use crate::report::{self, model, text, twins};
use crate::vk::context::{Adapter, ContextOptions};
use crate::vk::debug::{drain, Sink};
use crate::vk::Context;

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

/// The features each of `cases` needs, as one group per case, and the driver's shader statistics
/// and the shader clock as groups of their own (enabled where offered: the statistics are kept
/// in the results, the clock probe reads the clock); and the formats whose properties to query.
/// A group is enabled only if the device offers all of its features, so a case that lacks one
/// enables none (the Vulkan memory model that cooperative matrices need would otherwise change
/// the rules for every other shader). Groups hold features only: a case whose features are all
/// offered but whose shape or limit is not still enables them (harmless so far).
pub fn needs(cases: &[CaseSpec]) -> (Vec<Vec<Feature>>, Vec<ash::vk::Format>) {
    let mut all = Requirements::new();
    let mut groups: Vec<Vec<Feature>> = Vec::new();
    for case in cases {
        let needs = case.requirements();
        let group: Vec<Feature> = needs.features.iter().copied().collect();
        if !group.is_empty() && !groups.contains(&group) {
            groups.push(group);
        }
        all.union(&needs);
    }
    groups.push(vec![Feature::PipelineExecutableInfo]);
    groups.push(vec![Feature::ShaderSubgroupClock]);
    (groups, all.format_list())
}

/// Creates the device of `adapter` with what `cases` need.
pub fn context_for(adapter: Adapter, cases: &[CaseSpec]) -> Result<Context> {
    let (features, formats) = needs(cases);
    Context::new(adapter, &features, &formats)
}

/// Opens the row `options` name, expands the families with its facts, keeps the cases `filter`
/// and `skip` select, and creates the device with what they need.
pub fn open(
    options: &ContextOptions,
    axes: &[registry::AxisSetting],
    filter: Option<&str>,
    skip: &[String],
) -> Result<(Context, Vec<CaseSpec>)> {
    let adapter = Adapter::open(options)?;
    let (_, facts) = adapter.describe(&[]);
    let cases = registry::filter(registry::expand(axes, Some(&facts)), filter, skip)?;
    Ok((context_for(adapter, &cases)?, cases))
}

/// The header's `settings:` text: how cases are timed (or verified) and what ratios are against.
fn settings_text(settings: &RunSettings, cases: &[CaseSpec]) -> String {
    if settings.verify {
        return "verify: each case writes its results and they are compared with a CPU reference".into();
    }
    let mut notes: Vec<(String, &str)> = Vec::new();
    for family in registry::families() {
        let (Some(note), true) = (family.ratio_note, cases.iter().any(|c| c.family == family.name)) else {
            continue;
        };
        match notes.iter_mut().find(|(_, n)| *n == note) {
            Some((names, _)) => names.push_str(&format!(", {}", family.name)),
            None => notes.push((family.name.to_owned(), note)),
        }
    }
    let notes: Vec<String> = notes.iter().map(|(names, note)| format!("{names}: {note}")).collect();
    let mut text = format!(
        "target {} ms per measurement ({DISPATCHES} dispatches between two timestamps), {} samples after warm-up",
        settings.target_ms, settings.samples
    );
    if !notes.is_empty() {
        text.push_str(&format!(
            "\nratio lines: ms for 2^32 of the first unit (loads, invocations), then the rate over the case's \
             baseline, above 1 = faster ({})",
            notes.join("; ")
        ));
    }
    text
}

/// Where row `n`'s document goes under `--all-devices --output path`: `results.json` becomes
/// `results-row2.json`.
pub fn row_path(path: &Path, n: usize) -> PathBuf {
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let name = match path.extension() {
        Some(ext) => format!("{stem}-row{n}.{}", ext.to_string_lossy()),
        None => format!("{stem}-row{n}"),
    };
    path.with_file_name(name)
}

/// Times or verifies the selection as `cli` asks: on the chosen row, or with `--all-devices` on
/// every row DEVICE matches in turn (a failing row does not stop the next; the first error is
/// returned after the last row).
pub fn benchmark(cli: &Cli) -> Result<()> {
    if !cli.all_devices {
        return benchmark_row(cli, cli.device_index.map(|n| n as usize), cli.output.as_deref());
    }
    let rows = {
        let instance = crate::vk::instance::Instance::new(cli.validation)?;
        let (_, rows) = crate::vk::select::enumerate(&instance)?;
        let sink = instance.sink();
        // An empty match is select's error, which lists the rows.
        crate::vk::select::select(&rows, cli.device_name.as_deref(), None)?;
        let count = crate::vk::select::matching(&rows, cli.device_name.as_deref()).len();
        drop(instance);
        check_validation(&sink)?;
        count
    };
    let mut first_error = None;
    for n in 1..=rows {
        if STOP.load(Ordering::SeqCst) {
            break;
        }
        if n > 1 && cli.output.is_none() {
            write_line("")?;
        }
        let output = cli.output.as_deref().map(|path| row_path(path, n));
        if let Err(error) = benchmark_row(cli, Some(n), output.as_deref()) {
            // The first error is returned (and printed once, by main); later ones are said here.
            match first_error {
                None => first_error = Some(error),
                Some(_) => eprintln!("perftest: row {n}: {error}"),
            }
        }
    }
    first_error.map_or(Ok(()), Err)
}

/// Times or verifies the selection on row `index` (among those DEVICE matches; the best with
/// none) and writes the results to `output` (or stdout).
fn benchmark_row(cli: &Cli, index: Option<usize>, output: Option<&Path>) -> Result<()> {
    let options = ContextOptions {
        device_name: cli.device_name.clone(),
        device_index: index,
        validation: cli.validation,
    };
    let settings = RunSettings {
        target_ms: cli.target_ms,
        samples: cli.samples,
        verify: cli.verify,
        shader_stats: cli.shader_stats,
    };
    let axes = cli.axis_settings();
    // A destination that cannot be written fails now, not after the run.
    if let Some(path) = output {
        report::output::check_writable(path)?;
    }
    let date = humantime::format_rfc3339_seconds(SystemTime::now()).to_string();
    // The first Ctrl-C, SIGTERM or SIGHUP asks the run to stop after the current case; a second
    // one ends it now.
    let _ = ctrlc::set_handler(|| {
        if STOP.swap(true, Ordering::SeqCst) {
            std::process::exit(ExitCode::Interrupted as i32);
        }
    });
    let (ctx, selected) = open(&options, &axes, cli.filter.as_deref(), &cli.skip)?;
    let sink = ctx.validation_sink();
    let device = model::Device::from(&ctx.info);
    let prepared = prepare(&ctx, &selected, super::pipelines::default_threads(), !settings.verify)?;
    let built = &prepared.pipelines;
    let pipelines = format!(
        "{} for {} cases compiled and created in {:.2} s on {} threads",
        built.len(),
        selected.len(),
        built.elapsed.as_secs_f64(),
        built.threads
    );
    let clock = prepared.clock.unknown.clone().unwrap_or_else(|| text::CLOCK_MEASURED.to_owned());
    let warm_up = prepared.warmth.as_ref().map(|w| model::WarmUp::new(&w.first, w.reference()));
    let trust = Trust::of(&ctx.info);
    let header = text::header(
        &ctx.info,
        &settings_text(&settings, &selected),
        &pipelines,
        &clock,
        warm_up.as_ref().map(|w| w.text.as_str()),
    );
    // Text goes to stdout line by line; every other destination gets one document at the end.
    let stream = cli.format == Format::Text && output.is_none();
    if stream {
        write_line(&header)?;
    }
    let mut document_text = format!("{header}\n");
    let mut records: Vec<model::CaseResult> = Vec::new();
    let mut write_error = None;
    let mut current: Option<&CaseSpec> = None;
    let progress = Progress::new(selected.len());
    let outcome = run_cases(
        &ctx,
        &selected,
        &prepared,
        &settings,
        |case| {
            progress.start(&case.name);
            current = Some(case);
        },
        |done: Finished<'_>| {
            let Finished { case, outcome, baseline, notes, shader } = done;
            let mut record = model::CaseResult::new(case, outcome, &trust, baseline);
            record.shader_stats = shader.map(<[String]>::to_vec).unwrap_or_default();
            let twin = case.twin.as_ref().and_then(|twin| records.iter().find(|r| r.name == *twin));
            record.compiled =
                twin.and_then(|t| twins::compiled(&t.name, &t.shader_stats, &record.shader_stats));
            let mut line = text::line(&case.name, outcome, &trust, baseline);
            let compiled = record.compiled.iter().map(|c| format!("compiled: {c}"));
            record.notes = notes.iter().cloned().chain(text::retry_note(outcome)).chain(compiled).collect();
            for note in &record.notes {
                line.push_str(&format!("\n    {note}"));
            }
            document_text.push_str(&line);
            document_text.push('\n');
            records.push(record);
            if !stream {
                progress.advance();
            } else if let Err(e) = progress.finish_case(&line) {
                write_error.get_or_insert(e);
            }
        },
    );
    progress.finish();
    drop(prepared);
    drop(ctx);
    if let (Err(error), Some(case)) = (&outcome, current) {
        if !records.iter().any(|r| r.name == case.name) {
            records.push(model::CaseResult::failed(case, error));
        }
    }
    // How the run ended, decided before anything is written, so every format can say it.
    let mut device = device;
    device.clock = Some(clock);
    let mut run = model::Run {
        format_version: model::FORMAT_VERSION,
        perftest_version: env!("CARGO_PKG_VERSION").to_owned(),
        date,
        settings: model::Settings {
            target_ms: cli.target_ms,
            samples: cli.samples,
            verify: cli.verify,
            filter: cli.filter.clone(),
            skip: cli.skip.clone(),
            axes: axes.iter().map(|a| format!("{}.{}={}", a.family, a.axis, a.text)).collect(),
            branch_iterations: None,
        },
        device,
        interrupted: false,
        ending: model::Ending::default(),
        clock_median_mhz: None,
        warm_up,
        levels: Vec::new(),
        cases: records,
    };
    run.flag_throttled();
    run.flag_baselines();
    run.levels = report::levels::of_run(&run);
    let stopped = STOP.load(Ordering::SeqCst);
    let interrupted = outcome.is_err() || stopped;
    let finished = run.cases.len();
    let result = outcome.map(drop).and_then(|()| check_validation(&sink));
    let result = match (result, stopped) {
        (Ok(()), true) => Err(Error::Interrupted { finished, selected: selected.len() }),
        (Ok(()), false) if cli.strict => run.strict(),
        (other, _) => other,
    };
    run.interrupted = interrupted;
    run.ending = model::Ending::of(&result);
    let summary = format!(
        "{}{}{}",
        report::levels::text(&run.levels),
        text::clock_summary(&run),
        text::baselines_summary(&run)
    );
    let document = match cli.format {
        Format::Text => format!("{document_text}{summary}\n{}\n", run.ending.line()),
        Format::Json => report::to_json(&run),
        Format::Csv => report::to_csv(&run)?,
        Format::Markdown => report::to_markdown(&run),
    };
    match output {
        Some(path) => report::output::write_or_rescue(path, &document)?,
        None if !stream => write_line(document.trim_end())?,
        None => {
            if let Err(e) = write_line(&format!("{summary}\n{}", run.ending.line())) {
                write_error.get_or_insert(e);
            }
        }
    }
    result?;
    if let Some(e) = write_error {
        return Err(e.into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_row_gets_its_own_file_next_to_the_named_one() {
        assert_eq!(row_path(Path::new("out/results.json"), 2), Path::new("out/results-row2.json"));
        assert_eq!(row_path(Path::new("results"), 1), Path::new("results-row1"));
        assert_eq!(row_path(Path::new("a.b.csv"), 3), Path::new("a.b-row3.csv"));
    }
}
