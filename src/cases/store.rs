//! Stores: what writes cost, by width, pattern and working set, and through imageStore.
//!
//! Each invocation does 16 stores (glsl/store.glsl), one per row of 256 elements: store i of
//! workgroup g of G goes to row i * G + g (wrapping in the set), so the workgroups in flight write
//! one band of consecutive rows, as a grid-stride loop does: `Store uint|uint2|uint4 linear|random|uniform
//! SIZE` writes 4, 8 or 16 bytes per store to a storage buffer, coalesced, with every 128-byte line
//! moved to a fixed pseudo-random place, or with the whole workgroup on one element (a write
//! conflict); `--axis store.bytes` is the set, 16 KiB to 256 MiB by default. `RWBuffer<FORMAT>.Store`
//! and `RWTexture2D<FORMAT>.Store` are linear `imageStore`s to a storage texel buffer and a storage
//! image of 1 Mi texels in the nine formats of the load cases.
//!
//! Each element's value depends only on its index, so writers that collide agree. Targets are
//! reset to 0 before each measurement; verify runs read the whole buffer or image back and
//! compare every word with what the run's two workgroups wrote there (0 elsewhere).

use super::data::half_bits;
use crate::format::format_bytes;
use crate::registry::{
    self, floor_power_of_two, originals, Axis, AxisUnit, CaseSpec, Env, Family, FormatInfo, Glsl, Push,
    Reset, Resource, ResourceKind, Unit, Value, Work,
};

const GLSL: Glsl = Glsl { file: "store.glsl", source: include_str!("../../glsl/store.glsl") };

/// Stores per invocation (STORES in the GLSL).
const STORES: u64 = 16;
/// Elements per row: one per invocation of a workgroup, where the device allows 256 invocations
/// (a narrower workgroup writes narrower rows).
const ROW: u64 = 256;
/// The lines the random pattern moves, in bytes.
const LINE_BYTES: u64 = 128;
/// Rows a verify run writes: two workgroups' windows.
const VERIFIED_ROWS: u64 = 2 * STORES;
/// Texels of the texel buffers and images (1024 x 1024).
const TEXELS: u64 = 1 << 20;
const IMAGE_WIDTH: u64 = 1024;
const MULTIPLIER: u32 = 0x9E37_79B1;
const INCREMENT: u32 = 0x7F4A_7C15;

/// Where the stores go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pattern {
    Linear,
    Random,
    Uniform,
}

impl Pattern {
    const ALL: [Pattern; 3] = [Pattern::Linear, Pattern::Random, Pattern::Uniform];

    fn label(self) -> &'static str {
        match self {
            Pattern::Linear => "linear",
            Pattern::Random => "random",
            Pattern::Uniform => "uniform",
        }
    }

    fn define(self) -> &'static str {
        match self {
            Pattern::Linear => "0",
            Pattern::Random => "1",
            Pattern::Uniform => "2",
        }
    }
}

/// The inverse of `a` (odd) modulo 2^32, by Newton's iteration.
fn inverse(a: u32) -> u32 {
    let mut x = a;
    for _ in 0..5 {
        x = x.wrapping_mul(2u32.wrapping_sub(a.wrapping_mul(x)));
    }
    x
}

/// The row (of `row` elements) whose stores wrote the set's element `e` (`line` elements per line,
/// `lines` lines); a uniform store targets its row's first element only.
fn source_row(pattern: Pattern, e: u64, row: u64, line: u64, lines: u64) -> u64 {
    match pattern {
        Pattern::Linear | Pattern::Uniform => e / row,
        Pattern::Random => {
            let moved = (e / line) as u32;
            let source = moved.wrapping_sub(INCREMENT).wrapping_mul(inverse(MULTIPLIER)) as u64 & (lines - 1);
            (source * line + e % line) / row
        }
    }
}

/// The value word `w` of a buffer holds after a store (word_value in the GLSL).
fn word_value(w: u64) -> u32 {
    (w as u32) ^ 0x5BD1_E995
}

/// `Store uint4 random 64 MiB`: `width` words per store, in workgroups (rows) of `row` invocations.
fn buffer_case(width: u64, pattern: Pattern, bytes: u64, row: u64) -> CaseSpec {
    let label = match width {
        1 => "uint",
        2 => "uint2",
        _ => "uint4",
    };
    let variant = format!("Store {label} {}", pattern.label());
    let elements = bytes / (4 * width);
    let rows = elements / row;
    let line = LINE_BYTES / (4 * width);
    let lines = elements / line;
    let (w, l) = (width.to_string(), line.to_string());
    let data = Resource::zeroed_storage_buffer(bytes).read_write().reset(Reset::Fill(0));
    CaseSpec::new(format!("{variant} {}", format_bytes(bytes)), GLSL, [row as u32, 1, 1])
        .narrowed_from(ROW)
        .group("store")
        .axis("bytes", bytes, variant)
        .defines([("KIND", "0"), ("WIDTH", w.as_str()), ("PATTERN", pattern.define()), ("LINE", l.as_str())])
        .resource(data)
        .push(Push::words(&[rows as u32, lines as u32, 0, 0]))
        .work([Work::new(STORES as f64, Unit::Store), Work::new((STORES * 4 * width) as f64, Unit::Byte)])
        .checks(0)
        .reference(move |word| {
            let e = u64::from(word) / width;
            // A verify run writes rows 0..32 (all of a smaller set); uniform stores only their
            // row's first element.
            let target = pattern != Pattern::Uniform || e % row == 0;
            let reached = rows <= VERIFIED_ROWS || source_row(pattern, e, row, line, lines) < VERIFIED_ROWS;
            Value::U32(if target && reached { word_value(u64::from(word)) } else { 0 })
        })
}

/// Channel `c` of texel `e`: the integer k the shader stores (as k / 255 in UNORM formats).
fn channel(e: u64, c: u64, channels: u64) -> u32 {
    ((e * channels + c) & 255) as u32
}

/// The bytes texel `e` of format `f` holds after its store.
fn texel_bytes_of(f: &FormatInfo, e: u64) -> Vec<u8> {
    let (channels, size) = (f.channels as usize, f.channel_bytes as usize);
    let mut out = Vec::with_capacity(channels * size);
    for c in 0..channels as u64 {
        let k = channel(e, c, channels as u64);
        match size {
            1 => out.push(k as u8),
            2 => out.extend_from_slice(&(if k == 0 { 0 } else { half_bits(k as f32) }).to_ne_bytes()),
            _ => out.extend_from_slice(&(k as f32).to_ne_bytes()),
        }
    }
    out
}

/// `RWBuffer<FORMAT>.Store linear` or `RWTexture2D<FORMAT>.Store linear`: 1 Mi texels, in
/// workgroups (rows) of `row` invocations.
fn typed_case(f: &'static FormatInfo, image: bool, row: u64) -> CaseSpec {
    let (label, format, channels, size) = (f.buffer_label, f.format, f.channels, f.channel_bytes);
    let texel = u64::from(f.texel_bytes());
    let bytes = TEXELS * texel;
    let rows = TEXELS / row;
    let (kind, name, resource) = if image {
        let size = [IMAGE_WIDTH as u32, (TEXELS / IMAGE_WIDTH) as u32];
        let kind = ResourceKind::StorageImage { format, size };
        let resource = Resource::zeros(kind).read_write().reset(Reset::Initial);
        ("2", format!("RWTexture2D<{label}>.Store linear"), resource)
    } else {
        let kind = ResourceKind::StorageTexelBuffer { format, bytes };
        let resource = Resource::zeros(kind).read_write().reset(Reset::Fill(0));
        ("1", format!("RWBuffer<{label}>.Store linear"), resource)
    };
    let (channels_define, unorm) = (channels.to_string(), if size == 1 { "1" } else { "0" });
    let case = CaseSpec::new(name, GLSL, [row as u32, 1, 1])
        .narrowed_from(ROW)
        .group(if image { "store image" } else { "store texel buffer" })
        .defines([("KIND", kind), ("PATTERN", "0"), ("LINE", "1"), ("CHANNELS", channels_define.as_str())])
        .defines([("UNORM", unorm), ("FORMAT", f.qualifier)])
        .resource(resource)
        .requires(f.storage_needs())
        .push(Push::words(&[rows as u32, 0, IMAGE_WIDTH as u32, 0]))
        .work([Work::new(STORES as f64, Unit::Store), Work::new((STORES * texel) as f64, Unit::Byte)]);
    // Texels come back row by row, tightly packed, from a buffer and an image alike: texel e is
    // at (e mod 1024, e / 1024), where the shader stores it.
    case.checks(0).reference(move |word| {
        // Each byte of the word: its texel, written if the verify run reached its row.
        let mut out = [0u8; 4];
        for (i, byte) in out.iter_mut().enumerate() {
            let at = u64::from(word) * 4 + i as u64;
            let e = at / texel;
            if e / row < VERIFIED_ROWS {
                *byte = texel_bytes_of(f, e)[(at % texel) as usize];
            }
        }
        Value::U32(u32::from_ne_bytes(out))
    })
}

fn expand(env: &Env) -> Vec<CaseSpec> {
    let row = u64::from(env.workgroup_width(ROW as u32));
    let mut cases = Vec::new();
    // Sizes rounded down to a power of two, at least 16 KiB, each once.
    for bytes in env.axis_rounded("bytes", |b| Some(floor_power_of_two(b.max(16 << 10)))) {
        for width in [1, 2, 4] {
            cases.extend(Pattern::ALL.map(|p| buffer_case(width, p, bytes, row)));
        }
    }
    for image in [false, true] {
        for f in originals() {
            cases.push(typed_case(f, image, row));
        }
    }
    cases
}

/// The working-set sizes of the storage-buffer stores.
const BYTES: Axis = Axis {
    name: "bytes",
    unit: AxisUnit::Bytes,
    default: "16K..256M*4",
    max: 1 << 31,
    about: "storage-buffer bytes written (rounded down to a power of two, at least 16 KiB), default \
            16 KiB to 256 MiB by factors of 4",
};

inventory::submit! {
    Family {
        about: registry::About {
            measures: "stores: 4, 8 and 16 bytes per store to a storage buffer, linear (coalesced), random \
                       (128-byte lines scattered) and uniform (a workgroup on one element: a write conflict), \
                       16 KiB to 256 MiB; imageStore to storage texel buffers and storage images in nine formats",
            invocation: "16 stores, one per row of 256 elements: store i of workgroup g of G to row i * G + g \
                         (wrapping in the set); each element's value depends only on its index",
            rate: "stores per second, and bytes per second",
        },
        name: "store",
        order: 345,
        axes: &[BYTES],
        ratio_note: None,
        levels: false,
        device_cases: false,
        // A few lines, the L2 and DRAM on an H100. Not 64 MiB: just past its L2, a process gets one
        // of two rates there (results/stores/two-rates/README.md).
        quick: &["Store uint4 linear 16 KiB", "Store uint4 linear 16 MiB", "Store uint4 linear 256 MiB"],
        expand,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ash::vk;

    #[test]
    fn the_line_permutation_inverts() {
        assert_eq!(MULTIPLIER.wrapping_mul(inverse(MULTIPLIER)), 1);
        let (line, lines) = (32, 64);
        for source in 0..lines {
            let moved = (source as u32).wrapping_mul(MULTIPLIER).wrapping_add(INCREMENT) as u64 & (lines - 1);
            let e = moved * line + 5;
            assert_eq!(source_row(Pattern::Random, e, ROW, line, lines), (source * line + 5) / ROW);
        }
    }

    #[test]
    fn a_verify_run_writes_the_first_rows_only() {
        let case = buffer_case(1, Pattern::Linear, 1 << 20, ROW);
        let reference = case.reference.unwrap();
        assert_eq!(reference(5), Value::U32(word_value(5)));
        assert_eq!(reference((VERIFIED_ROWS * ROW) as u32), Value::U32(0), "row 32 is not written");
        let uniform = buffer_case(4, Pattern::Uniform, 1 << 20, ROW).reference.unwrap();
        let first_of_row_31 = (31 * ROW * 4 + 3) as u32;
        assert_eq!(
            uniform(first_of_row_31),
            Value::U32(word_value(first_of_row_31.into())),
            "row 31's target"
        );
        assert_eq!(uniform(first_of_row_31 + 4), Value::U32(0), "the next element is nobody's target");
        assert_eq!(uniform((32 * ROW * 4) as u32), Value::U32(0), "row 32 is not reached");
        // Rows of 128 (a device that allows 128 invocations): the first 32 rows end at 4096.
        let narrow = buffer_case(1, Pattern::Linear, 1 << 20, 128).reference.unwrap();
        assert_eq!(narrow(4095), Value::U32(word_value(4095)));
        assert_eq!(narrow(4096), Value::U32(0), "row 32 of 128 is not written");
    }

    #[test]
    fn every_case_has_a_power_of_two_rows_for_the_shaders_mask() {
        // glsl/store.glsl wraps rows with a mask: any size on the axis, any workgroup width.
        let family = crate::registry::families().into_iter().find(|f| f.name == "store").unwrap();
        let setting = crate::registry::parse_setting("store.bytes=16K,48K,3M,1G").unwrap();
        let settings = [setting];
        for settings in [&settings[..], &[]] {
            for width in [256, 192, 64] {
                let mut caps = crate::caps::DeviceCaps::default();
                caps.limits.workgroup_invocations = width;
                caps.limits.workgroup_size = [width, width, 64];
                let env = Env { family, settings, device: Some(&caps) };
                for case in (family.expand)(&env) {
                    let push = case.push.bytes(crate::registry::Mode::Time);
                    let at = crate::registry::HEADER_BYTES;
                    let rows = u32::from_ne_bytes(push[at..at + 4].try_into().unwrap());
                    assert!(rows.is_power_of_two(), "{}: {rows} rows", case.name);
                }
            }
        }
    }

    #[test]
    fn typed_stores_write_their_bytes() {
        let info = |format| crate::registry::format_info(format).unwrap();
        assert_eq!(texel_bytes_of(info(vk::Format::R8G8B8A8_UNORM), 1), [4, 5, 6, 7]);
        assert_eq!(texel_bytes_of(info(vk::Format::R16_SFLOAT), 0), [0, 0]);
        assert_eq!(texel_bytes_of(info(vk::Format::R32_SFLOAT), 3), 3.0f32.to_ne_bytes());
    }
}
