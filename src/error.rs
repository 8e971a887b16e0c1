//! Every way a perftest run can fail, each with a sentence that says what to do and an exit code.

use ash::vk;

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
    /// `fleet` found a GPU slower than its fleet that has not been measured again alone.
    Unconfirmed = 19,
    /// `fleet` or `health` found a GPU on which a case lost the device, crashed or hung.
    Faulty = 20,
    /// Ctrl-C stopped the run after the case in progress (the finished cases were written).
    Interrupted = 130,
}

impl ExitCode {
    /// Every code, in numeric order.
    pub const ALL: [ExitCode; 22] = [
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
                "fleet found a GPU slow: slower than the others of its group (same model, driver and settings) in 5% of its cases or more, and slow again when measured alone against a healthy peer alone (fleet --confirm), or with a compute unit slower than its others (units family); or health found a GPU slow against its reference and slow again when measured again; the devices are named, and the whole verdict was written"
            }
            ExitCode::Interference => {
                "fleet --confirm found a GPU slow only while its host's other GPUs ran (not alone): the host's power, PCIe or CPU, not the GPU; named with the families and the devices it ran with"
            }
            ExitCode::Unjudged => {
                "fleet (or health) found a device it cannot judge: every case failed, hung or was too noisy, another process used its GPU during the run, it ran with the others on its host but left no run, or (--reference) the reference has no model of it; named with why"
            }
            ExitCode::Unconfirmed => {
                "fleet found a GPU slower than its fleet in these runs that has not been measured again alone: run perftest fleet --confirm with the same runs on its host before draining it"
            }
            ExitCode::Faulty => {
                "fleet (or health) found a GPU on which a case lost the device, crashed or hung its worker, or (health) whose perftest ended so before it measured: the GPU or its driver, not noise; named with its cases; drain it"
            }
            ExitCode::Interrupted => {
                "Ctrl-C or SIGTERM stopped the run after the case in progress (a second one stops that case too), the finished cases were written; or stopped health or fleet --confirm and the perftest it ran, before a verdict (nothing drained)"
            }
        }
    }
}

/// What `-h` ends with: the few commands a newcomer needs.
pub const SHORT_EXAMPLES: &str = "Examples:
  perftest --quick --json run.json          a first look, its record kept
  perftest report run.json --output page    its findings as a page (page/index.html)
  perftest --help                           every option, the exit codes and more examples";

/// The exit-code table and examples that `--help` ends with, from [`ExitCode::meaning`].
pub fn help_text() -> String {
    let codes: String =
        ExitCode::ALL.iter().map(|&c| format!("  {:<2} {}\n", c as u8, c.meaning())).collect();
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

/// A perftest failure. The `Display` text is the one sentence the user sees.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// `Entry::load` could not open the Vulkan loader library.
    #[error(
        "could not load the Vulkan loader; install it (Debian/Ubuntu: `apt-get install libvulkan1`) or point \
         PERFTEST_VULKAN_LOADER at a libvulkan.so.1"
    )]
    NoLoader {
        /// What the dynamic loader said.
        #[source]
        source: ash::LoadingError,
    },

    /// The Vulkan loader is older than Vulkan 1.2.
    #[error(
        "the Vulkan loader offers Vulkan {major}.{minor}, and perftest needs 1.2; install a newer one \
         (Debian/Ubuntu: `apt-get install libvulkan1`) or point PERFTEST_VULKAN_LOADER at a newer libvulkan.so.1"
    )]
    OldLoader {
        /// The loader's major version.
        major: u32,
        /// Its minor version.
        minor: u32,
    },

    /// No physical device offers a compute queue with timestamps.
    #[error(
        "no Vulkan device with a compute queue was found ({detail}); install \
         your GPU's Vulkan driver, or Mesa's CPU driver lavapipe (`apt-get install mesa-vulkan-drivers`)"
    )]
    NoDevice {
        /// What the instance or enumeration reported.
        detail: String,
    },

    /// The loader or a driver failed before any device was opened (a broken driver manifest).
    #[error(
        "Vulkan is not usable here: {call} failed ({result:?}) before any device was opened, which a broken \
         driver manifest causes; check the files VK_DRIVER_FILES or VK_ICD_FILENAMES name (or those in \
         /usr/share/vulkan/icd.d), unset those variables, or reinstall the GPU's Vulkan driver"
    )]
    VulkanUnusable {
        /// The entry point that failed.
        call: &'static str,
        /// What it returned.
        result: vk::Result,
    },

    /// `--validation` was given but the Khronos layer is not installed.
    #[error(
        "--validation needs the Khronos validation layer (VK_LAYER_KHRONOS_validation); install it \
         (Debian/Ubuntu: `apt-get install vulkan-validationlayers`) or run without --validation"
    )]
    NoValidationLayer,

    /// `-N` named a device that does not exist.
    #[error("device {index} does not exist ({} match); pick one of:\n{rows}", crate::format::count(*.count, "device"))]
    DeviceIndex {
        /// The 1-based index asked for.
        index: usize,
        /// How many devices were candidates.
        count: usize,
        /// The candidate devices, one per line.
        rows: String,
    },

    /// `--queue` named a queue family the device has no compute queue of.
    #[error(
        "the device has no compute queue family {family}: {device}; pick one of its families with --queue, or \
         leave --queue out for its best"
    )]
    QueueFamily {
        /// The family asked for.
        family: u32,
        /// The device, as `--devices` describes it.
        device: String,
    },

    /// A bare word named no device.
    #[error(
        "no device name contains \"{name}\" (nor is it a device's PCI address or the start of its UUID){cases}; \
         pick one of:\n{rows}"
    )]
    DeviceName {
        /// The word asked for.
        name: String,
        /// Where the word is in case names, what runs them (`, but 9 case names do: run them with
        /// --filter sin`); empty otherwise.
        cases: String,
        /// All devices, one per line.
        rows: String,
    },

    /// `--filter`/`--skip` left no case to run.
    #[error("no case matches {what}; run `perftest --list` to see the case names")]
    NothingMatched {
        /// The filter description, for example `--filter "fp128"`.
        what: String,
    },

    /// shaderc rejected a shader; the log is the compiler's own.
    #[error("the shader {file} of case \"{case}\" failed to compile:\n{log}")]
    Compile {
        /// The case whose permutation failed.
        case: String,
        /// The GLSL file name.
        file: String,
        /// shaderc's log, verbatim.
        log: String,
    },

    /// A verified result differs from the CPU reference.
    #[error(
        "case \"{case}\" failed verification: {mismatches} of {checked} results differ from the CPU \
         reference; the first is {first}: expected {expected}, got {got}"
    )]
    Verify {
        /// The case.
        case: String,
        /// How many results were compared.
        checked: usize,
        /// How many differ.
        mismatches: usize,
        /// Where the first mismatch is (`invocation 12`, or `word 12` of a checked buffer).
        first: String,
        /// The CPU reference, formatted.
        expected: String,
        /// The GPU result, formatted.
        got: String,
    },

    /// `VK_ERROR_DEVICE_LOST` while a case ran.
    #[error(
        "the GPU was lost (VK_ERROR_DEVICE_LOST) while case \"{case}\" was running; the driver may \
         have reset it after a timeout: try a smaller --target-ms, or skip the case with --skip"
    )]
    DeviceLost {
        /// The case that was running.
        case: String,
    },

    /// The validation layer reported messages.
    #[error("the validation layer reported {}:\n{}", crate::format::count(messages.len(), "message"), messages.join("\n"))]
    Validation {
        /// The messages, verbatim.
        messages: Vec<String>,
    },

    /// A timestamp pair that cannot be a real duration.
    #[error("case \"{case}\" produced an implausible GPU time: {detail}")]
    Timing {
        /// The case.
        case: String,
        /// What was wrong with the time.
        detail: String,
    },

    /// A case's description cannot be turned into Vulkan objects (a family's mistake).
    #[error(
        "case \"{case}\" is described wrongly: {problem}; this is a bug in its family, please report it"
    )]
    CaseSpec {
        /// The case.
        case: String,
        /// What is wrong with it.
        problem: String,
    },

    /// A Vulkan call failed with an unexpected result.
    #[error("{call} failed{}: {result:?}", case_suffix(case))]
    Vulkan {
        /// The Vulkan entry point.
        call: &'static str,
        /// The case, when one was running.
        case: Option<String>,
        /// The result code.
        result: vk::Result,
    },

    /// gpu-allocator could not create or free memory.
    #[error("GPU memory allocation failed{}", case_suffix(case))]
    Allocation {
        /// The case, when one was running.
        case: Option<String>,
        /// The allocator's error.
        source: gpu_allocator::AllocationError,
    },

    /// A memory type had no room left for a buffer placed in it (its heap is shared with other
    /// allocations, or smaller than reported): the runner skips the case with this sentence.
    #[error("the device had no room for {bytes} bytes in {memory} ({result:?}): the heap is smaller than the case needs in practice")]
    NoRoom {
        /// The memory type, as a case line names it.
        memory: String,
        /// The size asked for.
        bytes: u64,
        /// What vkAllocateMemory returned.
        result: vk::Result,
    },

    /// A document could not be written as JSON (a value serde_json refuses): perftest's bug.
    #[error("could not write {what} as JSON; this is a bug in perftest, please report it")]
    Serialize {
        /// What was being written.
        what: &'static str,
        /// serde_json's error.
        #[source]
        source: serde_json::Error,
    },

    /// Writing to stdout failed.
    #[error("could not write the output")]
    Io(#[from] std::io::Error),

    /// Writing `--output` failed (nothing half-written is left behind).
    #[error("could not write {path}: {detail}; check that its folder exists and is writable")]
    Output {
        /// The file.
        path: String,
        /// What went wrong, in words (the system's error without the temporary file's name).
        detail: String,
    },

    /// An output names one of the command's inputs, or another of its outputs.
    #[error(
        "{output} is the same file as {other}; nothing was read or written: give the output a path of its own"
    )]
    SameFile {
        /// The output, with the option that names it (`--output run.json`).
        output: String,
        /// The input or output it would destroy, likewise.
        other: String,
    },

    /// An output passes through a symbolic link that the kernel would not follow either.
    #[error(
        "refusing to write {path}: it passes through the symbolic link {link}, which user {owner} owns in a \
         world-writable sticky folder (the kernel's fs.protected_symlinks would not follow it either); remove \
         the link or write elsewhere"
    )]
    UnsafeLink {
        /// The path asked for.
        path: String,
        /// The link.
        link: String,
        /// The link's owner (a user id).
        owner: u32,
    },

    /// An output is a FIFO or socket another user made in a world-writable sticky folder, or a
    /// socket anywhere.
    #[error("refusing to write {path}: it is {what}; remove it or write elsewhere")]
    UnsafeSpecial {
        /// The path asked for.
        path: String,
        /// What it is and whose (`a FIFO that user 1001 owns in the world-writable sticky folder /tmp`).
        what: String,
    },

    /// An output under `--all-devices` that cannot take each device's suffix.
    #[error(
        "{option} {path} cannot take each device's suffix under --all-devices (it would write {example}); give \
         a file name (r.json: r-gpu1.json, r-gpu2.json, ...) or a folder (DIR/: DIR/HOST-gpu1.json, ...)"
    )]
    NoSuffix {
        /// `--output` or `--json`.
        option: &'static str,
        /// The path as given.
        path: String,
        /// What the first device's would be.
        example: String,
    },

    /// A buffer the CPU must write or read is not mapped (perftest asked for a host-visible one).
    #[error(
        "a buffer the CPU must read or write is not mapped ({mapped} of its {size} bytes); this is a bug in \
         perftest, please report it"
    )]
    Unmapped {
        /// The buffer's size.
        size: u64,
        /// The bytes mapped.
        mapped: usize,
    },

    /// Writing `--output` failed after the run; the document was kept elsewhere.
    #[error("could not write {path}: {detail}; the results were kept in {rescued}")]
    OutputRescued {
        /// The file asked for.
        path: String,
        /// What the system said.
        detail: String,
        /// Where the document is now.
        rescued: String,
    },

    /// `compare --fail-on-slower` found slower cases.
    #[error(
        "{} got slower than in the first run by more than {percent}% (beyond the noise); the worst: \
         \"{worst}\" {change:+.1}%",
        crate::format::count(*.count, "case")
    )]
    Slower {
        /// How many.
        count: usize,
        /// The threshold.
        percent: f64,
        /// The worst case's name.
        worst: String,
        /// Its change, percent.
        change: f64,
    },

    /// `fleet` found GPUs slow alone, or with a slow compute unit.
    #[error("{} slow, alone as among their fleet: {}; drain them for a closer look", crate::format::count(*.count, "GPU"), devices.join(", "))]
    SlowerThanFleet {
        /// How many.
        count: usize,
        /// Each (`node07/0000:1b:00.0`).
        devices: Vec<String>,
    },

    /// An environment variable or option a command needs is missing or unusable.
    #[error("{setting} {problem}")]
    Setting {
        /// The variable or option (`SLURMD_NODENAME`).
        setting: &'static str,
        /// What is wrong and what to do, as a sentence's end.
        problem: String,
    },

    /// `fleet` or `health` found GPUs on which a case lost the device, crashed or hung.
    #[error(
        "{} failed: a case lost the device, crashed or hung: {}; drain them and look at the GPU and \
         its driver (dmesg, nvidia-smi -q)",
        crate::format::count(*.count, "GPU"),
        devices.join("; ")
    )]
    Faulty {
        /// How many.
        count: usize,
        /// Each, with what failed.
        devices: Vec<String>,
    },

    /// A stop signal ended `health` or `fleet --confirm` (or the perftest it ran) before a verdict.
    #[error("{command} was stopped by a signal before its verdict: nothing was decided or drained")]
    Halted {
        /// The command.
        command: &'static str,
    },

    /// `fleet --confirm` found GPUs slow only beside their host's others.
    #[error(
        "{} slow only while their host's other GPUs ran, not alone: {}; look at the host (power, PCIe, \
         CPU), not the GPU",
        crate::format::count(*.count, "GPU"),
        devices.join("; ")
    )]
    Interference {
        /// How many.
        count: usize,
        /// Each, with its families and the devices it ran with.
        devices: Vec<String>,
    },

    /// `fleet` found devices it cannot judge.
    #[error("{} cannot be judged: {}; rerun the screen on them alone", crate::format::count(*.count, "device"), devices.join("; "))]
    Unjudged {
        /// How many.
        count: usize,
        /// Each, with why.
        devices: Vec<String>,
    },

    /// `fleet` found suspects not yet measured again alone.
    #[error(
        "{} slower than their fleet in these runs, not yet measured again alone: {}; run `perftest \
         fleet --confirm` with the same runs on their host before draining them",
        crate::format::count(*.count, "GPU"),
        devices.join(", ")
    )]
    Unconfirmed {
        /// How many.
        count: usize,
        /// Each, with its slow cases (`node07/0000:1b:00.0 (12 of 65 cases)`).
        devices: Vec<String>,
    },

    /// `--strict` found implausible results.
    #[error(
        "{} {} above a known peak of the hardware, the first \"{first}\" ({detail}); check that \
         the shader still does its work (--shader-stats, --verify), or leave out --strict to only flag them",
        crate::format::count(*.count, "result"),
        crate::format::is_are(*.count)
    )]
    Implausible {
        /// How many.
        count: usize,
        /// The first case flagged.
        first: String,
        /// Its flag.
        detail: String,
    },

    /// `--strict` found ratios against a flagged baseline.
    #[error(
        "the baseline \"{baseline}\" is flagged ({flags}), so {} against it {} doubtful; run \
         again when the GPU is idle and cool, or leave out --strict to only flag them",
        crate::format::count(*.ratios, "ratio"),
        crate::format::is_are(*.ratios)
    )]
    FlaggedBaseline {
        /// The baseline's name.
        baseline: String,
        /// Its flags.
        flags: String,
        /// How many ratios are against it.
        ratios: usize,
    },

    /// A worker process failed outside a case (it could not start, died while opening the device
    /// or building the pipelines, or gave no answer then).
    #[error(
        "the worker process {detail}; run again with --in-process to see it fail in perftest's own process"
    )]
    Worker {
        /// What happened.
        detail: String,
    },

    /// A worker's own error (it could not open the device, a shader failed to compile), relayed.
    #[error("{message}")]
    Remote {
        /// The worker's sentence.
        message: String,
        /// The worker's exit code.
        code: ExitCode,
    },

    /// Cases failed (crashed, hung, lost the device, differ, or failed with an error); the run
    /// went on and every result was written.
    #[error("{summary}")]
    Cases {
        /// What failed, in one sentence.
        summary: String,
        /// The code of the worst failure.
        code: ExitCode,
    },

    /// `check` found problems.
    #[error("{} with {run} against {expect}:\n{}", crate::format::count(problems.len(), "problem"), problems.join("\n"))]
    Unexpected {
        /// The results file.
        run: String,
        /// The expectations file.
        expect: String,
        /// Each problem, one sentence.
        problems: Vec<String>,
    },

    /// Ctrl-C stopped the run.
    #[error("interrupted (Ctrl-C or SIGTERM) after {finished} of {selected} cases; the finished ones were written")]
    Interrupted {
        /// Cases finished.
        finished: usize,
        /// Cases selected.
        selected: usize,
    },

    /// A file given as a results file that is no perftest run at all (not JSON, or JSON without
    /// a format version).
    #[error("the results file {path} {problem}")]
    NotARun {
        /// The file.
        path: String,
        /// What it is not.
        problem: String,
    },

    /// A results file that `compare` cannot use.
    #[error("the results file {path} {problem}")]
    ResultsFile {
        /// The file.
        path: String,
        /// What is wrong with it.
        problem: String,
    },

    /// `health --npd`: the check's own ending, under a node-problem-detector plugin's exit code.
    #[error("{error}")]
    Plugin {
        /// 1 (a problem) or 2 (unknown).
        code: ExitCode,
        /// The check's ending.
        error: Box<Error>,
    },
}

fn case_suffix(case: &Option<String>) -> String {
    case.as_ref().map(|c| format!(" in case \"{c}\"")).unwrap_or_default()
}

impl Error {
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
            Error::Worker { .. } => ExitCode::Crashed,
            Error::Unexpected { .. } => ExitCode::Unexpected,
            Error::Remote { code, .. } | Error::Cases { code, .. } | Error::Plugin { code, .. } => *code,
            Error::Slower { .. } => ExitCode::Slower,
            Error::SlowerThanFleet { .. } => ExitCode::SlowerThanFleet,
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

    /// Attaches the running case to an error that did not know it; device loss becomes its own kind.
    pub fn in_case(self, name: &str) -> Error {
        match self {
            Error::Vulkan { result: vk::Result::ERROR_DEVICE_LOST, .. } => {
                Error::DeviceLost { case: name.to_owned() }
            }
            Error::Vulkan { call, case: None, result } => {
                Error::Vulkan { call, case: Some(name.to_owned()), result }
            }
            Error::Allocation { case: None, source } => {
                Error::Allocation { case: Some(name.to_owned()), source }
            }
            other => other,
        }
    }
}

/// What stderr shows for `error`: its sentence, then each cause on a line of its own (`caused by:
/// ...`), as nextest shows an error's chain.
pub fn report(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut last = String::new();
    let mut cause = error.source();
    while let Some(source) = cause {
        // A wrapper that shows its cause as its own text (ash's LoadingError) is said once.
        let said = source.to_string();
        if said != last {
            text.push_str(&format!("\n  caused by: {said}"));
        }
        last = said;
        cause = source.source();
    }
    text
}

/// Maps a failed ash call to [`Error::Vulkan`], naming the entry point.
pub fn vk_err(call: &'static str) -> impl FnOnce(vk::Result) -> Error {
    move |result| Error::Vulkan { call, case: None, result }
}

/// Shorthand for results of perftest operations.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_lost_names_the_case_and_has_its_own_code() {
        let outside = vk_err("vkCreateDevice")(vk::Result::ERROR_DEVICE_LOST);
        assert_eq!(outside.exit_code(), ExitCode::DeviceLost, "lost again while the device is opened");
        let error = vk_err("vkQueueSubmit")(vk::Result::ERROR_DEVICE_LOST).in_case("ALU fp32 FMA");
        assert_eq!(error.exit_code(), ExitCode::DeviceLost);
        let text = error.to_string();
        assert!(text.contains("\"ALU fp32 FMA\""), "{text}");
        assert!(text.contains("VK_ERROR_DEVICE_LOST"), "{text}");
    }

    #[test]
    fn vulkan_errors_name_the_call_and_case_not_a_bare_code() {
        let error = vk_err("vkCreateBuffer")(vk::Result::ERROR_OUT_OF_DEVICE_MEMORY).in_case("ALU fp64 FMA");
        assert_eq!(
            error.to_string(),
            "vkCreateBuffer failed in case \"ALU fp64 FMA\": ERROR_OUT_OF_DEVICE_MEMORY"
        );
        assert_eq!(error.exit_code(), ExitCode::Failure);
    }

    #[test]
    fn environment_errors_say_which_package_to_install() {
        let loader = Error::OldLoader { major: 1, minor: 1 };
        assert!(loader.to_string().contains("apt-get install libvulkan1"));
        let device = Error::NoDevice { detail: "no physical devices".into() };
        assert!(device.to_string().contains("mesa-vulkan-drivers"));
        assert!(Error::NoValidationLayer.to_string().contains("vulkan-validationlayers"));
        for error in [loader, device, Error::NoValidationLayer] {
            assert_eq!(error.exit_code(), ExitCode::NoVulkan);
        }
    }

    #[test]
    fn implausible_times_and_allocation_failures_name_the_case() {
        let timing =
            Error::Timing { case: "ALU fp32 FMA".into(), detail: "the timestamps are equal (5)".into() };
        assert_eq!(
            timing.to_string(),
            "case \"ALU fp32 FMA\" produced an implausible GPU time: the timestamps are equal (5)"
        );
        assert_eq!(timing.exit_code(), ExitCode::Failure);
        let source = gpu_allocator::AllocationError::OutOfMemory;
        let allocation = Error::Allocation { case: None, source }.in_case("Buffer<R8>.Load uniform");
        let text = allocation.to_string();
        assert!(
            text.starts_with("GPU memory allocation failed in case \"Buffer<R8>.Load uniform\""),
            "{text}"
        );
        assert_eq!(allocation.exit_code(), ExitCode::Failure);
        let interrupted = Error::Interrupted { finished: 3, selected: 142 };
        assert_eq!(interrupted.exit_code() as u8, 130);
    }

    #[test]
    fn a_document_json_refuses_is_an_error_that_keeps_its_cause() {
        let source = serde_json::from_str::<u8>("x").unwrap_err();
        let error = Error::Serialize { what: "the run", source };
        assert_eq!(
            error.to_string(),
            "could not write the run as JSON; this is a bug in perftest, please report it"
        );
        assert!(std::error::Error::source(&error).is_some(), "serde_json's error stays the cause");
        assert!(
            report(&error).ends_with("\n  caused by: expected value at line 1 column 1"),
            "{}",
            report(&error)
        );
        assert_eq!(error.exit_code(), ExitCode::Failure);
    }

    #[test]
    fn exit_codes_are_distinct_and_in_order() {
        let numbers: Vec<u8> = ExitCode::ALL.iter().map(|&c| c as u8).collect();
        assert_eq!(numbers[..21], (0..21).collect::<Vec<u8>>());
        assert_eq!(ExitCode::Interrupted as u8, 130, "the shell's code for SIGINT");
        assert_eq!(numbers.len(), 22);
    }

    /// The README's exit-code table: (code, meaning) with markdown backticks removed.
    fn readme_codes() -> Vec<(u8, String)> {
        let page = include_str!("../docs/exit-codes.md");
        page.lines()
            .filter_map(|line| {
                let cells: Vec<&str> = line.trim().trim_matches('|').split(" | ").map(str::trim).collect();
                let code = cells.first()?.parse::<u8>().ok()?;
                Some((code, cells.get(1)?.replace('`', "")))
            })
            .collect()
    }

    #[test]
    fn the_docs_table_says_what_the_enum_says() {
        let expected: Vec<(u8, String)> =
            ExitCode::ALL.iter().map(|&c| (c as u8, c.meaning().to_owned())).collect();
        assert_eq!(readme_codes(), expected, "update docs/exit-codes.md's table from ExitCode::meaning");
    }
}
