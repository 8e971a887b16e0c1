//! A run (no subcommand): the cases on a device, in worker processes, as [`RunArgs`] says.

use crate::cli::RunArgs;
use crate::error::Result;
use crate::registry;
use crate::runner::run::RunSettings;
use crate::runner::work::Request;
use crate::session::{self, Session};
use crate::vk::context::ContextOptions;

/// Times or verifies the selected cases ([`session::benchmark`]).
pub fn run(args: &RunArgs) -> Result<()> {
    session::benchmark(&session_of(args)).map_err(word_of_cases)
}

/// A device word that names no device but is in case names (`perftest sin`) says how to run them.
fn word_of_cases(error: crate::Error) -> crate::Error {
    match error {
        crate::Error::DeviceName { name, cases, rows } if cases.is_empty() => {
            let word = name.to_lowercase();
            let count = registry::all().iter().filter(|c| c.name.to_lowercase().contains(&word)).count();
            let cases = match count {
                0 => String::new(),
                1 => format!(", but 1 case name does: run it with --filter {name}"),
                n => format!(", but {n} case names do: run them with --filter {name}"),
            };
            crate::Error::DeviceName { name, cases, rows }
        }
        other => other,
    }
}

/// The watchdog's time for a case: `--watchdog`, or 3000 times the target time and at least 60 s.
fn watchdog(args: &RunArgs) -> std::time::Duration {
    // An energy hold gives up on a sensor after three windows and a little more.
    let hold = match args.energy {
        true => 3.0 * args.energy_window.unwrap_or(4.0) + 3.0,
        false => 0.0,
    };
    let seconds = args.watchdog.unwrap_or_else(|| (3.0 * args.target_ms).max(60.0)) + hold;
    std::time::Duration::from_secs_f64(seconds)
}

/// What a run of `args` asks for, whichever process runs it (a worker parses its own command line).
pub fn request(args: &RunArgs) -> Request {
    Request {
        options: ContextOptions {
            device_name: args.device_name.clone(),
            device_index: args.device_index.map(|n| n as usize),
            queue_family: args.queue,
            validation: args.validation,
            simulate: args.simulate.clone(),
        },
        axes: args.axis_settings(),
        selection: args.selection(),
        settings: RunSettings {
            target_ms: args.target_ms,
            samples: args.samples,
            verify: args.verify,
            compile_only: args.compile_only,
            shader_stats: args.shader_stats,
            fence_timing: args.fence_timing,
            fixed_samples: args.fixed_samples,
            energy: args.energy.then_some(args.energy_window),
        },
    }
}

/// The benchmark run `args` asks for, as the runner takes it.
fn session_of(args: &RunArgs) -> Session {
    Session {
        request: request(args),
        all_devices: args.all_devices,
        one_at_a_time: args.one_at_a_time,
        host: match args.no_host_name {
            true => None,
            false => args.host_name.clone().or_else(session::host::kernel_host_name),
        },
        output: args.output.clone(),
        format: args.format,
        json: args.json.clone(),
        in_process: args.in_process,
        watchdog: watchdog(args),
        strict: args.strict,
        verbose: args.verbose,
        worker_args: std::env::args_os().skip(1).collect(),
    }
}
