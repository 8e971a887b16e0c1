//! The corruption screen's shared-memory pass: moving inversions over each workgroup's 16 KiB
//! tile, each word written by one invocation and checked by another (glsl/sdc_shared.glsl).
//!
//! In round `r` word `w` of workgroup `g`'s tile holds `mix32(w ^ salt(g))`, inverted in odd
//! rounds, so every bit is written 0 and 1 in turn and a bit stuck at either shows within two
//! rounds; the pattern is the word's index mixed, so a write that lands on another word shows. A
//! word is read back by the invocation half a workgroup away (another subgroup), after a barrier.

use super::{mix32, not_understood, Stuck, GROUP, GROUP_UNITS};
use crate::caps::{Feature, Requirements};
use crate::record::faults::{LOG_BYTES, RECORDS};
use crate::registry::{CaseSpec, Glsl, Push, Resource, Unit, Value, Work};

const GLSL: Glsl = Glsl { file: "sdc_shared.glsl", source: include_str!("../../../glsl/sdc_shared.glsl") };

/// Words of the tile: 16 KiB, the least shared memory Vulkan allows a workgroup.
pub(super) const WORDS: u32 = 4096;
/// Rounds of writes and checks per dispatch.
const ROUNDS: u32 = 16;
/// Mixed into every workgroup's salt.
const SEED: u32 = 0x5A4E_D00D;

/// Word `w`'s pattern in round `r` of a workgroup salted `salt`.
fn pattern(w: u32, salt: u32, r: u32) -> u32 {
    mix32(w ^ salt) ^ if r & 1 == 1 { u32::MAX } else { 0 }
}

/// What invocation `gid` of workgroups of `width` writes: the words it read, XORed over rounds.
fn reference(gid: u32, width: u32) -> Value {
    let (group, t) = (gid / width, gid % width);
    let salt = mix32(group ^ SEED);
    let mut folded = 0u32;
    for r in 0..ROUNDS {
        for k in 0..WORDS / width {
            let j = (t + width / 2 + k * width) & (WORDS - 1);
            folded = folded.wrapping_mul(16_777_619) ^ pattern(j, salt, r);
        }
    }
    Value::U32(folded)
}

/// The shared-memory pass in workgroups of `width`; `sm_id` where the device names each unit.
pub(super) fn case(width: u32, sm_id: bool, inject: Option<&Result<Stuck, String>>) -> CaseSpec {
    let per = WORDS / width;
    let mut requires = Requirements::new();
    if sm_id {
        requires = requires.feature(Feature::ShaderSmBuiltins);
    }
    let (records, rounds) = (RECORDS.to_string(), ROUNDS.to_string());
    // Each round writes and reads each of an invocation's words once.
    let bytes = f64::from(ROUNDS * per * 2 * 4);
    let case = CaseSpec::new("SDC shared memory moving inversions", GLSL, [width, 1, 1])
        .narrowed_from(GROUP.into())
        .defines([("RECORDS", records.as_str()), ("ROUNDS", rounds.as_str())])
        .defines(sm_id.then_some(("SM_ID", "1")))
        .resource(Resource::zeroed_storage_buffer(LOG_BYTES).read_write())
        .push(Push::words(&[SEED, 0, 0, 0]))
        .work([Work::new(bytes, Unit::Byte)])
        .requires(requires)
        .logs_faults(0, u64::from(ROUNDS * per))
        .reference(move |gid| reference(gid, width));
    match inject {
        None => case,
        Some(Err(why)) => not_understood(case, why),
        Some(Ok(stuck)) => {
            let (word, bit) = (format!("{}u", stuck.word), format!("{}u", stuck.bit));
            let unit = stuck.unit.unwrap_or(0);
            let target = match (stuck.unit, sm_id) {
                (None, _) => "every unit".to_owned(),
                (Some(u), true) => format!("unit {u}"),
                (Some(u), false) => {
                    format!(
                        "the workgroups whose index modulo {GROUP_UNITS} is {u} (no unit ids on this device)"
                    )
                }
            };
            let unit_text = format!("{unit}u");
            let case = case
                .defines([("INJECT", "1"), ("INJECT_WORD", word.as_str()), ("INJECT_BIT", bit.as_str())])
                .defines(stuck.unit.map(|_| ("INJECT_UNIT", unit_text.as_str())))
                .injected(format!(
                    "bit {} of shared-memory word {} stuck at 0 on {target}",
                    stuck.bit, stuck.word
                ));
            case
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_word_is_read_by_another_invocation_and_every_bit_takes_both_values() {
        // Invocation t reads the words of invocation t + width / 2: none of its own.
        for width in [256u32, 128] {
            for t in 0..width {
                for k in 0..WORDS / width {
                    let j = (t + width / 2 + k * width) & (WORDS - 1);
                    assert_ne!(j % width, t, "width {width}: invocation {t} reads its own word {j}");
                }
            }
        }
        let salt = mix32(SEED);
        assert_eq!(pattern(7, salt, 0), !pattern(7, salt, 1), "odd rounds write the inverse");
        assert_ne!(pattern(7, salt, 0), pattern(8, salt, 0));
    }

    #[test]
    fn the_reference_folds_what_each_invocation_reads_in_order() {
        // Multiplied between words: a round and its inverse do not cancel, and invocations differ.
        let (a, b) = (reference(0, GROUP), reference(300, GROUP));
        assert_ne!(a, Value::U32(0));
        assert_ne!(a, b);
        let salt = mix32(SEED);
        let first = (0..WORDS / GROUP)
            .fold(0u32, |f, k| f.wrapping_mul(16_777_619) ^ pattern(128 + k * GROUP, salt, 0));
        let mut folded = 0u32;
        for r in 0..ROUNDS {
            for k in 0..WORDS / GROUP {
                folded = folded.wrapping_mul(16_777_619) ^ pattern((128 + k * GROUP) & (WORDS - 1), salt, r);
            }
        }
        assert_eq!(a, Value::U32(folded));
        assert_ne!(first, folded);
    }

    #[test]
    fn a_stuck_shared_bit_is_named_with_its_unit() {
        let case = case(GROUP, true, Some(&Stuck::parse("shared=100,bit=3,unit=9", "shared", WORDS.into())));
        assert!(case.injected.as_deref().is_some_and(|i| i.contains("unit 9")), "{:?}", case.injected);
        assert!(case.defines.iter().any(|(k, v)| k == "INJECT_UNIT" && v == "9u"));
        case.validate().unwrap();
    }
}
