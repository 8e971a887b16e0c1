//! The corruption screen's memory pass: moving inversions of an address-in-address pattern over a
//! buffer, each word compared in the shader with what the last pass wrote (glsl/sdc_memory.glsl).
//!
//! Word `w` holds `p(w) = mix32(w ^ seed)` or its inverse, alternately, pass after pass: a bit
//! stuck at 0 or 1 shows within two passes, a write that never happened at the next, and a write
//! that landed on the wrong word because the pattern is the word's own address mixed. Each
//! workgroup counts its passes in a buffer of its own, so the shader knows which the last one
//! wrote; the first pass writes the pattern and checks nothing.

use super::{mix32, GROUP};
use crate::caps::{Feature, Requirements};
use crate::format::format_bytes;
use crate::record::faults::{INJECTED, LOG_BYTES, RECORDS};
use crate::registry::{CaseSpec, Env, FaultLog, Glsl, Push, Resource, Unit, Value, Work};

const GLSL: Glsl = Glsl { file: "sdc_memory.glsl", source: include_str!("../../../glsl/sdc_memory.glsl") };

/// Mixed into every word's pattern.
const SEED: u32 = 0x5EED_C0DE;
/// Bytes of one uvec4, an invocation's load and store.
const VEC_BYTES: u64 = 16;
/// The most workgroups a grid may have: every device allows 65,535 along x.
const MAX_GROUPS: u64 = 65_535;

/// Word `w`'s pattern.
fn pattern(word: u32) -> u32 {
    mix32(word ^ SEED)
}

/// What invocation `gid` of a grid of `grid` invocations, each owning `per` uvec4s a grid apart,
/// writes in a verify run (the first pass): its words XORed.
fn reference(gid: u32, grid: u32, per: u32) -> Value {
    let words = (0..per).flat_map(|k| (0..4).map(move |c| 4 * (gid + k * grid) + c));
    Value::U32(words.fold(0, |x, w| x ^ pattern(w)))
}

/// A memory bit the test-only injector holds stuck at 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Stuck {
    word: u64,
    bit: u32,
}

impl Stuck {
    /// `word=W,bit=B`, or why not.
    pub fn parse(text: &str) -> Result<Self, String> {
        let (mut word, mut bit) = (None, None);
        for pair in super::key_values(text) {
            let (key, value) = pair?;
            let number = value.parse::<u64>().map_err(|_| format!("`{value}` is not a number for {key}"))?;
            match key {
                "word" => word = Some(number),
                "bit" if number < 32 => bit = Some(number as u32),
                "bit" => return Err(format!("bit {number} is not in a 32-bit word")),
                other => return Err(format!("`{other}` is not word or bit")),
            }
        }
        Ok(Stuck { word: word.ok_or("no word=")?, bit: bit.ok_or("no bit=")? })
    }
}

/// The memory pass over `bytes` (at most the device's storage-buffer range) in workgroups of
/// `width`; `sm_id` where the device names each unit.
pub(super) fn case(
    env: &Env,
    bytes: u64,
    width: u32,
    sm_id: bool,
    inject: Option<&Result<Stuck, String>>,
) -> CaseSpec {
    // A range of 0 is a device of defaults (tests), not a real one: Vulkan's least is 128 MiB.
    let range = env.device.map(|d| d.limits.storage_buffer_range).filter(|&r| r > 0).unwrap_or(u64::MAX);
    let wanted = bytes.min(range);
    // uvec4s an invocation owns: a power of two, so that the grid fits MAX_GROUPS.
    let per = wanted.div_ceil(MAX_GROUPS * u64::from(width) * VEC_BYTES).next_power_of_two();
    let group_bytes = u64::from(width) * VEC_BYTES * per;
    let size = (wanted / group_bytes * group_bytes).max(group_bytes);
    let groups = (size / group_bytes) as u32;
    let grid = groups * width;
    let per = per as u32;
    let mut requires = Requirements::new();
    if sm_id {
        requires = requires.feature(Feature::ShaderSmBuiltins);
    }
    let (records, per_text) = (RECORDS.to_string(), per.to_string());
    let mut case =
        CaseSpec::new(format!("SDC memory moving inversions {}", format_bytes(size)), GLSL, [width, 1, 1])
            .narrowed_from(GROUP.into())
            .axis("bytes", bytes, "SDC memory moving inversions")
            .defines([("RECORDS", records.as_str()), ("PER_INVOCATION", per_text.as_str())])
            .defines(sm_id.then_some(("SM_ID", "1")))
            .resource(Resource::zeroed_storage_buffer(size).read_write())
            .resource(Resource::zeroed_storage_buffer(LOG_BYTES).read_write())
            .resource(Resource::zeroed_storage_buffer(u64::from(groups) * 4).read_write())
            .push(Push::words(&[SEED, 0, 0, 0]))
            // Each pass reads and writes the whole buffer.
            .work([Work::new(2.0 * size as f64, Unit::Byte)])
            .requires(requires)
            .scale_by_problem(groups)
            .reference(move |gid| reference(gid, grid, per));
    // The first pass only writes.
    case.fault_log = Some(FaultLog { resource: 1, per_invocation: 4 * u64::from(per), unchecked_passes: 1 });
    if size < bytes {
        case = case.note(format!(
            "the buffer is {}, not {}: the device's storage-buffer range, in whole workgroups",
            format_bytes(size),
            format_bytes(bytes)
        ));
    }
    match inject {
        None => case,
        Some(Err(why)) => {
            case.note(format!("PERFTEST_INJECT_FAULT not understood ({why}): nothing injected"))
        }
        Some(Ok(stuck)) if stuck.word >= size / 4 => case.note(format!(
            "PERFTEST_INJECT_FAULT: word {} is past the buffer's {}: nothing injected",
            stuck.word,
            size / 4
        )),
        Some(Ok(stuck)) => {
            let (word, bit) = (format!("{}u", stuck.word), format!("{}u", stuck.bit));
            case.defines([("INJECT", "1"), ("INJECT_WORD", word.as_str()), ("INJECT_BIT", bit.as_str())])
                .note(format!(
                    "{INJECTED}bit {} of word {} (byte {}) stuck at 0",
                    stuck.bit,
                    stuck.word,
                    4 * stuck.word
                ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pattern_is_the_shaders_mix_of_the_address() {
        // mix32 is the "lowbias32" mix: these are its values, computed by hand once.
        assert_eq!(mix32(0), 0);
        assert_ne!(pattern(0), pattern(1));
        let words: std::collections::HashSet<u32> = (0..1 << 16).map(pattern).collect();
        assert_eq!(words.len(), 1 << 16, "a bijection: every address has its own pattern");
        assert_eq!(reference(0, 4, 1), Value::U32(pattern(0) ^ pattern(1) ^ pattern(2) ^ pattern(3)));
        // Two uvec4s a grid of 4 apart: words 0-3 and 16-19.
        let both = (0..4).chain(16..20).fold(0, |x, w| x ^ pattern(w));
        assert_eq!(reference(0, 4, 2), Value::U32(both));
    }

    #[test]
    fn the_buffer_fits_the_device_and_the_grid_covers_it() {
        let family = crate::registry::families().into_iter().find(|f| f.name == "sdc").unwrap();
        let env = Env { family, settings: &[], device: None };
        let case = case(&env, 256 << 20, GROUP, false, None);
        // 65,536 workgroups of one uvec4 an invocation would be one too many: two each.
        assert_eq!(case.scale, crate::registry::Scale::Problem { groups: (256 << 20) / 8192 });
        assert_eq!(case.name, "SDC memory moving inversions 256 MiB");
        assert_eq!(case.fault_log.map(|l| (l.per_invocation, l.unchecked_passes)), Some((8, 1)));
        case.validate().unwrap();
        let small = super::case(&env, 1 << 20, GROUP, false, None);
        assert_eq!(small.scale, crate::registry::Scale::Problem { groups: 256 });
        let large = super::case(&env, 4 << 30, GROUP, false, None);
        let crate::registry::Scale::Problem { groups } = large.scale else { panic!() };
        assert!(u64::from(groups) <= MAX_GROUPS && large.name.ends_with("4 GiB"), "{groups} {}", large.name);
    }

    #[test]
    fn a_stuck_bit_is_parsed_or_refused() {
        assert_eq!(Stuck::parse("word=1000,bit=7"), Ok(Stuck { word: 1000, bit: 7 }));
        assert!(Stuck::parse("word=1000,bit=32").unwrap_err().contains("32-bit"));
        assert!(Stuck::parse("word=1000").unwrap_err().contains("bit"));
    }
}
