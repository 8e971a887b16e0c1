//! The `perftest` binary: parse the command line, run, turn the outcome into an exit code.

use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = perftest::cli::parse();
    if cli.worker {
        let request = perftest::app::request(&cli);
        return ExitCode::from(perftest::runner::work::serve(&request));
    }
    match perftest::app::run(&cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            let text = perftest::error::report(&error);
            eprintln!("perftest: {}", perftest::format::printable_lines(&text));
            ExitCode::from(error.exit_code() as u8)
        }
    }
}
