//! What a perftest invocation does: one arm per command, each handing off to the module that does it.

use crate::cli::{Cli, Command, CompareFormat};
use crate::error::Result;
use crate::registry;
use crate::report::output::{self, Named};
use crate::report::{self, compare, plot};
use crate::runner::open::check_validation;
use crate::runner::run::RunSettings;
use crate::runner::work::Request;
use crate::session::progress::print;
use crate::session::{self, Session};
use crate::vk::context::ContextOptions;
use crate::vk::instance::Instance;
use crate::vk::select;

/// Runs the command line: the binary's whole behaviour.
pub fn run(cli: &Cli) -> Result<()> {
    match &cli.command {
        Some(Command::Compare { files, format, output, fail_on_slower }) => {
            guard(&[output.as_deref()], &inputs(files))?;
            let (labels, runs) = load_all(files)?;
            let comparison = compare::compare(&labels, &runs);
            // The verdict is decided first; a document that cannot be written changes it not.
            let slower = fail_on_slower.map(|percent| (percent, compare::slower_than(&comparison, percent)));
            let verdict = match slower {
                Some((percent, slower)) if !slower.is_empty() => Err(crate::Error::Slower {
                    count: slower.len(),
                    percent,
                    worst: slower[0].0.clone(),
                    change: slower[0].1 * 100.0,
                }),
                _ => Ok(()),
            };
            let document = match format {
                CompareFormat::Text => report::sections::compare::to_text(&comparison),
                CompareFormat::Markdown => report::sections::compare::to_markdown(&comparison),
                CompareFormat::Json => serde_json::to_string_pretty(&comparison)
                    .map_err(|source| crate::Error::Serialize { what: "the comparison", source })?,
            };
            let written = write(output.as_deref(), &document);
            session::fleet::decided(verdict, written.err().into_iter().collect())
        }
        Some(Command::Fleet { inputs, format, output, confirm, reference, write_reference, metrics }) => {
            session::fleet::fleet(&session::fleet::Request {
                inputs,
                format: *format,
                output: output.as_deref(),
                confirm: *confirm,
                reference: reference.as_deref(),
                write_reference: write_reference.as_deref(),
                metrics: metrics.as_deref(),
            })
        }
        Some(Command::History { inputs, format, output, report }) => {
            session::history::history(&session::history::Request {
                inputs,
                format: *format,
                output: output.as_deref(),
                report: report.as_deref(),
            })
        }
        Some(Command::Health { reference, drain, metrics, npd, keep }) => {
            session::health::health(&session::health::Request {
                reference,
                drain: *drain,
                metrics: metrics.as_deref(),
                keep: keep.as_deref(),
                npd: *npd,
            })
        }
        Some(Command::Show { file, format, output, verbose }) => {
            guard(&[output.as_deref()], &inputs(std::slice::from_ref(file)))?;
            write(output.as_deref(), &report::render(&crate::results::load(file)?, *format, *verbose)?)
        }
        Some(Command::Check { file, expect }) => {
            let run = crate::results::load(file)?;
            let expected = crate::analysis::expect::Expectations::load(expect)?;
            let listed: Vec<String> = listed_by(&run, file)?.into_iter().map(|c| c.name).collect();
            let shown = expect.display().to_string();
            let open: Vec<&str> =
                registry::families().into_iter().filter(|f| f.device_cases).map(|f| f.name).collect();
            let problems = crate::analysis::expect::check(&run, &listed, &open, &expected, &shown);
            if !problems.is_empty() {
                return Err(crate::Error::Unexpected {
                    run: file.display().to_string(),
                    expect: shown,
                    problems,
                });
            }
            let failed = run.cases.iter().filter(|c| c.status.is_failure()).count();
            Ok(print(&format!(
                "{}: all {} listed cases present; {failed} failed as {} expects",
                file.display(),
                listed.len(),
                shown
            ))?)
        }
        Some(Command::Report { files, output }) => {
            let (labels, runs) = load_all(files)?;
            let written = report::page::files(output, &runs);
            let named: Vec<Named<'_>> =
                written.iter().map(|path| Named { role: "the report's file", path }).collect();
            output::guard(&named, &inputs(files))?;
            report::page::write(&labels, runs, output)?;
            Ok(print(&format!("{}: index.html and report.md written", output.display()))?)
        }
        Some(Command::Plot { files, metric, output }) => {
            guard(&[Some(output.as_path())], &inputs(files))?;
            let (labels, runs) = load_all(files)?;
            plot::plot(&labels, &runs, *metric, output)
        }
        None if cli.list => {
            let cases = selected_without_device(cli)?;
            let names: Vec<&str> = cases.iter().map(|c| c.name.as_str()).collect();
            Ok(print(&names.join("\n"))?)
        }
        None if cli.describe => Ok(print(registry::describe(&selected_without_device(cli)?).trim_end())?),
        None if cli.devices => {
            let instance = Instance::new(cli.validation)?;
            let (_, rows) = select::enumerate(&instance)?;
            print(select::format_devices(&rows, &select::devices(&rows)).trim_end())?;
            let sink = instance.sink();
            drop(instance);
            check_validation(&sink)
        }
        None => session::benchmark(&session_of(cli)).map_err(word_of_cases),
    }
}

/// A device word that names no device but is in case names (`perftest sin`) says how to run them.
fn word_of_cases(error: crate::Error) -> crate::Error {
    match error {
        crate::Error::DeviceName { name, cases, rows } if cases.is_empty() => {
            let word = name.to_lowercase();
            let count = registry::all().iter().filter(|c| c.name.to_lowercase().contains(&word)).count();
            let cases = match count {
                0 => String::new(),
                1 => format!(", but 1 case name does: run it with --filter {name}"),
                n => format!(", but {n} case names do: run them with --filter {name}"),
            };
            crate::Error::DeviceName { name, cases, rows }
        }
        other => other,
    }
}

/// The cases `--family`, `--filter`, `--skip` and `--axis` select, expanded with no device facts (`--list`,
/// `--describe`: no Vulkan).
fn selected_without_device(cli: &Cli) -> Result<Vec<registry::CaseSpec>> {
    cli.selection().apply(registry::expand(&cli.axis_settings(), None))
}

/// The cases a saved run's selection lists (its filter, skip and axes, expanded as `--list` does).
fn listed_by(run: &crate::results::Run, file: &std::path::Path) -> Result<Vec<registry::CaseSpec>> {
    let axes = run
        .settings
        .axes
        .iter()
        .map(|text| registry::parse_setting(text))
        .collect::<std::result::Result<Vec<_>, String>>()
        .map_err(|e| crate::Error::ResultsFile {
            path: file.display().to_string(),
            problem: format!("has an axis perftest cannot read ({e})"),
        })?;
    let s = &run.settings;
    let selection = registry::Selection {
        families: s.families.clone(),
        filter: s.filter.clone(),
        skip: s.skip.clone(),
        quick: s.quick,
        names: s.cases.clone(),
    };
    selection.apply(registry::expand(&axes, None))
}

/// The results files a command reads, as inputs that no output may be.
fn inputs(files: &[std::path::PathBuf]) -> Vec<Named<'_>> {
    files.iter().map(|path| Named { role: "the results file", path }).collect()
}

/// Refuses an `--output` that is one of `inputs` (see [`output::guard`]).
fn guard(outputs: &[Option<&std::path::Path>], inputs: &[Named<'_>]) -> Result<()> {
    let outputs: Vec<Named<'_>> =
        outputs.iter().flatten().map(|path| Named { role: "--output", path }).collect();
    output::guard(&outputs, inputs)
}

/// Loads every results file (a bad one fails before anything is written), labelled by its path.
fn load_all(files: &[std::path::PathBuf]) -> Result<(Vec<String>, Vec<crate::results::Run>)> {
    let runs = files.iter().map(|f| crate::results::load(f)).collect::<Result<Vec<_>>>()?;
    Ok((files.iter().map(|f| f.display().to_string()).collect(), runs))
}

/// Writes `document` to `output` (atomically) or stdout.
fn write(output: Option<&std::path::Path>, document: &str) -> Result<()> {
    match output {
        Some(path) => report::write_atomic(path, document),
        None => Ok(print(document.trim_end())?),
    }
}

/// The watchdog's time for a case: `--watchdog`, or 3000 times the target time and at least 60 s.
fn watchdog(cli: &Cli) -> std::time::Duration {
    // An energy hold gives up on a sensor after three windows and a little more.
    let hold = match cli.energy {
        true => 3.0 * cli.energy_window.unwrap_or(4.0) + 3.0,
        false => 0.0,
    };
    let seconds = cli.watchdog.unwrap_or_else(|| (3.0 * cli.target_ms).max(60.0)) + hold;
    std::time::Duration::from_secs_f64(seconds)
}

/// What a run of `cli` asks for, whichever process runs it (a worker parses its own command line).
pub fn request(cli: &Cli) -> Request {
    Request {
        options: ContextOptions {
            device_name: cli.device_name.clone(),
            device_index: cli.device_index.map(|n| n as usize),
            queue_family: cli.queue,
            validation: cli.validation,
            simulate: cli.simulate.clone(),
        },
        axes: cli.axis_settings(),
        selection: cli.selection(),
        settings: RunSettings {
            target_ms: cli.target_ms,
            samples: cli.samples,
            verify: cli.verify,
            compile_only: cli.compile_only,
            shader_stats: cli.shader_stats,
            fence_timing: cli.fence_timing,
            fixed_samples: cli.fixed_samples,
            energy: cli.energy.then_some(cli.energy_window),
        },
    }
}

/// The benchmark run `cli` asks for, as the runner takes it.
fn session_of(cli: &Cli) -> Session {
    Session {
        request: request(cli),
        all_devices: cli.all_devices,
        one_at_a_time: cli.one_at_a_time,
        host: match cli.no_host_name {
            true => None,
            false => cli.host_name.clone().or_else(session::host::kernel_host_name),
        },
        output: cli.output.clone(),
        format: cli.format,
        json: cli.json.clone(),
        in_process: cli.in_process,
        watchdog: watchdog(cli),
        strict: cli.strict,
        verbose: cli.verbose,
        worker_args: std::env::args_os().skip(1).collect(),
    }
}
