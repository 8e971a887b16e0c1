//! Branch divergence: a data-dependent branch around a second load and an N-step ALU payload.
//!
//! From sebbbi/perftest's "Branch with 2 samples + independent ALU workload": each
//! invocation of a 32x32 workgroup (32 x fewer rows where the device allows fewer) loads s1 from its own texel of a 1024x1024 RGBA32F
//! texture; `dot(s1, s1) != 0` decides whether it also loads s2 from a hashed texel of
//! a second texture; then N iterations of `x = y*0.555 + x*y + x*0.9 + x*x`. The
//! inputs differ only in the first texture: coherent (true in two diagonal quadrants,
//! so every subgroup agrees), divergent (a per-texel checkerboard, so every subgroup
//! disagrees), and two controls the original lacks, all taken and none taken.
//! Cases are swept over the axis `branch.n` (`--axis branch.n=0:256:8`, or
//! `--branch-iterations`), named `NX ...`, each with its ratio against `NX Coherent branch baseline`.
//!
//! The data keeps the payload bounded: x starts at most 0.049 and y at most 0.0039,
//! so x converges to a small fixed point instead of overflowing, and the CPU
//! reference agrees with the GPU within rounding whatever the GPU contracts into FMAs.

use ash::vk;

use crate::registry::{self, Axis, AxisUnit, CaseSpec, Env, Family, Glsl, Push, Resource, Unit, Value, Work};

/// Width and height of both textures.
const SIZE: usize = 1024;
/// Workgroups are SIDE invocations wide and, where the device allows, SIDE rows tall.
const SIDE: usize = 32;

const GLSL: Glsl = Glsl { file: "branch.glsl", source: include_str!("../../glsl/branch.glsl") };
const FORMAT: vk::Format = vk::Format::R32G32B32A32_SFLOAT;

/// The first texture's condition patterns.
#[derive(Clone, Copy, Debug)]
enum Input {
    Coherent,
    Divergent,
    AllTaken,
    NoneTaken,
}

impl Input {
    const ALL: [Input; 4] = [Input::Coherent, Input::Divergent, Input::AllTaken, Input::NoneTaken];

    fn label(self) -> &'static str {
        match self {
            Input::Coherent => "Coherent",
            Input::Divergent => "Divergent",
            Input::AllTaken => "All-taken",
            Input::NoneTaken => "None-taken",
        }
    }
}

/// Where the branch is, and what it guards (VARIANT in glsl/branch.glsl).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Variant {
    /// No branch: always load s2, then the payload.
    Baseline,
    /// `if (c) { load s2; payload } else { payload }`.
    Long,
    /// `if (c) { load s2 }`, then the payload.
    Short,
}

impl Variant {
    const ALL: [Variant; 3] = [Variant::Baseline, Variant::Long, Variant::Short];

    fn label(self) -> &'static str {
        match self {
            Variant::Baseline => "baseline",
            Variant::Long => "long",
            Variant::Short => "short",
        }
    }

    fn define(self) -> &'static str {
        match self {
            Variant::Baseline => "0",
            Variant::Long => "1",
            Variant::Short => "2",
        }
    }
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

/// The texel invocation `gid` of a verify run (workgroups of SIDE x `rows`, side by side in x)
/// reads: the workgroups tile the texture, SIDE tiles to a row, then wrap (`texel` in the GLSL).
fn texel(rows: usize, gid: u32) -> (usize, usize) {
    let (group, local) = (gid as usize / (SIDE * rows), gid as usize % (SIDE * rows));
    let x = (group % SIDE) * SIDE + local % SIDE;
    let y = ((group / SIDE) % (SIZE / rows)) * rows + local / SIDE;
    (x, y)
}

/// What invocation `gid` of a verify run in workgroups of SIDE x `rows` writes.
fn reference(input: Input, variant: Variant, n: u32, rows: usize, gid: u32) -> Value {
    let (x, y) = texel(rows, gid);
    let s1 = first(input, x, y);
    let c = s1.iter().map(|v| v * v).sum::<f32>() != 0.0;
    let (ox, oy) = other(x, y);
    let s2 = second(ox, oy);
    let result = match variant {
        Variant::Baseline => payload(s1[1], s2[0], n) + s2[1],
        Variant::Long if c => payload(s1[1], s2[0], n) + s2[1],
        Variant::Long => payload(s1[1], s1[0], n),
        Variant::Short if c => payload(s1[1], s2[0], n) + s2[1],
        Variant::Short => payload(s1[1], 0.0, n), // s2 stays zero when the branch is not taken
    };
    Value::F32Near(result)
}

/// `NX Input branch variant` in workgroups of SIDE x `rows`.
fn case(n: u32, input: Input, variant: Variant, rows: u32) -> CaseSpec {
    let variant_name = format!("{} branch {}", input.label(), variant.label());
    // The 16-MB textures are filled when the case runs, not when it is listed.
    // Kept on the device from case to case: every case of an input reads the same first texture,
    // and every case the same second.
    let first_texture = Resource::sampled_image(FORMAT, [SIZE as u32; 2], vk::Filter::NEAREST, move |b| {
        fill(b, |x, y| first(input, x, y))
    })
    .contents(format!("branch {} conditions", input.label()));
    let second_texture =
        Resource::sampled_image(FORMAT, [SIZE as u32; 2], vk::Filter::NEAREST, |b| fill(b, second))
            .contents("branch second loads");
    CaseSpec::new(format!("{n}X {variant_name}"), GLSL, [SIDE as u32, rows, 1])
        .narrowed_from((SIDE * SIDE) as u64)
        .axis("n", u64::from(n), variant_name)
        .group(format!("branch {}", input.label()))
        .defines([("VARIANT", variant.define())])
        .resource(first_texture)
        .resource(second_texture)
        .push(Push::words(&[n]))
        .work([Work::new(1.0, Unit::Invocation)])
        .baseline(format!("{n}X Coherent branch baseline"))
        .reference(move |gid| reference(input, variant, n, rows as usize, gid))
}

/// For each N, each input, each variant: the original's order.
fn expand(env: &Env) -> Vec<CaseSpec> {
    let rows = env.workgroup_rows(SIDE as u32, SIDE as u32);
    let mut cases = Vec::new();
    for n in env.axis("n") {
        for input in Input::ALL {
            for variant in Variant::ALL {
                cases.push(case(n as u32, input, variant, rows));
            }
        }
    }
    cases
}

/// The payload iterations N (`--axis branch.n=...`, or `--branch-iterations`).
pub(super) const N: Axis = Axis {
    name: "n",
    unit: AxisUnit::Count("iterations"),
    default: "0:256:8",
    max: 65535,
    about: "payload iterations, default 0:256:8",
};

inventory::submit! {
    Family {
        about: registry::About {
            measures: "the cost of a data-dependent branch around a second texture load and an N-step ALU \
                       payload, when subgroups agree (coherent) and when they do not (divergent)",
            invocation: "one texel of a 1024x1024 RGBA32F texture decides the branch; the taken path loads a \
                         second texel; then N iterations of x = y*0.555 + x*y + x*0.9 + x*x",
            rate: "invocations per second",
        },
        name: "branch",
        order: 500,
        axes: &[N],
        ratio_note: Some("\"NX Coherent branch baseline\""),
        levels: false,
        device_cases: false,
        quick: &[
            "64X Coherent branch baseline",
            "64X Coherent branch long",
            "64X Divergent branch baseline",
            "64X Divergent branch long",
        ],
        expand,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry;

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
    fn workgroups_of_any_height_tile_the_texture_once() {
        for rows in [32, 16, 4] {
            let mut seen = vec![false; SIZE * SIZE];
            for gid in 0..(SIZE * SIZE) as u32 {
                let (x, y) = texel(rows, gid);
                assert!(!seen[y * SIZE + x], "rows {rows}: texel ({x}, {y}) twice");
                seen[y * SIZE + x] = true;
            }
            // Each workgroup row is 32 texels of one texture row: a subgroup of up to 32 agrees.
            assert_eq!(texel(rows, 31), (31, 0));
            assert_eq!(texel(rows, 32), (0, 1));
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
        let setting = registry::parse_setting("branch.n=0:8:8").unwrap();
        let cases = registry::expand(&[setting], None);
        let names: Vec<&str> =
            cases.iter().filter(|c| c.family == "branch").map(|c| c.name.as_str()).collect();
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
        for input in Input::ALL {
            for variant in Variant::ALL {
                let case = case(8, input, variant, SIDE as u32);
                let spirv = compiler.compile(&case).unwrap();
                let dont_flatten = crate::shader::spirv::instructions(&spirv)
                    .filter(|i| {
                        i.opcode == crate::shader::spirv::OP_SELECTION_MERGE && i.operands[1] & 0x2 != 0
                    })
                    .count();
                let expected = if variant == Variant::Baseline { 0 } else { 1 };
                assert_eq!(dont_flatten, expected, "{}", case.name);
            }
        }
    }
}
