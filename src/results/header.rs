//! The facts a run's header shows beyond the device row, as data (format 7 on): what built the
//! binary, the timer, the host link, the architecture's peaks, the pipelines, the timing settings
//! and the matrix shapes. `report::text` renders them, for a live run and `perftest show` alike.

use serde::{Deserialize, Serialize};

use crate::caps::{CoopMatFlexible, CoopMatShape, DeviceInfo, HostLink, Steps};
use crate::registry::Unit;

/// The header's facts.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Facts {
    /// The git commit perftest was built from.
    pub git_commit: String,
    /// The shader compiler and the SPIR-V versions it targets.
    pub compiler: String,
    /// Valid bits of the queue family's timestamps.
    pub timestamp_valid_bits: u32,
    /// How far apart back-to-back timestamps read (null: not measured, fenced runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp_steps: Option<Steps>,
    /// Why the timestamp steps could not be measured (null: they were, or were not tried).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp_steps_error: Option<String>,
    /// The extension that told the compute-unit count (null: none did).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compute_units_source: Option<String>,
    /// The architecture's peaks, per clock per compute unit, in its table's order (empty:
    /// unknown architecture).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub peaks: Vec<ArchitecturePeak>,
    /// The PCIe link host transfers cross.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_link: Option<HostLink>,
    /// Why the host link is unknown, or that there is none (null: it is known).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_link_unknown: Option<String>,
    /// How the pipelines were built.
    pub pipelines: Pipelines,
    /// Dispatches recorded between two timestamps in each measurement.
    pub dispatches: u64,
    /// How the run was timed.
    pub timer: Timer,
    /// How samples stop early once they agree (null: each case took exactly `samples`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub converging: Option<Converging>,
    /// The cooperative-matrix shapes the device advertises (VK_KHR_cooperative_matrix).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cooperative_matrix: Vec<MatrixShape>,
    /// The flexible-dimension shape families (VK_NV_cooperative_matrix2), with their granularity.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cooperative_matrix_flexible: Vec<MatrixShape>,
    /// VK_NV_cooperative_matrix2's limits (null without it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cooperative_matrix2_limits: Option<MatrixLimits>,
    /// The bfloat16 features supported, by their Vulkan names (null: no VK_KHR_shader_bfloat16).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bfloat16: Option<Vec<String>>,
    /// Whether packed 4x8-bit dot products are accelerated (null: no
    /// VK_KHR_shader_integer_dot_product).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub integer_dot_accelerated: Option<IntegerDot>,
}

/// One of an architecture's peaks: `per_clock` of `unit` per clock per compute unit.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ArchitecturePeak {
    /// The ceiling's name (`fp32 FMA`, `L1`).
    pub ceiling: String,
    /// Per clock per compute unit.
    pub per_clock: f64,
    /// What it counts.
    pub unit: Unit,
}

/// How the pipelines were built.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "lowercase")]
pub enum Pipelines {
    /// All of them before the first case, in parallel.
    Built {
        /// Pipelines.
        pipelines: usize,
        /// For how many cases.
        cases: usize,
        /// Seconds it took.
        seconds: f64,
        /// On how many threads.
        threads: usize,
    },
    /// The first family's before the first case, in parallel; the other families' (at once) when
    /// the run reaches them, so that the first result comes as soon as its family's are ready.
    FirstFamily {
        /// The first family's pipelines.
        pipelines: usize,
        /// For how many of its cases.
        cases: usize,
        /// Seconds it took.
        seconds: f64,
        /// On how many threads.
        threads: usize,
    },
    /// The first family's before the warm-up, the other families' while the device warmed up (a
    /// timed run): all of them before the first case.
    WhileWarming {
        /// Pipelines.
        pipelines: usize,
        /// For how many cases.
        cases: usize,
        /// Seconds from the first build's start to the last one's end.
        seconds: f64,
        /// On how many threads, at the most.
        threads: usize,
    },
    /// The first family's before the first case, in parallel; the other families' family by
    /// family, in run order, on other threads while the cases ran (a GPU run).
    BesideCases {
        /// The first family's pipelines.
        pipelines: usize,
        /// For how many of its cases.
        cases: usize,
        /// Seconds it took.
        seconds: f64,
        /// On how many threads.
        threads: usize,
        /// The other families' pipelines.
        later: usize,
        /// On how many threads.
        later_threads: usize,
    },
    /// Each case's just before it runs: a worker died building them all at once.
    #[default]
    Lazy,
}

/// What timed the run.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Timer {
    /// GPU timestamps.
    #[default]
    Timestamps,
    /// CPU fences, because `--fence-timing` asked.
    FencesAsked,
    /// CPU fences, because the queue has no timestamps.
    FencesNoTimestamps,
}

/// How a case's samples stop early: after `least` of them, once their mean's relative standard
/// error is at most `spread`.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
pub struct Converging {
    /// The fewest samples.
    pub least: usize,
    /// The relative standard error at which they stop (0.001: 0.1%).
    pub spread: f64,
}

/// A cooperative-matrix shape: `m`x`n`x`k` of `a`*`b`+`c` (giving `result`) at `scope`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct MatrixShape {
    /// Rows of A and of the result (the granularity, for a flexible family).
    pub m: u32,
    /// Columns of B and of the result.
    pub n: u32,
    /// Columns of A, rows of B.
    pub k: u32,
    /// Component types as Vulkan names them (`FLOAT16`): A, B, C and the result.
    pub types: [String; 4],
    /// `SUBGROUP` or `WORKGROUP`.
    pub scope: String,
    /// Whether the accumulation saturates.
    pub saturating: bool,
    /// The workgroup size a workgroup-scope flexible family needs (null: other shapes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invocations: Option<u32>,
}

/// VK_NV_cooperative_matrix2's limits.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct MatrixLimits {
    /// The largest workgroup-scope workgroup, invocations.
    pub invocations: u32,
    /// The largest flexible dimension, rows or columns.
    pub dimension: u32,
    /// Shared memory reserved for workgroup scope, bytes.
    pub shared_bytes: u32,
}

/// Whether packed 4x8-bit dot products are accelerated.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct IntegerDot {
    /// Signed.
    pub signed: bool,
    /// Unsigned.
    pub unsigned: bool,
}

impl ArchitecturePeak {
    /// The peaks of the architecture of PCI `vendor` and `device` ([`crate::caps::peaks`]), in
    /// its table's order; none for an architecture it does not know.
    pub fn of_device(vendor: u32, device: u32) -> Vec<Self> {
        use crate::caps::peaks::{architecture, Ceiling};
        let unit = |c| match c {
            Ceiling::L1Bytes => Unit::Byte,
            Ceiling::Int32Mad => Unit::IntOp,
            Ceiling::Issue => Unit::Op,
            _ => Unit::Flop,
        };
        let Some(arch) = architecture(vendor, device) else { return Vec::new() };
        arch.peaks
            .iter()
            .map(|&(c, per_clock)| ArchitecturePeak { ceiling: c.name().into(), per_clock, unit: unit(c) })
            .collect()
    }
}

impl MatrixShape {
    fn of(s: &CoopMatShape, invocations: Option<u32>) -> Self {
        let name = |t| crate::caps::component::component_name(t).to_owned();
        MatrixShape {
            m: s.m,
            n: s.n,
            k: s.k,
            types: [name(s.a), name(s.b), name(s.c), name(s.result)],
            scope: format!("{:?}", s.scope),
            saturating: s.saturating,
            invocations,
        }
    }

    fn of_flexible(f: &CoopMatFlexible) -> Self {
        let workgroup = f.granularity.scope == ash::vk::ScopeKHR::WORKGROUP;
        Self::of(&f.granularity, workgroup.then_some(f.invocations))
    }
}

impl Facts {
    /// The facts of `info` (its architecture's peaks from [`crate::caps::peaks`]), with how the
    /// worker built the `pipelines` and what `timer` timed them.
    pub fn of(info: &DeviceInfo, pipelines: Pipelines, timer: Timer) -> Self {
        let peaks = ArchitecturePeak::of_device(info.vendor_id, info.device_id);
        let (host_link, host_link_unknown) = match &info.host_link {
            Ok(link) => (Some(link.clone()), None),
            Err(why) => (None, Some(why.clone())),
        };
        Facts {
            git_commit: env!("PERFTEST_GIT_COMMIT").to_owned(),
            compiler: crate::shader::compiler_version(),
            timestamp_valid_bits: info.timestamp_valid_bits,
            timestamp_steps: None,
            timestamp_steps_error: None,
            compute_units_source: info.compute_units.map(|u| u.source.to_owned()),
            peaks,
            host_link,
            host_link_unknown,
            pipelines,
            dispatches: 0,
            timer,
            converging: None,
            cooperative_matrix: info.cooperative_matrix.iter().map(|s| MatrixShape::of(s, None)).collect(),
            cooperative_matrix_flexible: info
                .cooperative_matrix_flexible
                .iter()
                .map(MatrixShape::of_flexible)
                .collect(),
            cooperative_matrix2_limits: info.cooperative_matrix2_limits.map(
                |(invocations, dimension, shared_bytes)| MatrixLimits {
                    invocations,
                    dimension,
                    shared_bytes,
                },
            ),
            bfloat16: info.bfloat16.as_ref().map(|f| f.iter().map(|f| f.vk_name().to_owned()).collect()),
            integer_dot_accelerated: info
                .integer_dot_accelerated
                .map(|(signed, unsigned)| IntegerDot { signed, unsigned }),
        }
    }
}
