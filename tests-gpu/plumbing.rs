//! End to end through the runner, one case per binding kind the next families need: a storage
//! image, a storage texel buffer and a buffer device address (each reset to its initial contents),
//! and a storage buffer reset by a fill. Each invocation reads its word, stores it plus one, and
//! writes what it read: timed runs change the data, so only a working reset lets the verify run
//! after them see the initial contents (or the fill) again.

use ash::vk;
use perftest::caps::{Feature, FormatUse, Requirements};
use perftest::registry::{CaseSpec, Glsl, Push, Reset, Resource, ResourceKind, Selection, Unit, Value, Work};
use perftest::runner::bench::Bench;
use perftest::runner::kept::Kept;
use perftest::runner::later::{Beside, Later};
use perftest::runner::measure::Timer;
use perftest::runner::open::context_for;
use perftest::runner::run::prepare;
use perftest::vk::context::{Adapter, ContextOptions};

use crate::harness::{of, Gpu};

const SOURCE: &str = r#"
#version 460
#extension GL_GOOGLE_include_directive : require
#if KIND == 3
#extension GL_EXT_buffer_reference : require
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Words { uint w[]; };
#define FAMILY_PARAMS Words words;
#endif
#include "common.glsl"

#if KIND == 1
layout(set = 0, binding = 1, r32ui) uniform uimage2D data;
uint load(uint i) { return imageLoad(data, ivec2(i % 16u, i / 16u)).x; }
void store(uint i, uint v) { imageStore(data, ivec2(i % 16u, i / 16u), uvec4(v)); }
#elif KIND == 2
layout(set = 0, binding = 1, r32ui) uniform uimageBuffer data;
uint load(uint i) { return imageLoad(data, int(i)).x; }
void store(uint i, uint v) { imageStore(data, int(i), uvec4(v)); }
#elif KIND == 3
uint load(uint i) { return params.words.w[i]; }
void store(uint i, uint v) { params.words.w[i] = v; }
#else
layout(set = 0, binding = 1, std430) buffer Data { uint w[]; } data;
uint load(uint i) { return data.w[i]; }
void store(uint i, uint v) { data.w[i] = v; }
#endif

void main() {
    uint i = global_index() % 128u;
    uint v = load(i);
    store(i, v + 1u);
    write_result(global_index(), v);
}
"#;

const GLSL: Glsl = Glsl { file: "plumbing.glsl", source: SOURCE };
/// 128 words: one per invocation of a verify run (2 workgroups of 64).
const WORDS: u32 = 128;

fn word(k: usize) -> u32 {
    k as u32 * 5 + 3
}

fn fill(bytes: &mut [u8]) {
    for (k, chunk) in bytes.chunks_exact_mut(4).enumerate() {
        chunk.copy_from_slice(&word(k).to_ne_bytes());
    }
}

fn case(
    name: &str,
    kind: &str,
    resource: Resource,
    requires: Requirements,
    push: Push,
    expected: fn(u32) -> u32,
) -> CaseSpec {
    CaseSpec::new(name, GLSL, [64, 1, 1])
        .defines([("KIND", kind)])
        .resource(resource)
        .push(push)
        .work([Work::new(1.0, Unit::Invocation)])
        .requires(requires)
        .reference(move |gid| Value::U32(expected(gid % WORDS)))
}

fn cases() -> Vec<CaseSpec> {
    let format = vk::Format::R32_UINT;
    let bytes = u64::from(WORDS) * 4;
    let with = |kind: ResourceKind, reset: Reset| Resource::new(kind, fill).read_write().reset(reset);
    vec![
        case(
            "plumbing: storage image",
            "1",
            with(ResourceKind::StorageImage { format, size: [16, 8] }, Reset::Initial),
            Requirements::new().format(format, FormatUse::StorageImage),
            Push::default(),
            |i| word(i as usize),
        ),
        case(
            "plumbing: storage texel buffer",
            "2",
            with(ResourceKind::StorageTexelBuffer { format, bytes }, Reset::Initial),
            Requirements::new().format(format, FormatUse::StorageTexelBuffer),
            Push::default(),
            |i| word(i as usize),
        ),
        case(
            "plumbing: buffer device address",
            "3",
            with(ResourceKind::BufferAddress { bytes, push_offset: 0 }, Reset::Initial),
            Requirements::new().feature(Feature::BufferDeviceAddress),
            Push::words(&[0, 0]),
            |i| word(i as usize),
        ),
        case(
            "plumbing: storage buffer reset by a fill",
            "4",
            with(ResourceKind::StorageBuffer { bytes }, Reset::Fill(7)),
            Requirements::new(),
            Push::default(),
            |_| 7,
        ),
    ]
}

#[test]
fn every_binding_kind_and_reset_works_end_to_end() {
    let gpu = Gpu::with_cases(cases());
    let (ctx, cases) = (&gpu.ctx, &gpu.cases);
    let prepared = prepare(ctx, cases, 2, true, false).unwrap_or_else(|e| panic!("{e}"));
    for (case, skipped) in cases.iter().zip(&prepared.skipped) {
        assert_eq!(skipped, &None, "{}: lavapipe and real GPUs offer all of these", case.name);
        let pipeline = prepared.pipelines.get(case).expect("built");
        let mut bench = Bench::new(ctx, case, pipeline).unwrap_or_else(|e| panic!("{}: {e}", case.name));
        // Before any timed run, then after some: a broken reset shows as words counted up.
        assert_eq!(bench.verify().unwrap_or_else(|e| panic!("{e}")), 128, "{}", case.name);
        for groups in [1, 64, 64] {
            let ms = bench.time_ms(groups).unwrap_or_else(|e| panic!("{}: {e}", case.name));
            assert!(ms > 0.0 && ms.is_finite(), "{}: {ms}", case.name);
        }
        assert_eq!(bench.verify().unwrap_or_else(|e| panic!("{e}")), 128, "{}", case.name);
    }
    drop(prepared);
    gpu.close();
}

#[test]
fn a_push_block_that_disagrees_with_the_shader_is_a_compile_error_naming_the_case() {
    let mut cases = cases();
    let mut case = cases.swap_remove(2);
    case.push = Push::default(); // the shader declares an 8-byte address after the header
    let options = ContextOptions { validation: true, ..Default::default() };
    let adapter = Adapter::open(&options).unwrap_or_else(|e| panic!("{e}"));
    let ctx = context_for(adapter, std::slice::from_ref(&case)).unwrap_or_else(|e| panic!("{e}"));
    let error = prepare(&ctx, std::slice::from_ref(&case), 1, true, false).err().expect("the sizes differ");
    assert_eq!(error.exit_code(), perftest::ExitCode::Compile);
    let text = error.to_string();
    assert!(
        text.contains("plumbing: buffer device address") && text.contains("24 bytes but the case fills 16"),
        "{text}"
    );
}

#[test]
fn a_latency_chain_resumes_when_timed_but_verify_starts_at_line_0() {
    // 96 KiB is 768 lines: one timed run of 4 x 256 loads stops at line 256 of the cycle, not 0,
    // so a verify run that resumed from there instead of starting over would not match the CPU.
    let gpu = Gpu::open(&["latency.bytes=96K"], of("latency", "Latency 96 KiB"));
    let (ctx, cases) = (&gpu.ctx, &gpu.cases);
    let prepared = prepare(ctx, cases, 1, false, false).unwrap_or_else(|e| panic!("{e}"));
    let pipeline = prepared.pipelines.get(&cases[0]).expect("built");
    let mut bench = Bench::new(ctx, &cases[0], pipeline).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(bench.verify().unwrap_or_else(|e| panic!("{e}")), 2);
    let ms = bench.time_ms(1).unwrap_or_else(|e| panic!("{e}"));
    assert!(ms > 0.0 && ms.is_finite());
    assert_eq!(bench.verify().unwrap_or_else(|e| panic!("after a timed run: {e}")), 2);
    drop(bench);
    drop(prepared);
    gpu.close();
}

#[test]
fn a_copy_is_verified_word_by_word_against_the_source() {
    use perftest::runner::copy::{CopyBench, Shelf};
    // A device-local target (read back through a host buffer) and a reference: right, then wrong.
    let fill = |b: &mut [u8]| {
        b.chunks_exact_mut(4).enumerate().for_each(|(w, c)| c.copy_from_slice(&(w as u32 * 3).to_ne_bytes()))
    };
    let source = perftest::registry::Resource::transfer_buffer(4096, fill).contents("words times 3");
    let target = perftest::registry::Resource::transfer_buffer(4096, |_| {});
    let right = CaseSpec::copy("copy 4 KiB", source.clone(), target.clone()).reference(|w| Value::U32(w * 3));
    let wrong =
        CaseSpec::copy("copy 4 KiB, wrong reference", source, target).reference(|w| Value::U32(w * 3 + 1));
    let gpu = Gpu::with_cases(vec![right.clone(), wrong.clone()]);
    let ctx = &gpu.ctx;
    let shelf = Shelf::default();
    let mut bench = CopyBench::new(ctx, &right, None, &shelf).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(bench.verify().unwrap_or_else(|e| panic!("{e}")), 1024);
    let ms = bench.time_ms(3).unwrap_or_else(|e| panic!("{e}"));
    assert!(ms > 0.0 && ms.is_finite());
    bench.shelve(&shelf);
    assert_eq!(shelf.held(), 2, "the named source and the target wait for the next case");
    // The next case of the same ends takes both: the target, holding the last copy, is poisoned
    // before the verify run's copy, so the wrong reference still fails.
    let mut bench = CopyBench::new(ctx, &wrong, None, &shelf).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(shelf.held(), 0);
    let error = bench.verify().expect_err("every word differs from the wrong reference");
    assert_eq!(error.exit_code(), perftest::ExitCode::Verify);
    bench.shelve(&shelf);
    drop(shelf);
    gpu.close();
}

#[test]
fn a_copy_buffer_waits_on_the_shelf_for_the_last_case_that_copies_between_its_end() {
    use perftest::runner::copy::{CopyBench, Shelf};
    let words = |times: u32| {
        move |b: &mut [u8]| {
            b.chunks_exact_mut(4)
                .enumerate()
                .for_each(|(w, c)| c.copy_from_slice(&(w as u32 * times).to_ne_bytes()))
        }
    };
    let x = perftest::registry::Resource::transfer_buffer(4096, words(3)).contents("words times 3");
    let y = perftest::registry::Resource::transfer_buffer(4096, words(5)).contents("words times 5");
    let t = perftest::registry::Resource::transfer_buffer(4096, |_| {});
    // X to T, Y to T, X to T again: X waits through the second case, Y goes after it.
    let cases = vec![
        CaseSpec::copy("copy x", x.clone(), t.clone()).reference(|w| Value::U32(w * 3)),
        CaseSpec::copy("copy y", y, t.clone()).reference(|w| Value::U32(w * 5)),
        CaseSpec::copy("copy x again", x, t).reference(|w| Value::U32(w * 3)),
    ];
    let gpu = Gpu::with_cases(cases.clone());
    let ctx = &gpu.ctx;
    let shelf = Shelf::new(ctx, &cases, &[0, 1, 2]);
    let mut held_after = Vec::new();
    for (position, case) in cases.iter().enumerate() {
        let mut bench = CopyBench::new(ctx, case, None, &shelf).unwrap_or_else(|e| panic!("{e}"));
        let taken_from = shelf.held();
        assert_eq!(bench.verify().unwrap_or_else(|e| panic!("{}: {e}", case.name)), 1024);
        bench.shelve(&shelf);
        shelf.after(position);
        held_after.push((taken_from, shelf.held()));
    }
    // The second case takes T and leaves X; the third takes both; nothing waits after the last.
    assert_eq!(held_after, [(0, 2), (1, 2), (0, 0)]);
    assert!(!shelf.clear(), "nothing is held at the end");
    drop(shelf);
    gpu.close();
}

#[test]
fn a_latency_chain_reads_the_shader_clock_around_itself_without_touching_verify() {
    // Lavapipe has shaderSubgroupClock (a CPU's clock, which no run turns into clocks per
    // operation), so the case is built with SHADER_CLOCK: its span is written and read here.
    let gpu = Gpu::open(&[], of("instr", "Instr fp32 fma latency"));
    let (ctx, cases) = (&gpu.ctx, &gpu.cases);
    let case = &cases[0];
    if !ctx.enabled.get(Feature::ShaderSubgroupClock) {
        eprintln!("skipped: the device lacks shaderSubgroupClock");
        drop(gpu);
        return;
    }
    assert!(case.chain_clock, "built to read the clock on a device that has one");
    let prepared = prepare(ctx, cases, 1, false, false).unwrap_or_else(|e| panic!("{e}"));
    let pipeline = prepared.pipelines.get(case).expect("built");
    let mut bench = Bench::new(ctx, case, pipeline).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(bench.chain_span().unwrap(), None, "nothing timed yet");
    let mut spans = Vec::new();
    for trips in [100, 1000] {
        bench.time_ms(trips).unwrap_or_else(|e| panic!("{e}"));
        let per_trip = bench.chain_span().unwrap().expect("a span after a timed run");
        assert!(per_trip > 0.0 && per_trip.is_finite(), "{per_trip}");
        spans.push(per_trip * trips as f64);
    }
    assert!(spans[1] > spans[0], "ten times the trips took more clocks: {spans:?}");
    // No probe on a CPU driver: no clocks per operation from its counter.
    assert_eq!(bench.chain_clocks(1000).unwrap(), None);
    assert_eq!(bench.verify().unwrap_or_else(|e| panic!("after timed runs: {e}")), 16);
    drop(bench);
    drop(prepared);
    gpu.close();
}

#[test]
fn cases_that_read_the_same_contents_share_one_upload_kept_while_a_later_case_reads_it() {
    // M=3 at 64 MiB: plain, readonly and reuse read one signal and one mask; texel reads its own.
    let gpu = Gpu::open(&["conv.m=3", "conv.bytes=64M"], of("conv", "Conv1D<float> M=3 "));
    let (ctx, cases) = (&gpu.ctx, &gpu.cases);
    let names: Vec<&str> = cases.iter().map(|c| c.name.as_str()).collect();
    let paths = ["plain", "readonly", "texel", "reuse"].map(|p| format!("Conv1D<float> M=3 {p} 64 MiB"));
    assert_eq!(names, paths.iter().map(String::as_str).collect::<Vec<_>>());
    let prepared = prepare(ctx, cases, 1, false, false).unwrap_or_else(|e| panic!("{e}"));
    let order: Vec<usize> = (0..cases.len()).collect();
    let kept = Kept::new(ctx, cases, &order);
    let (signal, mask) = (64 << 20, 3 * 4);
    let mut held = Vec::new();
    for (position, case) in cases.iter().enumerate() {
        let pipeline = prepared.pipelines.get(case).expect("built");
        let mut bench = Bench::keeping(ctx, case, pipeline, &kept).unwrap_or_else(|e| panic!("{e}"));
        // Each verifies against the CPU: a kept signal is the right one.
        assert!(bench.verify().unwrap_or_else(|e| panic!("{}: {e}", case.name)) > 0);
        held.push(kept.held_bytes());
        drop(bench);
        kept.after(position);
        held.push(kept.held_bytes());
    }
    // Made once by plain, then taken by readonly (nothing more held); texel adds its own, let
    // go of at once (no later case reads it), and after reuse, the last reader, nothing is kept.
    let both = signal + mask;
    assert_eq!(held, [both, both, both, both, 2 * both, both, both, 0]);
    drop((kept, prepared));
    gpu.close();
}

#[test]
fn the_later_families_pipelines_built_beside_the_cases_come_family_by_family() {
    let selection = Selection {
        families: vec!["address".into(), "broadcast".into(), "dispatch".into()],
        ..Default::default()
    };
    let gpu = Gpu::open(&[], selection);
    let first = gpu.cases[0].family;
    // Those the device can run, as prepare() passes them on.
    let runs = |c: &&CaseSpec| c.family != first && c.requirements().unmet(&gpu.ctx.caps).is_empty();
    let rest: Vec<CaseSpec> = gpu.cases.iter().filter(runs).cloned().collect();
    let families: std::collections::BTreeSet<&str> = rest.iter().map(|c| c.family).collect();
    assert!(families.len() >= 2, "two later families: {families:?}");
    let later = Later::new(&gpu.ctx, rest.clone(), 2, Beside::FamilyByFamily);
    assert!(later.beside(), "a thread could be started");
    // The second family's, waited for; the third's left to the builder, and destroyed unused when
    // the run ends early (the validation layer reports any pipeline left at close).
    let second = &rest[0];
    let built = later.of(second, None).unwrap_or_else(|e| panic!("{e}"));
    for case in rest.iter().filter(|c| c.family == second.family) {
        assert!(built.get(case).is_some(), "{}", case.name);
    }
    let third = rest.iter().find(|c| c.family != second.family).unwrap();
    assert!(built.get(third).is_none(), "family by family: {} came with the second", third.name);
    drop(later);
    let later = Later::new(&gpu.ctx, rest.clone(), 2, Beside::FamilyByFamily);
    let built = later.of(third, None).unwrap_or_else(|e| panic!("{e}"));
    assert!(built.get(third).is_some(), "a later family waited for past an earlier one");
    assert!(later.of(second, None).unwrap_or_else(|e| panic!("{e}")).get(second).is_some());
    drop(later);
    gpu.close();
}
