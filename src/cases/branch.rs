//! Branch divergence: a data-dependent branch around a second load and an N-step ALU payload.
//!
//! From sebbbi/perftest's "Branch with 2 samples + independent ALU workload": each
//! invocation of a 32x32 workgroup loads s1 from its own texel of a 1024x1024 RGBA32F
//! texture; `dot(s1, s1) != 0` decides whether it also loads s2 from a hashed texel of
//! a second texture; then N iterations of `x = y*0.555 + x*y + x*0.9 + x*x`. The
//! inputs differ only in the first texture: coherent (true in two diagonal quadrants,
//! so every subgroup agrees), divergent (a per-texel checkerboard, so every subgroup
//! disagrees), and two controls the original lacks, all taken and none taken.
//! Cases are templates swept over N (`--branch-iterations`), named `NX ...`, each
//! with its ratio against `NX Coherent branch baseline`.
//!
//! The data keeps the payload bounded: x starts at most 0.049 and y at most 0.0039,
//! so x converges to a small fixed point instead of overflowing, and the CPU
//! reference agrees with the GPU within rounding whatever the GPU contracts into FMAs.

use ash::vk;

use crate::registry::{self, Case, Family, Glsl, Mode, Params, Requirement, Resource, Unit, Value, Work};

/// Width and height of both textures.
const SIZE: usize = 1024;
/// Workgroups are SIDE x SIDE invocations.
const SIDE: usize = 32;

const GLSL: Glsl = Glsl { file: "branch.glsl", source: include_str!("../../glsl/branch.glsl") };
const FORMAT: vk::Format = vk::Format::R32G32B32A32_SFLOAT;
const REQUIRES: [Requirement; 2] =
    [Requirement::SampledImage(FORMAT), Requirement::WorkgroupInvocations((SIDE * SIDE) as u32)];
const WORK: [Work; 1] = [Work { per_invocation: 1.0, unit: Unit::Invocation }];

/// The first texture's condition patterns.
#[derive(Clone, Copy)]
enum Input {
    Coherent,
    Divergent,
    AllTaken,
    NoneTaken,
}

fn taken(input: Input, x: usize, y: usize) -> bool {
    match input {
        Input::Coherent => (x < SIZE / 2) == (y < SIZE / 2),
        Input::Divergent => (x + y) % 2 == 0,
        Input::AllTaken => true,
        Input::NoneTaken => false,
    }
}

/// Texel (x, y) of the first texture: non-zero where the branch is taken, zero elsewhere.
fn first(input: Input, x: usize, y: usize) -> [f32; 4] {
    if taken(input, x, y) {
        [0.01, ((x * 7 + y * 13) % 50) as f32 / 1000.0, 0.02, 0.03]
    } else {
        [0.0; 4]
    }
}

/// Texel (x, y) of the second texture.
fn second(x: usize, y: usize) -> [f32; 4] {
    [((x * 3 + y * 5) % 40) as f32 / 10000.0, ((x + y) % 16) as f32 / 16.0, 0.0, 1.0]
}

fn fill(bytes: &mut [u8], texel: impl Fn(usize, usize) -> [f32; 4]) {
    for (i, chunk) in bytes.chunks_exact_mut(16).enumerate() {
        for (c, value) in texel(i % SIZE, i / SIZE).iter().enumerate() {
            chunk[c * 4..c * 4 + 4].copy_from_slice(&value.to_ne_bytes());
        }
    }
}

/// The texel of the second load (`other` in glsl/branch.glsl).
fn other(x: usize, y: usize) -> (usize, usize) {
    let h = (x as u32).wrapping_mul(0x9E37_79B1) ^ (y as u32).wrapping_mul(0x85EB_CA77);
    ((h & 1023) as usize, ((h >> 10) & 1023) as usize)
}

fn payload(mut x: f32, y: f32, n: u32) -> f32 {
    for _ in 0..n {
        x = y * 0.555 + x * y + x * 0.9 + x * x;
    }
    x
}

const BASELINE_VARIANT: u32 = 0;
const LONG: u32 = 1;

fn params(case: &Case, mode: Mode) -> Params {
    // Results are finite: never the NaN sentinel.
    Params {
        write_enable: u32::from(mode == Mode::Verify),
        sentinel: u32::MAX,
        u0: registry::swept(case),
        ..Params::default()
    }
}

/// What invocation `gid` of a verify run (workgroups side by side in x) writes.
fn reference(input: Input, case: &Case, gid: u32) -> Value {
    let (group, local) = (gid as usize / (SIDE * SIDE), gid as usize % (SIDE * SIDE));
    let x = (group % SIDE) * SIDE + local % SIDE;
    let y = ((group / SIDE) % SIDE) * SIDE + local / SIDE;
    let s1 = first(input, x, y);
    let c = s1.iter().map(|v| v * v).sum::<f32>() != 0.0;
    let (ox, oy) = other(x, y);
    let s2 = second(ox, oy);
    let n = registry::swept(case);
    let result = match case.variant & 0xFFFF {
        BASELINE_VARIANT => payload(s1[1], s2[0], n) + s2[1],
        LONG if c => payload(s1[1], s2[0], n) + s2[1],
        LONG => payload(s1[1], s1[0], n),
        _ if c => payload(s1[1], s2[0], n) + s2[1],
        _ => payload(s1[1], 0.0, n), // short: s2 stays zero when the branch is not taken
    };
    Value::F32Near(result)
}

macro_rules! branch_family {
    ($order:literal, $label:literal, $input:ident) => {
        const _: () = {
            static CASES: [Case; 3] = [
                Case {
                    name: concat!($label, " branch baseline"),
                    defines: &[("VARIANT", "0")],
                    work: &WORK,
                    requires: &REQUIRES,
                    variant: BASELINE_VARIANT,
                },
                Case {
                    name: concat!($label, " branch long"),
                    defines: &[("VARIANT", "1")],
                    work: &WORK,
                    requires: &REQUIRES,
                    variant: LONG,
                },
                Case {
                    name: concat!($label, " branch short"),
                    defines: &[("VARIANT", "2")],
                    work: &WORK,
                    requires: &REQUIRES,
                    variant: 2,
                },
            ];
            inventory::submit! {
                Family {
                    name: concat!("branch ", $label),
                    order: $order,
                    glsl: GLSL,
                    local_size: [SIDE as u32, SIDE as u32, 1],
                    resources: &[
                        Resource::Image2D {
                            format: FORMAT,
                            size: [SIZE as u32, SIZE as u32],
                            texel_bytes: 16,
                            filter: vk::Filter::NEAREST,
                            fill: |bytes| fill(bytes, |x, y| first(Input::$input, x, y)),
                        },
                        Resource::Image2D {
                            format: FORMAT,
                            size: [SIZE as u32, SIZE as u32],
                            texel_bytes: 16,
                            filter: vk::Filter::NEAREST,
                            fill: |bytes| fill(bytes, second),
                        },
                    ],
                    cases: &CASES,
                    params,
                    reference: |case, gid| reference(Input::$input, case, gid),
                    baseline: Some("Coherent branch baseline"),
                    sweep: true,
                }
            }
        };
    };
}

branch_family!(500, "Coherent", Coherent);
branch_family!(501, "Divergent", Divergent);
branch_family!(502, "All-taken", AllTaken);
branch_family!(503, "None-taken", NoneTaken);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coherent_input_agrees_within_every_workgroup_row_and_divergent_never() {
        // A subgroup of up to 32 invocations is one row of a 32x32 tile here.
        for tile in 0..SIZE / SIDE {
            for row in [0, 17, 31] {
                let y = tile * SIDE + row;
                let coherent: Vec<bool> =
                    (0..SIDE).map(|x| taken(Input::Coherent, tile * SIDE + x, y)).collect();
                assert!(coherent.iter().all(|&t| t == coherent[0]));
                let divergent: Vec<bool> = (0..SIDE).map(|x| taken(Input::Divergent, x, y)).collect();
                assert!(divergent.contains(&true) && divergent.contains(&false));
            }
        }
    }

    #[test]
    fn the_payload_stays_bounded_for_every_input() {
        let x0 = (0..50).map(|k| k as f32 / 1000.0).fold(0.0, f32::max);
        let y = (0..40).map(|k| k as f32 / 10000.0).fold(0.0, f32::max);
        let x = payload(x0, y, 4096);
        assert!(x.is_finite() && x < 0.1, "{x}");
    }

    #[test]
    fn the_expanded_names_follow_the_original() {
        let sweep = registry::Sweep { from: 0, to: 8, step: 8 };
        let names: Vec<&str> =
            registry::all_with(sweep).iter().filter(|s| s.family.sweep).map(|s| s.case.name).collect();
        assert_eq!(names.len(), 24);
        assert_eq!(
            &names[..4],
            [
                "0X Coherent branch baseline",
                "0X Coherent branch long",
                "0X Coherent branch short",
                "0X Divergent branch baseline"
            ]
        );
        assert_eq!(names[12], "8X Coherent branch baseline");
        assert_eq!(names[23], "8X None-taken branch short");
    }

    #[test]
    fn long_and_short_branches_keep_dont_flatten_in_the_spirv() {
        // OpSelectionMerge (247) with the DontFlatten selection control (0x2).
        let compiler = crate::shader::ShaderCompiler::new().unwrap();
        for s in registry::templates().into_iter().filter(|s| s.family.sweep) {
            let spirv = compiler.compile(s.family, s.case).unwrap();
            let mut at = 5;
            let mut dont_flatten = 0;
            while at < spirv.len() {
                let (words, op) = ((spirv[at] >> 16) as usize, spirv[at] & 0xFFFF);
                if op == 247 && spirv[at + 2] & 0x2 != 0 {
                    dont_flatten += 1;
                }
                at += words.max(1);
            }
            let expected = if s.case.variant == BASELINE_VARIANT { 0 } else { 1 };
            assert_eq!(dont_flatten, expected, "{}", s.case.name);
        }
    }
}
