//! A worker's whole job, in a worker process or (with `--in-process`) in perftest's own: open the
//! device row, expand the families with its facts, build the pipelines of the cases asked for,
//! warm up, run them, and hand on one [`Message`] per step.
//!
//! Why it is built so: docs/design/worker-isolation.md.

use std::collections::{HashMap, HashSet};
use std::io::{BufRead, Write};
use std::sync::atomic::Ordering;

use super::bench::DISPATCHES;
use super::message::{Job, Message, Ready};
use super::open::open;
use super::pipelines::default_threads;
use super::run::{execute, prepare, RunSettings, STOP};
use crate::error::{Error, Result};
use crate::registry::{self, AxisSetting, CaseSpec, Selection};
use crate::report::text;
use crate::results::model;
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
    ctx.info.timestamp_steps = match crate::vk::timestamps::steps(&ctx) {
        Ok(steps) => steps.map(|s| s.describe()),
        Err(error) => Some(format!("steps not measured ({error})")),
    };
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
    let prepared = prepare(&ctx, &cases, default_threads(), settings.timed(), job.lazy)?;
    let built = &prepared.pipelines;
    let pipelines = match job.lazy {
        true => "each case's built just before it runs: a worker died building them all at once (a \
                 driver crash), and this way a crash costs one case"
            .to_owned(),
        false => format!(
            "{} for {} cases compiled and created in {:.2} s on {} threads",
            built.len(),
            cases.len(),
            built.elapsed.as_secs_f64(),
            built.threads
        ),
    };
    let clock = prepared.clock.unknown.clone().unwrap_or_else(|| text::CLOCK_MEASURED.to_owned());
    let warm_up = prepared.warmth.as_ref().map(|w| model::WarmUp::new(&w.first, w.reference()));
    let header = text::header(
        &ctx.info,
        &settings_text(settings, &selected, ctx.fenced, request.selection.quick),
        &pipelines,
        &clock,
        warm_up.as_ref().map(|w| w.text.as_str()),
    );
    let device = model::Device::from(&ctx.info);
    emit(Message::Ready(Box::new(Ready { header, device, clock, warm_up })))?;
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
    drop(prepared);
    drop(ctx);
    ran?;
    (emit.into_inner())(Message::End { validation: drain(&sink) })
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

/// The header's `settings:` text: how cases are timed (or verified), whether `--quick` chose
/// them, and what ratios are against.
fn settings_text(settings: &RunSettings, cases: &[CaseSpec], fenced: bool, quick: bool) -> String {
    if settings.verify {
        return "verify: each case writes its results and they are compared with a CPU reference".into();
    }
    if settings.compile_only {
        return "compile only: each case's pipeline is built and the driver's statistics of it shown; \
                nothing runs"
            .into();
    }
    let timer = match (fenced, settings.fence_timing) {
        (false, _) => "",
        (true, true) => "\ntimer: CPU fences (--fence-timing): each time is the CPU's, from just before a submission to its fence's wait returning; measurements aim at 50 ms at least, so the fence costs under 1%",
        (true, false) => "\ntimer: CPU fences: this queue has no GPU timestamps, so each time is the CPU's, from just before a submission to its fence's wait returning; measurements aim at 50 ms at least, so the fence costs under 1%",
    };
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
    if quick {
        text.push_str(&format!("; --quick: each family's headline cases, {} in all", cases.len()));
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
