//! Peak rates per clock per compute unit of known GPU architectures: the ceilings results are held against.
//!
//! A case's work unit names the [`Ceiling`] that bounds it (fp32 FMA, L1 bytes, ...); the device's
//! vendor and PCI device id pick an [`Architecture`], which gives that ceiling per clock per
//! compute unit. Where either is unknown, perftest says "peak unknown" rather than guess.
//! Every row states its source; add an architecture only with one.

/// What bounds a work unit's rate: one figure per clock per compute unit on a known architecture.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Ceiling {
    /// fp32 fused multiply-adds, counted as 2 FLOP each.
    Fp32Fma,
    /// Packed fp16 (f16vec2) fused multiply-adds, counted as 2 FLOP per component.
    Fp16Fma,
    /// fp64 fused multiply-adds, counted as 2 FLOP each.
    Fp64Fma,
    /// 32-bit integer multiply-adds, counted as 2 operations each.
    Int32Mad,
    /// Bytes delivered from the L1 / texture cache to the shader.
    L1Bytes,
    /// Dense fp16 tensor-core multiply-adds (fp16 or fp32 accumulation), 2 FLOP each.
    TensorFp16,
    /// Dense bfloat16 tensor-core multiply-adds (fp32 accumulation), 2 FLOP each.
    TensorBf16,
    /// Dense 8-bit integer tensor-core multiply-adds, 2 operations each.
    TensorInt8,
    /// Bytes across the host link (PCIe) one way: a rate of the link, not per clock or unit.
    HostLink,
    /// Instructions issued, per lane: no chain of one instruction per step runs faster (a rate
    /// above it is a chain the compiler shortened).
    Issue,
}

impl Ceiling {
    /// What the ceiling is, for text (`fp32 FMA`).
    pub fn name(self) -> &'static str {
        match self {
            Ceiling::Fp32Fma => "fp32 FMA",
            Ceiling::Fp16Fma => "fp16 FMA",
            Ceiling::Fp64Fma => "fp64 FMA",
            Ceiling::Int32Mad => "int32 multiply-add",
            Ceiling::L1Bytes => "L1",
            Ceiling::TensorFp16 => "fp16 tensor",
            Ceiling::TensorBf16 => "bf16 tensor",
            Ceiling::TensorInt8 => "int8 tensor",
            Ceiling::HostLink => "host link",
            Ceiling::Issue => "instruction issue",
        }
    }
}

/// A GPU architecture's peak rates per clock per compute unit, with where they come from.
#[derive(Debug, PartialEq)]
pub struct Architecture {
    /// Its name (`NVIDIA Hopper (GH100)`).
    pub name: &'static str,
    /// PCI vendor id.
    pub vendor_id: u32,
    /// The PCI device ids it covers, inclusive.
    pub device_ids: (u32, u32),
    /// Per ceiling: the work units per clock per compute unit (FLOP, operations or bytes).
    pub peaks: &'static [(Ceiling, f64)],
    /// Where the figures come from.
    pub source: &'static str,
}

impl Architecture {
    /// The ceiling's work units per clock per compute unit, if this architecture's is known.
    pub fn peak(&self, ceiling: Ceiling) -> Option<f64> {
        self.peaks.iter().find(|(c, _)| *c == ceiling).map(|(_, v)| *v)
    }
}

/// NVIDIA's PCI vendor id.
pub const NVIDIA: u32 = 0x10de;

/// The known architectures. A lane doing one FMA per clock is 2 FLOP per clock.
pub const ARCHITECTURES: &[Architecture] = &[Architecture {
    name: "NVIDIA Hopper (GH100)",
    vendor_id: NVIDIA,
    // GH100 boards (H100 PCIe 0x2331, H100 SXM5 0x2330, H100 NVL 0x2321, H200 0x2335, GH200
    // 0x2342, ...) all sit in 0x23xx in the PCI ID repository; other chips use other blocks.
    device_ids: (0x2300, 0x23ff),
    peaks: &[
        (Ceiling::Fp32Fma, 256.0),     // 128 fp32 lanes
        (Ceiling::Fp16Fma, 512.0),     // packed fp16 at twice fp32
        (Ceiling::Fp64Fma, 128.0),     // 64 fp64 lanes
        (Ceiling::Int32Mad, 128.0),    // 64 int32 lanes
        (Ceiling::L1Bytes, 128.0),     // 128 B per clock from L1 / shared memory
        (Ceiling::TensorFp16, 4096.0), // dense fp16 tensor: 989 TFLOPS at 1830 MHz on 132 SMs
        (Ceiling::TensorBf16, 4096.0), // dense bf16 tensor: as fp16
        (Ceiling::TensorInt8, 8192.0), // dense int8 tensor: 1979 TOPS likewise
        (Ceiling::Issue, 128.0),       // 4 schedulers, one 32-lane warp instruction each per clock
    ],
    source:
        "NVIDIA H100 Tensor Core GPU Architecture whitepaper (per SM: 128 FP32, 64 FP64, 64 INT32 \
             units) and the CUDA C++ Programming Guide's arithmetic throughput table for compute \
             capability 9.0 (fp16 at 2x fp32); 128 B/clk/SM L1 as measured with CUDA on the same card \
             (123 B/clk/SM float4 loads, 125.8 B/clk/SM shared memory); dense tensor rates from the \
             whitepaper's H100 SXM5 table (989.4 fp16 and bf16 TFLOPS, 1978.9 int8 TOPS at 1830 MHz, 132 SMs); \
             instruction issue from the whitepaper's SM diagram (four partitions, each one warp \
             scheduler dispatching 32 threads per clock)",
}];

/// The architecture of the device with `vendor_id` and `device_id`, if perftest knows it.
pub fn architecture(vendor_id: u32, device_id: u32) -> Option<&'static Architecture> {
    ARCHITECTURES
        .iter()
        .find(|a| a.vendor_id == vendor_id && (a.device_ids.0..=a.device_ids.1).contains(&device_id))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hopper_boards_are_known_and_other_devices_are_not() {
        for id in [0x2330, 0x2331, 0x2321, 0x2335, 0x2342] {
            let arch = architecture(NVIDIA, id).unwrap_or_else(|| panic!("0x{id:04x}"));
            assert_eq!(arch.peak(Ceiling::Fp32Fma), Some(256.0));
            assert_eq!(arch.peak(Ceiling::L1Bytes), Some(128.0));
        }
        // An RTX 4090 (AD102), lavapipe (vendor 0x10005), and an AMD id in the same range.
        assert!(architecture(NVIDIA, 0x2684).is_none());
        assert!(architecture(0x10005, 0).is_none());
        assert!(architecture(0x1002, 0x2330).is_none());
    }

    #[test]
    fn the_table_is_consistent() {
        for arch in ARCHITECTURES {
            assert!(arch.device_ids.0 <= arch.device_ids.1, "{}", arch.name);
            assert!(!arch.source.is_empty());
            for (ceiling, peak) in arch.peaks {
                assert!(*peak > 0.0 && peak.is_finite(), "{} {ceiling:?}", arch.name);
            }
            let ranges_overlap = ARCHITECTURES.iter().filter(|b| !std::ptr::eq(*b, arch)).any(|b| {
                b.vendor_id == arch.vendor_id
                    && b.device_ids.0 <= arch.device_ids.1
                    && arch.device_ids.0 <= b.device_ids.1
            });
            assert!(!ranges_overlap, "{} overlaps another row", arch.name);
        }
    }
}
