//! The corruption screen's memory pass: moving inversions of an address-in-address pattern over
//! buffers reached through a table of their addresses (a size, or most of the device's free
//! memory), each word compared in the shader with what the last pass wrote (glsl/sdc_memory.glsl).
//!
//! Word `w` of buffer `b` holds `p(b, w) = mix32(w ^ seed ^ mix32(b))` or its inverse, alternately,
//! pass after pass: a bit stuck at 0 or 1 shows within two passes, a write that never happened at
//! the next, and a write that landed on the wrong word (or buffer) because the pattern is the
//! word's own address mixed. Each workgroup counts its passes in a buffer of its own, so the
//! shader knows which the last one wrote; the first pass writes the pattern and checks nothing.

use super::{mix32, not_understood, Stuck, GROUP};
use crate::caps::{Feature, Requirements};
use crate::format::{format_bytes, size_text};
use crate::record::faults::{LOG_BYTES, RECORDS};
use crate::registry::{CaseSpec, Env, FaultLog, Glsl, Push, Resource, ResourceKind, Unit, Value, Work};

const GLSL: Glsl = Glsl { file: "sdc_memory.glsl", source: include_str!("../../../glsl/sdc_memory.glsl") };

/// Mixed into every word's pattern.
const SEED: u32 = 0x5EED_C0DE;
/// Bytes of one uvec4, an invocation's load and store.
const VEC_BYTES: u64 = 16;
/// The most workgroups a grid may have: every device allows 65,535 along x.
pub(super) const MAX_GROUPS: u64 = 65_535;

/// Each buffer's most bytes: `maxMemoryAllocationSize` where smaller, and 4 GiB (a buffer's word
/// index, 4 x its uvec4s, fits 32 bits).
const BUFFER_BYTES: u64 = 1 << 32;

/// The key mixed into buffer `b`'s words (buffer 0's is the seed).
fn key(buffer: u32) -> u32 {
    SEED ^ mix32(buffer)
}

/// Word `w` of buffer `b`'s pattern.
fn pattern(buffer: u32, word: u32) -> u32 {
    mix32(word ^ key(buffer))
}

/// What invocation `gid` of a grid of `grid` invocations, each owning `per` uvec4s a grid apart in
/// each of `buffers` buffers, writes in a verify run (the first pass): its words XORed.
fn reference(gid: u32, grid: u32, per: u32, buffers: u32) -> Value {
    let words = (0..buffers)
        .flat_map(|b| (0..per).flat_map(move |k| (0..4).map(move |c| (b, 4 * (gid + k * grid) + c))));
    Value::U32(words.fold(0, |x, (b, w)| x ^ pattern(b, w)))
}

/// How much memory the pass covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Size {
    /// A number of bytes (the `sdc.bytes` axis): one name on every device.
    Bytes(u64),
    /// Most of the device's free memory, as its driver counted it when perftest started.
    Free,
}

/// The share of the free memory the pass takes, and the least it leaves (for the run's other
/// resources and the driver's own).
const FREE_SHARE: f64 = 0.9;
const FREE_LEFT: u64 = 2 << 30;

/// The pass's layout: buffers of whole workgroups, each invocation `per` uvec4s of each buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Layout {
    pub(super) buffers: u32,
    pub(super) groups: u32,
    pub(super) per: u32,
    /// One buffer's bytes.
    pub(super) buffer_bytes: u64,
}

impl Layout {
    /// At most `wanted` bytes in buffers of at most `largest` bytes, in workgroups of `width`.
    pub(super) fn of(wanted: u64, largest: u64, width: u32) -> Layout {
        let buffers = wanted.div_ceil(largest).max(1);
        let each = wanted / buffers;
        // uvec4s an invocation owns of each buffer: a power of two, so that the grid fits MAX_GROUPS.
        let per = each.div_ceil(MAX_GROUPS * u64::from(width) * VEC_BYTES).next_power_of_two();
        let group_bytes = u64::from(width) * VEC_BYTES * per;
        let groups = (each / group_bytes).max(1);
        Layout {
            buffers: buffers as u32,
            groups: groups as u32,
            per: per as u32,
            buffer_bytes: groups * group_bytes,
        }
    }

    fn bytes(&self) -> u64 {
        u64::from(self.buffers) * self.buffer_bytes
    }
}

/// The memory pass over `size` in workgroups of `width`; `sm_id` where the device names each unit.
pub(super) fn case(
    env: &Env,
    size: Size,
    width: u32,
    sm_id: bool,
    inject: Option<&Result<Stuck, String>>,
) -> CaseSpec {
    let caps = env.device;
    // A limit of 0 is a device of defaults (tests), not a real one.
    let allocation = caps.map(|d| d.limits.allocation_bytes).filter(|&a| a > 0).unwrap_or(u64::MAX);
    // PERFTEST_SDC_BUFFER_BYTES (tests): smaller buffers, so that a small device holds several.
    let asked = std::env::var("PERFTEST_SDC_BUFFER_BYTES").ok().and_then(|b| b.parse::<u64>().ok());
    let largest = BUFFER_BYTES.min(allocation).min(asked.unwrap_or(u64::MAX)).max(1);
    let free = caps.and_then(|d| d.own_free_memory());
    let wanted = match size {
        Size::Bytes(bytes) => bytes,
        // Where the device says nothing, a size for the name and the tests: the case is skipped.
        Size::Free => {
            free.map_or(1 << 30, |f| ((f as f64 * FREE_SHARE) as u64).min(f.saturating_sub(FREE_LEFT)))
        }
    };
    let layout = Layout::of(wanted.max(1), largest, width);
    let grid = layout.groups * width;
    let (per, buffers) = (layout.per, layout.buffers);
    let covered = layout.bytes();
    let mut requires = Requirements::new();
    if sm_id {
        requires = requires.feature(Feature::ShaderSmBuiltins);
    }
    let name = match size {
        Size::Bytes(_) => format!("SDC memory moving inversions {}", format_bytes(covered)),
        Size::Free => "SDC memory moving inversions, free memory".to_owned(),
    };
    let (records, per_text, buffers_text) = (RECORDS.to_string(), per.to_string(), buffers.to_string());
    let mut case = CaseSpec::new(name, GLSL, [width, 1, 1])
        .narrowed_from(GROUP.into())
        .defines([
            ("RECORDS", records.as_str()),
            ("PER_INVOCATION", per_text.as_str()),
            ("BUFFERS", buffers_text.as_str()),
        ])
        .defines(sm_id.then_some(("SM_ID", "1")))
        .resource(
            Resource::zeros(ResourceKind::AddressTable { buffers, bytes: layout.buffer_bytes }).read_write(),
        )
        .resource(Resource::zeroed_storage_buffer(LOG_BYTES).read_write())
        .resource(Resource::zeroed_storage_buffer(u64::from(layout.groups) * 4).read_write())
        .push(Push::words(&[SEED, 0, 0, 0]))
        // Each pass reads and writes every buffer.
        .work([Work::new(2.0 * covered as f64, Unit::Byte)])
        .requires(requires)
        .scale_by_problem(layout.groups)
        .reference(move |gid| reference(gid, grid, per, buffers));
    // The first pass only writes.
    case.fault_log = Some(FaultLog {
        resource: 1,
        per_invocation: 4 * u64::from(per) * u64::from(buffers),
        unchecked_passes: 1,
        fingerprint: false,
    });
    let spread = match buffers {
        1 => String::new(),
        n => format!(" in {n} buffers of {}", size_text(layout.buffer_bytes)),
    };
    case = match size {
        Size::Bytes(bytes) => {
            let case = case.axis("bytes", bytes, "SDC memory moving inversions");
            match covered < bytes {
                true => case.note(format!(
                    "the pass covers {}{spread}, not {}: whole workgroups",
                    format_bytes(covered),
                    format_bytes(bytes)
                )),
                false if buffers > 1 => {
                    case.note(format!("the pass covers {}{spread}", format_bytes(covered)))
                }
                false => case,
            }
        }
        Size::Free => {
            let case = case.requires(Requirements::new().own_memory());
            match free {
                Some(free) => case.note(format!(
                    "the pass covers {}{spread}: {:.0}% of the {} of device memory free when the run began",
                    size_text(covered),
                    100.0 * covered as f64 / free as f64,
                    size_text(free)
                )),
                None => case,
            }
        }
    };
    let words = covered / 4;
    match inject {
        None => case,
        Some(Err(why)) => not_understood(case, why),
        Some(Ok(stuck)) if stuck.word >= words => case.note(format!(
            "PERFTEST_INJECT_FAULT: word {} is past the pass's {words}: nothing injected",
            stuck.word
        )),
        Some(Ok(stuck)) => {
            let per_buffer = layout.buffer_bytes / 4;
            let (buffer, word) = (stuck.word / per_buffer, stuck.word % per_buffer);
            let (buffer_text, word_text, bit) =
                (format!("{buffer}u"), format!("{word}u"), format!("{}u", stuck.bit));
            case.defines([
                ("INJECT", "1"),
                ("INJECT_BUFFER", buffer_text.as_str()),
                ("INJECT_WORD", word_text.as_str()),
                ("INJECT_BIT", bit.as_str()),
            ])
            .injected(format!(
                "bit {} of word {} (byte {}) stuck at 0",
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
    fn the_pattern_is_the_shaders_mix_of_the_address_and_buffer() {
        assert_eq!(mix32(0), 0, "buffer 0's key is the seed");
        assert_eq!(pattern(0, 5), mix32(5 ^ SEED));
        assert_ne!(pattern(0, 1), pattern(1, 1), "a word written into the wrong buffer shows");
        let words: std::collections::HashSet<u32> = (0..1 << 16).map(|w| pattern(3, w)).collect();
        assert_eq!(words.len(), 1 << 16, "a bijection: every address has its own pattern");
        assert_eq!(
            reference(0, 4, 1, 1),
            Value::U32(pattern(0, 0) ^ pattern(0, 1) ^ pattern(0, 2) ^ pattern(0, 3))
        );
        // Two uvec4s a grid of 4 apart (words 0-3 and 16-19), in each of two buffers.
        let both = (0..2).flat_map(|b| (0..4).chain(16..20).map(move |w| (b, w)));
        assert_eq!(reference(0, 4, 2, 2), Value::U32(both.fold(0, |x, (b, w)| x ^ pattern(b, w))));
    }

    #[test]
    fn the_buffers_fit_the_device_and_the_grid_covers_them() {
        let family = crate::registry::families().into_iter().find(|f| f.name == "sdc").unwrap();
        let env = Env { family, settings: &[], device: None };
        let case = case(&env, Size::Bytes(256 << 20), GROUP, false, None);
        // 65,536 workgroups of one uvec4 an invocation would be one too many: two each.
        assert_eq!(case.scale, crate::registry::Scale::Problem { groups: (256 << 20) / 8192 });
        assert_eq!(case.name, "SDC memory moving inversions 256 MiB");
        assert_eq!(case.fault_log.map(|l| (l.per_invocation, l.unchecked_passes)), Some((8, 1)));
        assert_eq!(case.resources[0].kind, ResourceKind::AddressTable { buffers: 1, bytes: 256 << 20 });
        case.validate().unwrap();
        let small = super::case(&env, Size::Bytes(1 << 20), GROUP, false, None);
        assert_eq!(small.scale, crate::registry::Scale::Problem { groups: 256 });
        // 10 GiB: three buffers of 3.33 GiB each, rounded down to whole workgroups (of 64 KiB:
        // 16 uvec4s an invocation), every invocation in each.
        let large = super::case(&env, Size::Bytes(10 << 30), GROUP, false, None);
        let crate::registry::Scale::Problem { groups } = large.scale else { panic!() };
        let ResourceKind::AddressTable { buffers, bytes } = large.resources[0].kind else { panic!() };
        assert_eq!((buffers, bytes % 65536, u64::from(groups) * 65536), (3, 0, bytes));
        assert!(bytes <= BUFFER_BYTES && 3 * bytes > (10 << 30) - 3 * 65536, "{bytes}");
        assert!(u64::from(groups) <= MAX_GROUPS);
        assert_eq!(large.fault_log.unwrap().per_invocation, 4 * 16 * 3);
        assert!(large.notes.iter().any(|n| n.contains("in 3 buffers of")), "{:?}", large.notes);
    }

    #[test]
    fn the_free_memory_pass_takes_nine_tenths_of_what_the_driver_says_is_free() {
        use crate::caps::{DeviceCaps, Heap};
        let family = crate::registry::families().into_iter().find(|f| f.name == "sdc").unwrap();
        let mut caps = DeviceCaps::default();
        caps.limits.allocation_bytes = 0xFFE0_0000;
        let vram = Heap { bytes: 140 << 30, device_local: true, free: Some(139 << 30) };
        caps.heaps = vec![vram, Heap { bytes: 64 << 30, device_local: false, free: Some(60 << 30) }];
        let free = case(&Env { family, settings: &[], device: Some(&caps) }, Size::Free, GROUP, false, None);
        assert_eq!(free.name, "SDC memory moving inversions, free memory");
        let ResourceKind::AddressTable { buffers, bytes } = free.resources[0].kind else { panic!() };
        let covered = u64::from(buffers) * bytes;
        assert!(bytes <= 0xFFE0_0000, "{bytes}");
        assert!(covered <= (139 << 30) * 9 / 10 && covered > (139 << 30) * 89 / 100, "{covered}");
        // Of what a default device lacks, nothing about its memory.
        let own = |caps: &DeviceCaps| -> Vec<String> {
            free.requirements().unmet(caps).into_iter().filter(|u| u.contains("memory")).collect()
        };
        assert!(own(&caps).is_empty(), "{:?}", own(&caps));
        assert!(free.notes[0].contains("90% of the 139.0 GiB of device memory free"), "{:?}", free.notes);
        // A CPU driver's memory is the host's: skipped, and why.
        caps.heaps = vec![Heap { bytes: 2 << 30, device_local: true, free: Some(1 << 30) }];
        let unmet = own(&caps);
        assert!(unmet.len() == 1 && unmet[0].contains("the device's memory is the host's"), "{unmet:?}");
        // A driver that does not say what is free.
        caps.heaps =
            vec![Heap { free: None, ..vram }, Heap { bytes: 64 << 30, device_local: false, free: None }];
        let unmet = own(&caps);
        assert!(unmet.len() == 1 && unmet[0].contains("VK_EXT_memory_budget"), "{unmet:?}");
    }

    #[test]
    fn a_stuck_word_is_placed_in_its_buffer() {
        let family = crate::registry::families().into_iter().find(|f| f.name == "sdc").unwrap();
        let env = Env { family, settings: &[], device: None };
        let stuck = Ok(Stuck { word: (3 << 30) + 5, bit: 9, unit: None });
        let case = case(&env, Size::Bytes(16 << 30), GROUP, false, Some(&stuck));
        // Four buffers of 4 GiB (2^30 words): word 3 x 2^30 + 5 is word 5 of buffer 3.
        assert_eq!(case.resources[0].kind, ResourceKind::AddressTable { buffers: 4, bytes: 4 << 30 });
        let defines: Vec<_> = case.defines.iter().map(|(k, v)| format!("{k}={v}")).collect();
        for want in ["INJECT_BUFFER=3u", "INJECT_WORD=5u", "INJECT_BIT=9u"] {
            assert!(defines.contains(&want.to_owned()), "{defines:?}");
        }
        let past = super::case(&env, Size::Bytes(1 << 20), GROUP, false, Some(&stuck));
        assert!(past.notes.iter().any(|n| n.contains("past the pass's 262144")), "{:?}", past.notes);
    }
}
