//! The process exit codes: each code and what it means (the one text `--help` prints and
//! docs/exit-codes.md repeats), which error ends with which, and the table and examples `--help`
//! ends with.

use ash::vk;

use super::Error;

/// The process exit codes, documented in `--help` and the README.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum ExitCode {
    /// Every selected case ran (or was skipped with a reason).
    Success = 0,
    /// A Vulkan call failed unexpectedly, a measurement was not credible, or output failed.
    Failure = 1,
    /// The command line could not be parsed (clap's own code), or an output is one of its inputs.
    Usage = 2,
    /// The machine lacks Vulkan: no loader, no usable device, or no validation layer.
    NoVulkan = 3,
    /// The device index or name matched no device row.
    NoSuchDevice = 4,
    /// The case filter matched no case.
    NothingMatched = 5,
    /// A shader failed to compile.
    Compile = 6,
    /// `--verify` found a result that differs from the CPU reference.
    Verify = 7,
    /// The GPU was lost (reset, hung or removed) during a case.
    DeviceLost = 8,
    /// `--validation` is on and the validation layer reported a message.
    Validation = 9,
    /// A results file is missing, not perftest JSON, from a newer perftest, or edited past belief.
    BadResults = 10,
    /// `compare --fail-on-slower` found a case slower than the first run's beyond the threshold.
    Slower = 11,
    /// `--strict` found a result above a known peak (the compiler may have removed work).
    Implausible = 12,
    /// `--strict` found ratios against a baseline that stayed flagged after re-measuring.
    FlaggedBaseline = 13,
    /// A case crashed or hung the driver (its worker process died or stopped answering).
    Crashed = 14,
    /// `check` found a run that its expectations file does not describe.
    Unexpected = 15,
    /// `fleet` found a GPU slow alone (confirmed), or with a compute unit slower than its others.
    SlowerThanFleet = 16,
    /// `fleet --confirm` found a GPU slow only while its host's other GPUs ran.
    Interference = 17,
    /// `fleet` found a device it cannot judge: nothing timed, a shared GPU, or no run at all.
    Unjudged = 18,
    /// `fleet` found a GPU slow beyond the tolerance that has not been measured again alone.
    Unconfirmed = 19,
    /// `fleet` or `health` found a GPU on which a case lost the device, crashed or hung.
    Faulty = 20,
    /// A self-checking case found results that differ from their known bits (silent data corruption).
    Corrupt = 21,
    /// `history` found a GPU whose rate changed for the slower and stayed so (confirmed).
    SlowerOverTime = 22,
    /// Ctrl-C stopped the run after the case in progress (the finished cases were written).
    Interrupted = 130,
}

impl ExitCode {
    /// Every code, in numeric order.
    pub const ALL: [ExitCode; 24] = [
        ExitCode::Success,
        ExitCode::Failure,
        ExitCode::Usage,
        ExitCode::NoVulkan,
        ExitCode::NoSuchDevice,
        ExitCode::NothingMatched,
        ExitCode::Compile,
        ExitCode::Verify,
        ExitCode::DeviceLost,
        ExitCode::Validation,
        ExitCode::BadResults,
        ExitCode::Slower,
        ExitCode::Implausible,
        ExitCode::FlaggedBaseline,
        ExitCode::Crashed,
        ExitCode::Unexpected,
        ExitCode::SlowerThanFleet,
        ExitCode::Interference,
        ExitCode::Unjudged,
        ExitCode::Unconfirmed,
        ExitCode::Faulty,
        ExitCode::Corrupt,
        ExitCode::SlowerOverTime,
        ExitCode::Interrupted,
    ];

    /// What the code means: the one text that `--help` prints and the README's table repeats
    /// (a test holds the README to it).
    pub fn meaning(self) -> &'static str {
        match self {
            ExitCode::Success => "every selected case ran, or was skipped with a reason",
            ExitCode::Failure => {
                "a case failed with an error (a Vulkan call, an implausible GPU time: the case is named and the run went on), or a Vulkan call outside the cases failed, or stdout or an output file could not be written (a finished run's document is then kept in the temporary folder, and the error says where)"
            }
            ExitCode::Usage => {
                "the command line could not be parsed (a bad option, value, --axis or --simulate profile), or an output is one of the command's inputs or another of its outputs (nothing was written)"
            }
            ExitCode::NoVulkan => {
                "no usable Vulkan: no loader, a broken driver manifest, no device with a compute queue, or no validation layer"
            }
            ExitCode::NoSuchDevice => {
                "the device number, name, PCI address or UUID matched nothing, or --queue named a family the device \
                 has no compute queue of (the devices are printed)"
            }
            ExitCode::NothingMatched => "--filter/--skip matched no case",
            ExitCode::Compile => "a shader failed to compile (the compiler's log is printed)",
            ExitCode::Verify => {
                "--verify found cases whose results differ from the CPU reference (every case was checked; they are named)"
            }
            ExitCode::DeviceLost => {
                "the GPU was lost while a case ran (the case is named; the run went on with the device opened again, and ends here if it is lost again)"
            }
            ExitCode::Validation => "--validation is on and the validation layer reported a message",
            ExitCode::BadResults => {
                "a results file given to show, compare, plot, report, check, fleet or history is missing, not perftest JSON, from a newer perftest, or holds a value perftest could not have written (the field is named); or a reference (--reference) is, or health found no GPU of its models here"
            }
            ExitCode::Slower => {
                "compare --fail-on-slower found a case slower than in the first run, beyond the noise and the threshold"
            }
            ExitCode::Implausible => {
                "--strict found a result above a known peak of the hardware (flagged implausible; all results were written)"
            }
            ExitCode::FlaggedBaseline => {
                "--strict found ratios against a flagged baseline (throttled, below the warm-up clock, noisy; measured again first where that could help); all results were written"
            }
            ExitCode::Crashed => {
                "a case crashed or hung the driver: its worker process died or stopped answering; the case is recorded as crashed or hung, the run went on in a fresh worker, and all results were written"
            }
            ExitCode::Unexpected => {
                "check found a case missing from the run, a failure its expectations file does not list, or a listed one that no longer happens"
            }
            ExitCode::SlowerThanFleet => {
                "fleet found a GPU slow: a family's median case (or its whole run) slower than the others of its group (same model, driver and settings) or the reference by more than the tolerance (2% unless set) and beyond its uncertainty, and slow again when measured alone against a healthy peer alone (fleet --confirm), or with a compute unit slower than its others (units family); or health found a GPU slow against its reference and slow again when measured again; the devices are named with the size, and the whole verdict was written"
            }
            ExitCode::Interference => {
                "fleet --confirm found a GPU slow only while its host's other GPUs ran (not alone): the host's power, PCIe or CPU, not the GPU; named with the families and the devices it ran with"
            }
            ExitCode::Unjudged => {
                "fleet (or health) found a device it cannot judge: every case failed, hung or was too noisy, another process used its GPU during the run, it ran with the others on its host but left no run, or (--reference) the reference has no model of it; named with why"
            }
            ExitCode::Unconfirmed => {
                "fleet found a GPU slow beyond the tolerance in these runs that has not been measured again alone: run perftest fleet --confirm with the same runs on its host before draining it"
            }
            ExitCode::Faulty => {
                "fleet (or health) found a GPU on which a case lost the device, crashed or hung its worker, or (health) whose perftest ended so before it measured: the GPU or its driver, not noise; named with its cases; drain it"
            }
            ExitCode::Corrupt => {
                "a self-checking case (the sdc family) computed results that differ from their known bits during timed work, or fleet, health or history found a GPU whose run did: silent data corruption, named with the compute unit and the bits; drain the GPU and run the sdc family on it again to confirm (docs/corruption.md)"
            }
            ExitCode::SlowerOverTime => {
                "history found a GPU whose rate changed for the slower at a change point confirmed by the runs after it (3 or more; 1% or more, beyond the runs' noise): named with its largest change; measure it with perftest health and drain it if it fails (a faster change, one still to confirm, or a drift exits 0)"
            }
            ExitCode::Interrupted => {
                "Ctrl-C or SIGTERM stopped the run after the case in progress (a second one stops that case too), the finished cases were written; or stopped health or fleet --confirm and the perftest it ran, before a verdict (nothing drained)"
            }
        }
    }
}

/// The codes each subcommand ends with, in numeric order (`None`: no such subcommand): its
/// `--help` lists them with their [`ExitCode::meaning`], and docs/exit-codes.md's table of
/// commands repeats them (a test holds both to this). A run, with no subcommand, can end with
/// any code but those of `compare`, `check`, `fleet` and `health`'s verdicts.
pub fn of_command(name: &str) -> Option<&'static [ExitCode]> {
    use ExitCode::*;
    const READ: [ExitCode; 4] = [Success, Failure, Usage, BadResults];
    const VERDICT: [ExitCode; 11] = [
        Success,
        Failure,
        Usage,
        BadResults,
        SlowerThanFleet,
        Interference,
        Unjudged,
        Unconfirmed,
        Faulty,
        Corrupt,
        Interrupted,
    ];
    Some(match name {
        "compare" => &[Success, Failure, Usage, BadResults, Slower],
        "check" => &[Success, Failure, Usage, BadResults, Unexpected],
        "fleet" | "health" => &VERDICT,
        "history" => &[Success, Failure, Usage, BadResults, Corrupt, SlowerOverTime],
        "show" | "report" | "plot" => &READ,
        _ => return None,
    })
}

/// What a subcommand's `--help` ends with: its exit codes ([`of_command`]), each with its meaning
/// (`health`'s under `--npd` besides).
pub fn command_help(name: &str) -> Option<String> {
    let codes = code_lines(of_command(name)?, 3);
    let plugin = if name == "health" {
        "\nUnder --npd, as a node-problem-detector plugin: 0 healthy, 1 where --drain would drain, 2 anything \
         else; stdout is one line, the condition's message.\n"
    } else {
        ""
    };
    Some(format!("Exit codes:\n{codes}{plugin}"))
}

/// `codes` a line each, its number padded to `width` and its meaning.
fn code_lines(codes: &[ExitCode], width: usize) -> String {
    let rest = " ".repeat(width + 3);
    codes
        .iter()
        .map(|&c| {
            let first = format!("  {:<width$} ", c as u8);
            let options = textwrap::Options::new(HELP_WIDTH)
                .initial_indent(&first)
                .subsequent_indent(&rest)
                .word_splitter(textwrap::WordSplitter::NoHyphenation);
            textwrap::wrap(c.meaning(), options).join("\n") + "\n"
        })
        .collect()
}

/// The exit-code table's width: the help's where a terminal says none (clap's 100), so clap
/// keeps its lines and their hanging indent as they are.
const HELP_WIDTH: usize = 100;

/// What a subcommand's `-h` ends with: its exit codes, for `--help` to say what each means.
pub fn command_codes(name: &str) -> Option<String> {
    let codes: Vec<String> = of_command(name)?.iter().map(|&c| (c as u8).to_string()).collect();
    Some(format!("Exit codes: {} (--help says what each means)", codes.join(", ")))
}

/// What `-h` ends with: the few commands a newcomer needs.
pub const SHORT_EXAMPLES: &str = "Examples:
  perftest --quick --json run.json          a first look, its record kept
  perftest report run.json --output page    its findings as a page (page/index.html)
  perftest --help                           every option, the exit codes and more examples";

/// The exit-code table and examples that `--help` ends with, from [`ExitCode::meaning`].
pub fn help_text() -> String {
    let codes = code_lines(&ExitCode::ALL, 2);
    format!(
        "Exit codes:\n{codes}\n\
         Examples:\n  \
         perftest                  run every case on the best device\n  \
         perftest --devices        list the GPUs, with their PCI addresses, UUIDs and queue families\n  \
         perftest RTX -2           the second GPU whose name contains \"RTX\"\n  \
         perftest --filter fp32    only the cases whose name contains \"fp32\"\n  \
         perftest --verify         check every case against its CPU reference\n  \
         perftest --axis branch.n=0:1024:64 --filter Divergent\n  \
         perftest --format json --output h100.json\n  \
         perftest compare h100.json lavapipe.json\n  \
         perftest plot h100.json lavapipe.json --output chart.svg"
    )
}

impl super::Error {
    /// The exit code documented for this failure.
    pub fn exit_code(&self) -> ExitCode {
        match self {
            Error::NoLoader { .. }
            | Error::OldLoader { .. }
            | Error::NoDevice { .. }
            | Error::NoValidationLayer
            | Error::VulkanUnusable { .. } => ExitCode::NoVulkan,
            Error::DeviceIndex { .. } | Error::DeviceName { .. } | Error::QueueFamily { .. } => {
                ExitCode::NoSuchDevice
            }
            Error::NothingMatched { .. } => ExitCode::NothingMatched,
            Error::Compile { .. } => ExitCode::Compile,
            Error::Verify { .. } => ExitCode::Verify,
            // Lost outside a case too: opening the device again after a case lost it.
            Error::DeviceLost { .. } | Error::Vulkan { result: vk::Result::ERROR_DEVICE_LOST, .. } => {
                ExitCode::DeviceLost
            }
            Error::Validation { .. } => ExitCode::Validation,
            Error::ResultsFile { .. } | Error::NotARun { .. } => ExitCode::BadResults,
            Error::SameFile { .. } | Error::NoSuffix { .. } | Error::Setting { .. } => ExitCode::Usage,
            Error::Interrupted { .. } | Error::Halted { .. } => ExitCode::Interrupted,
            Error::Faulty { .. } => ExitCode::Faulty,
            Error::Corrupt { .. } => ExitCode::Corrupt,
            Error::Worker { .. } => ExitCode::Crashed,
            Error::Unexpected { .. } => ExitCode::Unexpected,
            Error::Remote { code, .. } | Error::Cases { code, .. } | Error::Plugin { code, .. } => *code,
            Error::Slower { .. } => ExitCode::Slower,
            Error::SlowerThanFleet { .. } => ExitCode::SlowerThanFleet,
            Error::SlowerOverTime { .. } => ExitCode::SlowerOverTime,
            Error::Interference { .. } => ExitCode::Interference,
            Error::Unjudged { .. } => ExitCode::Unjudged,
            Error::Unconfirmed { .. } => ExitCode::Unconfirmed,
            Error::Implausible { .. } => ExitCode::Implausible,
            Error::FlaggedBaseline { .. } => ExitCode::FlaggedBaseline,
            Error::Timing { .. }
            | Error::CaseSpec { .. }
            | Error::Vulkan { .. }
            | Error::Allocation { .. }
            | Error::NoRoom { .. }
            | Error::Io(_)
            | Error::Serialize { .. }
            | Error::Output { .. }
            | Error::UnsafeLink { .. }
            | Error::UnsafeSpecial { .. }
            | Error::Unmapped { .. }
            | Error::OutputRescued { .. } => ExitCode::Failure,
        }
    }
}
