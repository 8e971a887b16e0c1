//! Queue families by kind: where a transfer can run besides the run's own queue. A device may
//! have a graphics family (graphics, compute and transfer), compute-only families (async
//! compute) and transfer-only families (the copy engines); the copy family times
//! `vkCmdCopyBuffer` on each kind the device has.

use ash::vk;

/// What a queue family can do, as the device reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueueFamily {
    /// `queueFlags`.
    pub flags: vk::QueueFlags,
    /// `timestampValidBits` (0: no timestamps on its queues).
    pub timestamp_valid_bits: u32,
}

/// A kind of queue family.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum QueueKind {
    /// Graphics (and so compute and transfer).
    Graphics,
    /// Compute without graphics: async compute.
    ComputeOnly,
    /// Transfer without graphics or compute: a copy engine.
    TransferOnly,
}

impl QueueKind {
    /// Every kind, in the order cases name them.
    pub const ALL: [QueueKind; 3] = [QueueKind::Graphics, QueueKind::ComputeOnly, QueueKind::TransferOnly];

    /// How names and reasons say it (`transfer-only`).
    pub fn label(self) -> &'static str {
        match self {
            QueueKind::Graphics => "graphics",
            QueueKind::ComputeOnly => "compute-only",
            QueueKind::TransferOnly => "transfer-only",
        }
    }

    /// Whether a family with `flags` is of this kind.
    pub fn matches(self, flags: vk::QueueFlags) -> bool {
        let (graphics, compute) =
            (flags.contains(vk::QueueFlags::GRAPHICS), flags.contains(vk::QueueFlags::COMPUTE));
        match self {
            QueueKind::Graphics => graphics,
            QueueKind::ComputeOnly => compute && !graphics,
            QueueKind::TransferOnly => flags.contains(vk::QueueFlags::TRANSFER) && !graphics && !compute,
        }
    }

    /// The first family of this kind among `families`, by index.
    pub fn family(self, families: &[QueueFamily]) -> Option<u32> {
        families.iter().position(|f| self.matches(f.flags)).map(|i| i as u32)
    }

    /// Why a transfer cannot be timed on this kind of family of a device with `families`; `None`
    /// where it can.
    pub fn unmet(self, families: &[QueueFamily]) -> Option<String> {
        let Some(index) = self.family(families) else {
            return Some(format!("the device has no {} queue family", self.label()));
        };
        (families[index as usize].timestamp_valid_bits == 0).then(|| {
            format!(
                "the device's {} queue family {index} has no timestamps (timestampValidBits 0)",
                self.label()
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vk::QueueFlags as Q;

    /// The H100's families as the NVIDIA driver reports them (580.159.04).
    fn h100() -> Vec<QueueFamily> {
        let family = |flags, bits| QueueFamily { flags, timestamp_valid_bits: bits };
        vec![
            family(Q::GRAPHICS | Q::COMPUTE | Q::TRANSFER | Q::SPARSE_BINDING, 64),
            family(Q::TRANSFER | Q::SPARSE_BINDING, 64),
            family(Q::COMPUTE | Q::TRANSFER | Q::SPARSE_BINDING, 64),
            family(Q::VIDEO_DECODE_KHR, 64),
        ]
    }

    #[test]
    fn each_kind_finds_its_first_family() {
        let families = h100();
        let found: Vec<Option<u32>> = QueueKind::ALL.iter().map(|k| k.family(&families)).collect();
        assert_eq!(found, [Some(0), Some(2), Some(1)]);
        assert!(QueueKind::ALL.iter().all(|k| k.unmet(&families).is_none()));
    }

    #[test]
    fn a_missing_kind_or_timestamps_is_a_reason() {
        // lavapipe: one family that does everything.
        let one = [QueueFamily { flags: Q::GRAPHICS | Q::COMPUTE | Q::TRANSFER, timestamp_valid_bits: 64 }];
        assert_eq!(QueueKind::Graphics.unmet(&one), None);
        assert_eq!(
            QueueKind::TransferOnly.unmet(&one).unwrap(),
            "the device has no transfer-only queue family"
        );
        let mut families = h100();
        families[1].timestamp_valid_bits = 0;
        assert_eq!(
            QueueKind::TransferOnly.unmet(&families).unwrap(),
            "the device's transfer-only queue family 1 has no timestamps (timestampValidBits 0)"
        );
    }
}
