//! The benchmark families. Each module registers itself with `inventory::submit!`; nothing lists them.
//!
//! Adding a family: `src/cases/NAME.rs` (an `expand` function and one `inventory::submit!`),
//! `glsl/NAME.glsl`, one `mod NAME;` line below, and the regenerated `src/cases/list.txt`.

mod address;
mod alu;
mod atomic;
mod branch;
mod broadcast;
mod conv;
mod coopmat;
mod copy;
mod cycle;
mod data;
mod dispatch;
mod gemm;
mod host;
mod instr;
mod latency;
mod load;
mod matrix;
mod matrix_data;
mod rotate;
mod sdc;
mod shared;
mod store;
mod sweep;
mod texture;
mod uav;
mod units;
