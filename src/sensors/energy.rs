//! One device's energy sensor, whichever reads it: NVML's total-energy counter on NVIDIA (found by
//! the Vulkan `deviceUUID`), the kernel's hwmon files on other GPUs (found by the PCI address),
//! RAPL for a CPU implementation (lavapipe, SwiftShader: the package it computes on), or why there
//! is none. Read as joules since the first reading, or as watts where the sensor gives only power.

use std::path::Path;

use super::counter::Unwrapped;
use super::nvml::NvidiaGpu;
use super::sysfs::Sensor;

/// What identifies a device to its sensors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Identity<'a> {
    /// The PCI vendor id (0x10de NVIDIA, 0x1002 AMD, 0x8086 Intel).
    pub vendor: u32,
    /// The Vulkan `deviceUUID`.
    pub uuid: &'a [u8; 16],
    /// Its PCI address (`0000:1b:00.0`), where the driver says.
    pub pci: Option<&'a str>,
    /// Whether it is a CPU implementation.
    pub cpu: bool,
}

/// A reading: energy since the first reading, or power now.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Reading {
    /// Joules since the first reading.
    Joules(f64),
    /// Watts now (the driver's average over its own interval).
    Watts(f64),
}

/// A device's sensor, ready to read.
pub struct EnergySensor {
    /// What it is, for the record (`NVML total energy`, `hwmon amdgpu power1_average`).
    pub name: String,
    source: Source,
}

enum Source {
    // NVML's function table is 12 KB: boxed, so that a file sensor is not as large.
    Nvml(Box<NvidiaGpu>, Unwrapped),
    File(Sensor, Option<Unwrapped>),
}

impl EnergySensor {
    /// The sensor of the device `id`, reading the kernel's files under `sys` (`/sys`), or why
    /// there is none ("energy: unknown (why)").
    pub fn find(id: &Identity, sys: &Path) -> Result<Self, String> {
        match (id.vendor, id.cpu, id.pci) {
            (0x10de, _, _) => {
                let gpu = NvidiaGpu::open(id.uuid)?;
                gpu.total_energy_mj()?;
                let counter = Unwrapped::new(1e-3, None);
                Ok(EnergySensor {
                    name: "NVML total energy".into(),
                    source: Source::Nvml(Box::new(gpu), counter),
                })
            }
            (_, true, _) => Self::file(Sensor::rapl(sys)?),
            (_, false, Some(pci)) => Self::file(Sensor::hwmon(sys, pci)?),
            (_, false, None) => {
                Err("the driver gives no PCI address to find the GPU's hwmon sensor by".into())
            }
        }
    }

    fn file(sensor: Sensor) -> Result<Self, String> {
        let counter = sensor.counter();
        // A power reading is the driver's average over its own interval: a load that changes
        // faster is sampled, not integrated (NVML's counter integrates: results/energy/square/).
        let name = match counter {
            Some(_) => sensor.name.clone(),
            None => format!("{} (power readings, not an integrating counter)", sensor.name),
        };
        Ok(EnergySensor { name, source: Source::File(sensor, counter) })
    }

    /// Whether it counts energy (NVML, RAPL, hwmon's `energy1_input`) rather than reads power.
    pub fn counts_energy(&self) -> bool {
        !matches!(self.source, Source::File(_, None))
    }

    /// The sensor now.
    pub fn read(&mut self) -> Result<Reading, String> {
        match &mut self.source {
            Source::Nvml(gpu, counter) => Ok(Reading::Joules(counter.take(gpu.total_energy_mj()?)?)),
            Source::File(sensor, Some(counter)) => Ok(Reading::Joules(counter.take(sensor.read()?)?)),
            Source::File(sensor, None) => Ok(Reading::Watts(sensor.read()? as f64 * 1e-6)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_of_device_finds_its_sensor_or_says_why_not() {
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        let rapl = r.join("class/powercap/intel-rapl:0");
        std::fs::create_dir_all(&rapl).unwrap();
        std::fs::write(rapl.join("name"), "package-0\n").unwrap();
        std::fs::write(rapl.join("energy_uj"), "1000000\n").unwrap();
        std::fs::write(rapl.join("max_energy_range_uj"), "262143328850\n").unwrap();
        let uuid = [0; 16];
        let cpu = Identity { vendor: 0x10005, uuid: &uuid, pci: None, cpu: true };
        let mut sensor = EnergySensor::find(&cpu, r).unwrap();
        assert_eq!(sensor.name, "RAPL package-0");
        assert!(sensor.counts_energy());
        assert_eq!(sensor.read().unwrap(), Reading::Joules(0.0));
        std::fs::write(rapl.join("energy_uj"), "3500000\n").unwrap();
        assert_eq!(sensor.read().unwrap(), Reading::Joules(2.5));
        let amd = Identity { vendor: 0x1002, uuid: &uuid, pci: Some("0000:1b:00.0"), cpu: false };
        let why = EnergySensor::find(&amd, r).err().unwrap();
        assert!(why.starts_with("no ") && why.contains("hwmon"), "{why}");
        // A GPU whose hwmon device has only power readings: named as no counter.
        let hwmon = r.join("class/hwmon/hwmon5");
        std::fs::create_dir_all(&hwmon).unwrap();
        std::fs::write(hwmon.join("name"), "amdgpu\n").unwrap();
        std::fs::write(hwmon.join("power1_average"), "250000000\n").unwrap();
        let device = r.join("devices/pci0000:00/0000:1b:00.0");
        std::fs::create_dir_all(&device).unwrap();
        std::os::unix::fs::symlink(&device, hwmon.join("device")).unwrap();
        let mut power = EnergySensor::find(&amd, r).unwrap();
        assert_eq!(power.name, "hwmon amdgpu power1_average (power readings, not an integrating counter)");
        assert!(!power.counts_energy());
        assert_eq!(power.read().unwrap(), Reading::Watts(250.0));
        std::fs::remove_dir_all(&hwmon).unwrap();
        let no_pci = Identity { pci: None, ..amd };
        assert!(EnergySensor::find(&no_pci, r).err().unwrap().contains("no PCI address"));
        // CI has no NVIDIA driver: NVML says why.
        let nvidia = Identity { vendor: 0x10de, ..amd };
        if let Err(why) = EnergySensor::find(&nvidia, r) {
            assert!(why.starts_with("NVML "), "{why}");
        }
    }
}
