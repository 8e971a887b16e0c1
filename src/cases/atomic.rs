//! Atomics under contention: what an atomic costs as more invocations share its address.
//!
//! Each invocation does 16 atomic operations on one counter (glsl/atomic.glsl). Invocation g
//! uses counter g mod N, with N the `atomic.addresses` axis: 1 (every invocation on one address)
//! to 1 Mi (no two invocations in flight share one: one per invocation). Kinds along the axis:
//! `atomicAdd` on u32 with the returned value unused and used (a compiler may pick a cheaper
//! instruction for the first), on u64 (`shaderBufferInt64Atomics`) and on f32
//! (`shaderBufferFloat32AtomicAdd`), `atomicMax`, and an add done as an `atomicCompSwap` loop.
//! Beside them: one counter per subgroup and per workgroup; the same contention in shared
//! memory; and the fix for one hot counter, `subgroupAdd` and then one atomic per subgroup.
//!
//! Global counters are reset to 0 before every measurement, and a verify run checks every
//! counter's final value (the number of adds, or the largest value written); shared counters
//! come back as results. The rate is atomic operations per second, as the invocations issue them.

use ash::vk;

use crate::caps::{Feature, Requirements};
use crate::registry::{
    self, Axis, AxisUnit, CaseSpec, Env, Family, Glsl, Push, Reset, Resource, Unit, Value, Work,
};

const GLSL: Glsl = Glsl { file: "atomic.glsl", source: include_str!("../../glsl/atomic.glsl") };

/// Atomic operations per invocation (OPS in the GLSL).
const OPS: u64 = 16;
/// Invocations per workgroup where the device allows them (fewer elsewhere); a shared-memory
/// table has one counter per invocation.
const GROUP: u64 = 256;
/// Global counters: the most addresses the axis takes.
const TABLE: u64 = 1 << 20;

/// Invocations per subgroup and per workgroup, as the device runs the case.
#[derive(Clone, Copy, Debug)]
struct Shape {
    subgroup: u64,
    group: u64,
}

impl Shape {
    /// Invocations in a verify run (two workgroups).
    fn verified(self) -> u64 {
        2 * self.group
    }
}

/// The operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    AddU32 {
        used: bool,
    },
    AddU64,
    AddF32,
    MaxU32,
    CasLoop,
    /// subgroupAdd, then one atomicAdd per subgroup.
    SubgroupAdd,
    /// The same in f32.
    SubgroupAddF32,
}

impl Op {
    /// Every kind drawn along the address axis.
    const SWEPT: [Op; 6] = [
        Op::AddU32 { used: false },
        Op::AddU32 { used: true },
        Op::AddU64,
        Op::AddF32,
        Op::MaxU32,
        Op::CasLoop,
    ];

    fn label(self) -> &'static str {
        match self {
            Op::AddU32 { used: false } => "AtomicAdd u32",
            Op::AddU32 { used: true } => "AtomicAdd u32 (value used)",
            Op::AddU64 => "AtomicAdd u64",
            Op::AddF32 => "AtomicAdd f32",
            Op::MaxU32 => "AtomicMax u32",
            Op::CasLoop => "AtomicCompSwap u32 add loop",
            Op::SubgroupAdd => "SubgroupAdd + AtomicAdd u32",
            Op::SubgroupAddF32 => "SubgroupAdd + AtomicAdd f32",
        }
    }

    fn define(self) -> &'static str {
        match self {
            Op::AddU32 { .. } => "0",
            Op::AddU64 => "1",
            Op::AddF32 => "2",
            Op::MaxU32 => "3",
            Op::CasLoop => "4",
            Op::SubgroupAdd => "5",
            Op::SubgroupAddF32 => "6",
        }
    }

    fn used(self) -> bool {
        matches!(self, Op::AddU32 { used: true } | Op::MaxU32 | Op::CasLoop)
    }

    fn counter_bytes(self) -> u64 {
        if self == Op::AddU64 {
            8
        } else {
            4
        }
    }

    fn needs(self) -> Requirements {
        let basic = Requirements::new().subgroup(vk::SubgroupFeatureFlags::BASIC);
        match self {
            Op::AddU64 => basic.feature(Feature::ShaderBufferInt64Atomics).feature(Feature::ShaderInt64),
            Op::AddF32 => basic.feature(Feature::ShaderBufferFloat32AtomicAdd),
            Op::SubgroupAdd => basic.subgroup(vk::SubgroupFeatureFlags::ARITHMETIC),
            Op::SubgroupAddF32 => basic
                .subgroup(vk::SubgroupFeatureFlags::ARITHMETIC)
                .feature(Feature::ShaderBufferFloat32AtomicAdd),
            _ => basic,
        }
    }
}

/// Which counter an invocation uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Spread {
    /// Counter g mod N.
    Addresses(u64),
    /// One counter per subgroup.
    Subgroup,
    /// One counter per workgroup.
    Workgroup,
    /// One counter per invocation of the workgroup (a shared-memory table; as many addresses as
    /// the workgroup has invocations, 256 where the device allows).
    Invocation,
}

impl Spread {
    fn label(self) -> String {
        match self {
            Spread::Addresses(1) => "1 address".to_owned(),
            Spread::Addresses(n) => format!("{n} addresses"),
            Spread::Subgroup => "per subgroup".to_owned(),
            Spread::Workgroup => "per workgroup".to_owned(),
            Spread::Invocation => "per invocation".to_owned(),
        }
    }

    fn define(self) -> &'static str {
        match self {
            Spread::Addresses(_) | Spread::Invocation => "0",
            Spread::Subgroup => "1",
            Spread::Workgroup => "2",
        }
    }

    /// The counter of verify invocation `g` (of two workgroups) in a table of `table` counters.
    fn counter(self, g: u64, shape: Shape, table: u64) -> u64 {
        let local = g % shape.group;
        match self {
            Spread::Addresses(n) => g % n,
            Spread::Subgroup if table == shape.group => local / shape.subgroup,
            Spread::Subgroup => g / shape.subgroup,
            Spread::Workgroup => g / shape.group,
            Spread::Invocation => local,
        }
    }
}

/// The final value of counter `c` after the verify run's invocations `gids` did their OPS each.
fn final_value(op: Op, spread: Spread, shape: Shape, table: u64, gids: std::ops::Range<u64>, c: u64) -> u64 {
    let mine = gids.filter(|&g| spread.counter(g, shape, table) == c);
    match op {
        Op::MaxU32 => mine.map(|g| g * OPS + OPS - 1).max().unwrap_or(0),
        _ => mine.count() as u64 * OPS,
    }
}

/// The panel a case is drawn in: every kind swept over the addresses in one (a line each).
fn group(op: Op, spread: Spread, shared: bool) -> String {
    match (shared, spread) {
        (true, _) => "atomic shared memory".to_owned(),
        (false, Spread::Addresses(_)) if Op::SWEPT.contains(&op) => "atomic contention".to_owned(),
        (false, _) => "atomic per subgroup, per workgroup, and the subgroup fix".to_owned(),
    }
}

/// `AtomicAdd u32 1024 addresses` (global) or `Shared AtomicAdd u32 32 addresses`.
fn case(op: Op, spread: Spread, shared: bool, shape: Shape) -> CaseSpec {
    let prefix = if shared { "Shared " } else { "" };
    let name = format!("{prefix}{} {}", op.label(), spread.label());
    let table = if shared { shape.group } else { TABLE };
    let mask = match spread {
        Spread::Addresses(n) => n - 1,
        Spread::Subgroup | Spread::Workgroup | Spread::Invocation => table - 1,
    };
    let scope = if shared { "1" } else { "0" };
    let mut case = CaseSpec::new(name.clone(), GLSL, [shape.group as u32, 1, 1])
        .narrowed_from(GROUP)
        .group(group(op, spread, shared))
        .defines([
            ("OP", op.define()),
            ("SPREAD", spread.define()),
            ("SCOPE", scope),
            ("USED", if op.used() { "1" } else { "0" }),
        ])
        .push(Push::words(&[mask as u32, 1, 0, 0]))
        .requires(op.needs())
        .work([Work::new(OPS as f64, Unit::Atomic)]);
    let addresses = match spread {
        Spread::Addresses(n) => Some(n),
        Spread::Invocation => Some(shape.group),
        Spread::Subgroup | Spread::Workgroup => None,
    };
    if let Some(n) = addresses {
        case = case.axis("addresses", n, format!("{prefix}{}", op.label()));
    }
    if shared {
        // Invocation t of each workgroup returns counter t's final value.
        return case.reference(move |gid| {
            let c = u64::from(gid) % shape.group;
            Value::U32(final_value(op, spread, shape, shape.group, 0..shape.group, c) as u32)
        });
    }
    let bytes = TABLE * op.counter_bytes();
    let counters = Resource::zeroed_storage_buffer(bytes).read_write().reset(Reset::Fill(0));
    // Counters past the last one a verify invocation uses stay 0 (checked without a search).
    let verified = shape.verified();
    let used = (0..verified).map(|g| spread.counter(g, shape, TABLE)).max().unwrap_or(0) + 1;
    case.resource(counters).checks(0).reference(move |word| {
        let (c, high) = match op {
            Op::AddU64 => (u64::from(word) / 2, word % 2 == 1),
            _ => (u64::from(word), false),
        };
        let value = if c < used { final_value(op, spread, shape, TABLE, 0..verified, c) } else { 0 };
        match (op, high) {
            (Op::AddF32 | Op::SubgroupAddF32, _) => Value::F32(value as f32),
            (_, true) => Value::U32((value >> 32) as u32),
            _ => Value::U32(value as u32),
        }
    })
}

fn expand(env: &Env) -> Vec<CaseSpec> {
    // The reference of a per-subgroup spread needs the subgroup size; names do not. The shader
    // takes invocation g's counter as g / gl_SubgroupSize, which SPIR-V 1.5 fixes to the size the
    // device reports, rather than gl_SubgroupID: lavapipe 22.3 numbers its subgroups as if they
    // were 8 wide whatever its vector width (at sizes 4 and 16 a counter got 8 invocations' adds).
    let subgroup = env.device.map_or(32, |d| u64::from(d.subgroup_size.max(1)));
    let shape = Shape { subgroup, group: env.workgroup_width(GROUP as u32).into() };
    let addresses = env.axis_rounded("addresses", |n| (n.is_power_of_two() && n <= TABLE).then_some(n));
    let mut cases = Vec::new();
    for op in Op::SWEPT {
        cases.extend(addresses.iter().map(|&n| case(op, Spread::Addresses(n), false, shape)));
    }
    for op in [Op::AddU32 { used: false }, Op::AddU32 { used: true }] {
        for spread in [Spread::Subgroup, Spread::Workgroup] {
            cases.push(case(op, spread, false, shape));
        }
    }
    for op in [Op::SubgroupAdd, Op::SubgroupAddF32] {
        cases.push(case(op, Spread::Addresses(1), false, shape));
    }
    for op in [Op::AddU32 { used: false }, Op::AddU32 { used: true }] {
        for spread in [Spread::Addresses(1), Spread::Addresses(32), Spread::Subgroup, Spread::Invocation] {
            cases.push(case(op, spread, true, shape));
        }
    }
    cases
}

/// The number of counters (addresses) invocations spread over.
const ADDRESSES: Axis = Axis {
    name: "addresses",
    unit: AxisUnit::Count("addresses"),
    default: "1,32,1K,32K,1M",
    max: TABLE,
    about: "how many counters the invocations spread over (invocation g uses counter g mod N; powers \
            of two up to 1 Mi, others are left out): 1 is one hot address, 1 Mi is one per invocation",
};

inventory::submit! {
    Family {
        about: registry::About {
            measures: "atomics against contention: atomicAdd u32 (returned value unused and used), u64 and f32, \
                       atomicMax and an atomicCompSwap add loop over 1 to 1 Mi addresses; one counter per \
                       subgroup and per workgroup; shared-memory atomics; subgroupAdd then one atomic per \
                       subgroup",
            invocation: "16 atomic operations on one counter (g mod N, its subgroup's, or its workgroup's); \
                         global counters are reset before each measurement",
            rate: "atomic operations per second, as the invocations issue them (the subgroup fix counts its \
                   invocations' adds, not its atomics)",
        },
        name: "atomic",
        order: 350,
        axes: &[ADDRESSES],
        ratio_note: None,
        levels: false,
        device_cases: false,
        quick: &[
            "AtomicAdd u32 1 address",
            "AtomicAdd u32 1048576 addresses",
            "AtomicAdd u32 per subgroup",
            "SubgroupAdd + AtomicAdd u32 1 address",
            "Shared AtomicAdd u32 1 address",
        ],
        expand,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const VERIFIED: u64 = 2 * GROUP;

    fn shape(subgroup: u64) -> Shape {
        Shape { subgroup, group: GROUP }
    }

    #[test]
    fn counters_hold_the_number_of_adds_the_verify_run_made() {
        let total: u64 = (0..TABLE)
            .map(|c| final_value(Op::AddF32, Spread::Addresses(32), shape(32), TABLE, 0..VERIFIED, c))
            .sum();
        assert_eq!(total, VERIFIED * OPS, "every add lands on one counter");
        assert_eq!(final_value(Op::AddU64, Spread::Addresses(1), shape(32), TABLE, 0..VERIFIED, 0), 512 * 16);
        assert_eq!(
            final_value(Op::CasLoop, Spread::Addresses(32), shape(32), TABLE, 0..VERIFIED, 31),
            16 * 16
        );
        assert_eq!(
            final_value(Op::AddU32 { used: true }, Spread::Addresses(1024), shape(32), TABLE, 0..512, 600),
            0
        );
        assert_eq!(
            final_value(Op::AddU32 { used: false }, Spread::Subgroup, shape(8), TABLE, 0..512, 63),
            8 * 16
        );
        assert_eq!(
            final_value(Op::AddU32 { used: false }, Spread::Workgroup, shape(32), TABLE, 0..512, 1),
            256 * 16
        );
    }

    #[test]
    fn the_largest_value_wins_at_each_counter() {
        assert_eq!(
            final_value(Op::MaxU32, Spread::Addresses(1), shape(32), TABLE, 0..VERIFIED, 0),
            511 * 16 + 15
        );
        assert_eq!(
            final_value(Op::MaxU32, Spread::Addresses(1 << 20), shape(32), TABLE, 0..VERIFIED, 7),
            7 * 16 + 15
        );
        assert_eq!(
            final_value(Op::MaxU32, Spread::Addresses(1 << 20), shape(32), TABLE, 0..VERIFIED, 512),
            0
        );
    }

    #[test]
    fn shared_counters_count_within_a_workgroup() {
        // Per subgroup of 32 in shared memory: counters 0..7 of each workgroup.
        assert_eq!(
            final_value(Op::AddU32 { used: false }, Spread::Subgroup, shape(32), GROUP, 0..GROUP, 7),
            32 * 16
        );
        assert_eq!(
            final_value(Op::AddU32 { used: false }, Spread::Subgroup, shape(32), GROUP, 0..GROUP, 8),
            0
        );
        // A device that allows 128 invocations: two workgroups of 128, one counter each.
        let narrow = Shape { subgroup: 32, group: 128 };
        assert_eq!(
            final_value(Op::AddU32 { used: false }, Spread::Workgroup, narrow, TABLE, 0..256, 1),
            128 * 16
        );
        assert_eq!(
            final_value(Op::AddU32 { used: false }, Spread::Subgroup, narrow, 128, 0..128, 3),
            32 * 16
        );
        assert_eq!(final_value(Op::AddU32 { used: false }, Spread::Subgroup, narrow, 128, 0..128, 4), 0);
    }

    #[test]
    fn the_axis_sweeps_six_kinds_and_names_say_the_spread() {
        let family = registry::families().into_iter().find(|f| f.name == "atomic").unwrap();
        assert!(registry::parse_setting("atomic.addresses=48").is_err(), "not a power of two: no case");
        let settings = [registry::parse_setting("atomic.addresses=1,32,1M").unwrap()];
        let cases = expand(&Env { family, settings: &settings, device: None });
        let names: Vec<&str> = cases.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(cases.len(), 6 * 3 + 4 + 2 + 8, "{names:?}");
        assert!(names.contains(&"AtomicAdd u32 1 address"));
        assert!(names.contains(&"AtomicAdd u32 (value used) 1048576 addresses"));
        assert!(names.contains(&"Shared AtomicAdd u32 per subgroup"));
        assert!(names.contains(&"SubgroupAdd + AtomicAdd u32 1 address"));
        assert!(!names.iter().any(|n| n.contains("48 addresses")), "48 is not a power of two");
        let f32_case = cases.iter().find(|c| c.name == "AtomicAdd f32 32 addresses").unwrap();
        assert!(f32_case.requirements().features.contains(&Feature::ShaderBufferFloat32AtomicAdd));
        assert_eq!(f32_case.checks, Some(0));
    }
}
