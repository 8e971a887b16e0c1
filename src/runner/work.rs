//! A worker's whole job, in a worker process or (with `--in-process`) in perftest's own: open the
//! device row, expand the families with its facts, build the pipelines of the cases asked for,
//! warm up, run them, and hand on one [`Message`] per step.
//!
//! Why it is built so: docs/design/worker-isolation.md.

use std::collections::{HashMap, HashSet};
use std::io::{BufRead, Write};
use std::sync::atomic::Ordering;

use std::time::Duration;

use super::bench::DISPATCHES;
use super::energy::{default_window, Meter};
use super::message::{Job, Message, Ready};
use super::open::open;
use super::pipelines::default_threads;
use super::run::{execute, prepare, RunSettings, STOP};
use crate::caps::DeviceInfo;
use crate::error::{Error, Result};
use crate::registry::{AxisSetting, CaseSpec, Selection};
use crate::results::energy::RunEnergy;
use crate::results::header::{Converging, Facts, Pipelines, Timer};
use crate::results::model;
use crate::sensors::energy::{EnergySensor, Identity};
use crate::vk::context::ContextOptions;
use crate::vk::debug::drain;

/// What to run, whichever process runs it: the device rows, the selection and the settings.
#[derive(Clone, Debug)]
pub struct Request {
    /// The device rows DEVICE names and the validation layer (the row itself is the job's).
    pub options: ContextOptions,
    /// `--axis` settings.
    pub axes: Vec<AxisSetting>,
    /// `--family`, `--filter` and `--skip`.
    pub selection: Selection,
    /// How to time or verify.
    pub settings: RunSettings,
}

/// Runs `job` as `request` says, handing each message to `emit`; an error opening the device or
/// building the pipelines is returned (no case has run then).
pub fn work(request: &Request, job: &Job, emit: &mut dyn FnMut(Message) -> Result<()>) -> Result<()> {
    let options = ContextOptions { device_index: job.row, ..request.options.clone() };
    let (mut ctx, selected) = open(&options, &request.axes, &request.selection)?;
    ctx.fenced |= request.settings.fence_timing;
    // A probe of the timer for the header; a failure here is said there, and the cases go on.
    let steps = crate::vk::transfer::steps(&ctx);
    let sink = ctx.validation_sink();
    let by_name: HashMap<&str, &CaseSpec> = selected.iter().map(|c| (c.name.as_str(), c)).collect();
    let cases = job
        .cases
        .iter()
        .map(|name| {
            by_name.get(name.as_str()).map(|c| (*c).clone()).ok_or_else(|| Error::CaseSpec {
                case: name.clone(),
                problem: "the worker's selection lacks it (its families expanded differently)".into(),
            })
        })
        .collect::<Result<Vec<CaseSpec>>>()?;
    let baselines: HashSet<&str> = selected.iter().filter_map(|c| c.baseline.as_deref()).collect();
    let settings = &request.settings;
    // The idle device is read before anything loads it.
    let (mut meter, mut energy) = match settings.energy {
        Some(window) => {
            let (meter, energy) = energy_meter(&ctx.info, window)?;
            (meter, Some(energy))
        }
        None => (None, None),
    };
    let mut prepared = prepare(&ctx, &cases, default_threads(), settings.timed(), job.lazy)?;
    prepared.energy = meter.take().map(std::cell::RefCell::new);
    let built = &prepared.pipelines;
    let (seconds, threads) = (built.elapsed.as_secs_f64(), built.threads);
    let first_cases = || cases.iter().filter(|c| Some(c.family) == prepared.first_family).count();
    let later = &prepared.later;
    let pipelines = match (job.lazy, later.pipelines, later.beside()) {
        (true, _, _) => Pipelines::Lazy,
        (false, 0, _) => Pipelines::Built { pipelines: built.len(), cases: cases.len(), seconds, threads },
        (false, _, true) => Pipelines::BesideCases {
            pipelines: built.len(),
            cases: first_cases(),
            seconds,
            threads,
            later: later.pipelines,
            later_threads: later.threads,
        },
        (false, _, false) => {
            Pipelines::FirstFamily { pipelines: built.len(), cases: first_cases(), seconds, threads }
        }
    };
    let timer = match (ctx.fenced, settings.fence_timing) {
        (false, _) => Timer::Timestamps,
        (true, true) => Timer::FencesAsked,
        (true, false) => Timer::FencesNoTimestamps,
    };
    let mut facts = Facts::of(&ctx.info, pipelines, timer);
    facts.dispatches = DISPATCHES;
    let sampling = settings.sampling(ctx.info.row.kind);
    facts.converging = (sampling.least < sampling.most)
        .then_some(Converging { least: sampling.least, spread: sampling.spread });
    match steps {
        Ok(steps) => facts.timestamp_steps = steps,
        Err(error) => facts.timestamp_steps_error = Some(error.to_string()),
    }
    let mut device = model::Device::from(&ctx.info);
    device.clock = Some(match (&prepared.clock.unknown, &prepared.clock.witness) {
        (Some(unknown), _) => unknown.clone(),
        (None, Ok(witness)) => {
            let (rate, uncertainty) = witness.rate();
            model::clock_witnessed(rate, uncertainty)
        }
        (None, Err(why)) => format!("{}; not beside the work: {why}", model::CLOCK_MEASURED),
    });
    let warm_up =
        prepared.warmth.as_ref().map(|w| model::WarmUp { reference_mhz: w.reference(), ..w.first.clone() });
    emit(Message::Ready(Box::new(Ready { device, facts, warm_up, energy: energy.take() })))?;
    let order: Vec<usize> = (0..cases.len()).collect();
    let emit = std::cell::RefCell::new(emit);
    let ran = execute(
        &ctx,
        &cases,
        &order,
        &prepared,
        settings,
        &baselines,
        &sink,
        &mut |case| (emit.borrow_mut())(Message::Start { case: case.name.clone() }),
        &mut |record| (emit.borrow_mut())(Message::Done(Box::new(record))),
    );
    // Read with nothing submitted, before the device is closed; not after a stop, which should not
    // wait a window.
    let idle_w = match (&ran, prepared.energy.take(), STOP.load(Ordering::SeqCst)) {
        (Ok(()), Some(meter), false) => Some(meter.into_inner().idle_watts()),
        _ => None,
    };
    drop(prepared);
    drop(ctx);
    ran?;
    (emit.into_inner())(Message::End { validation: drain(&sink), idle_w })
}

/// The device's energy sensor held for `window` seconds (`None`: the sensor's own), with the idle
/// power read now; or none, and the run's energy says why (the run goes on without it).
fn energy_meter(info: &DeviceInfo, window: Option<f64>) -> Result<(Option<Meter<EnergySensor>>, RunEnergy)> {
    let id = Identity {
        vendor: info.vendor_id,
        uuid: &info.identity.device_uuid,
        pci: info.identity.pci.as_deref(),
        cpu: info.kind == "Cpu",
    };
    let unknown = |why: String| RunEnergy { unknown: Some(why), ..Default::default() };
    let sys = std::env::var_os("PERFTEST_SYS").map_or_else(|| "/sys".into(), std::path::PathBuf::from);
    let sensor = match EnergySensor::find(&id, &sys) {
        Ok(sensor) => sensor,
        Err(why) => return Ok((None, unknown(why))),
    };
    let window = window.map_or_else(|| default_window(&sensor), Duration::from_secs_f64);
    let name = sensor.name.clone();
    let mut meter = Meter::new(sensor, window);
    let window_s = Some(window.as_secs_f64());
    Ok(match meter.idle_watts() {
        Ok(idle) => {
            let energy = RunEnergy { sensor: Some(name), window_s, idle_w: Some(idle), ..Default::default() };
            (Some(meter), energy)
        }
        Err(why) => (None, unknown(format!("{name}: {why}"))),
    })
}

/// The worker process's main: reads its [`Job`] from the first line of stdin, then runs it,
/// writing each message as a line on stdout; a later line on stdin, or its end (the parent
/// closed it or died), asks it to stop after the case in progress. Returns the exit code.
pub fn serve(request: &Request) -> u8 {
    let mut first = String::new();
    let mut stdin = std::io::stdin().lock();
    let job: Job = match stdin.read_line(&mut first).ok().and_then(|_| serde_json::from_str(&first).ok()) {
        Some(job) => job,
        None => {
            eprintln!("perftest: --worker is perftest's own: it reads a job from its parent on stdin");
            return crate::ExitCode::Usage as u8;
        }
    };
    drop(stdin);
    std::thread::spawn(|| {
        let mut rest = String::new();
        let _ = std::io::stdin().lock().read_line(&mut rest);
        STOP.store(true, Ordering::SeqCst);
    });
    let mut emit = |message: Message| -> Result<()> {
        let mut out = std::io::stdout().lock();
        writeln!(out, "{}", message.line())?;
        Ok(out.flush()?)
    };
    match work(request, &job, &mut emit) {
        Ok(()) => 0,
        Err(error) => {
            let code = error.exit_code() as u8;
            // A parent that is gone cannot be told: the exit code says it.
            let _ = emit(Message::Fatal { message: crate::error::report(&error), exit_code: code });
            code
        }
    }
}
