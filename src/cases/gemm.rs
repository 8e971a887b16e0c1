//! GEMM: a whole tiled matrix multiply C = A * B on the tensor cores, M = N = K = n, timed one
//! problem per dispatch as a stream of kernel launches runs it: the rate to hold against cuBLAS.
//!
//! Two ways to write it (glsl/gemm.glsl). **Subgroup tiles** (`VK_KHR_cooperative_matrix`, what
//! portable Vulkan ML code such as llama.cpp's `mul_mm` does): a workgroup's subgroups each own a
//! part of its C tile in 16 x 16 accumulators, and each step of K is staged through shared
//! memory, double-buffered, the next step's loads in registers while the tensor cores work.
//! **Workgroup tiles** (`VK_NV_cooperative_matrix2`): the workgroup holds whole BM x BK and BK x BN
//! matrices loaded through tensor layouts, and the driver does the staging.
//!
//! A is n x n row-major; B is stored as its columns (n rows of K, a weight matrix's layout); C is
//! row-major, fp32 or int32. Elements are small exact values (see `matrix.rs`), so every sum is
//! exact in the accumulator whatever the order of the additions. A verify run multiplies once and
//! compares one sampled element of every 64 x 64 block of C (each workgroup's tile, each
//! subgroup's part) with a CPU dot product; the rest is not compared.

use ash::vk;

use super::data::fill_elements;
use super::matrix::{self, a_value, b_value, component, C};
use super::matrix_data::{self, Operand};
use crate::caps::component::BFLOAT16;
use crate::caps::{Ceiling, CoopMatFlexible, CoopMatShape, Feature, Limit, Requirements};
use crate::registry::data::Data;
use crate::registry::{self, Axis, AxisUnit, CaseSpec, Env, Family, Glsl, Resource, Unit, Value, Work};

const GLSL: Glsl = Glsl { file: "gemm.glsl", source: include_str!("../../glsl/gemm.glsl") };

/// The input and accumulator types, in run order.
const TYPES: [(C, C); 3] = [(C::FLOAT16, C::FLOAT32), (BFLOAT16, C::FLOAT32), (C::SINT8, C::SINT32)];

/// Matrix sides are multiples of this: the largest tile side.
const GRAIN: u64 = 256;
/// The side of the blocks of C that a verify run samples one element of.
const SAMPLE_BLOCK: u64 = 64;
/// Invocations of a workgroup-scope tile.
const WORKGROUP_INVOCATIONS: u32 = 256;

/// How a workgroup computes its tile.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Scope {
    /// A grid of subgroups (along M, along N), each owning one part of the tile in 16 x 16
    /// accumulators, A and B staged through shared memory.
    Subgroup([u32; 2]),
    /// One workgroup-scope matrix per operand, loaded through tensor layouts.
    Workgroup,
}

/// A workgroup's tile of C, BM x BN, and its step along K for 16-bit inputs (8-bit inputs step
/// twice as far: the same bytes).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Tile {
    m: u32,
    n: u32,
    k16: u32,
    scope: Scope,
}

/// The tiles, in run order: the subgroup-scope tile of llama.cpp's shape and the best of those
/// tried on the H100, and three workgroup-scope tiles towards the best (results/gemm/README.md has the others
/// tried and their rates).
const TILES: [Tile; 5] = [
    Tile { m: 128, n: 128, k16: 32, scope: Scope::Subgroup([2, 4]) },
    Tile { m: 128, n: 256, k16: 16, scope: Scope::Subgroup([2, 4]) },
    Tile { m: 128, n: 128, k16: 64, scope: Scope::Workgroup },
    Tile { m: 128, n: 256, k16: 32, scope: Scope::Workgroup },
    Tile { m: 128, n: 256, k16: 64, scope: Scope::Workgroup },
];

impl Tile {
    /// The step along K for inputs of `bytes` bytes.
    fn k(&self, bytes: u64) -> u32 {
        self.k16 * 2 / bytes.max(1) as u32
    }
}

/// What a case multiplies and how.
#[derive(Clone, Copy, Debug)]
struct Plan {
    /// The input type (A and B) and the accumulator's.
    a: C,
    c: C,
    /// M = N = K.
    n: u64,
    tile: Tile,
    /// Invocations per subgroup (the device's; 32 without one).
    subgroup: u32,
}

impl Plan {
    fn input_bytes(&self) -> u64 {
        component(self.a).map_or(2, |c| c.2)
    }

    fn invocations(&self) -> u32 {
        match self.tile.scope {
            Scope::Subgroup([m, n]) => m * n * self.subgroup,
            Scope::Workgroup => WORKGROUP_INVOCATIONS,
        }
    }

    /// Bytes of shared memory the subgroup-scope shader declares: two stages of the A and B
    /// tiles, rows of one step's inputs plus a uvec4 of padding.
    fn shared_bytes(&self) -> u32 {
        let row = u64::from(self.tile.k(self.input_bytes())) * self.input_bytes() / 16 + 1;
        (2 * u64::from(self.tile.m + self.tile.n) * row * 16) as u32
    }

    /// Workgroups of one multiply: one per tile of C.
    fn groups(&self) -> u32 {
        (self.n / u64::from(self.tile.m) * (self.n / u64::from(self.tile.n))) as u32
    }

    /// The variant's name, without the size: `GEMM f16*f16+f32 subgroup tiles 128x128x32 (8 subgroups)`.
    fn variant(&self) -> String {
        let (a, c) = (component(self.a).map_or("?", |t| t.1), component(self.c).map_or("?", |t| t.1));
        let t = self.tile;
        let k = t.k(self.input_bytes());
        let (scope, who) = match t.scope {
            Scope::Subgroup([m, n]) => ("subgroup", format!("{} subgroups", m * n)),
            Scope::Workgroup => ("workgroup", format!("{WORKGROUP_INVOCATIONS} invocations")),
        };
        format!("GEMM {a}*{a}+{c} {scope} tiles {}x{}x{k} ({who})", t.m, t.n)
    }

    fn name(&self) -> String {
        let variant = self.variant();
        let (head, tail) =
            variant.split_at(variant.find(" subgroup").or(variant.find(" workgroup")).unwrap_or(0));
        format!("{head} {}^3{tail}", self.n)
    }
}

/// The element of C at (i, j): the dot product of row i of A and column j of B (stored as row j).
fn product(a: C, n: u64, i: u64, j: u64) -> f64 {
    (0..n).map(|x| a_value(a, i * n + x) * b_value(a, j * n + x)).sum()
}

/// The element a verify run checks in block (bi, bj) of C: a position from a hash of the block,
/// so that across blocks every row and column of a fragment is checked somewhere.
fn sample(bi: u64, bj: u64) -> (u64, u64) {
    let h = ((bi as u32).wrapping_mul(0x9E37_79B1) ^ (bj as u32).wrapping_mul(0x85EB_CA77))
        .wrapping_mul(0xC2B2_AE3D);
    let h = u64::from(h >> 8);
    (bi * SAMPLE_BLOCK + h % SAMPLE_BLOCK, bj * SAMPLE_BLOCK + (h / SAMPLE_BLOCK) % SAMPLE_BLOCK)
}

/// Word `w` of C after a verify run: the product where it is sampled, else unchecked.
fn reference(plan: Plan, w: u32) -> Value {
    let (i, j) = (u64::from(w) / plan.n, u64::from(w) % plan.n);
    if sample(i / SAMPLE_BLOCK, j / SAMPLE_BLOCK) != (i, j) {
        return Value::Unchecked;
    }
    let sum = product(plan.a, plan.n, i, j);
    match plan.c {
        C::FLOAT32 => Value::F32(sum as f32),
        _ => Value::U32(sum as i64 as u32),
    }
}

/// [`reference`] on `data` other than the default: the integers exact (wrapped), the floats
/// within the rounding of n additions ([`matrix_data::rounding`]).
fn data_reference(plan: Plan, data: Data, w: u32) -> Value {
    let (i, j) = (u64::from(w) / plan.n, u64::from(w) % plan.n);
    if sample(i / SAMPLE_BLOCK, j / SAMPLE_BLOCK) != (i, j) {
        return Value::Unchecked;
    }
    // Row i of A against column j of B, stored as row j.
    let n = plan.n;
    let (sum, magnitude) = matrix_data::dot(plan.a, data, n, |x| i * n + x, |x| j * n + x);
    matrix_data::accumulated(plan.c, sum, matrix_data::rounding(magnitude, n))
}

/// The workgroup-scope family the case requires: the device's for these types and
/// [`WORKGROUP_INVOCATIONS`] whose granularity divides the tile, else NVIDIA's, which a device
/// without it is told it lacks.
fn flexible_family(env: &Env, plan: &Plan) -> CoopMatFlexible {
    let k = plan.tile.k(plan.input_bytes());
    let fits = |f: &CoopMatFlexible| {
        let g = f.granularity;
        g.a == plan.a
            && g.b == plan.a
            && g.c == plan.c
            && g.result == plan.c
            && !g.saturating
            && g.scope == vk::ScopeKHR::WORKGROUP
            && f.invocations == WORKGROUP_INVOCATIONS
            && plan.tile.m % g.m.max(1) == 0
            && plan.tile.n % g.n.max(1) == 0
            && k % g.k.max(1) == 0
    };
    let listed = env.device.and_then(|d| d.cooperative_matrix_flexible.iter().copied().find(|f| fits(f)));
    listed.unwrap_or(CoopMatFlexible {
        granularity: CoopMatShape {
            m: 32,
            n: 32,
            k: 16 * 2 / plan.input_bytes() as u32,
            a: plan.a,
            b: plan.a,
            c: plan.c,
            result: plan.c,
            saturating: false,
            scope: vk::ScopeKHR::WORKGROUP,
        },
        invocations: WORKGROUP_INVOCATIONS,
    })
}

fn requirements(env: &Env, plan: &Plan) -> Requirements {
    let (a, c, tile) = (plan.a, plan.c, plan.tile);
    match tile.scope {
        Scope::Subgroup(_) => {
            let step = 16 * 2 / plan.input_bytes() as u32;
            let shape = CoopMatShape {
                m: 16,
                n: 16,
                k: step,
                a,
                b: a,
                c,
                result: c,
                saturating: false,
                scope: vk::ScopeKHR::SUBGROUP,
            };
            matrix::requirements(matrix::Scope::Subgroup(shape), a, c)
                .limit(Limit::SharedMemoryBytes(plan.shared_bytes()))
        }
        Scope::Workgroup => {
            let scope = matrix::Scope::Workgroup {
                family: flexible_family(env, plan),
                dimension: tile.m.max(tile.n).max(tile.k(plan.input_bytes())),
                invocations: WORKGROUP_INVOCATIONS,
            };
            matrix::requirements(scope, a, c).feature(Feature::CooperativeMatrixTensorAddressing)
        }
    }
}

fn case(env: &Env, plan: Plan, data: Data) -> Option<CaseSpec> {
    let (at, short, bytes) = component(plan.a)?;
    let (ct, _, _) = component(plan.c)?;
    let n = plan.n;
    let matrix = |operand| matrix_data::fill(plan.a, operand, data, bytes as usize);
    // Every tiling of a type multiplies the same A and B on the same data.
    let contents = |m: &str| format!("GEMM {short} {m}{}", data.suffix());
    let a = Resource::storage_buffer(n * n * bytes, matrix(Operand::A)).contents(contents("A"));
    let b = Resource::storage_buffer(n * n * bytes, matrix(Operand::B)).contents(contents("B"));
    // All ones: an element the multiply never writes reads NaN or -1.
    // On all cores: from one core, the staging buffer's first writes took a 256 MiB C's setup
    // from 40 to 60 ms on the H200 (results/half-the-time-9/).
    let c = Resource::storage_buffer(n * n * 4, |out| fill_elements(out, 4, |_, word| word.fill(0xFF)))
        .read_write();
    let (unit, ceiling) = match plan.a {
        C::FLOAT16 => (Unit::Flop, Ceiling::TensorFp16),
        BFLOAT16 => (Unit::Flop, Ceiling::TensorBf16),
        _ => (Unit::IntOp, Ceiling::TensorInt8),
    };
    let tile = plan.tile;
    let k = tile.k(bytes);
    let mut defines: Vec<(&str, String)> = vec![
        ("AT", at.into()),
        ("CT", ct.into()),
        ("M", format!("{n}u")),
        ("N", format!("{n}u")),
        ("K", format!("{n}u")),
        ("BM", format!("{}u", tile.m)),
        ("BN", format!("{}u", tile.n)),
        ("BK", format!("{k}u")),
    ];
    match tile.scope {
        Scope::Subgroup([m, n]) => defines.extend([
            ("WM", format!("{}u", tile.m / m)),
            ("WN", format!("{}u", tile.n / n)),
            ("TK", format!("{}u", 16 * 2 / bytes)),
            ("ES", format!("{bytes}u")),
        ]),
        Scope::Workgroup => defines.push(("TENSOR", "1".into())),
    }
    if plan.a == BFLOAT16 {
        defines.push(("BFLOAT16", "1".into()));
    }
    let scope = match tile.scope {
        Scope::Subgroup(_) => "subgroup",
        Scope::Workgroup => "workgroup",
    };
    let spec = CaseSpec::new(plan.name(), GLSL, [plan.invocations(), 1, 1])
        .group("gemm")
        .axis("n", n, plan.variant())
        .label("type", short)
        .label("scope", scope)
        .defines(defines.iter().map(|(k, v)| (*k, v.as_str())))
        .resource(a)
        .resource(b)
        .resource(c)
        .requires(requirements(env, &plan))
        .scale_by_problem(plan.groups())
        .work([Work::new((2 * n * n * n) as f64, unit).bounded_by(ceiling)])
        .checks(2)
        .reference(move |w| match data {
            Data::Default => reference(plan, w),
            _ => data_reference(plan, data, w),
        });
    Some(spec.data(data))
}

/// The sizes of a run: `--axis gemm.n`, rounded down to multiples of [`GRAIN`].
fn sizes(env: &Env) -> Vec<u64> {
    env.axis_rounded("n", |n| Some(n / GRAIN * GRAIN).filter(|&n| n > 0))
}

fn expand(env: &Env) -> Vec<CaseSpec> {
    let subgroup = env.device.map_or(32, |d| d.subgroup_size.max(1));
    let mut cases = Vec::new();
    for (a, c) in TYPES {
        for n in sizes(env) {
            for tile in TILES {
                // Each on each data; the other data run only when asked for.
                let plan = Plan { a, c, n, tile, subgroup };
                cases.extend(Data::ALL.into_iter().filter_map(|data| case(env, plan, data)));
            }
        }
    }
    cases
}

const SIZE: Axis = Axis {
    name: "n",
    unit: AxisUnit::Count("rows"),
    default: "4096,8192",
    max: 16384,
    about: "M = N = K of the multiply, rounded down to a multiple of 256 (the largest tile side), at most \
            16384; default 4096 and 8192",
};

inventory::submit! {
    Family {
        about: registry::About {
            measures: "a whole matrix multiply C = A * B on the tensor cores (fp16 and bf16 into fp32, int8 into \
                       int32; M = N = K = 4096 and 8192): subgroup-scope tiles staged through shared memory \
                       (VK_KHR_cooperative_matrix) and workgroup-scope tiles loaded through tensor layouts \
                       (VK_NV_cooperative_matrix2), the rate to hold against cuBLAS on the same card",
            invocation: "its part of one tile of C: BM x BN per workgroup, walking K in steps of BK; the runner \
                         records more whole multiplies, one dispatch each with a barrier between",
            rate: "FLOP (or integer operations) per second, 2 per multiply-add: 2 n^3 per multiply",
        },
        name: "gemm",
        order: 920,
        axes: &[SIZE],
        ratio_note: None,
        levels: false,
        device_cases: false,
        quick: &[
            "GEMM f16*f16+f32 8192^3 workgroup tiles 128x256x64 (256 invocations)",
            "GEMM s8*s8+s32 8192^3 workgroup tiles 128x256x128 (256 invocations)",
        ],
        expand,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(a: C, c: C, n: u64, tile: Tile) -> Plan {
        Plan { a, c, n, tile, subgroup: 32 }
    }

    #[test]
    fn names_say_types_size_and_tile() {
        let names: Vec<String> =
            TILES.iter().map(|&t| plan(C::FLOAT16, C::FLOAT32, 4096, t).name()).collect();
        assert_eq!(
            names,
            [
                "GEMM f16*f16+f32 4096^3 subgroup tiles 128x128x32 (8 subgroups)",
                "GEMM f16*f16+f32 4096^3 subgroup tiles 128x256x16 (8 subgroups)",
                "GEMM f16*f16+f32 4096^3 workgroup tiles 128x128x64 (256 invocations)",
                "GEMM f16*f16+f32 4096^3 workgroup tiles 128x256x32 (256 invocations)",
                "GEMM f16*f16+f32 4096^3 workgroup tiles 128x256x64 (256 invocations)",
            ]
        );
        // 8-bit inputs step twice as far along K: the same bytes per row.
        assert_eq!(
            plan(C::SINT8, C::SINT32, 8192, TILES[0]).name(),
            "GEMM s8*s8+s32 8192^3 subgroup tiles 128x128x64 (8 subgroups)"
        );
    }

    #[test]
    fn every_block_of_c_is_sampled_once_and_varies_inside_the_block() {
        let blocks = 4096 / SAMPLE_BLOCK;
        let mut rows = std::collections::HashSet::new();
        let mut columns = std::collections::HashSet::new();
        for bi in 0..blocks {
            for bj in 0..blocks {
                let (i, j) = sample(bi, bj);
                assert_eq!((i / SAMPLE_BLOCK, j / SAMPLE_BLOCK), (bi, bj));
                rows.insert(i % 16);
                columns.insert(j % 16);
            }
        }
        // Every row and column of a 16 x 16 fragment is checked somewhere.
        assert_eq!((rows.len(), columns.len()), (16, 16));
        let p = plan(C::FLOAT16, C::FLOAT32, 256, TILES[0]);
        let checked = (0..256 * 256).filter(|&w| reference(p, w) != Value::Unchecked).count();
        assert_eq!(checked, 16);
    }

    #[test]
    fn other_data_checks_the_same_elements_within_their_rounding() {
        let p = plan(C::FLOAT16, C::FLOAT32, 256, TILES[0]);
        for w in 0..256 * 256 {
            let (default, zeros) = (reference(p, w), data_reference(p, Data::Zeros, w));
            assert_eq!(default == Value::Unchecked, zeros == Value::Unchecked);
            if zeros != Value::Unchecked {
                assert_eq!(zeros, Value::F32Within { value: 0.0, bound: 0.0 });
                // On random data: row i of A against column j of B (stored as row j), in fp32.
                let (i, j) = (u64::from(w) / 256, u64::from(w) % 256);
                let value = |o, e| {
                    matrix_data::decode(C::FLOAT16, matrix_data::element_bits(C::FLOAT16, o, Data::Random, e))
                };
                let terms: Vec<f64> = (0..256)
                    .map(|x| value(Operand::A, i * 256 + x) * value(Operand::B, j * 256 + x))
                    .collect();
                let magnitude: f64 = terms.iter().map(|t| t.abs()).sum();
                let expected = Value::F32Within {
                    value: terms.iter().sum::<f64>() as f32,
                    bound: matrix_data::rounding(magnitude, 256) as f32,
                };
                assert_eq!(data_reference(p, Data::Random, w), expected);
            }
        }
        // Each data is a case of its own, on buffers of its own; the default keeps its name.
        let family = registry::families().into_iter().find(|f| f.name == "gemm").unwrap();
        let env = Env { family, settings: &[], device: None };
        let ints = plan(C::SINT8, C::SINT32, 256, TILES[0]);
        let cases: Vec<CaseSpec> = Data::ALL.into_iter().filter_map(|d| case(&env, ints, d)).collect();
        let names: Vec<&str> = cases.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names[0], ints.name());
        assert_eq!(names[3], format!("{} on random data", ints.name()));
        let sources: Vec<Option<&str>> = cases.iter().map(|c| c.resources[0].contents.as_deref()).collect();
        assert_eq!(
            sources,
            [
                Some("GEMM s8 A"),
                Some("GEMM s8 A on zeros"),
                Some("GEMM s8 A on a constant"),
                Some("GEMM s8 A on random data")
            ]
        );
        let w = (0..256 * 256).find(|&w| reference(ints, w) != Value::Unchecked).unwrap();
        assert!(matches!(data_reference(ints, Data::Random, w), Value::U32(_)));
    }

    #[test]
    fn sums_are_exact_and_tell_wrong_layouts_from_the_right_one() {
        let n = 256;
        for (a, _) in TYPES {
            // Eight elements of C, as `element(i, j)` computes them.
            let sampled = |element: &dyn Fn(u64, u64) -> f64| -> Vec<f64> {
                (0..8).map(|i| element(i * 31, i * 17 + 3)).collect()
            };
            let right = sampled(&|i, j| product(a, n, i, j));
            // fp32 holds every sum exactly: multiples of 1/16 below 2^20.
            assert!(
                right.iter().all(|v| (v * 16.0).fract() == 0.0 && v.abs() < f64::from(1 << 20)),
                "{right:?}"
            );
            assert!(right.iter().any(|v| *v != right[0]), "constant");
            let dot = |len: u64, a_at: &dyn Fn(u64) -> u64, b_at: &dyn Fn(u64) -> u64| -> f64 {
                (0..len).map(|x| a_value(a, a_at(x)) * b_value(a, b_at(x))).sum()
            };
            let b_row_major = sampled(&|i, j| dot(n, &|x| i * n + x, &|x| x * n + j));
            assert_ne!(b_row_major, right, "B read row-major");
            let a_transposed = sampled(&|i, j| dot(n, &|x| x * n + i, &|x| j * n + x));
            assert_ne!(a_transposed, right, "A transposed");
            let half_k = sampled(&|i, j| dot(n / 2, &|x| i * n + x, &|x| j * n + x));
            assert_ne!(half_k, right, "half of K");
        }
        // The largest possible sum at the largest size stays exact too.
        let bound = 16384.0 * 0.5 * 0.5;
        assert!(bound * 16.0 < f64::from(1u32 << 24));
    }

    #[test]
    fn the_reference_encodes_the_accumulator_type() {
        let (i, j) = sample(0, 0);
        let w = (i * 256 + j) as u32;
        let float = reference(plan(C::FLOAT16, C::FLOAT32, 256, TILES[2]), w);
        assert_eq!(float, Value::F32(product(C::FLOAT16, 256, i, j) as f32));
        let int = reference(plan(C::SINT8, C::SINT32, 256, TILES[2]), w);
        assert_eq!(int, Value::U32(product(C::SINT8, 256, i, j) as i64 as u32));
    }

    #[test]
    fn tiles_fit_the_shader_and_the_limits() {
        for (a, c) in TYPES {
            for tile in TILES {
                let p = plan(a, c, 4096, tile);
                if let Scope::Subgroup([m, n]) = tile.scope {
                    assert_eq!((tile.m / m % 16, tile.n / n % 16), (0, 0));
                    // Two stages of the A and B rows: within the 48 KiB most devices allow.
                    assert!(p.shared_bytes() <= 49_152, "{}", p.name());
                }
                assert_eq!(p.groups(), 4096 / tile.m * (4096 / tile.n));
            }
        }
    }

    #[test]
    fn the_shaders_compile_to_what_the_cases_require() {
        let compiler = crate::shader::ShaderCompiler::new().unwrap();
        let family = registry::families().into_iter().find(|f| f.name == "gemm").unwrap();
        let env = Env { family, settings: &[], device: None };
        for (a, c) in TYPES {
            for tile in TILES {
                let case = case(&env, plan(a, c, 256, tile), Data::Default).unwrap();
                let spirv = compiler.compile(&case).unwrap_or_else(|e| panic!("{}: {e}", case.name));
                let uncovered = crate::shader::capabilities::uncovered(&spirv, &case.requirements());
                assert!(uncovered.is_empty(), "{}: {uncovered:?}", case.name);
                // The runner refuses a shader whose push block differs from the case's.
                let push = crate::shader::spirv::push_constant_bytes(&spirv);
                assert_eq!(push, Some(case.push.size() as u32), "{}", case.name);
            }
        }
    }
}
