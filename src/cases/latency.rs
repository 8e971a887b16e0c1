//! Load latency from L1 to DRAM: a pointer chase over working sets from 16 KiB to 2 GiB.
//!
//! One invocation follows a chain through every 128-byte line of the set, in one random cycle
//! (glsl/latency.glsl), so each load waits for the one before and the caches see no pattern.
//! The chain stays one invocation (one subgroup, one compute unit): the runner lengthens it
//! (a push count) instead of dispatching more workgroups, so the rate is one load at a time and
//! its inverse is the latency, in ns and, where the clock is known, in clocks. Each dispatch
//! resumes the chain where the last one stopped: restarting at the same line would retrace a
//! path short enough for the L2 to keep, and a 2 GiB set would measure the L2.
//!
//! Two paths chase the same cycle: `Latency` through a storage buffer of word indexes
//! (`at = next[at]`: the shader turns each index into an address), and `Latency pointer` through
//! 64-bit device addresses stored in the lines (`at = at.next`: the loaded value is the next
//! address), which is the load-to-use latency alone.

use super::cycle::Cycle;
use crate::format::format_bytes;
use crate::registry::{self, Axis, AxisUnit, CaseSpec, Env, Family, Glsl, Push, Resource, Unit, Value, Work};

const GLSL: Glsl = Glsl { file: "latency.glsl", source: include_str!("../../glsl/latency.glsl") };

/// Loads per repeat of the chain (CHAIN in the GLSL, unrolled: lavapipe runs at most 65,535
/// iterations of a loop in one invocation, inner loops counted across outer ones, so only the
/// repeats loop).
const CHAIN: u32 = 256;
/// Bytes per link: one link per 128-byte line, so no two loads share a line.
const LINE_BYTES: u64 = 128;
/// Words per line.
const LINE_WORDS: u32 = (LINE_BYTES / 4) as u32;
/// Repeats in a verify run: 1024 loads, checked against the CPU's walk.
const VERIFY_REPEATS: u32 = 4;

/// The next line of each line: one random cycle through all `lines` ([`Cycle`], the same every run).
pub(super) fn cycle(lines: u32) -> Vec<u32> {
    Cycle::new(lines).links()
}

/// Writes each 128-byte line of `bytes` on all cores: `link(next line)` in its first `width`
/// bytes (4 or 8, native order), zeros after.
fn fill_lines(lines: u32, bytes: &mut [u8], width: usize, link: impl Fn(u32) -> u64 + Sync) {
    use rayon::prelude::*;
    let cycle = Cycle::new(lines);
    bytes.par_chunks_mut(LINE_BYTES as usize).enumerate().for_each(|(line, bytes)| {
        let head = link(cycle.next(line as u32));
        match width {
            4 => bytes[..4].copy_from_slice(&(head as u32).to_ne_bytes()),
            _ => bytes[..8].copy_from_slice(&head.to_ne_bytes()),
        }
        bytes[width..].fill(0);
    });
}

fn fill(lines: u32, bytes: &mut [u8]) {
    fill_lines(lines, bytes, 4, |next| u64::from(next * LINE_WORDS));
}

/// The pointer path's contents in a buffer at device address `base`: each line's first 8 bytes
/// hold the address of the next line. Written once, in place: offsets filled into host memory,
/// relocated and copied into the staging buffer took 531 ms of a 2 GiB chain's setup on the H200,
/// this 255 ms (results/half-the-time-9/).
fn fill_addresses(lines: u32, bytes: &mut [u8], base: u64) {
    fill_lines(lines, bytes, 8, |next| base + u64::from(next) * LINE_BYTES);
}

/// How the chain is followed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Path {
    /// Word indexes in a storage buffer.
    Index,
    /// 64-bit device addresses in the lines (`buffer_reference`).
    Pointer,
}

/// Where a chase of `loads` loads from link 0 through `next` ends.
pub(super) fn chase(next: &[u32], loads: u64) -> u32 {
    (0..loads).fold(0, |at, _| next[at as usize])
}

/// The word index a chain from 0 reaches after `loads` loads.
fn walk(lines: u32, loads: u64) -> u32 {
    let cycle = Cycle::new(lines);
    (0..loads).fold(0, |at, _| cycle.next(at)) * LINE_WORDS
}

fn case(path: Path, bytes: u64) -> CaseSpec {
    let lines = (bytes / LINE_BYTES) as u32;
    // Per path: names, the chain, where the chain stopped (a word index or an address), and the
    // push block (the pointer path's address goes after `count` and `unused`).
    let (variant, label, define, chain, state_bytes, push) = match path {
        Path::Index => (
            "Latency",
            "index",
            "0",
            Resource::storage_buffer(bytes, move |b| fill(lines, b)),
            4,
            Push::per_mode(&[1, 0], &[VERIFY_REPEATS, 0]),
        ),
        Path::Pointer => (
            "Latency pointer",
            "pointer",
            "1",
            Resource::buffer_address(bytes, 8, move |b, base| fill_addresses(lines, b, base)),
            8,
            Push::per_mode(&[1, 0, 0, 0], &[VERIFY_REPEATS, 0, 0, 0]),
        ),
    };
    CaseSpec::new(format!("{variant} {}", format_bytes(bytes)), GLSL, [1, 1, 1])
        .group("latency")
        .label("path", label)
        .axis("bytes", bytes, variant)
        .defines([("PATH", define)])
        .resource(chain)
        // The next dispatch resumes where the chain stopped (zero at first).
        .resource(Resource::zeroed_storage_buffer(state_bytes).read_write())
        .push(push)
        .scale_by_push_word(0)
        .work([Work::new(f64::from(CHAIN), Unit::DependentLoad)])
        .reference(move |_| Value::U32(walk(lines, u64::from(VERIFY_REPEATS * CHAIN))))
}

/// Each size, rounded down to whole lines (at least two).
fn expand(env: &Env) -> Vec<CaseSpec> {
    let lines = |b: u64| Some(b / LINE_BYTES * LINE_BYTES).filter(|&b| b >= 2 * LINE_BYTES);
    let sizes = env.axis_rounded("bytes", lines);
    [Path::Index, Path::Pointer].into_iter().flat_map(|p| sizes.iter().map(move |&b| case(p, b))).collect()
}

/// The working-set sizes.
const BYTES: Axis = Axis {
    name: "bytes",
    unit: AxisUnit::Bytes,
    default: "16K..2G*2",
    max: (1 << 32) - 1,
    about: "working-set size in bytes (rounded down to 128-byte lines; under 4 GiB), default 16 KiB to \
            2 GiB by factors of 2",
};

inventory::submit! {
    Family {
        about: registry::About {
            measures: "load latency against the working-set size, 16 KiB to 2 GiB: the L1, the L2 and DRAM \
                       as one load at a time sees them",
            invocation: "one invocation, alone on the GPU, follows a chain through every 128-byte line of the set \
                         in one random cycle, 256 dependent loads per repeat; the runner sets the repeats; \
                         `Latency` chases word indexes in a storage buffer, `Latency pointer` 64-bit \
                         addresses stored in the lines",
            rate: "nanoseconds per load (and clocks per load where the clock is known)",
        },
        name: "latency",
        order: 310,
        axes: &[BYTES],
        ratio_note: None,
        levels: true,
        device_cases: false,
        quick: &["Latency pointer 16 KiB", "Latency pointer 4 MiB", "Latency pointer 1 GiB"],
        expand,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_buffer_holds_word_indexes_one_per_line() {
        let mut bytes = vec![0xFFu8; 4 * 128];
        fill(4, &mut bytes);
        let word = |i: usize| u32::from_ne_bytes(bytes[i * 4..i * 4 + 4].try_into().unwrap());
        let next = cycle(4);
        for (line, next) in next.iter().enumerate() {
            assert_eq!(word(line * 32), next * 32);
            assert!((1..32).all(|w| word(line * 32 + w) == 0), "the rest of the line is zero");
        }
        assert_eq!(walk(4, 4), 0, "four loads go round a four-line cycle");
    }

    #[test]
    fn the_pointer_path_holds_the_same_cycle_as_addresses() {
        let (lines, base) = (8u32, 0x7f00_0000_0000u64);
        let mut bytes = vec![0xFFu8; lines as usize * 128];
        fill_addresses(lines, &mut bytes, base);
        let pointer = |line: usize| u64::from_ne_bytes(bytes[line * 128..line * 128 + 8].try_into().unwrap());
        for (line, next) in cycle(lines).into_iter().enumerate() {
            assert_eq!(pointer(line), base + u64::from(next) * 128, "line {line}");
            assert!(bytes[line * 128 + 8..(line + 1) * 128].iter().all(|&b| b == 0));
        }
    }

    #[test]
    fn names_give_the_size_and_sizes_round_to_lines() {
        let family = registry::families().into_iter().find(|f| f.name == "latency").unwrap();
        assert!(registry::parse_setting("latency.bytes=100").is_err(), "100 bytes is under two lines");
        let settings = [registry::parse_setting("latency.bytes=16K,1000").unwrap()];
        let env = Env { family, settings: &settings, device: None };
        let names: Vec<String> = expand(&env).into_iter().map(|c| c.name).collect();
        assert_eq!(
            names,
            ["Latency 16 KiB", "Latency 896 B", "Latency pointer 16 KiB", "Latency pointer 896 B"]
        );
    }
}
