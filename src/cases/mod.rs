//! The benchmark families. Each module registers itself with `inventory::submit!`; nothing lists them.

mod alu;
mod load;

pub use load::BASELINE;
mod branch;
mod texture;
