//! Datasheet facts of boards perftest has been measured on, by PCI id: what a report holds the
//! measured memory rates against. A board not listed has no datasheet line, never a guess.

/// A board's datasheet memory.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Board {
    /// The board (`H100 SXM5 80GB`).
    pub name: &'static str,
    /// Its memory (`80 GB HBM3`).
    pub memory: &'static str,
    /// The datasheet's memory bandwidth, bytes per second.
    pub memory_bytes_per_s: f64,
    /// Where the figure comes from.
    pub source: &'static str,
}

/// The known boards: vendor id, device id, board.
const BOARDS: &[(u32, u32, Board)] = &[
    (
        0x10de,
        0x2330,
        Board {
            name: "H100 SXM5 80GB",
            memory: "80 GB HBM3",
            memory_bytes_per_s: 3.35e12,
            source: "NVIDIA H100 Tensor Core GPU datasheet: H100 SXM, GPU memory bandwidth 3.35 TB/s",
        },
    ),
    (
        0x10de,
        0x2335,
        Board {
            name: "H200 SXM 141GB",
            memory: "141 GB HBM3e",
            memory_bytes_per_s: 4.8e12,
            source: "NVIDIA H200 Tensor Core GPU datasheet: H200 SXM, GPU memory bandwidth 4.8 TB/s",
        },
    ),
];

/// The board with `vendor_id` and `device_id`, if perftest knows its datasheet.
pub fn board(vendor_id: u32, device_id: u32) -> Option<&'static Board> {
    BOARDS.iter().find(|(v, d, _)| *v == vendor_id && *d == device_id).map(|(_, _, board)| board)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_measured_boards_are_known_and_others_are_not() {
        assert_eq!(board(0x10de, 0x2330).map(|b| b.memory_bytes_per_s), Some(3.35e12));
        assert_eq!(board(0x10de, 0x2335).map(|b| b.name), Some("H200 SXM 141GB"));
        assert!(board(0x10de, 0x2331).is_none(), "the H100 PCIe has other memory");
        assert!(board(0x10005, 0).is_none());
    }
}
