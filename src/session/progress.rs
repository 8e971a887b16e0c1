//! Progress on stderr with indicatif, hidden when stderr is not a terminal.

use std::io::{IsTerminal, Write};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A bar over the selected cases; result lines printed through it do not tear the bar.
pub struct Progress {
    bar: ProgressBar,
}

impl Progress {
    /// A bar for `cases` cases, drawn where `shown` and stderr is a terminal.
    pub fn new(cases: usize, shown: bool) -> Self {
        let drawn = shown && std::io::stderr().is_terminal();
        let target = if drawn { ProgressDrawTarget::stderr() } else { ProgressDrawTarget::hidden() };
        let bar = ProgressBar::with_draw_target(Some(cases as u64), target);
        if let Ok(style) = ProgressStyle::with_template("{bar:30} {pos}/{len} {elapsed} {msg}") {
            bar.set_style(style);
        }
        // From the first second: what happens before the first case (on lavapipe, seconds of
        // compiling), with the time ticking.
        bar.set_message("opening the device, compiling the first family's pipelines, warming up");
        // The ticker is a thread: only where the bar is drawn.
        if drawn {
            bar.enable_steady_tick(std::time::Duration::from_millis(500));
        }
        Self { bar }
    }

    /// Shows the case now running.
    pub fn start(&self, case: &str) {
        self.bar.set_message(case.to_owned());
    }

    /// Prints `text` on stdout above the bar: the bar is cleared first and drawn again below it,
    /// so that no copy of the bar stays in the terminal's scrollback.
    pub fn print(&self, text: &str) -> std::io::Result<()> {
        self.bar.suspend(|| write_line(text))
    }

    /// Prints a result line on stdout above the bar and advances it.
    pub fn finish_case(&self, line: &str) -> std::io::Result<()> {
        let written = self.print(line);
        self.bar.inc(1);
        written
    }

    /// Advances the bar without printing (the results go elsewhere).
    pub fn advance(&self) {
        self.bar.inc(1);
    }

    /// Removes the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// Writes `text` and a newline to stdout, its control characters but line breaks and tabs as
/// visible escapes; a closed pipe (`perftest | head`) is an error, not a panic.
pub fn write_line(text: &str) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}", crate::format::printable_lines(text))?;
    out.flush()
}

/// Prints a command's document on stdout as [`write_line`] does; a reader that stopped early
/// (`perftest --list | head`) is a quiet end: what it did not read is no error.
pub fn print(text: &str) -> std::io::Result<()> {
    match write_line(text) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// Writes `text` and a newline to stderr, where the commands say what they are doing; a closed
/// stderr (`perftest health 2>&1 | head -1`) loses the line, never panics as `eprintln!` does.
pub fn say(text: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{text}");
}
