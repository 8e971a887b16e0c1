//! `--devices`: the GPUs, one line each (PCI address, UUID, compute queue families).

use crate::cli::RunArgs;
use crate::error::Result;
use crate::runner::open::check_validation;
use crate::session::progress::print;
use crate::vk::instance::Instance;
use crate::vk::select;

/// Prints the device rows; with `--validation`, any message fails.
pub fn run(args: &RunArgs) -> Result<()> {
    let instance = Instance::new(args.validation)?;
    let (_, rows) = select::enumerate(&instance)?;
    print(select::format_devices(&rows, &select::devices(&rows)).trim_end())?;
    let sink = instance.sink();
    drop(instance);
    check_validation(&sink)
}
