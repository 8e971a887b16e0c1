//! `--list` and `--describe`: the selected cases' names, or what their families measure, from the
//! registry alone (no Vulkan).

use crate::cli::RunArgs;
use crate::error::Result;
use crate::registry;
use crate::session::progress::print;

/// Prints the selected cases' names, in run order.
pub fn list(args: &RunArgs) -> Result<()> {
    let cases = selected_without_device(args)?;
    let names: Vec<&str> = cases.iter().map(|c| c.name.as_str()).collect();
    Ok(print(&names.join("\n"))?)
}

/// Prints what the selected cases' families measure and how to read them.
pub fn describe(args: &RunArgs) -> Result<()> {
    Ok(print(registry::describe(&selected_without_device(args)?).trim_end())?)
}

/// The cases `--family`, `--filter`, `--skip` and `--axis` select, expanded with no device facts.
fn selected_without_device(args: &RunArgs) -> Result<Vec<registry::CaseSpec>> {
    args.selection().apply(registry::expand(&args.axis_settings(), None))
}
