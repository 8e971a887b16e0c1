//! Transfer bandwidth: `vkCmdCopyBuffer` host to device, device to host and device to device, over sizes.
//!
//! No shader runs: the runner copies the source buffer into the target (src/runner/copy.rs),
//! repeated to fill the target time, and a verify run reads the target back and checks every
//! word. Beside them, `Copy device to device by shader` copies with a compute shader
//! (glsl/copy.glsl: coalesced 16-byte loads and stores), the way to copy on the compute units. "Host" is host-cached system memory (the usual upload and readback staging memory); a
//! device without it skips those directions and says so. Repeated copies rotate through parts
//! of buffers spanning 256 MiB (src/cases/rotate.rs): a GPU keeps host memory it reads in its L2,
//! and a small copy repeated in place would measure the cache, not the bus or DRAM.

use super::rotate;
use crate::caps::{Ceiling, MemoryKind, QueueKind};
use crate::format::format_bytes;
use crate::registry::data::Data;
use crate::registry::VERIFY_GROUPS;
use crate::registry::{
    self, Axis, AxisUnit, CaseSpec, Env, Family, Glsl, Push, Resource, ResourceKind, Unit, Value, Work,
};

const GLSL: Glsl = Glsl { file: "copy.glsl", source: include_str!("../../glsl/copy.glsl") };

/// Rows of 16-byte elements each workgroup of the shader copy copies.
const COPIES: u64 = 4;

/// Which way the bytes go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Direction {
    HostToDevice,
    DeviceToHost,
    DeviceToDevice,
}

impl Direction {
    const ALL: [Direction; 3] = [Direction::HostToDevice, Direction::DeviceToHost, Direction::DeviceToDevice];

    fn label(self) -> &'static str {
        match self {
            Direction::HostToDevice => "host to device",
            Direction::DeviceToHost => "device to host",
            Direction::DeviceToDevice => "device to device",
        }
    }
}

/// The word at index `w` of every source on the default data: distinct from its neighbours, never
/// a fill pattern.
fn word(w: u32) -> u32 {
    w.wrapping_mul(0x9E37_79B1) ^ 0xA5A5_A5A5
}

/// The word at index `w` of a source holding `data`.
fn word_on(data: Data, w: u32) -> u32 {
    registry::data::bits(data, w, word)
}

fn fill(data: Data) -> impl Fn(&mut [u8]) + Send + Sync + 'static {
    move |bytes: &mut [u8]| {
        super::data::fill_elements(bytes, 4, |w, chunk| {
            chunk.copy_from_slice(&word_on(data, w as u32).to_ne_bytes())
        })
    }
}

/// `Copy {direction} {size}` on the run's queue, or `Copy {direction} on a {kind} queue {size}`,
/// copying `data` (`Copy host to device on zeros 64 MiB`; other data on the run's queue only).
fn case(env: &Env, direction: Direction, queue: Option<QueueKind>, bytes: u64, data: Data) -> CaseSpec {
    let host = |r: Resource| r.in_memory(MemoryKind::HostCached);
    // As many parts as both ends' memory allows.
    let ends = match direction {
        Direction::DeviceToDevice => [None, None],
        _ => [None, Some(MemoryKind::HostCached)],
    };
    let (slots, note) = ends
        .into_iter()
        .map(|kind| rotate::slots(env, bytes, kind, None))
        .min_by_key(|(slots, _)| *slots)
        .unwrap_or((1, None));
    let total = bytes * slots;
    // Every source of a size holds the same words: the next case of the same ends copies from it.
    let (source, target) = (
        Resource::transfer_buffer(total, fill(data)).contents(format!("copy words{}", data.suffix())),
        Resource::zeros(ResourceKind::TransferBuffer { bytes: total }),
    );
    let (source, target) = match direction {
        Direction::HostToDevice => (host(source), target),
        Direction::DeviceToHost => (source, host(target)),
        Direction::DeviceToDevice => (source, target),
    };
    let variant = match queue {
        None => format!("Copy {}", direction.label()),
        Some(kind) => format!("Copy {} on a {} queue", direction.label(), kind.label()),
    };
    let mut case =
        CaseSpec::copy(format!("{variant} {}", format_bytes(bytes)), source, target).rotating(slots);
    if let Some(kind) = queue {
        case = case.on_queue(kind);
    }
    let case = match note {
        Some(note) => case.note(note),
        None => case,
    }
    .group("copy")
    .axis("bytes", bytes, variant)
    .work([match direction {
        Direction::DeviceToDevice => Work::new(bytes as f64, Unit::Byte),
        _ => Work::new(bytes as f64, Unit::Byte).bounded_by(Ceiling::HostLink),
    }])
    .reference(move |w| Value::U32(word_on(data, w)));
    // The copies on the run's queue take the data axis; those on other queues copy the default.
    match queue {
        None => case.data(data),
        Some(_) => case,
    }
}

/// `Copy device to device by shader {size}`: a compute shader copies each part of buffers spanning
/// 256 MiB in turn; `bytes` is rounded down to whole workgroups' rows (16 KiB for 256 invocations).
fn shader_case(env: &Env, bytes: u64, width: u32) -> Option<CaseSpec> {
    let grain = 16 * COPIES * u64::from(width);
    let bytes = bytes / grain * grain;
    if bytes == 0 {
        return None;
    }
    let range = env.device.map(|d| d.limits.storage_buffer_range);
    let (slots, note) = rotate::slots(env, bytes, None, range);
    let total = bytes * slots;
    let variant = "Copy device to device by shader";
    let source = Resource::storage_buffer(total, fill(Data::Default));
    let target = Resource::zeroed_storage_buffer(total).read_write();
    let part_vec4s = bytes / 16;
    let groups_per_part = bytes / grain;
    let push = [part_vec4s, slots, groups_per_part, 0].map(|w| u32::try_from(w).unwrap_or(u32::MAX));
    let case = CaseSpec::new(format!("{variant} {}", format_bytes(bytes)), GLSL, [width, 1, 1]);
    let case = match note {
        Some(note) => case.note(note),
        None => case,
    };
    // A verify run's workgroups copy the first rows of part 0; the rest of the target stays 0.
    let verified = u64::from(VERIFY_GROUPS) * grain / 4;
    Some(
        case.group("copy")
            .narrowed_from(256)
            .axis("bytes", bytes, variant)
            .defines([("COPIES", format!("{COPIES}u").as_str())])
            .push(Push::words(&push))
            .resource(source)
            .resource(target)
            .checks(1)
            .work([Work::new((16 * COPIES) as f64, Unit::Byte)])
            .reference(move |w| Value::U32(if u64::from(w) < verified { word(w) } else { 0 })),
    )
}

fn expand(env: &Env) -> Vec<CaseSpec> {
    let sizes: Vec<u64> = env.axis("bytes").into_iter().map(|b| b / 4 * 4).filter(|&b| b > 0).collect();
    let width = env.workgroup_width(256);
    let mut cases = Vec::new();
    // The run's queue, then a queue of each kind of family (the copy engines among them).
    for queue in std::iter::once(None).chain(QueueKind::ALL.map(Some)) {
        for direction in Direction::ALL {
            cases.extend(sizes.iter().map(|&bytes| case(env, direction, queue, bytes, Data::Default)));
        }
    }
    // Each direction on the run's queue on zeros, a constant and random data, run only on request.
    for direction in Direction::ALL {
        for &data in &Data::ALL[1..] {
            cases.extend(sizes.iter().map(|&bytes| case(env, direction, None, bytes, data)));
        }
    }
    cases.extend(sizes.iter().filter_map(|&bytes| shader_case(env, bytes, width)));
    cases
}

/// The copy sizes.
const BYTES: Axis = Axis {
    name: "bytes",
    unit: AxisUnit::Bytes,
    default: "1M..1G*4",
    max: (1 << 32) - 1,
    about:
        "bytes per copy (rounded down to whole words; under 4 GiB), default 1 MiB to 1 GiB by factors of 4",
};

inventory::submit! {
    Family {
        about: registry::About {
            measures: "transfer bandwidth of vkCmdCopyBuffer: host to device, device to host and device to \
                       device, 1 MiB to 1 GiB (host: host-cached system memory); and device to device by a \
                       compute shader",
            invocation: "no shader: one copy of the given size, repeated between two timestamps with a \
                         transfer barrier between copies, each copy the next part of buffers spanning 256 MiB; \
                         by shader: each invocation copies 4 uvec4s in rows as wide as the workgroup (256 \
                         where the device allows), consecutive workgroups fill a part and move on to the next",
            rate: "bytes per second (each byte copied counts once)",
        },
        name: "copy",
        order: 340,
        axes: &[BYTES],
        ratio_note: None,
        levels: false,
        device_cases: false,
        quick: &[
            "Copy host to device 64 MiB",
            "Copy device to host 64 MiB",
            "Copy device to device 1 GiB",
            "Copy device to device by shader 1 GiB",
        ],
        expand,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::Placement;

    #[test]
    fn each_direction_places_its_ends() {
        let family = registry::families().into_iter().find(|f| f.name == "copy").unwrap();
        let settings = [registry::parse_setting("copy.bytes=1M").unwrap()];
        let env = Env { family, settings: &settings, device: None };
        let (on_data, mut cases): (Vec<CaseSpec>, Vec<CaseSpec>) =
            expand(&env).into_iter().partition(|c| c.on_request.is_some());
        let shader = cases.pop().unwrap();
        assert_eq!(shader.name, "Copy device to device by shader 1 MiB");
        // Each kind of queue family copies the same way as the run's queue, and says so.
        let on_queues = cases.split_off(3);
        let queues: Vec<(&str, Option<QueueKind>)> =
            on_queues.iter().map(|c| (c.name.as_str(), c.queue)).collect();
        assert_eq!(queues.len(), 9);
        assert_eq!(queues[0], ("Copy host to device on a graphics queue 1 MiB", Some(QueueKind::Graphics)));
        assert_eq!(
            queues[5],
            ("Copy device to device on a compute-only queue 1 MiB", Some(QueueKind::ComputeOnly))
        );
        assert_eq!(
            queues[7],
            ("Copy device to host on a transfer-only queue 1 MiB", Some(QueueKind::TransferOnly))
        );
        assert!(on_queues.iter().all(|c| c.requirements().queue == c.queue && c.validate().is_ok()));
        let names: Vec<&str> = cases.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            ["Copy host to device 1 MiB", "Copy device to host 1 MiB", "Copy device to device 1 MiB"]
        );
        assert!(cases.iter().all(|c| c.queue.is_none()));
        assert!(
            !shader.transfer && shader.checks == Some(1),
            "the shader copy runs a shader and checks its target"
        );
        let reference = shader.reference.clone().unwrap();
        // Two verify workgroups of 256 invocations copy 2 x 16 KiB: 8192 words, then zeros.
        assert_eq!(reference(8191), Value::U32(word(8191)));
        assert_eq!(reference(8192), Value::U32(0));
        let places: Vec<(Placement, Placement)> =
            cases.iter().map(|c| (c.resources[0].placement, c.resources[1].placement)).collect();
        let host = Placement::Memory(MemoryKind::HostCached);
        assert_eq!(
            places,
            [
                (host, Placement::DeviceLocal),
                (Placement::DeviceLocal, host),
                (Placement::DeviceLocal, Placement::DeviceLocal)
            ]
        );
        assert!(cases.iter().all(|c| c.transfer && c.work[0].per_invocation == f64::from(1 << 20)));
        let ceilings: Vec<Option<Ceiling>> = cases.iter().map(|c| c.work[0].ceiling).collect();
        let link = Some(Ceiling::HostLink);
        assert_eq!(ceilings, [link, link, None], "host copies cross the link, device copies do not");
        // Without a device, 256 parts of 1 MiB: the copies never repeat within a cache's reach.
        assert!(cases.iter().all(|c| c.slots == 256 && c.resources[0].kind.bytes() == 256 << 20));
        assert_ne!(word(0), word(1));
        // Each direction on the run's queue on the other data, run only on request; the copies
        // on other queues and the shader's take no data.
        let names: Vec<&str> = on_data.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names.len(), 9);
        assert_eq!(
            names[..3],
            [
                "Copy host to device on zeros 1 MiB",
                "Copy host to device on a constant 1 MiB",
                "Copy host to device on random data 1 MiB"
            ]
        );
        assert!(on_data.iter().all(|c| c.queue.is_none() && c.transfer && c.validate().is_ok()));
        assert!(cases.iter().all(|c| c.label_of("data") == Some("default")));
        assert!(on_queues.iter().chain([&shader]).all(|c| c.label_of("data").is_none()));
        // What a verify run holds each target to, and the contents the sources share by name.
        let [zeros, constant, random] = [0, 1, 2].map(|i| on_data[i].reference.clone().unwrap());
        assert_eq!((zeros(5), constant(5)), (Value::U32(0), Value::U32(registry::data::CONSTANT_WORD)));
        assert_eq!(random(5), Value::U32(registry::data::random_word(5)));
        let contents: Vec<_> =
            on_data[..3].iter().map(|c| c.resources[0].contents.clone().unwrap()).collect();
        assert_eq!(
            contents,
            ["copy words on zeros", "copy words on a constant", "copy words on random data"]
        );
    }
}
