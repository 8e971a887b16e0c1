//! The commands: the command line's top (a run's options, [`crate::cli::RunArgs`], or a
//! subcommand), and one file per command holding its options and its body. A command is a small
//! pipeline: its runs ([`inputs`]), a judgement (`analysis/`), a document (`report/`), written
//! ([`emit`]), and an exit code. A new command is one file here, one line in `commands!` below,
//! its analysis and its section.

use std::ffi::OsString;

use clap::{CommandFactory, FromArgMatches, Parser};

use crate::cli::RunArgs;
use crate::error::Result;

pub mod devices;
pub mod emit;
pub mod inputs;
pub mod list;
pub mod run;

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
    disable_version_flag = true,
    // Help wraps between words at the terminal's width, at most 120 (100 where it has none).
    max_term_width = 120
)]
pub struct Cli {
    /// A subcommand instead of a run.
    #[command(subcommand)]
    pub command: Option<Command>,

    /// A run's options (with no subcommand).
    #[command(flatten)]
    pub run: RunArgs,
}

/// The subcommands: each `Variant(module)` is `src/app/module.rs`, whose `Args` holds the
/// command's options and, in its doc comment, its help, and whose `run` is its body and exit
/// code. A new command is one line here.
macro_rules! commands {
    ($($variant:ident($module:ident)),* $(,)?) => {
        $(pub mod $module;)*

        /// What perftest can do besides running cases. A variant's documentation is its `Args`'
        /// (clap would take a variant's own doc comment as the command's help instead).
        #[allow(missing_docs)]
        #[derive(Debug, clap::Subcommand)]
        pub enum Command {
            $($variant($module::Args),)*
        }

        impl Command {
            /// Runs the command.
            fn run(&self) -> Result<()> {
                match self {
                    $(Command::$variant(args) => $module::run(args),)*
                }
            }
        }
    };
}

commands! {
    Compare(compare),
    Fleet(fleet),
    Health(health),
    History(history),
    Show(show),
    Check(check),
    Report(report),
    Plot(plot),
}

/// Runs the command line: the binary's whole behaviour.
pub fn run(cli: &Cli) -> Result<()> {
    match &cli.command {
        Some(command) => command.run(),
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
    let command = with_exit_codes(Cli::command());
    let args = crate::cli::expand_row_shorthand(&command, args.into_iter().map(Into::into));
    let matches = command.try_get_matches_from(args)?;
    let mut cli = Cli::from_arg_matches(&matches)?;
    let is_run = cli.command.is_none();
    cli.run.settle(&matches, lookup, is_run)?;
    Ok(cli)
}

/// `command` with each subcommand's help ending in its exit codes, from the one table
/// ([`crate::error::of_command`]).
pub fn with_exit_codes(command: clap::Command) -> clap::Command {
    let names: Vec<String> = command.get_subcommands().map(|c| c.get_name().to_owned()).collect();
    names.iter().fold(command, |command, name| {
        command.mut_subcommand(name, |sub| {
            let sub = match crate::error::command_codes(name) {
                Some(codes) => sub.after_help(codes),
                None => sub,
            };
            match crate::error::command_help(name) {
                Some(help) => sub.after_long_help(help),
                None => sub,
            }
        })
    })
}

/// Parses the process arguments (any bytes: a non-UTF-8 one is clap's error, not a panic) and
/// environment; bad input prints clap's message and exits with code 2 (under `health --npd`,
/// with the plugin's one line on stdout first: [`plugin_refusal`]).
pub fn parse() -> Cli {
    parse_with_env(std::env::args_os(), &|name| std::env::var_os(name)).unwrap_or_else(|error| {
        if let Some(line) = plugin_refusal(std::env::args_os(), &error) {
            let _ = crate::session::progress::print(&line);
        }
        error.exit()
    })
}

/// The node-problem-detector plugin's line for a command line clap refused, where it asked for
/// `health --npd`: the plugin's condition message is its stdout, which clap leaves empty.
pub fn plugin_refusal(args: impl IntoIterator<Item = OsString>, error: &clap::Error) -> Option<String> {
    let args: Vec<OsString> = args.into_iter().collect();
    let asked = |word: &str| args.iter().any(|a| a == word);
    if !(asked("health") && asked("--npd") && error.use_stderr()) {
        return None;
    }
    let said = error.render().to_string();
    let first = said.lines().next().unwrap_or_default().trim_start_matches("error: ");
    Some(format!("unknown: perftest health refused its command line: {}", crate::format::printable(first)))
}

#[cfg(test)]
mod tests;
