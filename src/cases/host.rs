//! Loads straight from host-visible memory (sebbbi/perftest's "upload heap" Todo), by memory kind and size.
//!
//! The bandwidth sweep's coalesced vec4 loads (glsl/sweep.glsl) over a buffer placed in each kind
//! of memory a device may offer: device-local memory the CPU can map (resizable BAR), and system
//! memory, host-cached or uncached, read across the bus. A device-local line is the reference.
//! A kind the device lacks, or whose heap is smaller than the set, is skipped with the reason.
//! Each pass over the set reads the next of several copies (src/cases/rotate.rs): a GPU keeps
//! host memory it reads in its L2, and would otherwise serve a small set from there.

use super::rotate;
use super::sweep::{self, Kind};
use crate::caps::{Ceiling, MemoryKind};
use crate::format::format_bytes;
use crate::registry::data::Data;
use crate::registry::{self, Axis, AxisUnit, CaseSpec, Env, Family, Unit};

/// `{label} vec4 linear {size}` in memory of `kind` (`None`: device-local).
fn case(env: &Env, kind: Option<MemoryKind>, bytes: u64, width: u32) -> CaseSpec {
    let label = kind.map_or("Device-local", MemoryKind::label);
    let variant = format!("{label} vec4 linear");
    let range = env.device.map(|d| d.limits.storage_buffer_range);
    let (slots, note) = rotate::slots(env, bytes, kind, range);
    // The sweep's case (with its bytes axis), renamed into this family's group and variant.
    let mut case = sweep::rotated(Kind::Vec4, false, bytes, width, slots, Data::Default).group("host");
    if let Some(note) = note {
        case = case.note(note);
    }
    case.name = format!("{variant} {}", format_bytes(bytes));
    case.variant = variant;
    if let (Some(kind), Some(data)) = (kind, case.resources.first_mut()) {
        *data = data.clone().in_memory(kind);
    }
    // System memory's bytes cross the host link: their rate is a share of it, not of the L1.
    if kind.is_some_and(MemoryKind::across_link) {
        for work in case.work.iter_mut().filter(|w| w.unit == Unit::Byte) {
            work.ceiling = Some(Ceiling::HostLink);
        }
    }
    case
}

fn expand(env: &Env) -> Vec<CaseSpec> {
    let kinds = std::iter::once(None).chain(MemoryKind::ALL.map(Some));
    let sizes = env.axis("bytes");
    // Sizes round down to the sweep's 4 KiB rows; a size under one row is no set.
    let sizes: Vec<u64> = sizes.into_iter().map(|b| b / 4096 * 4096).filter(|&b| b > 0).collect();
    let width = env.workgroup_width(sweep::ROW as u32);
    kinds.flat_map(|kind| sizes.iter().map(move |&bytes| case(env, kind, bytes, width))).collect()
}

/// The set sizes.
const BYTES: Axis = Axis {
    name: "bytes",
    unit: AxisUnit::Bytes,
    default: "1M..1G*4",
    max: (1 << 32) - 1,
    about:
        "buffer size in bytes (rounded down to 4 KiB; under 4 GiB), default 1 MiB to 1 GiB by factors of 4",
};

inventory::submit! {
    Family {
        about: registry::About {
            measures: "shader loads straight from host-visible memory (the original's \"upload heap\"): \
                       device-local memory the CPU can map (resizable BAR) and system memory, host-cached or \
                       uncached, against device-local memory, 1 MiB to 1 GiB",
            invocation: "as the bandwidth sweep's SSBO vec4 linear: 64 coalesced loads from its workgroup's \
                         window of rows, wrapping in the set; each pass over the set reads the next of \
                         copies spanning 256 MiB, so no GPU cache serves the repeats",
            rate: "loads per second, and bytes per second",
        },
        name: "host",
        order: 330,
        axes: &[BYTES],
        ratio_note: None,
        levels: false,
        device_cases: false,
        quick: &["Host-cached vec4 linear 4 MiB", "Host-visible device-local vec4 linear 64 MiB"],
        expand,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::Placement;

    #[test]
    fn one_line_per_memory_kind_named_by_it() {
        let family = registry::families().into_iter().find(|f| f.name == "host").unwrap();
        let settings = [registry::parse_setting("host.bytes=1M").unwrap()];
        let env = Env { family, settings: &settings, device: None };
        let cases = expand(&env);
        let names: Vec<&str> = cases.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "Device-local vec4 linear 1 MiB",
                "Host-visible device-local vec4 linear 1 MiB",
                "Host-cached vec4 linear 1 MiB",
                "Host-uncached vec4 linear 1 MiB"
            ]
        );
        assert_eq!(cases[0].resources[0].placement, Placement::DeviceLocal);
        assert_eq!(cases[2].resources[0].placement, Placement::Memory(MemoryKind::HostCached));
        // 256 copies of the 1 MiB set: no cache holds what the case reads.
        assert!(cases[2].requirements().memory.contains(&(MemoryKind::HostCached, 256 << 20)));
        assert_eq!(cases[3].axes, [("bytes", 1 << 20)]);
        // System memory's bytes are held to the host link, device memory's to the L1.
        let bytes: Vec<Option<Ceiling>> = cases.iter().map(|c| c.work[1].ceiling).collect();
        let (l1, link) = (Some(Ceiling::L1Bytes), Some(Ceiling::HostLink));
        assert_eq!(bytes, [l1, l1, link, link]);
        assert_eq!(
            (cases[3].group.as_str(), cases[3].variant.as_str()),
            ("host", "Host-uncached vec4 linear")
        );
    }
}
