//! The corruption screen's chains: fp32, fp16, fp64 and int32 multiply-add chains whose every result
//! bit is known, checked by the shader itself during timed work (glsl/sdc.glsl).
//!
//! Each invocation runs 16 chains of 1024 steps from start values in a table and compares each
//! chain's end with its known bits, which the CPU computes here with the same IEEE operations
//! (`f32::mul_add`, `f64::mul_add`, wrapping integer arithmetic). The chains keep every
//! perturbation to their end: int32's map is a bijection; the floats' multiplier is a little
//! above 1 in size and every value stays in one binade (`the_chains_stay_in_their_binade`).

use super::{not_understood, Injection, GROUP, GROUP_UNITS};
use crate::caps::{Ceiling, Feature, Requirements};
use crate::record::faults::{LOG_BYTES, RECORDS};
use crate::registry::{CaseSpec, Glsl, Push, Resource, Unit, Value, Work};

/// Independent chains per invocation, and the results each checks.
const CHAINS: u32 = 16;
/// Multiply-adds per chain (fp16's: [`Kind::iterations`]).
const ITERATIONS: u32 = 1024;
/// Chain steps per unrolled loop trip.
const UNROLL: u32 = 32;
/// Start values (and known ends) in the table.
const SLOTS: usize = 64;

const GLSL: Glsl = Glsl { file: "sdc.glsl", source: include_str!("../../../glsl/sdc.glsl") };

/// The arithmetic a chain runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Int32,
    Fp32,
    Fp64,
    /// f16vec2: two independent chains a lane.
    Fp16,
}

impl Kind {
    pub(super) const ALL: [Kind; 4] = [Kind::Fp32, Kind::Fp16, Kind::Fp64, Kind::Int32];

    fn name(self) -> &'static str {
        match self {
            Kind::Int32 => "SDC int32 multiply-add chains",
            Kind::Fp32 => "SDC fp32 FMA chains",
            Kind::Fp64 => "SDC fp64 FMA chains",
            Kind::Fp16 => "SDC fp16 FMA chains (f16vec2)",
        }
    }

    fn define(self) -> &'static str {
        match self {
            Kind::Int32 => "SDC_INT32",
            Kind::Fp32 => "SDC_FP32",
            Kind::Fp64 => "SDC_FP64",
            Kind::Fp16 => "SDC_FP16",
        }
    }

    /// The multiply-add's constants `a` and `b`, as bits.
    fn constants(self) -> (u64, u64) {
        match self {
            // An LCG step: a odd, so x -> a x + b is a bijection modulo 2^32.
            Kind::Int32 => (1_664_525, 1_013_904_223),
            // a = -(1 + 2^-12 + 0x5A5 x 2^-23): 12 of its fraction bits set; b = 24 + 0x2B6D3 x 2^-19.
            Kind::Fp32 => (u64::from(0xBF80_0000u32 | 1 << 11 | 0x5A5), u64::from(0x41C0_0000u32 | 0x2_B6D3)),
            // a = -(1 + 2^-12 + a dense 40-bit fraction), b = 24 + a dense 47-bit fraction.
            Kind::Fp64 => {
                (0xBFF0_0000_0000_0000 | 1 << 40 | 0xA5_C3B2_9E4D, 0x4038_0000_0000_0000 | 0x5B6D_3A2C_9E17)
            }
            // Both lanes: a = -(1 + 2^-10), the half nearest -1 from below; b = 24 + 2^-6, so the
            // fixed point is about 12.002.
            Kind::Fp16 => (0xBC01_BC01, 0x4E01_4E01),
        }
    }

    /// One step of a chain, on bits.
    fn step(self, x: u64) -> u64 {
        let (a, b) = self.constants();
        match self {
            Kind::Int32 => u64::from((x as u32).wrapping_mul(a as u32).wrapping_add(b as u32)),
            Kind::Fp32 => {
                let f = |bits: u64| f32::from_bits(bits as u32);
                u64::from(f(x).mul_add(f(a), f(b)).to_bits())
            }
            Kind::Fp64 => f64::from_bits(x).mul_add(f64::from_bits(a), f64::from_bits(b)).to_bits(),
            // Each lane's product (11 x 11 significant bits) and sum are exact in f64: one rounding,
            // to half, as a fused half FMA (or an fp32 one and a conversion) gives.
            Kind::Fp16 => {
                let lane = |x: u64, shift: u32| {
                    let h = |bits: u64| half_to_f64((bits >> shift) as u16);
                    u64::from(f64_to_half(h(x) * h(a) + h(b))) << shift
                };
                lane(x, 0) | lane(x, 16)
            }
        }
    }

    /// Start value `slot`, as bits: for the floats, within 2 of the chain's fixed point
    /// b / (1 - a) (about 12.2) with every fraction bit drawn; for int32 any word.
    fn start(self, slot: usize) -> u64 {
        let draw = splitmix(slot as u64 + 1);
        let (a, b) = self.constants();
        match self {
            Kind::Int32 => draw & 0xFFFF_FFFF,
            Kind::Fp32 => {
                let (a, b) = (f64::from(f32::from_bits(a as u32)), f64::from(f32::from_bits(b as u32)));
                let offset = (draw >> 11) as f64 / (1u64 << 53) as f64 * 4.0 - 2.0;
                u64::from(((b / (1.0 - a) + offset) as f32).to_bits())
            }
            Kind::Fp64 => {
                let (a, b) = (f64::from_bits(a), f64::from_bits(b));
                let offset = (draw >> 11) as f64 / (1u64 << 53) as f64 * 4.0 - 2.0;
                (b / (1.0 - a) + offset).to_bits()
            }
            // Within 1.2 of the fixed point: |a|^512 is 1.65, so a lane stays in [8, 16) with room
            // for the roundings' drift.
            Kind::Fp16 => {
                let (a, b) = (half_to_f64(a as u16), half_to_f64(b as u16));
                let lane = |bits: u64| {
                    let offset = (bits & 0xFFFF_FFFF) as f64 / 4_294_967_296.0 * 2.4 - 1.2;
                    u64::from(f64_to_half(b / (1.0 - a) + offset))
                };
                lane(draw) | lane(draw >> 32) << 16
            }
        }
    }

    /// The bits chain `slot` ends with.
    fn end(self, slot: usize) -> u64 {
        (0..self.iterations()).fold(self.start(slot), |x, _| self.step(x))
    }
}

/// A half's value (normal and subnormal halves; the chains meet no other).
fn half_to_f64(h: u16) -> f64 {
    let sign = if h >> 15 == 1 { -1.0 } else { 1.0 };
    let (exponent, fraction) = (i32::from(h >> 10 & 0x1F), f64::from(h & 0x3FF));
    match exponent {
        0 => sign * fraction * (-24f64).exp2(),
        31 => f64::NAN,
        e => sign * (1.0 + fraction / 1024.0) * f64::from(e - 15).exp2(),
    }
}

/// `x` rounded to the nearest normal half, ties to even (the NaN half where `x` has none).
fn f64_to_half(x: f64) -> u16 {
    let sign = u16::from(x.is_sign_negative()) << 15;
    let magnitude = x.abs();
    if !(magnitude >= (-14f64).exp2() && magnitude < 65504.0) {
        return 0x7E00;
    }
    let exponent = magnitude.log2().floor() as i32;
    // The unit in the last place at that exponent; a round up to the next binade carries.
    let ulp = f64::from(exponent - 10).exp2();
    let units = (magnitude / ulp).round_ties_even() as u32;
    let (exponent, units) = if units == 2048 { (exponent + 1, 1024) } else { (exponent, units) };
    sign | ((exponent + 15) as u16) << 10 | (units - 1024) as u16
}

/// SplitMix64: the start values' draws (any fixed sequence of dense words would do).
fn splitmix(seed: u64) -> u64 {
    let mut z = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The table the shader reads: the start values, then the known ends, as (low, high) words.
fn table(kind: Kind) -> Vec<u64> {
    let starts = (0..SLOTS).map(|s| kind.start(s));
    let ends = (0..SLOTS).map(|s| kind.end(s));
    starts.chain(ends).collect()
}

/// What invocation `gid` writes in a verify run: its chains' ends, each word pair XORed, summed.
fn reference(ends: &[u64], gid: u32) -> Value {
    let total = (0..CHAINS).fold(0u32, |total, k| {
        let end = ends[((gid * CHAINS + k) & 63) as usize];
        total.wrapping_add(end as u32 ^ (end >> 32) as u32)
    });
    Value::U32(total)
}

/// The case of `kind` in workgroups of `width`; `sm_id` where the device names each unit.
pub(super) fn case(
    kind: Kind,
    width: u32,
    sm_id: bool,
    inject: Option<&Result<Injection, String>>,
    checked: bool,
) -> CaseSpec {
    let (a, b) = kind.constants();
    let words = [a as u32, (a >> 32) as u32, b as u32, (b >> 32) as u32];
    let cells = table(kind);
    let ends: Vec<u64> = cells[SLOTS..].to_vec();
    let fill = move |bytes: &mut [u8]| {
        for (chunk, cell) in bytes.chunks_exact_mut(8).zip(&cells) {
            chunk.copy_from_slice(&cell.to_le_bytes());
        }
    };
    let (chains, iterations, unroll, records) =
        (CHAINS.to_string(), kind.iterations().to_string(), UNROLL.to_string(), RECORDS.to_string());
    let steps = f64::from(CHAINS * kind.iterations() * kind.lanes());
    let (unit, ceiling, mut requires) = match kind {
        Kind::Int32 => (Unit::IntOp, Ceiling::Int32Mad, Requirements::new()),
        Kind::Fp32 => (Unit::Flop, Ceiling::Fp32Fma, Requirements::new()),
        Kind::Fp64 => (Unit::Flop, Ceiling::Fp64Fma, Requirements::new().feature(Feature::ShaderFloat64)),
        Kind::Fp16 => (Unit::Flop, Ceiling::Fp16Fma, Requirements::new().feature(Feature::ShaderFloat16)),
    };
    if sm_id {
        requires = requires.feature(Feature::ShaderSmBuiltins);
    }
    let mut case = CaseSpec::new(kind.name(), GLSL, [width, 1, 1])
        .narrowed_from(GROUP.into())
        .defines([
            (kind.define(), "1"),
            ("CHAINS", &*chains),
            ("ITERATIONS", &*iterations),
            ("UNROLL", &*unroll),
            ("RECORDS", &*records),
        ])
        .defines(sm_id.then_some(("SM_ID", "1")))
        .defines((!checked).then_some(("UNCHECKED", "1")))
        .resource(Resource::storage_buffer((2 * SLOTS * 8) as u64, fill))
        .resource(Resource::zeroed_storage_buffer(LOG_BYTES).read_write())
        .push(Push::words(&words))
        .work([Work::new(steps * 2.0, unit).bounded_by(ceiling)])
        .requires(requires)
        .reference(move |gid| reference(&ends, gid));
    if checked {
        case = case.logs_faults(1, u64::from(CHAINS));
    } else {
        case = case.note("corruption check compiled out (PERFTEST_SDC_CHECK=off)");
    }
    match inject {
        None => case,
        Some(Err(why)) => not_understood(case, why),
        Some(Ok(injection)) => {
            let (unit, bit) = (injection.unit.to_string(), injection.bit.min(kind.bits() - 1));
            let (bit_text, threshold) = (bit.to_string(), format!("{}u", injection.threshold(steps)));
            let target = if sm_id {
                format!("unit {unit}")
            } else {
                format!(
                    "the workgroups whose index modulo {GROUP_UNITS} is {unit} (no unit ids on this device)"
                )
            };
            let what = format!(
                "bit {bit} of a chain halfway, {:.3e} flips per multiply-add on {target}, seed {}",
                injection.effective_rate(steps),
                injection.seed
            );
            case.defines([
                ("INJECT", "1"),
                ("INJECT_UNIT", &*format!("{unit}u")),
                ("INJECT_BIT", &*format!("{bit_text}u")),
                ("INJECT_THRESHOLD", &*threshold),
                ("INJECT_SEED", &*format!("{}u", injection.seed)),
            ])
            .injected(what)
        }
    }
}

impl Kind {
    /// Bits of one chain value.
    fn bits(self) -> u32 {
        match self {
            Kind::Fp64 => 64,
            _ => 32,
        }
    }

    /// Steps of a chain. Half's roundings (a quarter of a unit of 1/128 each, at most) can add up
    /// step after step as the chain swings about its fixed point: 512 steps keep a lane's drift
    /// and its growth within [8, 16) (`the_chains_stay_in_their_binade`), 1024 do not.
    fn iterations(self) -> u32 {
        match self {
            Kind::Fp16 => ITERATIONS / 2,
            _ => ITERATIONS,
        }
    }

    /// Multiply-adds a chain's value holds per step (f16vec2: two lanes).
    fn lanes(self) -> u32 {
        match self {
            Kind::Fp16 => 2,
            _ => 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chains_stay_in_their_binade() {
        // Every float value of every chain lies in [8, 16): a unit in the last place is the same
        // size throughout, so a perturbation, which |a| > 1 grows, can never round away.
        for kind in [Kind::Fp32, Kind::Fp64, Kind::Fp16] {
            for slot in 0..SLOTS {
                let mut x = kind.start(slot);
                for step in 0..=kind.iterations() {
                    let values = match kind {
                        Kind::Fp32 => vec![f64::from(f32::from_bits(x as u32))],
                        Kind::Fp16 => vec![half_to_f64(x as u16), half_to_f64((x >> 16) as u16)],
                        _ => vec![f64::from_bits(x)],
                    };
                    for value in values {
                        assert!((8.0..16.0).contains(&value), "{kind:?} slot {slot} step {step}: {value}");
                    }
                    x = kind.step(x);
                }
            }
        }
    }

    #[test]
    fn a_flip_anywhere_in_a_chain_reaches_its_end() {
        // The property the screen rests on, tried exhaustively for one chain of each kind: every
        // bit of the value after 512 steps, flipped, changes the end.
        for kind in Kind::ALL {
            let half = (0..kind.iterations() / 2).fold(kind.start(5), |x, _| kind.step(x));
            let end = (0..kind.iterations() / 2).fold(half, |x, _| kind.step(x));
            assert_eq!(end, kind.end(5));
            for bit in 0..kind.bits() {
                let flipped = (0..kind.iterations() / 2).fold(half ^ 1 << bit, |x, _| kind.step(x));
                assert_ne!(flipped, end, "{kind:?}: bit {bit} flipped halfway did not reach the end");
            }
        }
    }

    #[test]
    fn the_constants_are_what_the_comments_say() {
        let (a, b) = Kind::Fp32.constants();
        let (a, b) = (f32::from_bits(a as u32), f32::from_bits(b as u32));
        assert!(a < -1.0 && a > -1.0005, "{a}");
        assert!((24.0..25.0).contains(&b), "{b}");
        let (a, b) = Kind::Fp64.constants();
        let (a, b) = (f64::from_bits(a), f64::from_bits(b));
        assert!(a < -1.0 && a > -1.0005 && (24.0..25.0).contains(&b), "{a} {b}");
        assert_eq!(Kind::Int32.constants().0 % 2, 1, "an odd multiplier keeps the map a bijection");
        // Start values use every fraction bit somewhere.
        let fraction = (0..SLOTS).fold(0u32, |all, s| all | Kind::Fp32.start(s) as u32) & 0x7F_FFFF;
        assert_eq!(fraction, 0x7F_FFFF);
    }

    #[test]
    fn halves_round_to_nearest_even() {
        assert_eq!(f64_to_half(1.0), 0x3C00);
        assert_eq!(f64_to_half(-(1.0 + 1.0 / 1024.0)), 0xBC01);
        assert_eq!(f64_to_half(24.0 + 1.0 / 64.0), 0x4E01);
        // 1 + 2^-11 is a tie: to even (1); 1 + 3 x 2^-11 rounds up to 1 + 2^-9.
        assert_eq!(f64_to_half(1.0 + 1.0 / 2048.0), 0x3C00);
        assert_eq!(f64_to_half(1.0 + 3.0 / 2048.0), 0x3C02);
        // 2047.5 rounds to 2048: the carry moves the exponent.
        assert_eq!(f64_to_half(2047.5), 0x6800);
        for h in [0x3C00u16, 0x4E2B, 0xBC01, 0x4A5A, 0x0400] {
            assert_eq!(f64_to_half(half_to_f64(h)), h);
        }
    }

    #[test]
    fn the_reference_folds_the_known_ends() {
        let ends: Vec<u64> = table(Kind::Fp64)[SLOTS..].to_vec();
        let gid = 3u32;
        let expected = (0..CHAINS).fold(0u32, |t, k| {
            let e = Kind::Fp64.end(((gid * CHAINS + k) & 63) as usize);
            t.wrapping_add(e as u32 ^ (e >> 32) as u32)
        });
        assert_eq!(reference(&ends, gid), Value::U32(expected));
    }

    #[test]
    fn an_injected_case_says_so_and_logs_its_faults() {
        let inj = Ok(Injection { unit: 7, bit: 40, rate: 1e-9, seed: 5 });
        let case = case(Kind::Fp32, GROUP, true, Some(&inj), true);
        assert!(case.defines.iter().any(|(k, v)| k == "INJECT_BIT" && v == "31u"), "fp32's bits stop at 31");
        assert!(case.injected.as_deref().is_some_and(|i| i.contains("unit 7")), "{:?}", case.injected);
        assert!(case.notes.iter().any(|n| n.starts_with(crate::registry::INJECTED)));
        assert_eq!(case.fault_log.map(|l| (l.resource, l.per_invocation)), Some((1, 16)));
        assert!(case.requirements().features.contains(&Feature::ShaderSmBuiltins));
        case.validate().unwrap();
        let plain = super::case(Kind::Int32, GROUP, false, None, false);
        assert_eq!(plain.fault_log, None);
        assert!(!plain.requirements().features.contains(&Feature::ShaderSmBuiltins));
    }
}
