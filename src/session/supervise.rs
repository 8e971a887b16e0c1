//! Running the cases in worker processes, as Mesa's deqp-runner runs the Vulkan CTS: a worker (this
//! binary with `--worker`) opens the device once and runs the cases in order, streaming a record per
//! case. When it dies (a signal, an abort, a non-zero exit) or a case gives no answer within the
//! watchdog's time, that case is recorded as crashed or hung and a fresh worker goes on from the
//! next case. What a driver does to one case costs that case, never the run.
//!
//! Why it is built so: docs/design/worker-isolation.md.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::Ordering;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use crate::format::printable_lines;
use crate::record::outcome::{Failure, Outcome};
use crate::runner::message::{Job, Message, Record};
use crate::runner::run::{HURRY, STOP};

/// How long a worker may take to open the device, build the pipelines and warm up: the watchdog's
/// time, plus [`WARM_UP`], plus this much per case it was given.
pub const BUILD_PER_CASE: Duration = Duration::from_millis(250);

/// The longest a warm-up and the clock's calibration take (the warm-up's budget is 8 s).
pub const WARM_UP: Duration = Duration::from_secs(10);

/// How often the parent looks at the clock and the stop flags while it waits for a message.
const TICK: Duration = Duration::from_millis(100);

/// The worker's stderr lines kept to say what it said before it died.
const LAST_WORDS: usize = 3;

/// What a worker's stdout gave.
enum Event {
    /// A message.
    Message(Message),
    /// Its stdout closed (it exited, or is about to).
    Closed,
}

/// Runs `job` in worker processes started as `perftest --worker ARGS`, handing every message to
/// `take` (a crashed, hung or interrupted case as a record of its own). A case gets `watchdog` to
/// answer. Returns how many workers were started.
pub fn supervise(
    args: &[OsString],
    job: &Job,
    watchdog: Duration,
    take: &mut dyn FnMut(Message) -> Result<()>,
) -> Result<u32> {
    let mut remaining: VecDeque<String> = job.cases.iter().cloned().collect();
    let mut workers = 0;
    let mut lazy = job.lazy;
    while !remaining.is_empty() && !STOP.load(Ordering::SeqCst) {
        workers += 1;
        let next = Job { row: job.row, cases: remaining.iter().cloned().collect(), lazy };
        let progressed = match run_worker(args, &next, watchdog, take, &mut remaining)? {
            Step::Ran(progressed) => progressed,
            // A driver that crashes compiling one shader would cost every case: build each
            // case's pipeline as it runs instead, so the crash is that case's.
            Step::DiedPreparing(died) if !lazy => {
                eprintln!(
                    "perftest: the worker process {} {PREPARING}; a fresh one builds each case's pipeline \
                     just before it runs, so a driver crash costs one case",
                    printable_lines(&died)
                );
                lazy = true;
                continue;
            }
            Step::DiedPreparing(died) => return Err(Error::Worker { detail: format!("{died} {PREPARING}") }),
        };
        if !progressed && !remaining.is_empty() && !STOP.load(Ordering::SeqCst) {
            return Err(Error::Worker {
                detail: format!("ended without running a case, with {} left", remaining.len()),
            });
        }
        if !progressed {
            break;
        }
    }
    Ok(workers)
}

/// What a worker was doing when it died before its first message after the job.
const PREPARING: &str = "while opening the device and building the pipelines";

/// How a worker's life went.
enum Step {
    /// It ran (or ended between cases); whether it finished a case.
    Ran(bool),
    /// It died before it was ready (`died with SIGSEGV (signal 11)`).
    DiedPreparing(String),
}

/// Why the parent ended a worker.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ended {
    /// It ended by itself.
    Itself,
    /// Its case (or its start) went past the watchdog's time.
    Hung,
    /// A second stop signal.
    Hurried,
}

/// Runs one worker until it ends; records the case it was in if it died in one. Whether it
/// finished a case (so that a fresh worker is worth starting), or that it died getting ready.
fn run_worker(
    args: &[OsString],
    job: &Job,
    watchdog: Duration,
    take: &mut dyn FnMut(Message) -> Result<()>,
    remaining: &mut VecDeque<String>,
) -> Result<Step> {
    let mut child = spawn(args)?;
    let mut stdin = child.stdin.take();
    if let Some(pipe) = stdin.as_mut() {
        // A worker that died at once shows in its exit status below.
        let _ =
            writeln!(pipe, "{}", serde_json::to_string(job).unwrap_or_default()).and_then(|()| pipe.flush());
    }
    let (events, last_words) = listen(&mut child);
    let start_limit = watchdog + WARM_UP + BUILD_PER_CASE * job.cases.len() as u32;
    let (started, mut last) = (Instant::now(), Instant::now());
    let (mut ready, mut progressed) = (false, false);
    let mut running: Option<String> = None;
    // Whether its last case lost the device: a driver may crash tearing such a device down.
    let mut lost = false;
    let mut ended = Ended::Itself;
    loop {
        match events.recv_timeout(TICK) {
            Ok(Event::Message(message)) => {
                last = Instant::now();
                match &message {
                    Message::Ready(_) => ready = true,
                    Message::Start { case } => running = Some(case.clone()),
                    Message::Done(record) => {
                        remaining.retain(|name| *name != record.case);
                        running = None;
                        progressed = true;
                        lost = matches!(record.outcome, Outcome::Failed { failure: Failure::DeviceLost, .. });
                    }
                    Message::End { .. } | Message::Fatal { .. } => {}
                }
                if let Err(error) = take(message) {
                    end(&mut child);
                    return Err(error);
                }
            }
            Ok(Event::Closed) | Err(RecvTimeoutError::Disconnected) => break,
            Err(RecvTimeoutError::Timeout) => {}
        }
        if STOP.load(Ordering::SeqCst) {
            // Closing its stdin asks the worker to stop after the case in progress.
            stdin = None;
        }
        if HURRY.load(Ordering::SeqCst) {
            ended = Ended::Hurried;
            break;
        }
        let limit = if ready { watchdog } else { start_limit };
        let since = if ready { last } else { started };
        if since.elapsed() > limit {
            ended = Ended::Hung;
            break;
        }
    }
    drop(stdin);
    if ended != Ended::Itself {
        end(&mut child);
    }
    let status =
        child.wait().map_err(|e| Error::Worker { detail: format!("could not be waited for ({e})") })?;
    let last_words: Vec<String> = last_words.lock().map(|w| w.iter().cloned().collect()).unwrap_or_default();
    if let Some(case) = running {
        let (failure, detail) = match ended {
            Ended::Hung => (
                Failure::Hung,
                format!(
                    "no answer in {} s; its worker process was stopped and a fresh one went on with the next case",
                    watchdog.as_secs()
                ),
            ),
            Ended::Hurried => (Failure::Interrupted, "a second stop signal ended it before it finished".into()),
            Ended::Itself => (Failure::Crashed, crash_detail(status, &last_words)),
        };
        remaining.retain(|name| *name != case);
        let outcome = Outcome::Failed { failure, detail };
        let record = Record {
            case,
            outcome,
            notes: Vec::new(),
            shader: None,
            validation: Vec::new(),
            phases: Default::default(),
            energy: None,
        };
        take(Message::Done(Box::new(record)))?;
        return Ok(Step::Ran(ended != Ended::Hurried));
    }
    let after = match (ready, remaining.is_empty()) {
        (false, _) => PREPARING,
        (true, false) => "between cases",
        (true, true) => "after its last case",
    };
    match ended {
        Ended::Hurried => Ok(Step::Ran(false)),
        Ended::Hung => {
            Err(Error::Worker { detail: format!("gave no answer in {} s {after}", start_limit.as_secs()) })
        }
        Ended::Itself if status.success() => Ok(Step::Ran(progressed)),
        Ended::Itself if !ready => Ok(Step::DiedPreparing(died(status, &last_words))),
        // Between two cases, or tearing down a lost device: no case to blame; a fresh worker goes
        // on with the next case, if any.
        Ended::Itself if progressed && (lost || !remaining.is_empty()) => {
            eprintln!(
                "perftest: the worker process {} {after}; a fresh one goes on",
                printable_lines(&died(status, &last_words))
            );
            Ok(Step::Ran(true))
        }
        Ended::Itself => Err(Error::Worker { detail: format!("{} {after}", died(status, &last_words)) }),
    }
}

/// Starts `perftest --worker ARGS` in a process group of its own (a Ctrl-C at the terminal, or
/// `timeout` signalling the parent's group, reaches the parent only; the parent stops it), and
/// ending when the parent does.
fn spawn(args: &[OsString]) -> Result<Child> {
    let exe = std::env::current_exe().map_err(|e| Error::Worker {
        detail: format!("could not be started: this program's path is unknown ({e})"),
    })?;
    let mut command = Command::new(exe);
    // `--worker` goes first: after the user's own `--` it would be read as a device name.
    command.arg("--worker").args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    // Killed outright (SIGKILL, the OOM killer, a parent `health` gone), the parent takes its
    // worker with it: no orphan goes on measuring.
    super::child::die_with_parent(&mut command, rustix::process::Signal::KILL);
    command.spawn().map_err(|e| Error::Worker { detail: format!("could not be started ({e})") })
}

/// Reads the worker's stdout into events (a driver's text there goes to stderr), and passes its
/// stderr through, keeping the last lines.
fn listen(child: &mut Child) -> (mpsc::Receiver<Event>, Arc<Mutex<VecDeque<String>>>) {
    let (send, events) = mpsc::channel();
    if let Some(stdout) = child.stdout.take() {
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let (text, message) = Message::parse(&line);
                if !text.is_empty() {
                    eprintln!("{}", printable_lines(text));
                }
                if let Some(message) = message {
                    if send.send(Event::Message(message)).is_err() {
                        return;
                    }
                }
            }
            let _ = send.send(Event::Closed);
        });
    }
    let last_words = Arc::new(Mutex::new(VecDeque::new()));
    if let Some(stderr) = child.stderr.take() {
        let kept = Arc::clone(&last_words);
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                eprintln!("{}", printable_lines(&line));
                if let Ok(mut kept) = kept.lock() {
                    kept.push_back(line);
                    if kept.len() > LAST_WORDS {
                        kept.pop_front();
                    }
                }
            }
        });
    }
    (events, last_words)
}

/// Stops a worker now.
fn end(child: &mut Child) {
    // It may have exited already; waiting reaps it either way.
    let _ = child.kill();
    let _ = child.wait();
}

/// What a worker's end says: `died with SIGSEGV (signal 11)` or `exited with code 101`.
fn died(status: ExitStatus, last_words: &[String]) -> String {
    #[cfg(unix)]
    let signal = std::os::unix::process::ExitStatusExt::signal(&status);
    #[cfg(not(unix))]
    let signal: Option<i32> = None;
    let how = match (signal, status.code()) {
        (Some(signal), _) => format!("died with {} (signal {signal})", signal_name(signal)),
        (None, Some(code)) => format!("exited with code {code}"),
        (None, None) => format!("ended ({status})"),
    };
    match last_words.last() {
        Some(words) => format!("{how}; its last words: \"{}\"", words.trim()),
        None => how,
    }
}

/// The detail of a case whose worker died in it.
fn crash_detail(status: ExitStatus, last_words: &[String]) -> String {
    format!(
        "the worker process {} while this case ran, most likely inside the driver; a fresh worker went on \
         with the next case",
        died(status, last_words)
    )
}

/// The name of a Linux signal number.
fn signal_name(signal: i32) -> &'static str {
    match signal {
        1 => "SIGHUP",
        2 => "SIGINT",
        3 => "SIGQUIT",
        4 => "SIGILL",
        5 => "SIGTRAP",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL (the kernel's out-of-memory killer sends it)",
        11 => "SIGSEGV",
        13 => "SIGPIPE",
        15 => "SIGTERM",
        24 => "SIGXCPU",
        31 => "SIGSYS",
        _ => "a signal",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_signal_is_named_and_the_last_words_quoted() {
        use std::os::unix::process::ExitStatusExt;
        let segv = ExitStatus::from_raw(11);
        assert_eq!(died(segv, &[]), "died with SIGSEGV (signal 11)");
        let words = vec!["early".into(), "lvp: memcpy went wrong  ".into()];
        assert_eq!(
            died(ExitStatus::from_raw(101 << 8), &words),
            "exited with code 101; its last words: \"lvp: memcpy went wrong\""
        );
        assert!(crash_detail(segv, &[])
            .starts_with("the worker process died with SIGSEGV (signal 11) while this case ran"));
    }
}
