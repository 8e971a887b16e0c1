//! The host link: the PCIe link a discrete GPU's host reads and host copies cross, read from
//! Linux's sysfs at the address VK_EXT_pci_bus_info gives, so host transfers can be shown as a
//! share of what the link carries. A link trains down when idle (consumer GPUs drop to 2.5 GT/s),
//! so the share is of what it can carry: the lesser of the GPU's and its upstream port's
//! `max_link_speed` and `max_link_width`; the speed it read at the time is shown beside it.

use std::path::Path;

/// Where Linux lists PCI devices.
pub const SYSFS: &str = "/sys/bus/pci/devices";

/// A PCIe link as the kernel reports it.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct HostLink {
    /// The PCI address, `DDDD:BB:DD.F`.
    pub address: String,
    /// What it can carry: the lesser of both ends' maximum speed and width.
    pub lanes: Lanes,
    /// What it ran at when it was read (`current_link_speed`, `current_link_width`).
    pub current: Lanes,
}

/// A link's lanes: how many, and their rate.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
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
    /// `PCIe Gen5 x16 (32.0 GT/s) at 0000:00:06.0: 63.02 GB/s each way`, and where the link ran
    /// slower when read, `; PCIe Gen1 x16 when read (an idle link trains down)`.
    pub fn describe(&self) -> String {
        let lanes = &self.lanes;
        let rate =
            if lanes.generation().is_some() { format!(" ({:.1} GT/s)", lanes.gts) } else { String::new() };
        let mut text = format!(
            "{}{rate} at {}: {:.2} GB/s each way",
            lanes.name(),
            self.address,
            lanes.bytes_per_s() / 1e9
        );
        if self.current != self.lanes {
            text.push_str(&format!("; {} when read (an idle link trains down)", self.current.name()));
        }
        text
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

/// The lanes of the link of the PCI function in `folder`: `current` or `max`.
fn lanes(folder: &Path, which: &str) -> Result<Lanes, String> {
    let field = |name: String| {
        let path = folder.join(&name);
        crate::bounded::read_attribute(&path)
            .map_err(|e| format!("{} could not be read ({e})", path.display()))
    };
    let speed = field(format!("{which}_link_speed"))?;
    let gts = parse_speed(&speed)
        .ok_or_else(|| format!("the kernel gives the link's {which} speed as \"{}\"", speed.trim()))?;
    let width_text = field(format!("{which}_link_width"))?;
    let width =
        width_text.trim().parse::<u32>().ok().filter(|&w| w > 0).ok_or_else(|| {
            format!("the kernel gives the link's {which} width as \"{}\"", width_text.trim())
        })?;
    Ok(Lanes { gts, width })
}

/// The link of the device at `address`, read under `root` (normally [`SYSFS`]): what it can
/// carry (the lesser of its own and its upstream port's maximum, where the port tells) and what
/// it ran at; a sentence saying why not where it cannot be read.
pub fn read(root: &Path, address: &str) -> Result<HostLink, String> {
    let folder = root.join(address);
    let current = lanes(&folder, "current")?;
    let own = lanes(&folder, "max").unwrap_or(current);
    // The device's folder is a link into the bridge it hangs off; a root complex tells nothing.
    let upstream = folder.canonicalize().ok().and_then(|f| f.parent().map(Path::to_path_buf));
    let port = upstream.and_then(|f| lanes(&f, "max").ok()).unwrap_or(own);
    let lanes = Lanes { gts: own.gts.min(port.gts), width: own.width.min(port.width) };
    Ok(HostLink { address: address.to_owned(), lanes, current })
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
        let five = Lanes { gts: 32.0, width: 16 };
        let gen5 = HostLink { address: address(0, 0, 6, 0), lanes: five, current: five };
        let rate = gen5.lanes.bytes_per_s();
        assert!((rate / 1e9 - 63.015).abs() < 0.001, "{rate}");
        assert_eq!(gen5.describe(), "PCIe Gen5 x16 (32.0 GT/s) at 0000:00:06.0: 63.02 GB/s each way");
        let gen2 = Lanes { gts: 5.0, width: 8 };
        assert_eq!(gen2.bytes_per_s(), 4e9, "8b/10b: 5 GT/s x8 carries 4 GB/s");
        assert_eq!(address(1, 0x81, 0x1f, 7), "0001:81:1f.7");
        let odd = Lanes { gts: 20.0, width: 4 };
        let idle = HostLink { address: "x".into(), lanes: odd, current: Lanes { gts: 2.5, width: 4 } };
        assert_eq!(odd.generation(), None);
        assert_eq!(
            idle.describe(),
            "PCIe x4 (20.0 GT/s) at x: 9.85 GB/s each way; PCIe Gen1 x4 when read (an idle link trains down)"
        );
    }

    #[test]
    fn a_link_is_what_both_ends_can_carry_or_the_reason_is_given() {
        let root = std::env::temp_dir().join(format!("perftest-link-{}", std::process::id()));
        // An earlier process of the same number may have left its links.
        let _ = std::fs::remove_dir_all(&root);
        let write = |folder: &Path, which: &str, speed: &str, width: &str| {
            std::fs::create_dir_all(folder).unwrap();
            std::fs::write(folder.join(format!("{which}_link_speed")), speed).unwrap();
            std::fs::write(folder.join(format!("{which}_link_width")), width).unwrap();
        };
        // A Gen5 x16 GPU idling at Gen1 behind a Gen4 x16 port, as sysfs nests them.
        let port = root.join("bridge");
        let gpu = port.join("0000:01:00.0");
        write(&port, "max", "16.0 GT/s PCIe\n", "16\n");
        write(&gpu, "max", "32.0 GT/s PCIe\n", "16\n");
        write(&gpu, "current", "2.5 GT/s PCIe\n", "16\n");
        std::os::unix::fs::symlink(&gpu, root.join("0000:01:00.0")).unwrap();
        let link = read(&root, "0000:01:00.0").unwrap();
        assert_eq!(link.lanes, Lanes { gts: 16.0, width: 16 }, "the port's Gen4 bounds the link");
        assert_eq!(link.current, Lanes { gts: 2.5, width: 16 });
        // Without maxima (a virtual machine's root complex), the current link is all there is.
        let flat = root.join("0000:00:06.0");
        write(&flat, "current", "32.0 GT/s PCIe\n", "16\n");
        let link = read(&root, "0000:00:06.0").unwrap();
        assert_eq!(
            (link.lanes, link.current),
            (Lanes { gts: 32.0, width: 16 }, Lanes { gts: 32.0, width: 16 })
        );
        write(&flat, "current", "32.0 GT/s PCIe\n", "0\n");
        assert_eq!(
            read(&root, "0000:00:06.0").unwrap_err(),
            "the kernel gives the link's current width as \"0\""
        );
        write(&flat, "current", "Unknown\n", "16\n");
        assert_eq!(
            read(&root, "0000:00:06.0").unwrap_err(),
            "the kernel gives the link's current speed as \"Unknown\""
        );
        let missing = read(&root, "0000:00:07.0").unwrap_err();
        assert!(missing.contains("0000:00:07.0/current_link_speed could not be read ("), "{missing}");
        std::fs::remove_dir_all(root).unwrap();
    }
}
