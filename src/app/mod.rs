//! The commands: the command line's top (a run's options, [`crate::cli::RunArgs`], or a
//! subcommand), and one file per command holding its options and its body. A command is a small
//! pipeline: its runs ([`inputs`]), a judgement (`analysis/`), a document (`report/`), written
//! ([`emit`]), and an exit code. A new command is one file here, its analysis and its section.

use std::ffi::OsString;

use clap::{CommandFactory, FromArgMatches, Parser};

use crate::cli::RunArgs;
use crate::error::Result;

pub mod check;
pub mod compare;
pub mod devices;
pub mod emit;
pub mod fleet;
pub mod health;
pub mod history;
pub mod inputs;
pub mod list;
pub mod plot;
pub mod report;
pub mod run;
pub mod show;

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

    /// A run's options (with no subcommand).
    #[command(flatten)]
    pub run: RunArgs,
}

/// What perftest can do besides running cases.
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Compare runs: the verdict, the largest changes, then a column per run.
    ///
    /// Runs kept with --json (or written with --format json); the ratios are against the first.
    #[command(display_order = 3)]
    Compare(compare::Args),
    /// Judge runs of like GPUs against each other and name the slow ones.
    ///
    /// A rack's screening: per group of one device model, driver and settings, each case's median
    /// and spread across the devices, each device's cases outside both the spread and their own
    /// noise, and the devices ranked. Exits 16 when a device is slower than its fleet
    /// (docs/fleet.md).
    #[command(display_order = 5)]
    Fleet(fleet::Args),
    /// Measure this node's GPUs against a reference: a health check for Slurm or Kubernetes.
    ///
    /// Runs the reference's cases on every GPU of its models here at once, judges each against
    /// the reference, measures the suspects' slow cases again (at once, against the reference),
    /// prints the verdict (its first line a summary) and exits as fleet does; --drain drains the
    /// Slurm node when a GPU fails (docs/fleet.md).
    #[command(display_order = 6)]
    Health(health::Args),
    /// Find where each GPU's rates changed across its runs over time.
    ///
    /// Per device (its UUID) and settings, each case's rates in date order, their change points by
    /// e-divisive means (as Apache Otava finds them), each confirmed by three runs after it, and
    /// the driver changes beside them (docs/fleet.md).
    #[command(display_order = 7)]
    History(history::Args),
    /// Print a kept run as the live run printed it, or in another format.
    ///
    /// A run kept with --json (or written with --format json): its header, a line per case, its
    /// summaries.
    #[command(display_order = 1)]
    Show(show::Args),
    /// Check a run against a driver's known faults (CI).
    ///
    /// Every case its selection lists is there with a status, every failure is a known one, and
    /// every known one still happens (exit 15 otherwise, each problem named).
    #[command(display_order = 6)]
    Check(check::Args),
    /// Write a run's page of findings, tables and charts into a folder.
    ///
    /// DIR/index.html (self-contained: inline SVG, no script) and DIR/report.md: the run's device
    /// and settings, the findings computed from it, a table and chart per family, and with two or
    /// more runs, the compare verdicts.
    #[command(display_order = 2)]
    Report(report::Args),
    /// Draw runs as an SVG bar chart, a panel per family.
    ///
    /// Runs kept with --json (or written with --format json): a bar per case and run.
    #[command(display_order = 4)]
    Plot(plot::Args),
}

/// Runs the command line: the binary's whole behaviour.
pub fn run(cli: &Cli) -> Result<()> {
    match &cli.command {
        Some(Command::Compare(args)) => compare::run(args),
        Some(Command::Fleet(args)) => fleet::run(args),
        Some(Command::Health(args)) => health::run(args),
        Some(Command::History(args)) => history::run(args),
        Some(Command::Show(args)) => show::run(args),
        Some(Command::Check(args)) => check::run(args),
        Some(Command::Report(args)) => report::run(args),
        Some(Command::Plot(args)) => plot::run(args),
        None if cli.run.list => list::list(&cli.run),
        None if cli.run.describe => list::describe(&cli.run),
        None if cli.run.devices => devices::run(&cli.run),
        None => run::run(&cli.run),
    }
}

/// Parses `args` (program name first) with no environment; bad input is clap's error, exit code 2.
pub fn parse_from<I, T>(args: I) -> std::result::Result<Cli, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString>,
{
    parse_with_env(args, &|_| None)
}

/// Parses `args`, then applies the `PERFTEST_*` variables `lookup` finds to a run's options
/// ([`RunArgs::settle`]).
pub fn parse_with_env<I, T>(
    args: I,
    lookup: &dyn Fn(&str) -> Option<OsString>,
) -> std::result::Result<Cli, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString>,
{
    let command = Cli::command();
    let args = crate::cli::expand_row_shorthand(&command, args.into_iter().map(Into::into));
    let matches = command.try_get_matches_from(args)?;
    let mut cli = Cli::from_arg_matches(&matches)?;
    let is_run = cli.command.is_none();
    cli.run.settle(&matches, lookup, is_run)?;
    Ok(cli)
}

/// Parses the process arguments (any bytes: a non-UTF-8 one is clap's error, not a panic) and
/// environment; bad input prints clap's message and exits with code 2.
pub fn parse() -> Cli {
    parse_with_env(std::env::args_os(), &|name| std::env::var_os(name)).unwrap_or_else(|error| error.exit())
}

#[cfg(test)]
mod tests;
