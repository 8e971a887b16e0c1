//! A whole run: read the device row's facts, expand the families with them, run the selection in
//! worker processes (or this one), and write the results document with every case that finished.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::{Duration, SystemTime};

use self::collect::{Collector, Template};
use self::progress::write_line;
use self::supervise::supervise;
use crate::analysis::trust::Trust;
use crate::error::{Error, Result};
use crate::report::{self, text};
use crate::results::model::{self, Peer};
use crate::runner::assemble::{order, stagger};
use crate::runner::message::Job;
use crate::runner::open::{check_validation, plan};
use crate::runner::run::{HURRY, STOP};
use crate::runner::work::{work, Request};
use crate::vk::context::ContextOptions;

pub mod child;
pub mod collect;
pub mod confirm;
pub mod host;
pub mod node;
pub mod progress;
pub mod supervise;
pub mod watch;

/// Where device `n`'s document goes under `--all-devices --output path`: `results.json` becomes
/// `results-gpu2.json`. The suffix goes on the file name as given (see [`device_outputs`] for
/// folders and what cannot take one).
pub fn device_path(path: &Path, n: usize) -> PathBuf {
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let name = match path.extension() {
        Some(ext) => format!("{stem}-gpu{n}.{}", ext.to_string_lossy()),
        None => format!("{stem}-gpu{n}"),
    };
    path.with_file_name(name)
}

/// Each of `devices` devices' path for `option`'s `path` under `--all-devices`: in a folder (one
/// that exists, or a path ending in `/`), `HOST-gpuN.EXT` (`gpuN.EXT` without a host name); else
/// the file name with `-gpuN` ([`device_path`]). A path that is no file to suffix (`/dev/null`,
/// `/dev/stdout`, a FIFO) is refused: its devices would write `/dev/null-gpu1` beside it.
pub fn device_outputs(
    option: &'static str,
    path: &Path,
    devices: usize,
    host: Option<&str>,
    extension: &str,
) -> Result<Vec<PathBuf>> {
    let folder = path.as_os_str().to_string_lossy().ends_with('/') || path.is_dir();
    if folder {
        let name = |n: usize| match host {
            Some(host) => format!("{host}-gpu{n}.{extension}"),
            None => format!("gpu{n}.{extension}"),
        };
        return Ok((1..=devices).map(|n| path.join(name(n))).collect());
    }
    // Followed as the kernel follows it (`/dev/stdout` is a link into /proc to a pipe, a terminal
    // or the file the shell redirected to); anything under /dev or /proc names a device or a
    // process's file, not one to put a suffix on.
    let system = ["/dev/", "/proc/"].iter().any(|dir| path.starts_with(dir));
    if system || std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        return Err(Error::NoSuffix {
            option,
            path: path.display().to_string(),
            example: device_path(path, 1).display().to_string(),
        });
    }
    Ok((1..=devices).map(|n| device_path(path, n)).collect())
}

/// What a benchmark run is asked to do: the request every worker gets, and how the parent runs
/// and writes it (plain settings; `app` makes them from the command line).
#[derive(Clone, Debug)]
pub struct Session {
    /// The device rows, the selection and the run settings.
    pub request: Request,
    /// Run every physical device the device name matches, one document each (`--all-devices`).
    pub all_devices: bool,
    /// With `all_devices`, one device after another instead of all at once (`--one-at-a-time`).
    pub one_at_a_time: bool,
    /// The host's name to record (`--host-name`, else this machine's; none with `--no-host-name`).
    pub host: Option<String>,
    /// Where the document goes (stdout when `None`).
    pub output: Option<std::path::PathBuf>,
    /// What the document is.
    pub format: report::Format,
    /// Where the run's JSON record also goes, whatever the document is (`--json`).
    pub json: Option<std::path::PathBuf>,
    /// Run the cases in this process instead of a worker (`--in-process`).
    pub in_process: bool,
    /// How long a case may take before its worker is stopped.
    pub watchdog: Duration,
    /// Exit 12 or 13 on implausible results or a flagged baseline (`--strict`).
    pub strict: bool,
    /// Print each case's full line, not the columns that fit 120 (`--verbose`).
    pub verbose: bool,
    /// The arguments a worker is started with (this process's own).
    pub worker_args: Vec<OsString>,
}

/// Times or verifies the selection as `session` asks: on the chosen row, or on every physical
/// device the device name matches, all at once, each in its own worker, or one after another
/// (a failing device does not stop the others; the first error is returned after the last).
pub fn benchmark(session: &Session) -> Result<()> {
    // The first Ctrl-C, SIGTERM or SIGHUP asks the run to stop after the current case; a second
    // one stops a worker's case now (recorded as interrupted). Either way the results are written,
    // and the user hears so at once (a run can take seconds to reach its first case).
    let _ = ctrlc::set_handler(|| {
        match STOP.swap(true, Ordering::SeqCst) {
        false => eprintln!(
            "perftest: stopping after the case in progress (Ctrl-C again to stop it now); what finished will be \
             written"
        ),
        true => {
            HURRY.store(true, Ordering::SeqCst);
            eprintln!("perftest: stopping now; what finished will be written");
        }
    }
    });
    let options = &session.request.options;
    if !session.all_devices {
        let paths = Paths { output: session.output.as_deref(), json: session.json.as_deref() };
        return benchmark_row(session, options.device_index, paths, Vec::new(), None, 0);
    }
    // An output that cannot take each device's suffix is refused before Vulkan is touched.
    for (option, path) in [("--output", &session.output), ("--json", &session.json)] {
        if let Some(path) = path {
            device_outputs(option, path, 1, None, "json")?;
        }
    }
    // Each device as the others' documents name it: by its slot (PCI address, else UUID).
    let devices = {
        let instance = crate::vk::instance::Instance::new(options.validation)?;
        let (_, rows) = crate::vk::select::enumerate(&instance)?;
        let sink = instance.sink();
        // An empty match is select's error, which lists the devices.
        crate::vk::select::select(&rows, options.device_name.as_deref(), None, options.queue_family)?;
        let devices: Vec<(usize, Peer)> =
            crate::vk::select::one_row_per_device(&rows, options.device_name.as_deref())
                .into_iter()
                .map(|(index, at)| {
                    let row = &rows[at];
                    let uuid = crate::caps::Identity::uuid_text(&row.uuid);
                    (index, Peer { name: row.name.clone(), slot: Some(row.pci.clone().unwrap_or(uuid)) })
                })
                .collect();
        drop(instance);
        check_validation(&sink)?;
        devices
    };
    // Every device's outputs, checked before any device runs.
    let host = session.host.clone();
    let extension = match session.format {
        report::Format::Json => "json",
        report::Format::Csv => "csv",
        report::Format::Markdown => "md",
        report::Format::Text => "txt",
    };
    let per_device = |option, path: Option<&Path>, extension| {
        path.map(|p| device_outputs(option, p, devices.len(), host.as_deref(), extension)).transpose()
    };
    let outputs = per_device("--output", session.output.as_deref(), extension)?;
    let jsons = per_device("--json", session.json.as_deref(), "json")?;
    {
        use report::output::Named;
        let named: Vec<Named<'_>> = outputs
            .iter()
            .flatten()
            .map(|path| Named { role: "--output", path })
            .chain(jsons.iter().flatten().map(|path| Named { role: "--json", path }))
            .collect();
        let profile = options.simulate.as_ref().map(|p| p.source.as_path());
        let inputs: Vec<Named<'_>> =
            profile.map(|path| Named { role: "the --simulate profile", path }).into_iter().collect();
        report::output::guard(&named, &inputs)?;
        for path in outputs.iter().flatten().chain(jsons.iter().flatten()) {
            if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty() && !p.exists()) {
                return Err(Error::Output {
                    path: path.display().to_string(),
                    detail: format!("its folder {} does not exist", parent.display()),
                });
            }
            report::output::check_writable(path)?;
        }
    }
    let run = |n: usize, index: usize, together: Vec<Peer>, planned: Option<Planned>| {
        let output = outputs.as_ref().map(|all| all[n - 1].clone());
        let json = jsons.as_ref().map(|all| all[n - 1].clone());
        let paths = Paths { output: output.as_deref(), json: json.as_deref() };
        // The devices running at once take their passes over free memory at different times.
        let slot = if together.is_empty() { 0 } else { n - 1 };
        benchmark_row(session, Some(index), paths, together, planned, slot)
    };
    let results: Vec<Result<()>> = if session.one_at_a_time || devices.len() == 1 {
        let mut results = Vec::new();
        for (n, (index, _)) in devices.iter().enumerate() {
            if STOP.load(Ordering::SeqCst) {
                break;
            }
            if n > 0 && session.output.is_none() {
                write_line("")?;
            }
            results.push(run(n + 1, *index, Vec::new(), None));
        }
        results
    } else {
        let peers: Vec<Peer> = devices.iter().map(|(_, peer)| peer.clone()).collect();
        std::thread::scope(|scope| {
            // Each device's facts and cases are read here, one after another (see benchmark_row),
            // and its run starts as soon as they are: a device slow to plan holds back only the
            // plans after it.
            let mut handles = Vec::new();
            for (n, (index, _)) in devices.iter().enumerate() {
                let options = ContextOptions { device_index: Some(*index), ..options.clone() };
                let planned = plan(&options, &session.request.axes, &session.request.selection);
                let others = peers.iter().enumerate().filter(|(m, _)| *m != n).map(|(_, p)| p.clone());
                let together: Vec<Peer> = others.collect();
                handles.push(scope.spawn(move || run(n + 1, *index, together, Some(planned?))));
            }
            handles
                .into_iter()
                .map(|h| {
                    h.join().unwrap_or_else(|_| {
                        Err(Error::Worker { detail: "a device's thread panicked".into() })
                    })
                })
                .collect()
        })
    };
    let mut first_error = None;
    for (n, result) in results.into_iter().enumerate() {
        let Err(error) = result else { continue };
        // The first error is returned (and printed once, by main); later ones are said here.
        match first_error {
            None => first_error = Some(error),
            Some(_) => {
                let text = crate::error::report(&error);
                eprintln!("perftest: device {}: {}", n + 1, crate::format::printable_lines(&text))
            }
        }
    }
    first_error.map_or(Ok(()), Err)
}

/// A device row's facts and the cases selected on it ([`plan`]).
type Planned = (crate::caps::DeviceInfo, Vec<crate::registry::CaseSpec>);

/// Where one row's document and JSON record go (stdout and nowhere when `None`).
#[derive(Clone, Copy)]
struct Paths<'p> {
    output: Option<&'p Path>,
    json: Option<&'p Path>,
}

/// Times or verifies the selection on row `index` (among those DEVICE matches; the best with
/// none) in worker processes (in this one with `--in-process`), and writes the results to
/// `paths` (or stdout): every case that finished, whatever happened to the others.
///
/// `planned` is the row's facts and cases where the caller read them already: several devices
/// running at once are planned one after another on the calling thread, so this process opens
/// Vulkan on one thread at a time (with NVIDIA's driver 580 it crashed at exit when two threads
/// had each opened and closed an instance). `slot` is the row's place among the devices running
/// at once (`together` and it), which moves its pass over free memory ([`stagger`]).
fn benchmark_row(
    session: &Session,
    index: Option<usize>,
    paths: Paths<'_>,
    together: Vec<Peer>,
    planned: Option<Planned>,
    slot: usize,
) -> Result<()> {
    let request = &session.request;
    let settings = &request.settings;
    let options = ContextOptions { device_index: index, ..request.options.clone() };
    let output = paths.output;
    // A destination that cannot be written, or that is an input or the other output, fails now,
    // not after the run.
    use report::output::Named;
    let outputs = [("--output", paths.output), ("--json", paths.json)];
    let outputs: Vec<Named<'_>> =
        outputs.into_iter().filter_map(|(role, path)| Some(Named { role, path: path? })).collect();
    let profile = request.options.simulate.as_ref().map(|p| p.source.as_path());
    let inputs: Vec<Named<'_>> =
        profile.map(|path| Named { role: "the --simulate profile", path }).into_iter().collect();
    report::output::guard(&outputs, &inputs)?;
    for path in paths.output.iter().chain(&paths.json) {
        report::output::check_writable(path)?;
    }
    let date = humantime::format_rfc3339_seconds(SystemTime::now()).to_string();
    let began = std::time::Instant::now();
    let (info, selected) = match planned {
        Some(planned) => planned,
        None => plan(&options, &request.axes, &request.selection)?,
    };
    // Other processes on the GPU, watched while the cases run (timed runs: a shared GPU's rates
    // mislead, its verification does not).
    let watch = settings
        .timed()
        .then(|| watch::Watch::start(info.identity.device_uuid, info.vendor_id == crate::caps::NVIDIA));
    let planned_device = model::Device::from(&info);
    let job = Job {
        row: index,
        cases: stagger(&selected, order(&selected, !settings.timed()), slot, together.len() + 1)
            .into_iter()
            .map(|i| selected[i].name.clone())
            .collect(),
        lazy: false,
    };
    // Text goes to stdout line by line; every other destination gets one document at the end, as
    // does each of several devices running at once.
    let alone = together.is_empty();
    let stream = session.format == report::Format::Text && output.is_none() && alone;
    let template = Template {
        date,
        settings: model::Settings {
            target_ms: settings.target_ms,
            samples: settings.most_samples(info.row.kind),
            verify: settings.verify,
            compile_only: settings.compile_only,
            families: request.selection.families.clone(),
            filter: request.selection.filter.clone(),
            skip: request.selection.skip.clone(),
            quick: request.selection.quick,
            cases: request.selection.names.clone(),
            axes: request.axes.iter().map(|a| format!("{}.{}={}", a.family, a.axis, a.text)).collect(),
            branch_iterations: None,
        },
        host: session.host.clone(),
        together,
    };
    let mut collector =
        Collector::new(&selected, template, Trust::of(&info), stream.then_some(session.verbose), alone);
    let ran = if session.in_process {
        work(request, &job, &mut |message| collector.take(message)).map(|()| None)
    } else {
        supervise(&session.worker_args, &job, session.watchdog, &mut |message| collector.take(message))
            .map(Some)
    };
    collector.finish();
    let sharing = watch.map(watch::Watch::finish);
    // A device of several at once that never opened still leaves its document (every case not
    // run, the error), so `fleet` hears of it; so does a run stopped before its first case. Alone,
    // a device that failed to open has only its error to say.
    let stopped = STOP.load(Ordering::SeqCst);
    if (!alone && ran.is_err()) || stopped {
        collector.never_ready(planned_device);
    }
    let Some(mut run) = collector.run.take() else {
        return Err(ran.err().unwrap_or(Error::Worker { detail: "ended before opening the device".into() }));
    };
    run.sharing = sharing;
    run.workers = ran.as_ref().ok().copied().flatten();
    run.wall_s = Some(began.elapsed().as_secs_f64());
    run.flag_throttled();
    run.flag_baselines();
    run.levels = crate::analysis::levels::of_run(&run);
    // A case a second signal stopped did not finish.
    let finished = run.cases.iter().filter(|c| c.status != model::Status::Interrupted).count();
    run.interrupted = ran.is_err() || stopped || finished < selected.len();
    let validation = std::mem::take(&mut collector.validation);
    let validated =
        if validation.is_empty() { Ok(()) } else { Err(Error::Validation { messages: validation }) };
    let result = ran.map(drop).and_then(|()| run.failures()).and(validated);
    let result = match (result, stopped) {
        (Ok(()), true) => Err(Error::Interrupted { finished, selected: selected.len() }),
        (Ok(()), false) if session.strict => run.strict(),
        (other, _) => other,
    };
    run.ending = model::Ending::of(&result);
    let kept = paths.json.map(|path| report::output::write_or_rescue(path, &report::to_json(&run)?));
    let mut write_error = collector.write_error.take();
    // Streamed text printed its header and lines already: only the rest is rendered.
    match output {
        Some(path) => {
            report::output::write_or_rescue(path, &report::render(&run, session.format, session.verbose)?)?
        }
        None if !stream => write_line(report::render(&run, session.format, session.verbose)?.trim_end())?,
        None => {
            let mut end = format!("{}\n{}", text::summary(&run), run.ending.line());
            if !session.verbose {
                end = report::columns::fit(&end);
            }
            if let Err(e) = write_line(&end) {
                write_error.get_or_insert(e);
            }
        }
    }
    kept.transpose()?;
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
    fn each_device_gets_its_own_file_next_to_the_named_one() {
        assert_eq!(device_path(Path::new("out/results.json"), 2), Path::new("out/results-gpu2.json"));
        assert_eq!(device_path(Path::new("results"), 1), Path::new("results-gpu1"));
        assert_eq!(device_path(Path::new("a.b.csv"), 3), Path::new("a.b-gpu3.csv"));
    }

    #[test]
    fn a_folder_takes_each_devices_file_and_a_device_file_takes_no_suffix() {
        let dir = tempfile::tempdir().unwrap();
        let inside = device_outputs("--json", dir.path(), 2, Some("node07"), "json").unwrap();
        assert_eq!(inside, [dir.path().join("node07-gpu1.json"), dir.path().join("node07-gpu2.json")]);
        let unnamed = device_outputs("--json", Path::new("screen/"), 1, None, "json").unwrap();
        assert_eq!(unnamed, [Path::new("screen/gpu1.json")]);
        for special in ["/dev/null", "/dev/stdout"] {
            let error = device_outputs("--json", Path::new(special), 2, None, "json").unwrap_err();
            assert_eq!(error.exit_code(), crate::ExitCode::Usage, "{special}");
            assert!(
                error.to_string().starts_with(&format!("--json {special} cannot take each device's suffix")),
                "{error}"
            );
        }
        let file = device_outputs("--output", &dir.path().join("r.json"), 2, None, "json").unwrap();
        assert_eq!(file[1], dir.path().join("r-gpu2.json"));
    }
}
