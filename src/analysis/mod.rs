//! Judging: a finished case's outcome and the device's facts in, the record's judged fields out
//! (rates per clock per compute unit, % of a peak, flags), and the judgements over whole runs
//! (throttling, flagged baselines, memory levels, the instruction table, twins, verdicts,
//! failures against expectations, findings). Reads the record ([`crate::results`]); makes no text layout.

pub mod confirm;
pub mod energy;
pub mod expect;
pub mod failures;
pub mod findings;
pub mod fleet;
pub mod history;
pub mod instructions;
pub mod judge;
pub mod levels;
pub mod matching;
pub mod parts;
pub mod robust;
pub mod run_flags;
pub mod screen;
pub mod trust;
pub mod twins;
pub mod units;
pub mod verdict;
