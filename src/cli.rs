//! A run's options (clap derive), the `-N` device-row shorthand that clap cannot express, and the
//! `PERFTEST_*` variables that stand for a run's options.
//!
//! The variables are applied here, after clap, rather than through clap's `env =`: measured with
//! clap 4.6.7, `env =` reads an empty variable as an empty value (an error; here empty is unset),
//! refuses a bad value of a run's option under every subcommand (`PERFTEST_SAMPLES=abc perftest
//! compare A B` would exit 2), makes `PERFTEST_FORMAT=json perftest --list` a conflict, and names
//! the option but not the variable in its error.

use std::ffi::OsString;

/// A run's options: what to run, on which GPU, how to measure and what to write. With no
/// subcommand, they are the command line ([`crate::app::Cli`] flattens them).
#[derive(Debug, clap::Args)]
pub struct RunArgs {
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

    /// Run only family NAME's cases (`--family load,sweep`; `--describe` says more).
    ///
    /// Names match in any case; repeat the option or separate names with commas. `--describe`
    /// says what each family measures; an unknown name lists them.
    #[arg(long, value_name = "NAME", value_delimiter = ',', value_parser = family_name)]
    pub family: Vec<String>,

    /// Run only the cases whose name contains TEXT (any case); env PERFTEST_FILTER.
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub filter: Option<String>,

    /// Check every selected case against its CPU reference instead of timing it.
    #[arg(long)]
    pub verify: bool,

    /// Print the GPUs, a line each (PCI address, UUID, compute queue families); exit.
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
    #[arg(long)]
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

    /// The most timed samples per case after warm-up [default: 10, 5 on a CPU implementation]: a
    /// case stops at 3 once its samples agree (their mean's standard error under 0.3%), a noisy one
    /// takes them all; the report gives their median, min and spread; env PERFTEST_SAMPLES.
    #[arg(hide_short_help = true, long, value_name = "N", allow_negative_numbers = true,
          value_parser = clap::value_parser!(u32).range(3..=1000))]
    pub samples: Option<u32>,

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

impl RunArgs {
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

/// A tolerance in percent, from 0.1 to 50 (`fleet` and `health --tolerance`).
pub fn parse_tolerance(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(value) if (0.1..=50.0).contains(&value) => Ok(value),
        _ => Err(format!("`{text}` is not a percentage from 0.1 to 50")),
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
/// `--`, and not in `compare` or `plot`. Which options take a value comes from clap's own model,
/// `command` (the whole command line's).
pub fn expand_row_shorthand(
    command: &clap::Command,
    args: impl IntoIterator<Item = OsString>,
) -> Vec<OsString> {
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

impl RunArgs {
    /// Settles what clap parsed (`matches`): `--quick`'s shorter measurements where neither the
    /// command line nor the environment sets them, the `PERFTEST_*` variables `lookup` finds
    /// (where `is_run`: no subcommand), and what `--all-devices` needs.
    pub fn settle(
        &mut self,
        matches: &clap::ArgMatches,
        lookup: &dyn Fn(&str) -> Option<OsString>,
        is_run: bool,
    ) -> Result<(), clap::Error> {
        if self.quick {
            let given = |option| matches.value_source(option) == Some(clap::parser::ValueSource::CommandLine);
            if !given("target_ms") {
                self.target_ms = QUICK_TARGET_MS;
            }
            if !given("samples") {
                self.samples = Some(QUICK_SAMPLES);
            }
        }
        self.apply_env(matches, lookup, is_run)?;
        if self.all_devices && self.format != Format::Text && self.output.is_none() {
            return Err(clap::Error::raw(
                clap::error::ErrorKind::MissingRequiredArgument,
                "--all-devices with --format json, csv or markdown writes one document per device: give --output \
                 FILE (devices go to FILE-gpu1.EXT, FILE-gpu2.EXT, ...)\n",
            ));
        }
        Ok(())
    }

    /// Applies the `PERFTEST_*` variables that `lookup` finds (an empty one counts as unset) to
    /// the options not given on the command line, where they apply.
    fn apply_env(
        &mut self,
        matches: &clap::ArgMatches,
        lookup: &dyn Fn(&str) -> Option<OsString>,
        is_run: bool,
    ) -> Result<(), clap::Error> {
        let run = is_run && !self.devices;
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
                        Some(value.parse::<u32>().ok().filter(|n| (3..=1000).contains(n)).ok_or_else(
                            || env_error(variable, value, "expected a whole number from 3 to 1000"),
                        )?)
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
