//! Bandwidth over a working set from 16 KiB to 2 GiB: where each cache level ends and what it delivers.
//!
//! Each invocation sums 64 loads, one per row of 256 elements, the workgroup's window of rows
//! wrapping within the set (glsl/sweep.glsl): small sets stay in the L1, large ones stream from
//! DRAM. Kinds: storage-buffer float and vec4, coalesced (linear) or with every 128-byte line
//! moved to a fixed pseudo-random place (random), and a uniform texel buffer of RGBA32F (the
//! texture path). The data are small integers, so every sum is exact and `--verify` checks each.

use ash::vk;

use crate::caps::Ceiling;
use crate::format::format_bytes;
use crate::registry::data::Data;
use crate::registry::{self, Axis, AxisUnit, CaseSpec, Env, Family, Glsl, Push, Resource, Unit, Value, Work};

const GLSL: Glsl = Glsl { file: "sweep.glsl", source: include_str!("../../glsl/sweep.glsl") };

/// Loads per invocation (LOADS in the GLSL): a workgroup's window is 64 rows, 256 KiB of vec4.
/// (256-row windows raised the H100's rate at 48-64 MiB, where the L2 ends, but blurred the L2's
/// plateau below it: results/closer/README.md.)
const LOADS: u32 = 64;
/// Independent sums per invocation (CHAINS in the GLSL): loads in flight per invocation.
const CHAINS: u32 = 4;
/// Elements per row: one per invocation of a workgroup (ROW in the GLSL), where the device
/// allows 256 invocations (a narrower workgroup reads narrower rows).
pub(super) const ROW: u64 = 256;
/// Bytes per cache line that the random pattern moves as a whole.
const LINE_BYTES: u64 = 128;
/// Sizes are multiples of this (a row of vec4), rounded down.
const GRAIN: u64 = ROW * 16;

/// What is loaded, and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// `float` from a storage buffer.
    Float,
    /// `vec4` from a storage buffer.
    Vec4,
    /// RGBA32F texels from a uniform texel buffer (`texelFetch`).
    Texel,
}

impl Kind {
    /// Its value on the `kind` axis.
    fn axis_value(self) -> &'static str {
        match self {
            Kind::Float => "float",
            Kind::Vec4 => "vec4",
            Kind::Texel => "texel",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Kind::Float => "SSBO float",
            Kind::Vec4 => "SSBO vec4",
            Kind::Texel => "texel RGBA32F",
        }
    }

    fn element_bytes(self) -> u64 {
        match self {
            Kind::Float => 4,
            Kind::Vec4 | Kind::Texel => 16,
        }
    }

    fn define(self) -> &'static str {
        match self {
            Kind::Float => "0",
            Kind::Vec4 => "1",
            Kind::Texel => "2",
        }
    }
}

/// Every kind and pattern, in run order: (kind, random).
const VARIANTS: [(Kind, bool); 5] = [
    (Kind::Float, false),
    (Kind::Vec4, false),
    (Kind::Float, true),
    (Kind::Vec4, true),
    (Kind::Texel, false),
];

/// The variant the energy table reads (linear vec4 loads), which takes the `data` axis.
const ENERGY: (Kind, bool) = (Kind::Vec4, false);

/// The float at position `k` of the set: small integers, so sums of them are exact.
fn value(k: u64) -> f32 {
    (k % 61) as f32
}

/// Element `k`'s word on `data` (a set of under 4 GiB has fewer than 2^32 words).
fn word(data: Data, k: u64) -> u32 {
    registry::data::word(data, k as u32, |k| value(u64::from(k)))
}

fn fill(data: Data) -> impl Fn(&mut [u8]) + Send + Sync + 'static {
    move |bytes: &mut [u8]| {
        super::data::fill_elements(bytes, 4, |k, chunk| {
            chunk.copy_from_slice(&word(data, k as u64).to_ne_bytes())
        })
    }
}

/// The element row `row` (of `width` elements), invocation `t` reads (`element` in the GLSL).
fn element(row: u64, width: u64, t: u64, line: u64, lines: Option<u64>) -> u64 {
    let e = row * width + t;
    match lines {
        None => e,
        Some(lines) => {
            let moved =
                ((e / line) as u32).wrapping_mul(0x9E37_79B1).wrapping_add(0x7F4A_7C15) as u64 & (lines - 1);
            moved * line + e % line
        }
    }
}

/// The shape of one case's set: its rows (of `width` elements), where the random pattern moves
/// lines, and how many copies of the set the buffer holds.
#[derive(Clone, Copy, Debug)]
struct Set {
    width: u64,
    rows: u64,
    lines: Option<u64>,
    slots: u64,
    data: Data,
}

/// What invocation `gid` of a verify run writes.
fn reference(kind: Kind, set: Set, gid: u32) -> Value {
    let (group, t) = (u64::from(gid) / set.width, u64::from(gid) % set.width);
    let line = LINE_BYTES / kind.element_bytes();
    let components = kind.element_bytes() / 4;
    let start = group * (u64::from(LOADS) + 1);
    let mut row = start % set.rows;
    let base = (start / set.rows) % set.slots * set.rows * set.width;
    let mut loaded = Vec::with_capacity((u64::from(LOADS) * components) as usize);
    for _ in 0..LOADS {
        let e = base + element(row, set.width, t, line, set.lines);
        loaded.extend((0..components).map(|c| f32::from_bits(word(set.data, e * components + c))));
        row = if row + 1 == set.rows { 0 } else { row + 1 };
    }
    super::data::loads_sum(set.data, &loaded)
}

/// The case that loads `bytes` as `kind`, coalesced or with its lines scattered (`random`), in
/// workgroups of `width` invocations.
pub(super) fn case(kind: Kind, random: bool, bytes: u64, width: u32) -> CaseSpec {
    rotated(kind, random, bytes, width, 1, Data::Default)
}

/// [`case`] over a buffer of `slots` copies of the set, each pass reading the next, the set
/// holding `data`.
pub(super) fn rotated(kind: Kind, random: bool, bytes: u64, width: u32, slots: u64, data: Data) -> CaseSpec {
    let pattern = if random { "random" } else { "linear" };
    let variant = format!("Sweep {} {pattern}", kind.label());
    let rows = bytes / kind.element_bytes() / u64::from(width);
    let lines = random.then_some(bytes / LINE_BYTES);
    let set = Set { width: width.into(), rows, lines, slots, data };
    let line = (LINE_BYTES / kind.element_bytes()).to_string();
    let total = bytes * slots;
    let resource = match kind {
        Kind::Texel => Resource::texel_buffer(vk::Format::R32G32B32A32_SFLOAT, total, fill(data)),
        Kind::Float | Kind::Vec4 => Resource::storage_buffer(total, fill(data)),
    }
    .contents(format!("sweep values{}", data.suffix()));
    let per_invocation = f64::from(LOADS);
    CaseSpec::new(format!("{variant} {}", format_bytes(bytes)), GLSL, [width, 1, 1])
        .narrowed_from(ROW)
        .group("sweep")
        .label("kind", kind.axis_value())
        .label("pattern", pattern)
        .axis("bytes", bytes, variant)
        .defines([
            ("KIND", kind.define()),
            ("PATTERN", if random { "1" } else { "0" }),
            ("LINE", &line),
            ("LOADS", &format!("{LOADS}u")),
            ("CHAINS", &format!("{CHAINS}u")),
        ])
        .resource(resource)
        .push(Push::words(&[rows as u32, lines.unwrap_or(0) as u32, slots as u32, 0]))
        .work([
            Work::new(per_invocation, Unit::Load),
            Work::new(per_invocation * kind.element_bytes() as f64, Unit::Byte).bounded_by(Ceiling::L1Bytes),
        ])
        .reference(move |gid| reference(kind, set, gid))
}

/// Each size (rounded down to a multiple of 4 KiB), each kind; random only where the set holds a
/// power-of-two number of lines (the permutation is a multiply modulo a power of two).
fn expand(env: &Env) -> Vec<CaseSpec> {
    // Two values that round to one size run it once, where it first appears.
    let sizes = env.axis_rounded("bytes", |b| Some(b / GRAIN * GRAIN).filter(|&b| b > 0));
    let width = env.workgroup_width(ROW as u32);
    let mut cases = Vec::new();
    for bytes in sizes {
        for (kind, random) in VARIANTS {
            if !random || (bytes / LINE_BYTES).is_power_of_two() {
                let case = case(kind, random, bytes, width);
                cases.push(if (kind, random) == ENERGY { case.data(Data::Default) } else { case });
            }
        }
        // The energy table's variant, on each data.
        let on_data = |data: Data| rotated(ENERGY.0, ENERGY.1, bytes, width, 1, data).data(data);
        cases.extend(Data::ALL[1..].iter().map(|&data| on_data(data)));
    }
    cases
}

/// The working-set sizes.
const BYTES: Axis = Axis {
    name: "bytes",
    unit: AxisUnit::Bytes,
    default: "16K..2G*2",
    max: (1 << 32) - 1,
    about: "working-set size in bytes (rounded down to a multiple of 4 KiB; under 4 GiB, as \
            maxStorageBufferRange is a 32-bit count), default 16 KiB to 2 GiB by factors of 2",
};

inventory::submit! {
    Family {
        about: registry::About {
            measures: "load bandwidth against the working-set size, 16 KiB to 2 GiB: where the L1, the L2 and \
                       DRAM begin and end, for storage-buffer float and vec4 loads (coalesced, and with each \
                       128-byte line scattered) and RGBA32F texel-buffer fetches",
            invocation: "64 loads, one per row of 256 elements, from its workgroup's window of rows (wrapping in \
                         the set), summed in four independent chains",
            rate: "loads per second, and bytes per second",
        },
        name: "sweep",
        order: 300,
        axes: &[BYTES],
        ratio_note: None,
        levels: true,
        device_cases: false,
        quick: &[
            "Sweep SSBO vec4 linear 64 KiB",
            "Sweep SSBO vec4 linear 4 MiB",
            "Sweep SSBO vec4 linear 1 GiB",
            "Sweep SSBO vec4 linear 128 MiB",
        ],
        expand,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_random_pattern_is_a_permutation_of_whole_lines() {
        let (line, lines) = (8, 64);
        let rows = lines * line / ROW;
        let mut seen = vec![false; (lines * line) as usize];
        for row in 0..rows {
            for t in 0..ROW {
                let e = element(row, ROW, t, line, Some(lines));
                assert!(!seen[e as usize], "element {e} read twice");
                seen[e as usize] = true;
                assert_eq!(e % line, (row * ROW + t) % line, "a line moves as a whole");
            }
        }
        assert!(seen.iter().all(|&s| s));
        assert_ne!(element(0, ROW, 8, line, Some(lines)), 8, "the lines do move");
    }

    #[test]
    fn sizes_round_to_4_kib_and_random_needs_a_power_of_two() {
        let family = registry::families().into_iter().find(|f| f.name == "sweep").unwrap();
        let settings = [registry::parse_setting("sweep.bytes=16K,48K,45000,40K").unwrap()];
        let env = Env { family, settings: &settings, device: None };
        let (on_data, names): (Vec<CaseSpec>, Vec<CaseSpec>) =
            expand(&env).into_iter().partition(|c| c.on_request.is_some());
        let names: Vec<String> = names.into_iter().map(|c| c.name).collect();
        assert_eq!(names.len(), 5 + 3 + 3, "{names:?}");
        // Each size on zeros, a constant and random data, run only on request.
        assert_eq!(on_data.len(), 3 * 3);
        assert_eq!(on_data[2].name, "Sweep SSBO vec4 linear on random data 16 KiB");
        assert_eq!(names[0], "Sweep SSBO float linear 16 KiB");
        assert!(names.contains(&"Sweep SSBO vec4 random 16 KiB".to_owned()));
        assert!(names.contains(&"Sweep texel RGBA32F linear 48 KiB".to_owned()), "{names:?}");
        assert!(!names.iter().any(|n| n.contains("random 48 KiB")), "48 KiB is 384 lines: {names:?}");
        // 45000 bytes round down to 40 KiB (10 x 4 KiB), which is also given: it runs once.
        assert_eq!(names.iter().filter(|n| *n == "Sweep SSBO vec4 linear 40 KiB").count(), 1, "{names:?}");
    }

    #[test]
    fn the_reference_wraps_within_small_sets() {
        // 16 KiB of vec4: 4 rows, so 64 loads visit each row 16 times.
        let rows = 16384 / 16 / ROW;
        let set = Set { width: ROW, rows, lines: None, slots: 1, data: Data::Default };
        let Value::F32(total) = reference(Kind::Vec4, set, 0) else { panic!() };
        let per_pass: f32 = (0..rows).map(|r| (0..4).map(|c| value((r * ROW) * 4 + c)).sum::<f32>()).sum();
        assert_eq!(total, per_pass * f32::from(LOADS as u16) / rows as f32);
        // Half-width workgroups read 8 rows of 128: invocation 0 visits each of them LOADS / 8 times.
        let narrow = Set { width: 128, rows: 2 * rows, ..set };
        let Value::F32(total) = reference(Kind::Vec4, narrow, 0) else { panic!() };
        let per_pass: f32 =
            (0..2 * rows).map(|r| (0..4).map(|c| value((r * 128) * 4 + c)).sum::<f32>()).sum();
        assert_eq!(total, per_pass * (LOADS / 8) as f32);
    }

    #[test]
    fn each_pass_reads_the_next_copy_of_the_set() {
        // A set of LOADS rows: group 1 starts at row LOADS + 1, past the first pass, in copy 1.
        let (rows, slots) = (u64::from(LOADS), 3);
        let set = Set { width: ROW, rows, lines: None, slots, data: Data::Default };
        let one = Set { slots: 1, ..set };
        let vec4 = |e: u64| (0..4).map(|c| value(e * 4 + c)).sum::<f32>();
        let Value::F32(first) = reference(Kind::Vec4, set, 0) else { panic!() };
        let Value::F32(alone) = reference(Kind::Vec4, one, 0) else { panic!() };
        assert_eq!(first, alone, "group 0 reads copy 0");
        let gid = ROW as u32; // group 1, invocation 0
        let Value::F32(second) = reference(Kind::Vec4, set, gid) else { panic!() };
        let copy = rows * ROW;
        let expected: f32 = (0..u64::from(LOADS)).map(|i| vec4(copy + ((1 + i) % rows) * ROW)).sum();
        assert_eq!(second, expected);
    }
}
