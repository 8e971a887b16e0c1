//! NVIDIA's management library (NVML), through `nvml-wrapper`, which loads `libnvidia-ml.so.1` at
//! run time: a machine without NVIDIA's driver still runs perftest, and says why it cannot tell.

use std::ffi::OsStr;

use nvml_wrapper::enums::device::UsedGpuMemory;
use nvml_wrapper::Nvml;

/// The library's name: newer drivers ship no unversioned `libnvidia-ml.so`.
const LIBRARY: &str = "libnvidia-ml.so.1";

/// One process NVML says is using the GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Process {
    /// Its process id, as NVML sees it (the host's PID namespace).
    pub pid: u32,
    /// The GPU memory it holds, bytes, where NVML says.
    pub memory_bytes: Option<u64>,
}

/// One GPU as NVML sees it, found by its Vulkan `deviceUUID`.
pub struct NvidiaGpu {
    nvml: Nvml,
    uuid: String,
    /// Its index among NVML's devices, found once by its UUID: each reading looks it up by index,
    /// NVML's plainest lookup (a reading still takes milliseconds on the H100: the energy hold
    /// reads it on a thread of its own, `runner::energy`).
    index: u32,
}

/// NVML's name for the GPU whose Vulkan `deviceUUID` is `uuid`: `GPU-` and the UUID's text.
pub fn nvml_uuid(uuid: &[u8; 16]) -> String {
    format!("GPU-{}", crate::caps::Identity::uuid_text(uuid))
}

impl NvidiaGpu {
    /// The GPU whose Vulkan `deviceUUID` is `uuid`, or why NVML cannot say (no library, no such
    /// GPU, no permission).
    pub fn open(uuid: &[u8; 16]) -> Result<Self, String> {
        let nvml = Nvml::builder()
            .lib_path(OsStr::new(LIBRARY))
            .init()
            .map_err(|e| format!("NVML could not be loaded ({LIBRARY}: {e})"))?;
        let uuid = nvml_uuid(uuid);
        let device =
            nvml.device_by_uuid(uuid.as_str()).map_err(|e| format!("NVML has no GPU {uuid} ({e})"))?;
        let index = device.index().map_err(|e| format!("NVML has no index for GPU {uuid} ({e})"))?;
        Ok(NvidiaGpu { nvml, uuid, index })
    }

    /// The board's energy since the driver loaded, millijoules (NVML's total-energy counter:
    /// Volta and later; it updates about every 100 ms).
    pub fn total_energy_mj(&self) -> Result<u64, String> {
        let device = self.nvml.device_by_index(self.index).map_err(|e| e.to_string())?;
        device
            .total_energy_consumption()
            .map_err(|e| format!("NVML gives no energy counter for {} ({e})", self.uuid))
    }

    /// The GPU's core temperature now, °C.
    pub fn temperature_c(&self) -> Result<u32, String> {
        let device = self.nvml.device_by_index(self.index).map_err(|e| e.to_string())?;
        device
            .temperature(nvml_wrapper::enum_wrappers::device::TemperatureSensor::Gpu)
            .map_err(|e| format!("NVML gives no temperature for {} ({e})", self.uuid))
    }

    /// Every process with a compute or graphics context on the GPU now (a Vulkan compute
    /// process is listed as either, by driver), each once.
    pub fn processes(&self) -> Result<Vec<Process>, String> {
        let device = self.nvml.device_by_uuid(self.uuid.as_str()).map_err(|e| e.to_string())?;
        let compute = device.running_compute_processes().map_err(|e| e.to_string())?;
        let graphics = device.running_graphics_processes().unwrap_or_default();
        let mut seen: Vec<Process> = Vec::new();
        for info in compute.into_iter().chain(graphics) {
            let memory_bytes = match info.used_gpu_memory {
                UsedGpuMemory::Used(bytes) => Some(bytes),
                UsedGpuMemory::Unavailable => None,
            };
            match seen.iter_mut().find(|p| p.pid == info.pid) {
                Some(known) => known.memory_bytes = known.memory_bytes.max(memory_bytes),
                None => seen.push(Process { pid: info.pid, memory_bytes }),
            }
        }
        Ok(seen)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_vulkan_uuid_is_nvmls_with_its_prefix() {
        let uuid = [0x5b, 0x7a, 0x3a, 0x0e, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
        assert_eq!(nvml_uuid(&uuid), "GPU-5b7a3a0e-0001-0203-0405-060708090a0b");
    }

    #[test]
    fn a_machine_without_nvidias_driver_gets_a_sentence() {
        // CI has no NVIDIA driver: opening says why, and nothing panics.
        if let Err(why) = NvidiaGpu::open(&[0; 16]) {
            assert!(
                why.starts_with("NVML could not be loaded") || why.starts_with("NVML has no GPU"),
                "{why}"
            );
        }
    }
}
