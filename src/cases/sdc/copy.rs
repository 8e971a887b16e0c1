//! The corruption screen's copies: a buffer of a known pattern copied into another and back
//! ([`COPIES`] copies by `vkCmdCopyBuffer` before each dispatch, [`crate::registry::Copies`]),
//! then every word compared in the shader with the pattern the CPU wrote (glsl/sdc_copy.glsl).
//! A copy moves words as they are, so a bit flipped by any copy arrives in the checked buffer;
//! the check reads one buffer for every [`COPIES`] copies of it, a 1/64 share of the traffic.
//!
//! Word `w` holds `mix32(w ^ seed)`: its own address, mixed (a word copied to the wrong place
//! shows). A word that differs is logged and written back, so that one flip is counted once.

use super::memory::Layout;
use super::{mix32, not_understood, Stuck, GROUP};
use crate::cases::data::fill_elements;
use crate::format::format_bytes;
use crate::record::faults::{LOG_BYTES, RECORDS};
use crate::registry::{CaseSpec, Copies, FaultLog, Glsl, Push, Resource, Unit, Value, Work};

const GLSL: Glsl = Glsl { file: "sdc_copy.glsl", source: include_str!("../../../glsl/sdc_copy.glsl") };

/// Mixed into every word's pattern.
const SEED: u32 = 0xC0B1_E5ED;
/// The buffer's bytes: twice the largest last-level cache of a GPU the project has measured
/// (50 MiB on an H100 or H200) and more, and within the 128 MiB a storage buffer may span on
/// every driver CI runs.
pub(super) const BYTES: u64 = 128 << 20;
/// Copies before each check: there and back 16 times.
pub(super) const COPIES: u32 = 32;

/// Word `w`'s pattern.
fn pattern(word: u32) -> u32 {
    mix32(word ^ SEED)
}

/// What invocation `gid` of a grid of `grid` invocations, each owning `per` uvec4s a grid apart,
/// reports in a verify run: the words it found after the copies, XORed.
fn reference(gid: u32, grid: u32, per: u32) -> Value {
    let words = (0..per).flat_map(|k| (0..4).map(move |c| 4 * (gid + k * grid) + c));
    Value::U32(words.fold(0, |x, w| x ^ pattern(w)))
}

/// The copies case in workgroups of `width`; without
/// `checked` (`PERFTEST_SDC_CHECK=off`, to measure what checking costs) the shader does nothing
/// but a verify run's write.
pub(super) fn case(width: u32, inject: Option<&Result<Stuck, String>>, checked: bool) -> CaseSpec {
    // One buffer, laid out as the memory pass lays out each of its own.
    let Layout { groups, per, buffer_bytes: bytes, .. } = Layout::of(BYTES, BYTES, width);
    let grid = groups * width;
    let (records, per_text) = (RECORDS.to_string(), per.to_string());
    let fill = |bytes: &mut [u8]| {
        fill_elements(bytes, 4, |w, word| word.copy_from_slice(&pattern(w as u32).to_ne_bytes()));
    };
    let name = format!("SDC buffer copies {}, {COPIES} then a check", format_bytes(bytes));
    let mut case = CaseSpec::new(name, GLSL, [width, 1, 1])
        .narrowed_from(GROUP.into())
        .defines([("RECORDS", records.as_str()), ("PER_INVOCATION", per_text.as_str())])
        .defines((!checked).then_some(("UNCHECKED", "1")))
        .resource(Resource::storage_buffer(bytes, fill).read_write())
        .resource(Resource::zeroed_storage_buffer(LOG_BYTES).read_write())
        .resource(Resource::zeroed_storage_buffer(bytes).read_write())
        .push(Push::words(&[SEED, 0, 0, 0]))
        // The bytes copied; the check's read of one buffer is not counted.
        .work([Work::new(f64::from(COPIES) * bytes as f64, Unit::Byte)])
        // A wrong word names no unit: the SM that checked it did not copy it.
        .note("a fault names the word, not a unit: the copies' path is no compute unit")
        .scale_by_problem(groups)
        .reference(move |gid| reference(gid, grid, per));
    case.copies = Some(Copies { source: 0, through: 2, count: COPIES });
    case = match checked {
        true => {
            case.fault_log = Some(FaultLog {
                resource: 1,
                per_invocation: 4 * u64::from(per),
                unchecked_passes: 0,
                fingerprint: false,
            });
            case
        }
        false => case.note("corruption check compiled out (PERFTEST_SDC_CHECK=off)"),
    };
    let words = bytes / 4;
    match inject {
        None => case,
        Some(Err(why)) => not_understood(case, why),
        Some(Ok(stuck)) if stuck.word >= words => case.note(format!(
            "PERFTEST_INJECT_FAULT: word {} is past the copies' {words}: nothing injected",
            stuck.word
        )),
        Some(Ok(stuck)) => {
            let (word, bit) = (format!("{}u", stuck.word), format!("{}u", stuck.bit));
            case.defines([("INJECT", "1"), ("INJECT_WORD", word.as_str()), ("INJECT_BIT", bit.as_str())])
                .injected(format!(
                    "bit {} of word {} flipped after each check, for the copies to carry",
                    stuck.bit, stuck.word
                ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pattern_is_the_shaders_mix_of_the_address_and_every_word_has_its_own() {
        assert_eq!(pattern(5), mix32(5 ^ SEED));
        let words: std::collections::HashSet<u32> = (0..1 << 16).map(pattern).collect();
        assert_eq!(words.len(), 1 << 16);
        // Two uvec4s a grid of 4 apart: words 0-3 and 16-19.
        let expected = (0..4).chain(16..20).fold(0, |x, w| x ^ pattern(w));
        assert_eq!(reference(0, 4, 2), Value::U32(expected));
    }

    #[test]
    fn the_grid_covers_the_buffer_and_the_copies_end_where_the_shader_checks() {
        for width in [32, 64, 256, 1024] {
            let case = case(width, None, true);
            let Some(Copies { source, through, count }) = case.copies else { panic!() };
            assert_eq!((source, through, count % 2), (0, 2, 0));
            assert_eq!(case.resources[0].kind.bytes(), BYTES, "{width}");
            case.validate().unwrap();
            let crate::registry::Scale::Problem { groups } = case.scale else { panic!() };
            assert!(u64::from(groups) <= super::super::memory::MAX_GROUPS);
        }
        let mut odd = case(256, None, true);
        odd.copies = Some(Copies { source: 0, through: 2, count: 3 });
        assert!(odd.validate().unwrap_err().contains("do not end in the buffer the shader checks"));
    }
}
