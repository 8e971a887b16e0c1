//! The command line: clap derive, plus the `-N` device-row shorthand that clap cannot express.

use std::ffi::OsString;

use clap::{CommandFactory, Parser};

/// Vulkan compute micro-benchmark: what is fast on the GPU in front of you.
///
/// GPU-timed cases of loads, samples, caches, memory, copies, atomics, dispatch cost, branches,
/// ALU, an instruction table and tensor cores, each checkable against a CPU reference.
#[derive(Debug, Parser)]
#[command(
    name = "perftest",
    version,
    after_help = crate::error::SHORT_EXAMPLES,
    after_long_help = crate::error::help_text(),
    args_conflicts_with_subcommands = true,
    disable_help_subcommand = true,
    disable_version_flag = true
)]
pub struct Cli {
    /// A subcommand instead of a run.
    #[command(subcommand)]
    pub command: Option<Command>,

    /// Pick the GPUs whose name contains this word, or this PCI address or UUID.
    ///
    /// A name matches in any case; a PCI address is written `0000:1b:00.0`; a UUID matches by its
    /// start. `perftest --devices` lists them.
    #[arg(value_name = "DEVICE")]
    pub device_name: Option<String>,

    /// A first look: each family's headline cases, measured briefly.
    ///
    /// `--describe` names the headline cases; each is measured for 10 ms in 5 samples unless
    /// --target-ms or --samples say otherwise.
    #[arg(long)]
    pub quick: bool,

    /// Run only the cases of family NAME (`--family load,sweep`; `--describe` says more).
    ///
    /// Names match in any case; repeat the option or separate names with commas. `--describe`
    /// says what each family measures; an unknown name lists them.
    #[arg(long, value_name = "NAME", value_delimiter = ',', value_parser = family_name)]
    pub family: Vec<String>,

    /// Run only the cases whose name contains TEXT (case-insensitive); env PERFTEST_FILTER.
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub filter: Option<String>,

    /// Check every selected case against its CPU reference instead of timing it.
    #[arg(long)]
    pub verify: bool,

    /// Print the GPUs, one line each (PCI address, UUID, compute queue families), and exit.
    #[arg(long, conflicts_with_all = ["output", "format", "json"])]
    pub devices: bool,

    /// Also keep the run's record in FILE, for show, report, compare and fleet.
    ///
    /// The JSON record is written atomically, whatever --format and --output say: `perftest show
    /// FILE` prints it again as the run printed it, `perftest report FILE --output DIR` makes its
    /// page.
    #[arg(long, value_name = "FILE")]
    pub json: Option<std::path::PathBuf>,

    /// Print the whole header and each case's full line.
    ///
    /// The header's compiler, queue, timestamps, compute units, peaks, host link, pipelines and
    /// settings; each case's every rate and per-clock figure, median, min, spread, its flags in
    /// full and the whole reason of a skip, instead of columns that fit 120.
    #[arg(hide_short_help = true, long)]
    pub verbose: bool,

    /// Leave out the cases whose name contains TEXT (repeatable; wins over --filter).
    #[arg(hide_short_help = true, long, value_name = "TEXT", allow_hyphen_values = true)]
    pub skip: Vec<String>,

    /// Run only the case named exactly NAME (repeatable; `--list` prints the names): what
    /// `perftest fleet --confirm` runs again.
    #[arg(hide_short_help = true, long = "case", value_name = "NAME", allow_hyphen_values = true)]
    pub case: Vec<String>,

    /// Print the case names, in run order, without touching Vulkan.
    #[arg(hide_short_help = true, long, conflicts_with_all = ["output", "format", "json"])]
    pub list: bool,

    /// Print what the selected cases' families measure, how one invocation works, what the rate
    /// counts, what ratios are against, and how to read the flags; without touching Vulkan.
    #[arg(hide_short_help = true, long, conflicts_with_all = ["output", "format", "json", "list", "devices"])]
    pub describe: bool,

    /// Build every selected case's pipeline and print the driver's statistics of each compiled
    /// shader, running nothing: proves the shaders compile on this device's compiler (a real GPU's,
    /// or AMD's through RADV on Mesa's no-op DRM shim: tools/radv-noop-env.sh).
    #[arg(hide_short_help = true, long, conflicts_with_all = ["verify", "fence_timing"])]
    pub compile_only: bool,

    /// Sweep a family's axis over VALUES: `V`, `FROM:TO:STEP`, `FROM..TO*FACTOR` (16K..1G*2), or a
    /// comma-separated list of those; K, M, G, T are binary suffixes. Repeatable. An unknown
    /// FAMILY.AXIS is an error that lists every axis with its default.
    #[arg(hide_short_help = true, long = "axis", value_name = "FAMILY.AXIS=VALUES", value_parser = crate::registry::parse_setting)]
    pub axes: Vec<crate::registry::AxisSetting>,

    /// The payload iterations N of the branch cases: short for `--axis branch.n=FROM:TO:STEP`.
    #[arg(hide_short_help = true, long, value_name = "FROM:TO:STEP", value_parser = parse_branch_iterations)]
    pub branch_iterations: Option<crate::registry::AxisSetting>,

    /// Pick GPU N (numbered from 1 as `--devices` lists them, among those DEVICE matched); `-N` is
    /// short for this.
    #[arg(hide_short_help = true, long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..), allow_negative_numbers = true)]
    pub device_index: Option<u32>,

    /// Run on the GPU's compute queue family F (`--devices` lists each GPU's); its best without:
    /// the first with timestamps.
    #[arg(hide_short_help = true, long, value_name = "F")]
    pub queue: Option<u32>,

    /// Run the selection on every physical device (those DEVICE matches; one per device UUID,
    /// whatever its queue families) at the same time, each in its own worker, one results document
    /// per device: with --output FILE, devices go to FILE-gpu1.EXT, FILE-gpu2.EXT, ...
    #[arg(hide_short_help = true, long, conflicts_with_all = ["device_index", "devices", "list", "describe"])]
    pub all_devices: bool,

    /// With --all-devices, run the devices one after another instead of all at once.
    #[arg(hide_short_help = true, long, requires = "all_devices")]
    pub one_at_a_time: bool,

    /// Plan and run as on the device of PROFILE (a Khronos Vulkan Profiles JSON file, such as
    /// tests/profiles/mali-g78.json): its limits, features, format uses and timestamp bits, each at
    /// most what this device has. The subgroup size stays this device's.
    #[arg(hide_short_help = true, long, value_name = "PROFILE.json", value_parser = parse_profile)]
    pub simulate: Option<crate::caps::profile::Profile>,

    /// What to write: text (the lines above), json (kept and compared), csv (one row per case,
    /// device columns repeated) or markdown (a table); env PERFTEST_FORMAT.
    #[arg(hide_short_help = true, long, value_enum, default_value = "text")]
    pub format: Format,

    /// Write the results to FILE (atomically: a temporary file, then a rename) instead of stdout.
    #[arg(hide_short_help = true, long, value_name = "FILE")]
    pub output: Option<std::path::PathBuf>,

    /// Print the driver's statistics of each case's compiled shader (registers, instructions, ...).
    #[arg(hide_short_help = true, long)]
    pub shader_stats: bool,

    /// Leave the host's name out of the results (for a run meant for sharing).
    #[arg(hide_short_help = true, long)]
    pub no_host_name: bool,

    /// Record NAME as the host instead of this machine's name (in a container: the node's, from
    /// Kubernetes' downward API); env PERFTEST_HOST_NAME; --no-host-name wins.
    #[arg(hide_short_help = true, long, value_name = "NAME", value_parser = parse_host_name)]
    pub host_name: Option<String>,

    /// Exit with code 12 if any result is above a known peak of the hardware (flagged
    /// `[implausible: ...]`); without it such results are only flagged.
    #[arg(hide_short_help = true, long)]
    pub strict: bool,

    /// Aim each measurement (one timestamp pair) at this many milliseconds of GPU time; env
    /// PERFTEST_TARGET_MS.
    #[arg(hide_short_help = true, long, value_name = "MS", default_value_t = 20.0, allow_negative_numbers = true,
          value_parser = parse_target_ms)]
    pub target_ms: f64,

    /// The most timed samples per case after warm-up: a case stops at 3 once its samples agree
    /// (their mean's standard error under 0.3%), a noisy one takes them all; the report gives
    /// their median, min and spread; env PERFTEST_SAMPLES.
    #[arg(hide_short_help = true, long, value_name = "N", default_value_t = 10, allow_negative_numbers = true,
          value_parser = clap::value_parser!(u32).range(3..=1000))]
    pub samples: u32,

    /// Also measure what each case's work costs in energy, where the GPU's vendor tells it (NVML
    /// on NVIDIA, hwmon on AMD and Intel, RAPL for a CPU driver): after its samples, each case's
    /// work is held a few seconds between two readings of the sensor.
    ///
    /// The idle board is read before the warm-up and after the last case; each case gets its
    /// watts and picojoules per unit of work, for the board and above idle. Pick few cases: each
    /// takes about 4 s more on NVIDIA (docs/design/energy.md).
    #[arg(hide_short_help = true, long, conflicts_with_all = ["verify", "compile_only"])]
    pub energy: bool,

    /// Hold each case's work at least this many seconds for --energy [default: 4 for NVML and a
    /// power reading, 1 for a kernel counter].
    #[arg(hide_short_help = true, long, value_name = "SECONDS", requires = "energy",
          value_parser = parse_energy_window)]
    pub energy_window: Option<f64>,

    /// Take exactly --samples samples per case, never stopping early once they agree.
    #[arg(hide_short_help = true, long, conflicts_with = "verify")]
    pub fixed_samples: bool,

    /// Time with the CPU's clock around each submission and its fence instead of GPU timestamps
    /// (what a queue without timestamps gets; every result is flagged `timed by CPU fences`).
    #[arg(hide_short_help = true, long, conflicts_with = "verify")]
    pub fence_timing: bool,

    /// Give each case this many seconds to answer before its worker process is stopped and the
    /// case recorded as hung [default: 3000 times --target-ms, at least 60]; --energy adds three
    /// windows and 3 s.
    #[arg(hide_short_help = true, long, value_name = "SECONDS", value_parser = parse_watchdog)]
    pub watchdog: Option<f64>,

    /// Enable VK_LAYER_KHRONOS_validation; any message it reports fails the run; env
    /// PERFTEST_VALIDATION=1.
    #[arg(hide_short_help = true, long)]
    pub validation: bool,

    /// Run the cases in this process instead of a worker process (for debugging: a crash in the
    /// driver then ends the run, as it does not otherwise).
    #[arg(hide_short_help = true, long)]
    pub in_process: bool,

    /// Run as a worker process of a parent perftest (perftest's own use: it reads its job on stdin).
    #[arg(long, hide = true)]
    pub worker: bool,

    /// Print the version.
    #[arg(short = 'V', long, action = clap::ArgAction::Version, hide_short_help = true)]
    pub version: Option<bool>,
}

fn parse_branch_iterations(text: &str) -> Result<crate::registry::AxisSetting, String> {
    if text.split(':').count() != 3 {
        return Err(
            "expected FROM:TO:STEP with FROM <= TO <= 65535 and STEP >= 1, for example 0:256:8".into()
        );
    }
    crate::registry::parse_setting(&format!("branch.n={text}")).map_err(|e| {
        format!("expected FROM:TO:STEP with FROM <= TO <= 65535 and STEP >= 1, for example 0:256:8 ({e})")
    })
}

impl Cli {
    /// The axis settings of the run: `--branch-iterations` first, so a later `--axis` wins.
    pub fn axis_settings(&self) -> Vec<crate::registry::AxisSetting> {
        self.branch_iterations.iter().chain(&self.axes).cloned().collect()
    }

    /// The cases `--family`, `--filter`, `--skip` and `--case` select.
    pub fn selection(&self) -> crate::registry::Selection {
        crate::registry::Selection {
            families: self.family.clone(),
            filter: self.filter.clone(),
            skip: self.skip.clone(),
            quick: self.quick,
            names: self.case.clone(),
        }
    }
}

fn parse_percent(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(value) if (0.0..=100.0).contains(&value) => Ok(value),
        _ => Err(format!("`{text}` is not a percentage from 0 to 100")),
    }
}

fn parse_host_name(text: &str) -> Result<String, String> {
    crate::session::host::check_label(text).map(|()| text.to_owned())
}

fn parse_profile(text: &str) -> Result<crate::caps::profile::Profile, String> {
    crate::caps::profile::Profile::load(std::path::Path::new(text))
}

fn parse_energy_window(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(value) if (0.1..=60.0).contains(&value) => Ok(value),
        _ => Err(format!("`{text}` is not a number of seconds from 0.1 to 60")),
    }
}

fn parse_watchdog(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(value) if (1.0..=86_400.0).contains(&value) => Ok(value),
        _ => Err(format!("`{text}` is not a number of seconds from 1 to 86400")),
    }
}

fn parse_target_ms(text: &str) -> Result<f64, String> {
    let value: f64 = text.parse().map_err(|_| format!("`{text}` is not a number of milliseconds"))?;
    if (0.5..=100.0).contains(&value) {
        Ok(value)
    } else {
        Err("must be between 0.5 and 100 (longer submissions risk the GPU watchdog)".into())
    }
}

/// A `--family` value: one of the registry's family names, in any case.
fn family_name(text: &str) -> Result<String, String> {
    let names = crate::registry::family_names();
    match names.iter().find(|name| name.eq_ignore_ascii_case(text)) {
        Some(name) => Ok((*name).to_owned()),
        None => Err(format!(
            "is not a family{}; the families are {}",
            crate::registry::suggest::did_you_mean(text, names.iter().copied()),
            names.join(", ")
        )),
    }
}

/// What perftest can do besides running cases.
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Compare runs: the verdict, the largest changes, then a column per run.
    ///
    /// Runs kept with --json (or written with --format json); the ratios are against the first.
    #[command(display_order = 3)]
    Compare {
        /// Two or more JSON results files; cases are matched by name.
        #[arg(required = true, num_args = 2.., value_name = "FILE")]
        files: Vec<std::path::PathBuf>,
        /// text, markdown or json.
        #[arg(long, value_enum, default_value = "text")]
        format: CompareFormat,
        /// Write to FILE (atomically) instead of stdout.
        #[arg(long, value_name = "FILE")]
        output: Option<std::path::PathBuf>,
        /// Exit with code 11 if a case of a later run is slower than the first run's by more than
        /// PCT percent and beyond the noise (verdict "slower"): a CI gate.
        #[arg(long, value_name = "PCT", value_parser = parse_percent)]
        fail_on_slower: Option<f64>,
    },
    /// Judge runs of like GPUs against each other and name the slow ones.
    ///
    /// A rack's screening: per group of one device model, driver and settings, each case's median
    /// and spread across the devices, each device's cases outside both the spread and their own
    /// noise, and the devices ranked. Exits 16 when a device is slower than its fleet
    /// (docs/fleet.md).
    #[command(display_order = 5)]
    Fleet {
        /// JSON results files, one per GPU, or folders of them (every *.json directly inside).
        #[arg(required = true, value_name = "RUN|DIR")]
        inputs: Vec<std::path::PathBuf>,
        /// text, markdown or json.
        #[arg(long, value_enum, default_value = "text")]
        format: CompareFormat,
        /// Write to FILE (atomically) instead of stdout.
        #[arg(long, value_name = "FILE")]
        output: Option<std::path::PathBuf>,
        /// On the host of a suspect: measure its slow cases again on it alone and on a healthy peer
        /// alone (and, where it is not slow alone, on every GPU of the host at once) before the
        /// verdict: slow (exit 16), interference (17) or not reproduced (0).
        #[arg(long)]
        confirm: bool,
        /// Judge each run against FILE's model of its GPU (`--write-reference`) instead of its
        /// siblings: one GPU alone can be judged.
        #[arg(long, value_name = "FILE")]
        reference: Option<std::path::PathBuf>,
        /// From a healthy screen, write FILE: per model, driver and settings, each case's median
        /// and spread (nothing is written when the screen is not healthy).
        #[arg(long, value_name = "FILE", conflicts_with = "reference")]
        write_reference: Option<std::path::PathBuf>,
        /// Also write the verdict and each GPU's headline rates to FILE in Prometheus's text
        /// format (node_exporter's textfile collector; labels as dcgm-exporter's).
        #[arg(long, value_name = "FILE")]
        metrics: Option<std::path::PathBuf>,
    },
    /// Measure this node's GPUs against a reference: a health check for Slurm or Kubernetes.
    ///
    /// Runs the reference's cases on every GPU of its models here at once, judges each against
    /// the reference, measures the suspects' slow cases again (at once, against the reference),
    /// prints the verdict (its first line a summary) and exits as fleet does; --drain drains the
    /// Slurm node when a GPU fails (docs/fleet.md).
    #[command(display_order = 6)]
    Health {
        /// The reference (`perftest fleet --write-reference`).
        #[arg(long, value_name = "FILE")]
        reference: std::path::PathBuf,
        /// When a GPU failed (a case lost the device, crashed or hung), is slow, or has nothing
        /// to judge, drain the Slurm node SLURMD_NODENAME names (`scontrol update
        /// NodeName=$SLURMD_NODENAME State=DRAIN Reason=...`, naming the GPU and its families);
        /// refused when SLURMD_NODENAME is not set.
        #[arg(long)]
        drain: bool,
        /// Also write the verdict and each GPU's headline rates to FILE in Prometheus's text
        /// format (node_exporter's textfile collector; labels as dcgm-exporter's).
        #[arg(long, value_name = "FILE")]
        metrics: Option<std::path::PathBuf>,
        /// Exit as a node-problem-detector plugin: 0 healthy, 1 where --drain would drain (a GPU
        /// failed, is slow or has nothing to judge), 2 anything else (no verdict).
        #[arg(long)]
        npd: bool,
        /// Keep the runs in DIR (made if missing) instead of a temporary folder.
        #[arg(long, value_name = "DIR")]
        keep: Option<std::path::PathBuf>,
    },
    /// Find where each GPU's rates changed across its runs over time.
    ///
    /// Per device (its UUID) and settings, each case's rates in date order, their change points by
    /// e-divisive means (as Apache Otava finds them), each confirmed by three runs after it, and
    /// the driver changes beside them (docs/fleet.md).
    #[command(display_order = 7)]
    History {
        /// JSON results files, or folders of them (every *.json under each, at any depth).
        #[arg(required = true, value_name = "RUN|DIR")]
        inputs: Vec<std::path::PathBuf>,
        /// text, markdown or json.
        #[arg(long, value_enum, default_value = "text")]
        format: CompareFormat,
        /// Write to FILE (atomically) instead of stdout.
        #[arg(long, value_name = "FILE")]
        output: Option<std::path::PathBuf>,
        /// Also write a page with a chart per device that changed into DIR (index.html,
        /// report.md, charts/).
        #[arg(long, value_name = "DIR")]
        report: Option<std::path::PathBuf>,
    },
    /// Print a kept run as the live run printed it, or in another format.
    ///
    /// A run kept with --json (or written with --format json): its header, a line per case, its
    /// summaries.
    #[command(display_order = 1)]
    Show {
        /// The JSON results file.
        #[arg(value_name = "RUN")]
        file: std::path::PathBuf,
        /// text (as the run printed it), json, csv or markdown.
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        /// Write to FILE (atomically) instead of stdout.
        #[arg(long, value_name = "FILE")]
        output: Option<std::path::PathBuf>,
        /// Text: each case's full line (every rate, per clock, peak, median, min, spread and flag)
        /// instead of the columns that fit 120.
        #[arg(long)]
        verbose: bool,
    },
    /// Check a run against a driver's known faults (CI).
    ///
    /// Every case its selection lists is there with a status, every failure is a known one, and
    /// every known one still happens (exit 15 otherwise, each problem named).
    #[command(display_order = 6)]
    Check {
        /// The JSON results file.
        #[arg(value_name = "RUN")]
        file: std::path::PathBuf,
        /// The driver's expectations file (ci/expectations/ has lavapipe's).
        #[arg(long, value_name = "FILE")]
        expect: std::path::PathBuf,
    },
    /// Write a run's page of findings, tables and charts into a folder.
    ///
    /// DIR/index.html (self-contained: inline SVG, no script) and DIR/report.md: the run's device
    /// and settings, the findings computed from it, a table and chart per family, and with two or
    /// more runs, the compare verdicts.
    #[command(display_order = 2)]
    Report {
        /// One or more JSON results files; a run given right after another of the same device
        /// row and settings, with no case in common, is a part of it (a run made family by
        /// family); any other run is compared with the first.
        #[arg(required = true, num_args = 1.., value_name = "RUN")]
        files: Vec<std::path::PathBuf>,
        /// The folder to write into (made if missing).
        #[arg(long, value_name = "DIR")]
        output: std::path::PathBuf,
    },
    /// Draw runs as an SVG bar chart, a panel per family.
    ///
    /// Runs kept with --json (or written with --format json): a bar per case and run.
    #[command(display_order = 4)]
    Plot {
        /// One or more JSON results files; each gets its own bar colour.
        #[arg(required = true, num_args = 1.., value_name = "FILE")]
        files: Vec<std::path::PathBuf>,
        /// rate (each case's headline rate) or ratio (to its family's baseline).
        #[arg(long, value_enum, default_value = "rate")]
        metric: Metric,
        /// The SVG file to write (atomically).
        #[arg(long, value_name = "FILE")]
        output: std::path::PathBuf,
    },
}

pub use crate::report::plot::Metric;

/// The output formats of `compare` and `fleet`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum CompareFormat {
    /// For reading: the verdict first, then the table, in 120 columns.
    Text,
    /// The same as markdown, for a wiki page or a pull request.
    Markdown,
    /// Every figure the text shows, for scripts.
    Json,
}

/// A run's document format, as `--format` names it (the formats are the report's).
pub use crate::report::Format;

impl clap::ValueEnum for Format {
    fn value_variants<'a>() -> &'a [Self] {
        &[Format::Text, Format::Json, Format::Csv, Format::Markdown]
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        let (name, help) = match self {
            Format::Text => ("text", "The human-readable lines"),
            Format::Json => ("json", "One JSON object: settings, device, cases"),
            Format::Csv => ("csv", "One row per case"),
            Format::Markdown => ("markdown", "A markdown table"),
        };
        Some(clap::builder::PossibleValue::new(name).help(help))
    }
}

/// Whether `arg` is the `-N` device-row shorthand.
fn is_row(arg: &str) -> bool {
    arg.len() > 1 && arg.starts_with('-') && arg[1..].bytes().all(|b| b.is_ascii_digit())
}

/// Rewrites `-N` (a row number) as `--device-index=N`, which clap can parse, where a device row
/// can stand: among the run's own options, not as an option's value (`--target-ms -1`), not after
/// `--`, and not in `compare` or `plot`. Which options take a value comes from clap's own model.
fn expand_row_shorthand(args: impl IntoIterator<Item = OsString>) -> Vec<OsString> {
    let command = Cli::command();
    let takes_value: Vec<String> = command
        .get_arguments()
        .filter(|a| a.get_action().takes_values() && !a.is_positional())
        .filter_map(|a| a.get_long().map(|long| format!("--{long}")))
        .collect();
    let subcommands: Vec<&str> = command.get_subcommands().map(|c| c.get_name()).collect();
    let (mut rewriting, mut value_next) = (true, false);
    let mut out = Vec::new();
    for (i, arg) in args.into_iter().enumerate() {
        let text = arg.to_str().filter(|_| i > 0 && rewriting);
        match text {
            None => {}
            Some(_) if value_next => value_next = false,
            Some("--") => rewriting = false,
            Some(t) if subcommands.contains(&t) => rewriting = false,
            Some(t) if is_row(t) => {
                out.push(OsString::from(format!("--device-index={}", &t[1..])));
                continue;
            }
            Some(t) => value_next = takes_value.iter().any(|name| name == t),
        }
        out.push(arg);
    }
    out
}

/// The environment variables that stand for options, and the option each stands for. Only
/// `PERFTEST_FILTER` applies to `--list`; none applies to `compare`, `plot` or `--devices`.
pub const ENV_OPTIONS: [(&str, &str); 6] = [
    ("PERFTEST_FILTER", "filter"),
    ("PERFTEST_FORMAT", "format"),
    ("PERFTEST_VALIDATION", "validation"),
    ("PERFTEST_TARGET_MS", "target_ms"),
    ("PERFTEST_SAMPLES", "samples"),
    ("PERFTEST_HOST_NAME", "host_name"),
];

fn env_error(variable: &str, value: &str, problem: impl std::fmt::Display) -> clap::Error {
    let option = ENV_OPTIONS.iter().find(|(v, _)| *v == variable).map_or("", |(_, o)| o).replace('_', "-");
    let message =
        format!("the environment variable {variable}={value:?} is not usable: {problem}; fix or unset it, or give --{option}\n");
    clap::Error::raw(clap::error::ErrorKind::ValueValidation, message)
}

impl Cli {
    /// Applies the `PERFTEST_*` variables that `lookup` finds (an empty one counts as unset) to
    /// the options not given on the command line, where they apply.
    fn apply_env(
        &mut self,
        matches: &clap::ArgMatches,
        lookup: &dyn Fn(&str) -> Option<OsString>,
    ) -> Result<(), clap::Error> {
        let run = self.command.is_none() && !self.devices;
        for (variable, option) in ENV_OPTIONS {
            let applies = run && (!(self.list || self.describe) || option == "filter");
            let given = matches.value_source(option) == Some(clap::parser::ValueSource::CommandLine);
            let Some(raw) = lookup(variable).filter(|v| !v.is_empty()) else { continue };
            if !applies || given {
                continue;
            }
            let value =
                raw.to_str().ok_or_else(|| env_error(variable, &raw.to_string_lossy(), "it is not UTF-8"))?;
            match option {
                "filter" => self.filter = Some(value.to_owned()),
                "format" => {
                    self.format = <Format as clap::ValueEnum>::from_str(value, true)
                        .map_err(|_| env_error(variable, value, "expected text, json, csv or markdown"))?
                }
                "validation" => {
                    self.validation = match value.to_ascii_lowercase().as_str() {
                        "1" | "true" | "yes" | "on" => true,
                        "0" | "false" | "no" | "off" => false,
                        _ => {
                            return Err(env_error(
                                variable,
                                value,
                                "expected 1 or 0 (true/false, yes/no, on/off)",
                            ))
                        }
                    }
                }
                "target_ms" => {
                    self.target_ms = parse_target_ms(value).map_err(|e| env_error(variable, value, e))?
                }
                "host_name" => {
                    self.host_name = Some(parse_host_name(value).map_err(|e| env_error(variable, value, e))?)
                }
                _ => {
                    self.samples =
                        value.parse::<u32>().ok().filter(|n| (3..=1000).contains(n)).ok_or_else(|| {
                            env_error(variable, value, "expected a whole number from 3 to 1000")
                        })?
                }
            }
        }
        Ok(())
    }
}

/// What one measurement aims at under `--quick` (milliseconds of GPU time).
pub const QUICK_TARGET_MS: f64 = 10.0;
/// Timed samples per case under `--quick`.
pub const QUICK_SAMPLES: u32 = 5;

/// Parses `args` (program name first) with no environment; bad input is clap's error, exit code 2.
pub fn parse_from<I, T>(args: I) -> Result<Cli, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString>,
{
    parse_with_env(args, &|_| None)
}

/// Parses `args`, then applies the `PERFTEST_*` variables `lookup` finds (see [`ENV_OPTIONS`]).
pub fn parse_with_env<I, T>(args: I, lookup: &dyn Fn(&str) -> Option<OsString>) -> Result<Cli, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString>,
{
    let matches =
        Cli::command().try_get_matches_from(expand_row_shorthand(args.into_iter().map(Into::into)))?;
    let mut cli = <Cli as clap::FromArgMatches>::from_arg_matches(&matches)?;
    if cli.quick {
        // Shorter measurements, where neither the command line nor the environment sets them.
        let given = |option| matches.value_source(option) == Some(clap::parser::ValueSource::CommandLine);
        if !given("target_ms") {
            cli.target_ms = QUICK_TARGET_MS;
        }
        if !given("samples") {
            cli.samples = QUICK_SAMPLES;
        }
    }
    cli.apply_env(&matches, lookup)?;
    if cli.all_devices && cli.format != Format::Text && cli.output.is_none() {
        return Err(Cli::command().error(
            clap::error::ErrorKind::MissingRequiredArgument,
            "--all-devices with --format json, csv or markdown writes one document per device: give --output \
             FILE (devices go to FILE-gpu1.EXT, FILE-gpu2.EXT, ...)",
        ));
    }
    Ok(cli)
}

/// Parses the process arguments (any bytes: a non-UTF-8 one is clap's error, not a panic) and
/// environment; bad input prints clap's message and exits with code 2.
pub fn parse() -> Cli {
    parse_with_env(std::env::args_os(), &|name| std::env::var_os(name)).unwrap_or_else(|error| error.exit())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cli(args: &[&str]) -> Result<Cli, clap::Error> {
        parse_from(std::iter::once("perftest").chain(args.iter().copied()))
    }

    #[test]
    fn all_devices_and_strict_parse_and_conflict_where_they_must() {
        let parsed = cli(&["--all-devices", "NVIDIA", "--strict"]).unwrap();
        assert!(parsed.all_devices && parsed.strict);
        assert_eq!(parsed.device_name.as_deref(), Some("NVIDIA"));
        for conflicting in
            [&["--all-devices", "-2"][..], &["--all-devices", "--list"], &["--all-devices", "--devices"]]
        {
            let error = cli(conflicting).err().unwrap_or_else(|| panic!("{conflicting:?}"));
            assert_eq!(error.exit_code(), 2, "{conflicting:?}");
        }
        let error = cli(&["--all-devices", "--format", "csv"]).err().unwrap();
        assert_eq!(error.exit_code(), 2);
        assert!(error.to_string().contains("give --output FILE"), "{error}");
        assert!(cli(&["--all-devices", "--format", "csv", "--output", "r.csv"]).is_ok());
    }

    #[test]
    fn the_row_shorthand_applies_only_where_a_row_can_stand() {
        // An option's value: --target-ms -1 is a bad value (range), not a missing one.
        let error = cli(&["--target-ms", "-1"]).unwrap_err().to_string();
        assert!(error.contains("must be between 0.5 and 100"), "{error}");
        assert_eq!(cli(&["--filter", "-2"]).unwrap().filter.as_deref(), Some("-2"));
        assert_eq!(cli(&["--filter=x", "-2"]).unwrap().device_index, Some(2));
        // In compare, -2 is never a device row: after --, it is a file name; before, clap says how.
        let parsed = cli(&["compare", "b.json", "--", "-2"]).unwrap();
        assert!(
            matches!(parsed.command, Some(Command::Compare { ref files, .. }) if files[1] == std::path::Path::new("-2"))
        );
        let error = cli(&["compare", "b.json", "-2"]).unwrap_err().to_string();
        assert!(error.contains("'-- -2'") && !error.contains("device-index"), "{error}");
    }

    fn with_env(args: &[&str], env: &[(&str, &str)]) -> Result<Cli, clap::Error> {
        let env: Vec<(String, String)> = env.iter().map(|(k, v)| ((*k).into(), (*v).into())).collect();
        let lookup = move |name: &str| env.iter().find(|(k, _)| k == name).map(|(_, v)| OsString::from(v));
        parse_with_env(std::iter::once("perftest").chain(args.iter().copied()), &lookup)
    }

    #[test]
    fn environment_variables_apply_to_runs_only_and_say_their_name() {
        let run = with_env(
            &[],
            &[("PERFTEST_SAMPLES", "5"), ("PERFTEST_VALIDATION", "1"), ("PERFTEST_FORMAT", "JSON")],
        )
        .unwrap();
        assert_eq!((run.samples, run.validation, run.format), (5, true, Format::Json));
        assert_eq!(
            with_env(&["--samples", "7"], &[("PERFTEST_SAMPLES", "5")]).unwrap().samples,
            7,
            "a flag wins"
        );
        assert_eq!(with_env(&[], &[("PERFTEST_TARGET_MS", "")]).unwrap().target_ms, 20.0, "empty is unset");
        let error = with_env(&[], &[("PERFTEST_SAMPLES", "abc")]).unwrap_err();
        assert_eq!(error.exit_code(), 2);
        let text = error.to_string();
        assert!(text.contains("PERFTEST_SAMPLES=\"abc\"") && text.contains("--samples"), "{text}");
        // Run-only variables leave compare, plot, --list and --devices alone.
        let bad = [("PERFTEST_SAMPLES", "0"), ("PERFTEST_FORMAT", "xml"), ("PERFTEST_TARGET_MS", "-1")];
        assert!(with_env(&["compare", "a.json", "b.json"], &bad).is_ok());
        assert!(with_env(&["--list"], &bad).is_ok());
        assert!(with_env(&["--devices"], &bad).is_ok());
        assert_eq!(
            with_env(&["--list"], &[("PERFTEST_FILTER", "fp32")]).unwrap().filter.as_deref(),
            Some("fp32")
        );
    }

    #[test]
    fn list_and_devices_refuse_output_and_format() {
        for args in [
            &["--list", "--output", "x.json"][..],
            &["--devices", "--format", "json"],
            &["--list", "--format", "csv"],
        ] {
            assert_eq!(cli(args).unwrap_err().exit_code(), 2, "{args:?}");
        }
    }

    #[test]
    fn non_utf8_arguments_are_usage_errors_or_paths_never_panics() {
        use std::os::unix::ffi::OsStrExt;
        let bad = std::ffi::OsStr::from_bytes(b"\xff").to_os_string();
        let args = [OsString::from("perftest"), "--list".into(), "--filter".into(), bad.clone()];
        let error = parse_from(args).unwrap_err();
        assert_eq!(error.exit_code(), 2);
        assert!(error.to_string().contains("UTF-8"), "{error}");
        let args = [OsString::from("perftest"), "compare".into(), "a.json".into(), bad];
        assert!(parse_from(args).is_ok(), "a results file's name may be any bytes");
    }

    #[test]
    fn row_shorthand_and_name_combine() {
        let parsed = cli(&["RTX", "-2"]).unwrap();
        assert_eq!(parsed.device_name.as_deref(), Some("RTX"));
        assert_eq!(parsed.device_index, Some(2));
        assert_eq!(cli(&["-12"]).unwrap().device_index, Some(12));
    }

    #[test]
    fn quick_shortens_measurements_unless_told_otherwise() {
        let quick = cli(&["--quick"]).unwrap();
        assert!(quick.quick && quick.selection().quick);
        assert_eq!((quick.target_ms, quick.samples), (QUICK_TARGET_MS, QUICK_SAMPLES));
        let told = cli(&["--quick", "--samples", "20"]).unwrap();
        assert_eq!((told.target_ms, told.samples), (QUICK_TARGET_MS, 20));
        let env = with_env(&["--quick"], &[("PERFTEST_TARGET_MS", "30")]).unwrap();
        assert_eq!(env.target_ms, 30.0, "the environment wins over --quick's default");
    }

    #[test]
    fn defaults_are_twenty_ms_and_ten_samples() {
        let parsed = cli(&[]).unwrap();
        assert_eq!(parsed.target_ms, 20.0);
        assert_eq!(parsed.samples, 10);
        assert!(parsed.device_name.is_none() && parsed.device_index.is_none());
    }

    #[test]
    fn out_of_range_values_are_usage_errors() {
        for args in [&["-0"][..], &["--target-ms", "500"], &["--samples", "1"], &["--target-ms", "x"]] {
            let error = cli(args).unwrap_err();
            assert_eq!(error.exit_code(), 2, "{args:?}");
        }
    }

    #[test]
    fn compare_takes_two_or_more_files_and_a_device_word_still_works() {
        let parsed = cli(&["compare", "a.json", "b.json", "--format", "markdown"]).unwrap();
        assert!(
            matches!(parsed.command, Some(Command::Compare { ref files, format: CompareFormat::Markdown, .. }) if files.len() == 2)
        );
        assert_eq!(cli(&["compare", "a.json"]).unwrap_err().exit_code(), 2);
        let word = cli(&["H100", "-2"]).unwrap();
        assert!(word.command.is_none() && word.device_name.as_deref() == Some("H100"));
    }

    #[test]
    fn help_documents_every_exit_code_from_the_enum() {
        let help = cli(&["--help"]).unwrap_err().to_string();
        for code in crate::ExitCode::ALL {
            let line = format!("\n  {:<2} {}\n", code as u8, code.meaning());
            assert!(help.contains(&line), "exit code {} missing from --help", code as u8);
        }
    }

    #[test]
    fn the_short_help_is_a_screen_of_the_common_commands() {
        let short = cli(&["-h"]).unwrap_err().to_string();
        // A screen of 31 lines: eight commands (health and history joined the six), the
        // options a first run needs, three examples.
        assert!(short.lines().count() <= 31, "{short}");
        assert!(short.lines().all(|l| l.chars().count() <= 120), "{short}");
        for common in ["--quick", "--family", "--filter", "--json", "report", "compare", "perftest --help"] {
            assert!(short.contains(common), "{common} missing from -h: {short}");
        }
        assert!(!short.contains("--in-process") && !short.contains("Exit codes"), "{short}");
        let long = cli(&["--help"]).unwrap_err().to_string();
        // Where each option's own entry starts (others' help may name it earlier).
        let at = |option: &str| {
            let entry = format!("\n      {option}");
            long.find(&entry).unwrap_or_else(|| panic!("{option} missing from --help"))
        };
        assert!(at("--quick") < at("--skip") && at("--skip") < at("--target-ms"), "by use: {long}");
        assert!(at("--target-ms") < at("--in-process") && long.contains("-V, --version"), "{long}");
    }

    #[test]
    fn axes_parse_and_the_branch_alias_comes_first() {
        let parsed = cli(&["--axis", "branch.n=0:64:32", "--branch-iterations", "8:8:1"]).unwrap();
        let settings = parsed.axis_settings();
        assert_eq!(settings.len(), 2);
        assert_eq!(settings[0].values, [8], "--branch-iterations first");
        assert_eq!(settings[1].values, [0, 32, 64], "so a later --axis wins");
        for bad in ["branch.n=8:0:8", "branch.q=1", "nosuch.n=1", "branch.n"] {
            assert_eq!(cli(&["--axis", bad]).unwrap_err().exit_code(), 2, "{bad}");
        }
        let error = cli(&["--axis", "branch.q=1"]).unwrap_err().to_string();
        assert!(
            error.contains("the family `branch` has no axis `q`; its axes: n (payload iterations"),
            "the error lists the family's axes: {error}"
        );
    }
}
