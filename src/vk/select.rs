//! Device rows (a physical device plus one compute queue family with timestamps) and picking one.

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
        let portability = offers_portability_subset(instance, device);
        let mut found = device_rows(index, &name.unwrap_or_default(), props.device_type, &infos);
        found.iter_mut().for_each(|row| row.portability = portability);
        rows.extend(found);
    }
    if rows.is_empty() {
        let detail = if devices.is_empty() {
            "the loader found no physical device".to_owned()
        } else {
            format!("{} device(s), none with Vulkan 1.2 and a compute queue", devices.len())
        };
        return Err(Error::NoDevice { detail });
    }
    Ok((devices, rows))
}

/// Whether `device` lists `VK_KHR_portability_subset`.
pub fn offers_portability_subset(instance: &Instance, device: vk::PhysicalDevice) -> bool {
    // SAFETY: device comes from this instance.
    let offered = unsafe { instance.raw.enumerate_device_extension_properties(device) }.unwrap_or_default();
    offered.iter().any(|e| e.extension_name_as_c_str() == Ok(ash::khr::portability_subset::NAME))
}

/// The rows as `perftest --devices` prints them: `N: name (compute queue: F, type: T)`.
pub fn format_rows(rows: &[&Row]) -> String {
    rows.iter().enumerate().map(|(i, r)| format!("{}: {r}\n", i + 1)).collect()
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

/// The indexes of the rows whose name contains `name` (case-insensitive); all rows without one.
pub fn matching(rows: &[Row], name: Option<&str>) -> Vec<usize> {
    let wanted = name.map(str::to_lowercase);
    let keep = |r: &Row| wanted.as_ref().is_none_or(|w| r.name.to_lowercase().contains(w));
    rows.iter().enumerate().filter(|(_, r)| keep(r)).map(|(i, _)| i).collect()
}

/// Picks a row: `name` keeps the rows whose name contains it (case-insensitive), `index`
/// (1-based) picks among those; with no index, the best type wins (discrete > integrated >
/// virtual > CPU), the first row on a tie. Returns an index into `rows`.
pub fn select(rows: &[Row], name: Option<&str>, index: Option<usize>) -> Result<usize> {
    let candidates: Vec<(usize, &Row)> = matching(rows, name).into_iter().map(|i| (i, &rows[i])).collect();
    let listing = |list: &[(usize, &Row)]| format_rows(&list.iter().map(|(_, r)| *r).collect::<Vec<_>>());
    if candidates.is_empty() {
        let all: Vec<(usize, &Row)> = rows.iter().enumerate().collect();
        return Err(Error::DeviceName {
            name: name.unwrap_or_default().to_owned(),
            rows: listing(&all).trim_end().to_owned(),
        });
    }
    match index {
        Some(n) => candidates.get(n.wrapping_sub(1)).map(|(i, _)| *i).ok_or_else(|| Error::DeviceIndex {
            index: n,
            count: candidates.len(),
            rows: listing(&candidates).trim_end().to_owned(),
        }),
        // By type, then a queue with timestamps before one without, then the first.
        None => Ok(candidates
            .iter()
            .min_by_key(|(i, r)| (rank(r.kind), !r.timestamps, *i))
            .map(|(i, _)| *i)
            .unwrap_or(0)),
    }
}

/// One row per physical device among the rows `name` matches: the row [`select`] would pick of
/// that device's (a queue with timestamps first, then the first), as its 1-based index among the
/// matching rows (what `--device-index` counts) and as an index into `rows`; devices in
/// enumeration order.
pub fn one_row_per_device(rows: &[Row], name: Option<&str>) -> Vec<(usize, usize)> {
    let matching = matching(rows, name);
    let mut picked: Vec<(usize, usize)> = Vec::new();
    for (n, &i) in matching.iter().enumerate() {
        let row = &rows[i];
        match picked.iter_mut().find(|(_, at)| rows[*at].device == row.device) {
            Some(best) if row.timestamps && !rows[best.1].timestamps => *best = (n + 1, i),
            Some(_) => {}
            None => picked.push((n + 1, i)),
        }
    }
    picked
}

#[cfg(test)]
mod tests {
    use super::*;
    use vk::PhysicalDeviceType as T;

    fn row(device: usize, name: &str, family: u32, kind: T) -> Row {
        Row { device, name: name.into(), family, kind, timestamps: true, portability: false }
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

    #[test]
    fn rows_need_compute_and_a_queue_without_timestamps_is_listed_last_to_pick() {
        let families = [
            FamilyInfo {
                flags: vk::QueueFlags::GRAPHICS | vk::QueueFlags::COMPUTE,
                timestamp_valid_bits: 64,
            },
            FamilyInfo { flags: vk::QueueFlags::TRANSFER, timestamp_valid_bits: 64 },
            FamilyInfo { flags: vk::QueueFlags::COMPUTE, timestamp_valid_bits: 64 },
            FamilyInfo { flags: vk::QueueFlags::COMPUTE, timestamp_valid_bits: 0 },
        ];
        let rows = device_rows(0, "NVIDIA H100 80GB HBM3", T::DISCRETE_GPU, &families);
        assert_eq!(rows.iter().map(|r| r.family).collect::<Vec<_>>(), [0, 2, 3]);
        assert_eq!(rows[1].to_string(), "NVIDIA H100 80GB HBM3 (compute queue: 2, type: DiscreteGpu)");
        assert_eq!(
            rows[2].to_string(),
            "NVIDIA H100 80GB HBM3 (compute queue: 3, type: DiscreteGpu, no timestamps: timed by CPU fences)"
        );
        // A PowerVR GE8300 has only a queue without timestamps: it is listed and picked.
        let fenced = device_rows(1, "PowerVR Rogue GE8300", T::INTEGRATED_GPU, &families[3..]);
        assert_eq!(select(&fenced, None, None).unwrap(), 0);
        // With both, the best row has timestamps, even listed after one without.
        let both = [rows[2].clone(), rows[0].clone()];
        assert_eq!(select(&both, None, None).unwrap(), 1);
    }

    #[test]
    fn rows_print_numbered_from_one() {
        let rows = tutorial_rows();
        let text = format_rows(&rows.iter().collect::<Vec<_>>());
        assert!(text.starts_with("1: Intel(R) UHD Graphics (compute queue: 0, type: IntegratedGpu)\n"));
        assert!(text.contains("\n4: llvmpipe (LLVM 20.1.5, 256 bits) (compute queue: 0, type: Cpu)\n"));
    }

    #[test]
    fn default_prefers_discrete_then_first() {
        assert_eq!(select(&tutorial_rows(), None, None).unwrap(), 1);
        let cpu_and_igpu = vec![row(0, "llvmpipe", 0, T::CPU), row(1, "Intel", 0, T::INTEGRATED_GPU)];
        assert_eq!(select(&cpu_and_igpu, None, None).unwrap(), 1);
    }

    #[test]
    fn index_alone_counts_all_rows() {
        assert_eq!(select(&tutorial_rows(), None, Some(1)).unwrap(), 0);
        assert_eq!(select(&tutorial_rows(), None, Some(4)).unwrap(), 3);
    }

    #[test]
    fn name_and_index_combine() {
        let rows = tutorial_rows();
        assert_eq!(select(&rows, Some("rtx"), None).unwrap(), 1);
        assert_eq!(select(&rows, Some("RTX"), Some(2)).unwrap(), 2);
        assert_eq!(select(&rows, Some("llvm"), None).unwrap(), 3);
    }

    #[test]
    fn index_out_of_range_lists_the_candidates() {
        let error = select(&tutorial_rows(), Some("RTX"), Some(3)).unwrap_err();
        assert_eq!(error.exit_code(), crate::ExitCode::NoSuchDevice);
        let text = error.to_string();
        assert!(text.starts_with("device row 3 does not exist (2 row(s) match)"), "{text}");
        assert!(text.contains("\n2: Quadro RTX 3000 (compute queue: 2, type: DiscreteGpu)"), "{text}");
        assert!(!text.contains("Intel"), "{text}");
        assert!(select(&tutorial_rows(), None, Some(5)).is_err());
    }

    #[test]
    fn a_device_with_two_compute_families_is_one_device() {
        let rows = tutorial_rows();
        assert_eq!(one_row_per_device(&rows, None), [(1, 0), (2, 1), (4, 3)]);
        assert_eq!(one_row_per_device(&rows, Some("rtx")), [(1, 1)]);
        // A first family without timestamps gives way to the device's next one with them.
        let mut fenced = rows.clone();
        fenced[1].timestamps = false;
        assert_eq!(one_row_per_device(&fenced, Some("quadro")), [(2, 2)]);
    }

    #[test]
    fn unknown_name_lists_every_row() {
        let error = select(&tutorial_rows(), Some("Radeon"), None).unwrap_err();
        assert_eq!(error.exit_code(), crate::ExitCode::NoSuchDevice);
        let text = error.to_string();
        assert!(text.starts_with("no device name contains \"Radeon\""), "{text}");
        assert!(text.contains("1: Intel") && text.contains("4: llvmpipe"), "{text}");
    }
}
