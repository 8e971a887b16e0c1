//! Plain records of what a run measured, made by the runner and rendered by the reports: how each
//! case ended ([`outcome`]), its measurement ([`measurement`]) and statistics ([`stats`]), and the
//! warm-up before the cases ([`warmup`]), where each case's time went ([`phases`]), each compute
//! unit's part of a grid ([`units`]), the results a self-checking shader found wrong ([`faults`]), and the energy a case's work took ([`energy`]).
//! Serializable (a worker streams them), and free of Vulkan.

pub mod energy;
pub mod faults;
pub mod measurement;
pub mod outcome;
pub mod phases;
pub mod stats;
pub mod units;
pub mod warmup;
