//! Device rows (a physical device plus one compute queue family) and picking one: `-N` counts
//! physical devices, and the queue family is a choice of its own (`--queue`).

use ash::vk;

use super::instance::Instance;
use crate::caps::Row;
use crate::error::{Error, Result};

/// What row-building needs to know about one queue family.
#[derive(Clone, Copy, Debug)]
pub struct FamilyInfo {
    /// The family's capabilities.
    pub flags: vk::QueueFlags,
    /// `timestampValidBits`; zero means no timestamps.
    pub timestamp_valid_bits: u32,
}

/// Builds the rows of one device: one per family with compute (with or without timestamps).
pub fn device_rows(
    device: usize,
    name: &str,
    kind: vk::PhysicalDeviceType,
    families: &[FamilyInfo],
    (uuid, pci): ([u8; 16], Option<String>),
) -> Vec<Row> {
    families
        .iter()
        .enumerate()
        .filter(|(_, f)| f.flags.contains(vk::QueueFlags::COMPUTE))
        .map(|(i, f)| Row {
            device,
            name: name.to_owned(),
            family: i as u32,
            kind,
            timestamps: f.timestamp_valid_bits > 0,
            portability: false,
            uuid,
            pci: pci.clone(),
        })
        .collect()
}

/// Every row of every device with Vulkan 1.2 or newer, in enumeration order.
pub fn enumerate(instance: &Instance) -> Result<(Vec<vk::PhysicalDevice>, Vec<Row>)> {
    // SAFETY: valid instance.
    let devices = unsafe { instance.raw.enumerate_physical_devices() }
        .map_err(super::instance::unusable("vkEnumeratePhysicalDevices"))?;
    let mut rows = Vec::new();
    for (index, &device) in devices.iter().enumerate() {
        // SAFETY: device comes from this instance.
        let props = unsafe { instance.raw.get_physical_device_properties(device) };
        if props.api_version < vk::API_VERSION_1_2 {
            continue;
        }
        let name = props.device_name_as_c_str().map(|n| n.to_string_lossy().into_owned());
        // SAFETY: as above.
        let families = unsafe { instance.raw.get_physical_device_queue_family_properties(device) };
        let infos: Vec<FamilyInfo> = families
            .iter()
            .map(|f| FamilyInfo { flags: f.queue_flags, timestamp_valid_bits: f.timestamp_valid_bits })
            .collect();
        let portability = super::device::offers_portability_subset(instance, device);
        let identity = super::device::identify(instance, device);
        let mut found = device_rows(index, &name.unwrap_or_default(), props.device_type, &infos, identity);
        found.iter_mut().for_each(|row| row.portability = portability);
        rows.extend(found);
    }
    if rows.is_empty() {
        let detail = if devices.is_empty() {
            "the loader found no physical device".to_owned()
        } else {
            format!(
                "{}, none with Vulkan 1.2 and a compute queue",
                crate::format::count(devices.len(), "device")
            )
        };
        return Err(Error::NoDevice { detail });
    }
    Ok((devices, rows))
}

/// The physical devices among `rows`, each as its rows' indexes (one per compute queue family),
/// in enumeration order.
pub fn devices(rows: &[Row]) -> Vec<Vec<usize>> {
    let mut devices: Vec<Vec<usize>> = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        match devices.iter_mut().find(|d| rows[d[0]].device == row.device) {
            Some(device) => device.push(i),
            None => devices.push(vec![i]),
        }
    }
    devices
}

/// One line about a device (its `rows`): name, type, PCI address, UUID, and its compute queue
/// families, those without timestamps marked.
pub fn describe_device(rows: &[Row], device: &[usize]) -> String {
    let first = &rows[device[0]];
    let families: Vec<String> = device
        .iter()
        .map(|&i| match rows[i].timestamps {
            true => rows[i].family.to_string(),
            false => format!("{} (no timestamps: timed by CPU fences)", rows[i].family),
        })
        .collect();
    let pci = first.pci.as_deref().map(|p| format!("PCI {p}, ")).unwrap_or_default();
    let subset = if first.portability { ", portability subset" } else { "" };
    let queues = crate::format::plural(families.len(), "compute queue family");
    format!(
        "{} ({}, {pci}UUID {}, {queues} {}{subset})",
        first.name,
        crate::caps::kind_name(first.kind),
        crate::caps::Identity::uuid_text(&first.uuid),
        families.join(", ")
    )
}

/// The devices as `perftest --devices` prints them: `N: name (type, PCI ..., UUID ..., compute
/// queue families 0, 2)`, numbered from 1.
pub fn format_devices(rows: &[Row], devices: &[Vec<usize>]) -> String {
    devices.iter().enumerate().map(|(n, d)| format!("{}: {}\n", n + 1, describe_device(rows, d))).collect()
}

fn rank(kind: vk::PhysicalDeviceType) -> u8 {
    match kind {
        vk::PhysicalDeviceType::DISCRETE_GPU => 0,
        vk::PhysicalDeviceType::INTEGRATED_GPU => 1,
        vk::PhysicalDeviceType::VIRTUAL_GPU => 2,
        vk::PhysicalDeviceType::CPU => 3,
        _ => 4,
    }
}

/// The devices `name` names ([`Row::named`]: a word of the name, a PCI address, the start of a
/// UUID); every device without one.
pub fn matching(rows: &[Row], name: Option<&str>) -> Vec<Vec<usize>> {
    let keep = |r: &Row| name.is_none_or(|w| r.named(w));
    devices(rows).into_iter().filter(|d| keep(&rows[d[0]])).collect()
}

/// The row of `device` (its rows) to run on: its compute queue family `queue` where given, else
/// the first with timestamps, else its first. Returns an index into `rows`.
fn row_of(rows: &[Row], device: &[usize], queue: Option<u32>) -> Result<usize> {
    match queue {
        Some(family) => device
            .iter()
            .copied()
            .find(|&i| rows[i].family == family)
            .ok_or_else(|| Error::QueueFamily { family, device: describe_device(rows, device) }),
        None => Ok(device.iter().copied().find(|&i| rows[i].timestamps).unwrap_or(device[0])),
    }
}

/// Drivers whose devices are named otherwise: Mesa's lavapipe calls its device llvmpipe.
const ALIASES: [(&str, &str); 1] = [("lavapipe", "llvmpipe")];

/// Where `word` is a driver whose device goes by another name that a device here has, says so
/// (`, but lavapipe's device is called llvmpipe: run perftest llvmpipe`); empty otherwise.
fn driver_hint(rows: &[Row], word: &str) -> String {
    ALIASES
        .iter()
        .find(|(driver, device)| word.eq_ignore_ascii_case(driver) && rows.iter().any(|r| r.named(device)))
        .map(|(driver, device)| {
            format!(", but {driver}'s device is called {device}: run `perftest {device}`")
        })
        .unwrap_or_default()
}

/// Picks a row: `name` keeps the devices it names ([`matching`]), `index` (1-based) picks the
/// Nth of those physical devices, `queue` the device's compute queue family (else its best: one
/// with timestamps, then the first); with no index, the best type wins (discrete > integrated >
/// virtual > CPU), a device with timestamps before one without, the first on a tie. Returns an
/// index into `rows`.
pub fn select(rows: &[Row], name: Option<&str>, index: Option<usize>, queue: Option<u32>) -> Result<usize> {
    let candidates = matching(rows, name);
    if candidates.is_empty() {
        let word = name.unwrap_or_default();
        return Err(Error::DeviceName {
            name: word.to_owned(),
            cases: driver_hint(rows, word),
            rows: format_devices(rows, &devices(rows)).trim_end().to_owned(),
        });
    }
    let device = match index {
        Some(n) => candidates.get(n.wrapping_sub(1)).ok_or_else(|| Error::DeviceIndex {
            index: n,
            count: candidates.len(),
            rows: format_devices(rows, &candidates).trim_end().to_owned(),
        })?,
        None => candidates
            .iter()
            .enumerate()
            .min_by_key(|(n, d)| (rank(rows[d[0]].kind), !d.iter().any(|&i| rows[i].timestamps), *n))
            .map(|(_, d)| d)
            .unwrap_or(&candidates[0]),
    };
    row_of(rows, device, queue)
}

/// One row per physical device among those `name` names: its 1-based index among them (what
/// `--device-index` counts) and the row [`select`] picks of it (an index into `rows`); devices in
/// enumeration order.
pub fn one_row_per_device(rows: &[Row], name: Option<&str>) -> Vec<(usize, usize)> {
    matching(rows, name)
        .iter()
        .enumerate()
        .map(|(n, device)| (n + 1, row_of(rows, device, None).unwrap_or(device[0])))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use vk::PhysicalDeviceType as T;

    fn row(device: usize, name: &str, family: u32, kind: T) -> Row {
        let uuid = [device as u8; 16];
        let pci = Some(format!("0000:{:02x}:00.0", device + 0x1b));
        Row { device, name: name.into(), family, kind, timestamps: true, portability: false, uuid, pci }
    }

    /// The tutorial's machine: an Intel iGPU, a Quadro with two compute families, llvmpipe.
    fn tutorial_rows() -> Vec<Row> {
        vec![
            row(0, "Intel(R) UHD Graphics", 0, T::INTEGRATED_GPU),
            row(1, "Quadro RTX 3000", 0, T::DISCRETE_GPU),
            row(1, "Quadro RTX 3000", 2, T::DISCRETE_GPU),
            row(2, "llvmpipe (LLVM 20.1.5, 256 bits)", 0, T::CPU),
        ]
    }

    /// A host of four H200s, each with compute queue families 0 and 2 (the eight rows).
    fn four_gpus() -> Vec<Row> {
        (0..4).flat_map(|d| [0, 2].map(|f| row(d, "NVIDIA H200", f, T::DISCRETE_GPU))).collect()
    }

    #[test]
    fn rows_need_compute_and_a_queue_without_timestamps_is_picked_last() {
        let families = [
            FamilyInfo {
                flags: vk::QueueFlags::GRAPHICS | vk::QueueFlags::COMPUTE,
                timestamp_valid_bits: 64,
            },
            FamilyInfo { flags: vk::QueueFlags::TRANSFER, timestamp_valid_bits: 64 },
            FamilyInfo { flags: vk::QueueFlags::COMPUTE, timestamp_valid_bits: 64 },
            FamilyInfo { flags: vk::QueueFlags::COMPUTE, timestamp_valid_bits: 0 },
        ];
        let id = ([7; 16], Some("0000:1b:00.0".to_owned()));
        let rows = device_rows(0, "NVIDIA H100 80GB HBM3", T::DISCRETE_GPU, &families, id.clone());
        assert_eq!(rows.iter().map(|r| r.family).collect::<Vec<_>>(), [0, 2, 3]);
        assert_eq!(
            format_devices(&rows, &devices(&rows)),
            "1: NVIDIA H100 80GB HBM3 (DiscreteGpu, PCI 0000:1b:00.0, UUID 07070707-0707-0707-0707-070707070707, \
             compute queue families 0, 2, 3 (no timestamps: timed by CPU fences))\n"
        );
        // A PowerVR GE8300 has only a queue without timestamps: it is listed and picked.
        let fenced = device_rows(1, "PowerVR Rogue GE8300", T::INTEGRATED_GPU, &families[3..], id);
        assert_eq!(select(&fenced, None, None, None).unwrap(), 0);
        // With both, the device's row with timestamps, even listed after one without.
        let both = [rows[2].clone(), rows[0].clone()];
        assert_eq!(select(&both, None, None, None).unwrap(), 1);
    }

    #[test]
    fn a_host_of_four_gpus_lists_four_lines_and_minus_two_is_the_second_gpu() {
        let rows = four_gpus();
        let listed = format_devices(&rows, &devices(&rows));
        assert_eq!(listed.lines().count(), 4, "{listed}");
        assert!(
            listed.starts_with("1: NVIDIA H200 (DiscreteGpu, PCI 0000:1b:00.0, UUID 00000000-"),
            "{listed}"
        );
        assert!(listed.contains("compute queue families 0, 2)"), "{listed}");
        let second = select(&rows, None, Some(2), None).unwrap();
        assert_eq!((rows[second].device, rows[second].family), (1, 0), "-2: the second GPU, not a queue");
        let queue = select(&rows, None, Some(2), Some(2)).unwrap();
        assert_eq!((rows[queue].device, rows[queue].family), (1, 2), "--queue 2");
        let error = select(&rows, None, Some(2), Some(1)).unwrap_err();
        assert_eq!(error.exit_code(), crate::ExitCode::NoSuchDevice);
        assert!(
            error.to_string().starts_with(
                "the device has no compute queue family 1: NVIDIA H200 (DiscreteGpu, PCI 0000:1c:00.0"
            ),
            "{error}"
        );
        assert_eq!(one_row_per_device(&rows, None), [(1, 0), (2, 2), (3, 4), (4, 6)]);
    }

    #[test]
    fn a_device_is_named_by_its_pci_address_or_its_uuid() {
        let rows = four_gpus();
        let at = |word: &str| select(&rows, Some(word), None, None).map(|i| rows[i].device);
        assert_eq!(at("0000:1d:00.0").unwrap(), 2);
        assert_eq!(at("1d:00.0").unwrap(), 2, "without the domain");
        assert_eq!(at("03030303").unwrap(), 3, "the start of a UUID");
        assert_eq!(at("03030303-0303").unwrap(), 3);
        assert!(at("030").is_err(), "too short to be a UUID's start");
        assert_eq!(at("h200").unwrap(), 0, "a word of the name: the first of equals");
    }

    #[test]
    fn default_prefers_discrete_then_first() {
        assert_eq!(select(&tutorial_rows(), None, None, None).unwrap(), 1);
        let cpu_and_igpu = vec![row(0, "llvmpipe", 0, T::CPU), row(1, "Intel", 0, T::INTEGRATED_GPU)];
        assert_eq!(select(&cpu_and_igpu, None, None, None).unwrap(), 1);
    }

    #[test]
    fn an_index_counts_devices() {
        assert_eq!(select(&tutorial_rows(), None, Some(1), None).unwrap(), 0);
        assert_eq!(select(&tutorial_rows(), None, Some(2), None).unwrap(), 1);
        assert_eq!(select(&tutorial_rows(), None, Some(3), None).unwrap(), 3, "llvmpipe is the third device");
        assert!(select(&tutorial_rows(), None, Some(4), None).is_err());
    }

    #[test]
    fn name_and_index_combine() {
        let rows = tutorial_rows();
        assert_eq!(select(&rows, Some("rtx"), None, None).unwrap(), 1);
        assert_eq!(select(&rows, Some("RTX"), Some(1), Some(2)).unwrap(), 2);
        assert_eq!(select(&rows, Some("llvm"), None, None).unwrap(), 3);
    }

    #[test]
    fn index_out_of_range_lists_the_candidates() {
        let error = select(&tutorial_rows(), Some("RTX"), Some(2), None).unwrap_err();
        assert_eq!(error.exit_code(), crate::ExitCode::NoSuchDevice);
        let text = error.to_string();
        assert!(text.starts_with("device 2 does not exist (1 device match)"), "{text}");
        assert!(text.contains("\n1: Quadro RTX 3000 (DiscreteGpu, PCI 0000:1c:00.0,"), "{text}");
        assert!(!text.contains("Intel"), "{text}");
    }

    #[test]
    fn a_device_with_two_compute_families_is_one_device() {
        let rows = tutorial_rows();
        assert_eq!(one_row_per_device(&rows, None), [(1, 0), (2, 1), (3, 3)]);
        assert_eq!(one_row_per_device(&rows, Some("rtx")), [(1, 1)]);
        // A first family without timestamps gives way to the device's next one with them.
        let mut fenced = rows.clone();
        fenced[1].timestamps = false;
        assert_eq!(one_row_per_device(&fenced, Some("quadro")), [(1, 2)]);
    }

    #[test]
    fn unknown_name_lists_every_device() {
        let error = select(&tutorial_rows(), Some("Radeon"), None, None).unwrap_err();
        assert_eq!(error.exit_code(), crate::ExitCode::NoSuchDevice);
        let text = error.to_string();
        assert!(text.starts_with("no device name contains \"Radeon\""), "{text}");
        assert!(text.contains("1: Intel") && text.contains("3: llvmpipe"), "{text}");
        assert!(!text.contains(", but "), "no hint for a word that is no driver: {text}");
        // Mesa's lavapipe names its device llvmpipe: the error says so.
        let text = select(&tutorial_rows(), Some("Lavapipe"), None, None).unwrap_err().to_string();
        assert!(
            text.starts_with(
                "no device name contains \"Lavapipe\" (nor is it a device's PCI address or the start of its \
                 UUID), but lavapipe's device is called llvmpipe: run `perftest llvmpipe`; pick one of:"
            ),
            "{text}"
        );
    }
}
