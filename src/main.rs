//! The `perftest` binary: parse the command line, run, turn the outcome into an exit code.

use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = perftest::app::parse();
    if cli.run.worker {
        let request = perftest::app::run::request(&cli.run);
        return ExitCode::from(perftest::runner::work::serve(&request));
    }
    match perftest::app::run(&cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            let text = perftest::error::report(&error);
            // A closed stderr (`perftest ... 2>&1 | head -1`) loses the sentence, never panics.
            let _ = writeln!(std::io::stderr(), "perftest: {}", perftest::format::printable_lines(&text));
            ExitCode::from(error.exit_code() as u8)
        }
    }
}
