//! A child perftest, as `health` and `fleet --confirm` start one to measure: its command line
//! built from typed settings only (each value glued to its option, the device after `--`, so no
//! name in a reference or a run is ever read as an option), an environment without the
//! `PERFTEST_*` variables that stand for options, killed with its parent, and stopped with it
//! when a signal reaches either.

use std::ffi::OsString;
use std::io::Read;
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use crate::results::model::Settings;

/// Which GPUs a child measures.
#[derive(Clone, Copy, Debug)]
pub enum Pick<'a> {
    /// Every GPU whose name contains this (`--all-devices -- NAME`).
    Every(&'a str),
    /// The one GPU at this PCI address or UUID (`-- SLOT`).
    One(&'a str),
}

/// What a child measures and where it writes.
#[derive(Clone, Copy, Debug)]
pub struct Job<'a> {
    /// The GPUs.
    pub pick: Pick<'a>,
    /// The settings to measure with: target, samples and axes always; the selection (families,
    /// filter, skip, `--quick`, named cases) unless `cases` names the cases instead.
    pub settings: &'a Settings,
    /// Exactly these cases (`--case NAME` each), instead of the settings' selection.
    pub cases: Option<&'a [String]>,
    /// Where its JSON goes (a folder, ending in `/`, under `--all-devices`).
    pub json: &'a Path,
    /// The host name to record (`--host-name`), or none (`--no-host-name`).
    pub host: Option<&'a str>,
}

/// `--option=value`: a value glued to its option is never read as an option of its own.
fn glued(option: &str, value: impl AsRef<std::ffi::OsStr>) -> OsString {
    let mut arg = OsString::from(format!("--{option}="));
    arg.push(value);
    arg
}

/// The child's command line (after the program's name): options from `job`'s typed settings,
/// then `--` and the device.
pub fn args(job: &Job<'_>) -> Vec<OsString> {
    let s = job.settings;
    let mut args = vec![glued("target-ms", s.target_ms.to_string()), glued("samples", s.samples.to_string())];
    match job.cases {
        Some(cases) => args.extend(cases.iter().map(|case| glued("case", case))),
        None => {
            if s.quick {
                args.push("--quick".into());
            }
            args.extend(s.filter.iter().map(|filter| glued("filter", filter)));
            args.extend(s.families.iter().map(|family| glued("family", family)));
            args.extend(s.skip.iter().map(|skip| glued("skip", skip)));
            args.extend(s.cases.iter().map(|case| glued("case", case)));
        }
    }
    args.extend(s.axes.iter().map(|axis| glued("axis", axis)));
    args.push(glued("json", job.json));
    args.push(match job.host {
        Some(host) => glued("host-name", host),
        None => "--no-host-name".into(),
    });
    let device = match job.pick {
        Pick::Every(name) => {
            args.push("--all-devices".into());
            name
        }
        Pick::One(slot) => slot,
    };
    args.extend(["--".into(), device.into()]);
    args
}

/// The `PERFTEST_*` variables a child keeps: where the machine's Vulkan loader and sensors are,
/// and the test-only fault injector of the `sdc` family (docs/corruption.md: a drill of the whole
/// path, from the wrong bit to the drained node); not what to measure or how to print it.
const KEPT: [&str; 3] = ["PERFTEST_VULKAN_LOADER", "PERFTEST_SYS", "PERFTEST_INJECT_FAULT"];

/// How a child ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ended {
    /// It exited with this code.
    Code(i32),
    /// A signal ended it (`died with SIGSEGV (signal 11)`).
    Signal(i32),
    /// A signal to this process (or the child's own, exit 130) stopped it.
    Stopped,
}

impl Ended {
    fn of(status: ExitStatus) -> Self {
        use std::os::unix::process::ExitStatusExt;
        match (status.code(), status.signal()) {
            (Some(code), _) if code == crate::ExitCode::Interrupted as i32 => Ended::Stopped,
            (Some(code), _) => Ended::Code(code),
            (None, Some(2 | 15)) => Ended::Stopped,
            (None, Some(signal)) => Ended::Signal(signal),
            (None, None) => Ended::Code(-1),
        }
    }

    /// In words: `exited 14`, `died with signal 11`, `was stopped by a signal`.
    pub fn describe(&self) -> String {
        match self {
            Ended::Code(code) => format!("exited {code}"),
            Ended::Signal(signal) => format!("died with signal {signal}"),
            Ended::Stopped => "was stopped by a signal".into(),
        }
    }

    /// What its exit code means, in a few words (`a case crashed or hung the driver`), where
    /// it is one of perftest's ([`crate::ExitCode::meaning`]'s first clause).
    pub fn meaning(&self) -> Option<&'static str> {
        let Ended::Code(code) = self else { return None };
        let known = crate::ExitCode::ALL.iter().find(|c| **c as i32 == *code)?;
        let meaning = known.meaning();
        Some(meaning.split(['(', ';', ':']).next().unwrap_or(meaning).trim())
    }
}

/// Set by a stop signal (Ctrl-C, SIGTERM, SIGHUP) to this process while it runs children.
static STOP: AtomicBool = AtomicBool::new(false);

/// Listens for stop signals: a child running then is stopped, and so is the command
/// ([`stopped`]). Once per process (later calls do nothing).
pub fn listen_for_signals() {
    let _ = ctrlc::set_handler(|| {
        STOP.store(true, Ordering::SeqCst);
        let _ = std::io::Write::write_all(
            &mut std::io::stderr(),
            b"perftest: stopping: the perftest it runs is stopped too, and nothing is decided\n",
        );
    });
}

/// Whether a stop signal reached this process.
pub fn stopped() -> bool {
    STOP.load(Ordering::SeqCst)
}

/// How long a child stopped by a signal may take to end before it is killed.
const GRACE: Duration = Duration::from_secs(10);

/// How often the parent looks at the child and the stop flag.
const TICK: Duration = Duration::from_millis(50);

/// Runs this program with `args`: no stdin, stdout discarded, stderr passed on once it ends.
/// A stop signal to this process stops it (two SIGTERMs: the case in progress too; SIGKILL after
/// 10 s), and so does this process's death (`PR_SET_PDEATHSIG`).
pub fn run(args: &[OsString]) -> Result<Ended> {
    let exe = std::env::current_exe().map_err(Error::Io)?;
    let mut command = Command::new(exe);
    command.args(args).stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped());
    for (name, _) in std::env::vars_os() {
        let text = name.to_string_lossy();
        if text.starts_with("PERFTEST_") && !KEPT.contains(&text.as_ref()) {
            command.env_remove(&name);
        }
    }
    die_with_parent(&mut command, rustix::process::Signal::KILL);
    let mut child = command.spawn().map_err(Error::Io)?;
    let stderr = child.stderr.take();
    let said = std::thread::spawn(move || {
        let mut text = String::new();
        if let Some(mut pipe) = stderr {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            text = String::from_utf8_lossy(&bytes).into_owned();
        }
        text
    });
    let pid = rustix::process::Pid::from_child(&child);
    let mut signalled: Option<Instant> = None;
    let status = loop {
        if let Some(status) = child.try_wait().map_err(Error::Io)? {
            break status;
        }
        if stopped() {
            match signalled {
                None => {
                    // The first asks it to stop after its case, the second to stop that case now.
                    let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
                    std::thread::sleep(Duration::from_millis(200));
                    let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
                    signalled = Some(Instant::now());
                }
                Some(at) if at.elapsed() > GRACE => {
                    let _ = child.kill();
                }
                Some(_) => {}
            }
        }
        std::thread::sleep(TICK);
    };
    let text = said.join().unwrap_or_default();
    if !text.trim().is_empty() {
        super::progress::say(&crate::format::printable_lines(text.trim_end()));
    }
    Ok(match stopped() {
        true => Ended::Stopped,
        false => Ended::of(status),
    })
}

/// Has `command`'s process get `signal` when this thread's process ends, however it ends (Linux's
/// `PR_SET_PDEATHSIG`), so that a parent killed outright leaves no child measuring.
pub fn die_with_parent(command: &mut Command, signal: rustix::process::Signal) {
    use std::os::unix::process::CommandExt;
    let parent = rustix::process::getpid();
    // SAFETY: the closure runs between fork and exec; it makes only the prctl and getppid system
    // calls (async-signal-safe: no allocation, no lock) and returns an io::Error built from an errno.
    unsafe {
        command.pre_exec(move || {
            rustix::process::set_parent_process_death_signal(Some(signal))?;
            // The parent may have ended before the call: then nothing will send the signal.
            if rustix::process::getppid() != Some(parent) {
                return Err(std::io::Error::other("its parent ended before it started"));
            }
            Ok(())
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ending_says_what_it_was() {
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(Ended::of(ExitStatus::from_raw(130 << 8)), Ended::Stopped);
        assert_eq!(Ended::of(ExitStatus::from_raw(15)), Ended::Stopped);
        assert_eq!(Ended::of(ExitStatus::from_raw(11)), Ended::Signal(11));
        assert_eq!(Ended::of(ExitStatus::from_raw(14 << 8)), Ended::Code(14));
        assert_eq!(Ended::Code(14).describe(), "exited 14");
        assert_eq!(Ended::Code(14).meaning(), Some("a case crashed or hung the driver"));
        assert_eq!(Ended::Signal(11).meaning(), None);
    }
}
