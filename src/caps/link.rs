//! The host link: the PCIe link a discrete GPU's host reads and host copies cross, read from
//! Linux's sysfs at the address VK_EXT_pci_bus_info gives, so host transfers can be shown as a
//! share of what the link carries.

use std::path::Path;

/// Where Linux lists PCI devices.
pub const SYSFS: &str = "/sys/bus/pci/devices";

/// A PCIe link as the kernel reports it now (a link may train below its maximum).
#[derive(Clone, Debug, PartialEq)]
pub struct HostLink {
    /// The PCI address, `DDDD:BB:DD.F`.
    pub address: String,
    /// Its lanes.
    pub lanes: Lanes,
}

/// A link's lanes: how many, and their rate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lanes {
    /// Transfers per second per lane, GT/s.
    pub gts: f64,
    /// Lanes.
    pub width: u32,
}

impl Lanes {
    /// Payload bytes per second each way: the lanes' bit rate after the line encoding (8b/10b up
    /// to 5 GT/s, 128b/130b from 8 GT/s, 242B/256B flits at 64 GT/s), before packet headers.
    pub fn bytes_per_s(&self) -> f64 {
        let encoding = match self.gts {
            g if g <= 5.0 => 8.0 / 10.0,
            g if g < 64.0 => 128.0 / 130.0,
            _ => 242.0 / 256.0,
        };
        self.gts * 1e9 * f64::from(self.width) * encoding / 8.0
    }

    /// The PCIe generation of the lane rate, where it is one of the standard rates.
    pub fn generation(&self) -> Option<u32> {
        [2.5, 5.0, 8.0, 16.0, 32.0, 64.0]
            .iter()
            .position(|&g| (self.gts - g).abs() < 0.01)
            .map(|i| i as u32 + 1)
    }

    /// `PCIe Gen5 x16`, or `PCIe x4 (20.0 GT/s)` for a rate no generation has.
    pub fn name(&self) -> String {
        match self.generation() {
            Some(generation) => format!("PCIe Gen{generation} x{}", self.width),
            None => format!("PCIe x{} ({:.1} GT/s)", self.width, self.gts),
        }
    }
}

impl HostLink {
    /// `PCIe Gen5 x16 (32.0 GT/s) at 0000:00:06.0: 63.02 GB/s each way`.
    pub fn describe(&self) -> String {
        let lanes = &self.lanes;
        let rate =
            if lanes.generation().is_some() { format!(" ({:.1} GT/s)", lanes.gts) } else { String::new() };
        format!("{}{rate} at {}: {:.2} GB/s each way", lanes.name(), self.address, lanes.bytes_per_s() / 1e9)
    }
}

/// The PCI address `DDDD:BB:DD.F` of VK_EXT_pci_bus_info's four numbers.
pub fn address(domain: u32, bus: u32, device: u32, function: u32) -> String {
    format!("{domain:04x}:{bus:02x}:{device:02x}.{function:x}")
}

/// The lane rate of sysfs's `current_link_speed` (`32.0 GT/s PCIe`, `8 GT/s`, `2.5 GT/s`);
/// `None` for `Unknown` or anything else.
pub fn parse_speed(text: &str) -> Option<f64> {
    let gts: f64 =
        text.trim().strip_suffix("PCIe").unwrap_or(text).trim().strip_suffix("GT/s")?.trim().parse().ok()?;
    (gts.is_finite() && gts > 0.0).then_some(gts)
}

/// The link of the device at `address`, read under `root` (normally [`SYSFS`]); a sentence
/// saying why not where it cannot be read.
pub fn read(root: &Path, address: &str) -> Result<HostLink, String> {
    let folder = root.join(address);
    let field = |name: &str| {
        let path = folder.join(name);
        std::fs::read_to_string(&path).map_err(|e| format!("{} could not be read ({e})", path.display()))
    };
    let speed = field("current_link_speed")?;
    let gts = parse_speed(&speed)
        .ok_or_else(|| format!("the kernel gives the link's speed as \"{}\"", speed.trim()))?;
    let width_text = field("current_link_width")?;
    let width = width_text
        .trim()
        .parse::<u32>()
        .ok()
        .filter(|&w| w > 0)
        .ok_or_else(|| format!("the kernel gives the link's width as \"{}\"", width_text.trim()))?;
    Ok(HostLink { address: address.to_owned(), lanes: Lanes { gts, width } })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speeds_parse_as_sysfs_writes_them() {
        assert_eq!(parse_speed("32.0 GT/s PCIe\n"), Some(32.0));
        assert_eq!(parse_speed("8 GT/s"), Some(8.0));
        assert_eq!(parse_speed("2.5 GT/s PCIe"), Some(2.5));
        assert_eq!(parse_speed("Unknown"), None);
        assert_eq!(parse_speed("0 GT/s"), None);
    }

    #[test]
    fn a_link_carries_its_lanes_after_the_encoding() {
        let gen5 = HostLink { address: address(0, 0, 6, 0), lanes: Lanes { gts: 32.0, width: 16 } };
        let rate = gen5.lanes.bytes_per_s();
        assert!((rate / 1e9 - 63.015).abs() < 0.001, "{rate}");
        assert_eq!(gen5.describe(), "PCIe Gen5 x16 (32.0 GT/s) at 0000:00:06.0: 63.02 GB/s each way");
        let gen2 = Lanes { gts: 5.0, width: 8 };
        assert_eq!(gen2.bytes_per_s(), 4e9, "8b/10b: 5 GT/s x8 carries 4 GB/s");
        assert_eq!(address(1, 0x81, 0x1f, 7), "0001:81:1f.7");
        let odd = HostLink { address: "x".into(), lanes: Lanes { gts: 20.0, width: 4 } };
        assert_eq!(odd.lanes.generation(), None);
        assert_eq!(odd.describe(), "PCIe x4 (20.0 GT/s) at x: 9.85 GB/s each way");
    }

    #[test]
    fn a_link_is_read_from_its_folder_or_the_reason_is_given() {
        let root = std::env::temp_dir().join(format!("perftest-link-{}", std::process::id()));
        let folder = root.join("0000:00:06.0");
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join("current_link_speed"), "32.0 GT/s PCIe\n").unwrap();
        std::fs::write(folder.join("current_link_width"), "16\n").unwrap();
        let link = read(&root, "0000:00:06.0").unwrap();
        assert_eq!(link.lanes, Lanes { gts: 32.0, width: 16 });
        std::fs::write(folder.join("current_link_width"), "0\n").unwrap();
        assert_eq!(read(&root, "0000:00:06.0").unwrap_err(), "the kernel gives the link's width as \"0\"");
        std::fs::write(folder.join("current_link_speed"), "Unknown\n").unwrap();
        assert_eq!(
            read(&root, "0000:00:06.0").unwrap_err(),
            "the kernel gives the link's speed as \"Unknown\""
        );
        let missing = read(&root, "0000:00:07.0").unwrap_err();
        assert!(missing.contains("0000:00:07.0/current_link_speed could not be read ("), "{missing}");
        std::fs::remove_dir_all(root).unwrap();
    }
}
