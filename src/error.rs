//! Every way a perftest run can fail, each with a sentence that says what to do and an exit code.

use ash::vk;

mod exit_code;
pub use exit_code::{command_codes, command_help, help_text, of_command, ExitCode, SHORT_EXAMPLES};

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

    /// `fleet` found GPUs slow alone, or with a slow compute unit; `health`, slow again.
    #[error(
        "{} slow beyond the tolerance, and slow again when measured again (or in a compute unit): {}; \
         drain their nodes for a closer look",
        crate::format::count(*.count, "GPU"),
        devices.join(", ")
    )]
    SlowerThanFleet {
        /// How many.
        count: usize,
        /// Each (`node07/0000:1b:00.0`).
        devices: Vec<String>,
    },

    /// `history` found GPUs whose rate changed for the slower and stayed so (confirmed).
    #[error(
        "{} got slower and stayed slower (a change confirmed by the runs after it): {}; measure them with \
         perftest health, and drain those it fails",
        crate::format::count(*.count, "GPU"),
        devices.join("; ")
    )]
    SlowerOverTime {
        /// How many.
        count: usize,
        /// Each, with its largest change (`NVIDIA H100 GPU-... (Copy 64 MiB -2.1% from 2026-11-07)`).
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

    /// `fleet`, `health` or `history` found GPUs that computed wrong bits (silent data corruption).
    #[error(
        "{} computed wrong results (silent data corruption): {}; drain them and run perftest --family sdc on \
         each again to confirm the unit (docs/corruption.md)",
        crate::format::count(*.count, "GPU"),
        devices.join("; ")
    )]
    Corrupt {
        /// How many.
        count: usize,
        /// Each, with its cases and units.
        devices: Vec<String>,
    },

    /// `fleet` or `health` found GPUs on which a case lost the device, crashed or hung.
    #[error(
        "{} failed (a case lost the device, crashed or hung, or its perftest could not run): {}; drain \
         them and look at the GPU and its driver (dmesg, nvidia-smi -q)",
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

    /// `fleet` or `health` found devices it cannot judge, each with why and what would let it be.
    #[error("{} cannot be judged, and not passed: {}", crate::format::count(*.count, "device"), devices.join("; "))]
    Unjudged {
        /// How many.
        count: usize,
        /// Each, with why.
        devices: Vec<String>,
    },

    /// `fleet` found suspects not yet measured again alone.
    #[error(
        "{} slow beyond the tolerance in these runs, not yet measured again alone: {}; run `perftest \
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
mod tests;
