//! The corruption screen (`sdc`): work whose every result bit is known, checked by the shader
//! itself during timed work, each mismatch logged with the compute unit that computed it
//! ([`crate::record::faults`], docs/corruption.md): multiply-add chains ([`chains`]),
//! transcendental chains held to their first pass ([`sfu`]), moving inversions over each
//! workgroup's shared memory ([`shared`]), atomic adds with known totals ([`atomic`]), cooperative
//! matrices with exact sums ([`coopmat`]), buffer copies checked after they went there and back
//! ([`copy`]) and moving inversions over device memory, a size or most of what is free
//! ([`memory`]). The cases still yield their rates: the screen is a measurement.
//!
//! `PERFTEST_INJECT_FAULT=unit=U,bit=B,rate=R` (tests and coverage studies only) compiles a fault
//! injector into the chains: on unit U an invocation flips bit B of one chain halfway, with the
//! chance that makes R flips per multiply-add; `word=W,bit=B` holds bit B of the memory passes'
//! word W stuck at 0, `shared=W,bit=B[,unit=U]` bit B of the shared tile's word W (on unit U).
//! `atomic=U,bit=B` flips bit B of the atomics' first add of each cycle on unit U, `matrix=U,bit=B`
//! bit B of the cooperative matrices' first element on unit U, `copy=W,bit=B` bit B of the copied
//! buffer's word W after each check. Every record of such a case says so. `PERFTEST_SDC_CHECK=off` compiles the chains' comparison
//! out, to measure what checking costs; `PERFTEST_SDC_BUFFER_BYTES=N` makes the memory passes'
//! buffers at most N bytes (so that a small device holds several).

mod atomic;
mod chains;
mod coopmat;
mod copy;
mod memory;
mod sfu;
mod shared;

use crate::caps::Feature;
use crate::registry::{self, Axis, AxisUnit, CaseSpec, Env, Family};

/// Invocations per workgroup, where the device allows them.
const GROUP: u32 = 256;
/// Where the device names no unit, the injector's "unit" is the workgroup index modulo this.
const GROUP_UNITS: u32 = 128;

// The shaders' 32-bit mix (glsl/mix.glsl): the memory and shared-memory patterns.
use crate::registry::data::mix32;

/// `case` with the note that its `PERFTEST_INJECT_FAULT` text was not understood, and why.
fn not_understood(case: CaseSpec, why: &str) -> CaseSpec {
    case.note(format!("PERFTEST_INJECT_FAULT not understood ({why}): nothing injected"))
}

/// The `key=value` parts of a `PERFTEST_INJECT_FAULT` text, trimmed, or the part that is not one.
fn key_values(text: &str) -> impl Iterator<Item = Result<(&str, &str), String>> {
    text.split(',').map(|part| {
        let (key, value) = part.split_once('=').ok_or_else(|| format!("`{part}` is not key=value"))?;
        Ok((key.trim(), value.trim()))
    })
}

/// A bit the test-only injector holds stuck at 0: word `word` of the memory passes (counted across
/// their buffers) or of the shared tile, on one unit or every one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Stuck {
    pub word: u64,
    pub bit: u32,
    pub unit: Option<u32>,
}

impl Stuck {
    /// `PLACE=W,bit=B` (and, for the shared tile, `,unit=U`) with W below `words`, or why not:
    /// `place` is `word` (the memory passes) or `shared` (the tile of `words` words).
    pub fn parse(text: &str, place: &str, words: u64) -> Result<Self, String> {
        let (mut word, mut bit, mut unit) = (None, None, None);
        for pair in key_values(text) {
            let (key, value) = pair?;
            let number = value.parse::<u64>().map_err(|_| format!("`{value}` is not a number for {key}"))?;
            match key {
                key if key == place && number < words => word = Some(number),
                key if key == place => return Err(format!("word {number} is past the tile's {words}")),
                "bit" if number < 32 => bit = Some(number as u32),
                "bit" => return Err(format!("bit {number} is not in a 32-bit word")),
                "unit" if place == "shared" => {
                    unit = Some(u32::try_from(number).map_err(|_| format!("unit {number} is not a unit"))?)
                }
                other if place == "shared" => return Err(format!("`{other}` is not shared, bit or unit")),
                other => return Err(format!("`{other}` is not {place} or bit")),
            }
        }
        Ok(Stuck { word: word.ok_or(format!("no {place}="))?, bit: bit.ok_or("no bit=")?, unit })
    }
}

/// A bit the test-only injector flips in one result on one unit (or, where the device names no
/// unit, in the workgroups whose index modulo [`GROUP_UNITS`] is `unit`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Flip {
    pub unit: u32,
    pub bit: u32,
}

impl Flip {
    /// `PLACE=U,bit=B` (`place`: `atomic` or `matrix`), or why not.
    pub fn parse(text: &str, place: &str) -> Result<Self, String> {
        let (mut unit, mut bit) = (None, None);
        for pair in key_values(text) {
            let (key, value) = pair?;
            let number = value.parse::<u32>().map_err(|_| format!("`{value}` is not a number for {key}"))?;
            match key {
                key if key == place => unit = Some(number),
                "bit" if number < 32 => bit = Some(number),
                "bit" => return Err(format!("bit {number} is not in a 32-bit word")),
                other => return Err(format!("`{other}` is not {place} or bit")),
            }
        }
        Ok(Flip { unit: unit.ok_or(format!("no {place}="))?, bit: bit.ok_or("no bit=")? })
    }
}

/// A fault the test-only injector puts in: the unit, the bit, the flips per multiply-add, and the
/// seed of its draws (trials with different seeds flip different invocations).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Injection {
    pub unit: u32,
    pub bit: u32,
    pub rate: f64,
    pub seed: u32,
}

impl Injection {
    /// `unit=U,bit=B,rate=R[,seed=S]`, or why not.
    pub fn parse(text: &str) -> Result<Self, String> {
        let (mut unit, mut bit, mut rate, mut seed) = (None, None, None, 0);
        for pair in key_values(text) {
            let (key, value) = pair?;
            let bad = |_| format!("`{value}` is not a number for {key}");
            match key {
                "unit" => unit = Some(value.parse::<u32>().map_err(bad)?),
                "bit" => bit = Some(value.parse::<u32>().map_err(bad)?),
                "seed" => seed = value.parse::<u32>().map_err(bad)?,
                "rate" => rate = Some(value.parse::<f64>().map_err(|_| format!("`{value}` is not a rate"))?),
                other => return Err(format!("`{other}` is not unit, bit, rate or seed")),
            }
        }
        let injection = Injection {
            unit: unit.ok_or("no unit=")?,
            bit: bit.ok_or("no bit=")?,
            rate: rate.ok_or("no rate=")?,
            seed,
        };
        if !(injection.rate > 0.0 && injection.rate < 1.0) {
            return Err(format!("rate {} is not between 0 and 1", injection.rate));
        }
        Ok(injection)
    }

    /// The chance out of 2^32 that an invocation of `steps` multiply-adds flips a bit.
    pub fn threshold(&self, steps: f64) -> u32 {
        (self.rate * steps * 4_294_967_296.0).round().clamp(1.0, u32::MAX as f64) as u32
    }

    /// The rate the threshold gives, per multiply-add.
    pub fn effective_rate(&self, steps: f64) -> f64 {
        f64::from(self.threshold(steps)) / 4_294_967_296.0 / steps
    }
}

fn expand(env: &Env) -> Vec<CaseSpec> {
    let width = env.workgroup_width(GROUP);
    let sm_id = env.device.is_some_and(|d| d.features.get(Feature::ShaderSmBuiltins));
    let inject = std::env::var("PERFTEST_INJECT_FAULT").ok().filter(|t| !t.is_empty());
    let stuck = |key: &str| inject.as_deref().filter(|t| t.split(',').any(|p| p.trim().starts_with(key)));
    let chains_inject = inject
        .as_deref()
        .filter(|_| {
            ["word=", "shared=", "atomic=", "matrix=", "copy="].iter().all(|key| stuck(key).is_none())
        })
        .map(Injection::parse);
    let memory_inject = stuck("word=").map(|t| Stuck::parse(t, "word", u64::MAX));
    let shared_inject = stuck("shared=").map(|t| Stuck::parse(t, "shared", shared::WORDS.into()));
    let atomic_inject = stuck("atomic=").map(|t| Flip::parse(t, "atomic"));
    let matrix_inject = stuck("matrix=").map(|t| Flip::parse(t, "matrix"));
    let copy_inject = stuck("copy=").map(|t| Stuck::parse(t, "copy", u64::MAX));
    let checked = std::env::var("PERFTEST_SDC_CHECK").map_or(true, |v| v != "off");
    let mut cases: Vec<CaseSpec> = chains::Kind::ALL
        .map(|kind| chains::case(kind, width, sm_id, chains_inject.as_ref(), checked))
        .to_vec();
    let units = env.device.and_then(|d| d.compute_units);
    cases.push(sfu::case(width, units, sm_id));
    cases.push(shared::case(width, sm_id, shared_inject.as_ref()));
    cases.extend(
        atomic::Place::ALL
            .map(|place| atomic::case(place, width, units, sm_id, atomic_inject.as_ref(), checked)),
    );
    let subgroup = env.device.map_or(32, |d| d.subgroup_size.max(1));
    cases.extend(coopmat::cases(subgroup, sm_id, matrix_inject.as_ref(), checked));
    cases.push(copy::case(width, copy_inject.as_ref(), checked));
    let sizes = env.axis("bytes").into_iter().map(memory::Size::Bytes).chain([memory::Size::Free]);
    cases.extend(sizes.map(|size| memory::case(env, size, width, sm_id, memory_inject.as_ref())));
    cases
}

/// The memory pass's sizes (beside its pass over most of the free memory).
const BYTES: Axis = Axis {
    name: "bytes",
    unit: AxisUnit::Bytes,
    default: "128M",
    max: 1 << 40,
    about:
        "bytes of the memory pass of a fixed size (rounded down to whole workgroups, in buffers of at most \
            4 GiB), default 128 MiB (a size every device holds, so the case has one name everywhere); \
            another pass covers most of the free memory of a device with its own",
};

inventory::submit! {
    Family {
        about: registry::About {
            measures: "silent data corruption: fp32, fp16, fp64 and int32 multiply-add chains, transcendental \
                       chains, shared memory, atomic adds, cooperative matrices and device memory, every result \
                       bit known, checked by the shader during timed work, each mismatch named with its compute \
                       unit or its word (docs/corruption.md)",
            invocation: "16 chains of 1024 multiply-adds from start values in a table, each chain's end compared \
                         bit for bit with the CPU's; 512 atomic adds whose counters' totals are compared; its \
                         share of a subgroup's matrix chains, each element compared; or one uvec4 of a buffer \
                         read, compared with the pattern the last pass wrote, and written inverted",
            rate: "FLOPS, IOPS, operations or bytes per second read and written, and the results checked and \
                   found wrong",
        },
        name: "sdc",
        order: 980,
        axes: &[BYTES],
        ratio_note: None,
        levels: false,
        device_cases: false,
        // The fp32 chains: a tenth of a second of every health check screens the FMA pipes.
        quick: &["SDC fp32 FMA chains"],
        expand,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stuck_bit_is_parsed_or_refused() {
        assert_eq!(
            Stuck::parse("word=1000,bit=7", "word", u64::MAX),
            Ok(Stuck { word: 1000, bit: 7, unit: None })
        );
        assert!(Stuck::parse("word=1000,bit=32", "word", u64::MAX).unwrap_err().contains("32-bit"));
        assert!(Stuck::parse("word=1000", "word", u64::MAX).unwrap_err().contains("bit"));
        assert!(Stuck::parse("word=1,bit=1,unit=3", "word", u64::MAX)
            .unwrap_err()
            .contains("not word or bit"));
        let shared = Stuck::parse("shared=100,bit=3,unit=9", "shared", 4096);
        assert_eq!(shared, Ok(Stuck { word: 100, bit: 3, unit: Some(9) }));
        assert!(Stuck::parse("shared=4096,bit=3", "shared", 4096).unwrap_err().contains("past the tile"));
    }

    #[test]
    fn every_case_compiles_with_unit_ids_and_each_injector() {
        // The default expansion (no device, no injector) compiles in src/shader's test.
        let compiler = crate::shader::ShaderCompiler::new().unwrap();
        let flip = Ok(Flip { unit: 3, bit: 5 });
        let injection = Ok(Injection { unit: 3, bit: 5, rate: 1e-9, seed: 1 });
        let stuck = Ok(Stuck { word: 7, bit: 2, unit: Some(3) });
        let mut cases: Vec<CaseSpec> =
            chains::Kind::ALL.map(|kind| chains::case(kind, GROUP, true, Some(&injection), true)).to_vec();
        cases.push(sfu::case(GROUP, Some(132), true));
        cases.push(shared::case(GROUP, true, Some(&stuck)));
        cases.extend(
            atomic::Place::ALL.map(|place| atomic::case(place, GROUP, Some(132), true, Some(&flip), true)),
        );
        cases.extend(coopmat::cases(32, true, Some(&flip), true));
        cases.extend(coopmat::cases(32, false, Some(&flip), false));
        cases.push(copy::case(GROUP, Some(&Ok(Stuck { word: 7, bit: 2, unit: None })), true));
        cases.push(copy::case(GROUP, None, false));
        assert_eq!(cases.len(), 16);
        for case in cases {
            let spirv = compiler.compile(&case).unwrap_or_else(|e| panic!("{}: {e}", case.name));
            assert!(!spirv.is_empty(), "{}", case.name);
        }
    }

    #[test]
    fn a_flip_is_parsed_or_refused() {
        assert_eq!(Flip::parse("atomic=4,bit=9", "atomic"), Ok(Flip { unit: 4, bit: 9 }));
        assert_eq!(Flip::parse("matrix=0, bit=3", "matrix"), Ok(Flip { unit: 0, bit: 3 }));
        assert!(Flip::parse("atomic=4,bit=32", "atomic").unwrap_err().contains("32-bit"));
        assert!(Flip::parse("atomic=4", "atomic").unwrap_err().contains("bit="));
        assert!(Flip::parse("atomic=4,bit=1,word=3", "atomic").unwrap_err().contains("not atomic or bit"));
    }

    #[test]
    fn an_injection_is_parsed_or_refused_with_a_reason() {
        let inj = Injection::parse("unit=3,bit=20,rate=1e-12").unwrap();
        assert_eq!(inj, Injection { unit: 3, bit: 20, rate: 1e-12, seed: 0 });
        assert_eq!(Injection::parse("unit=3,bit=20,rate=1e-12,seed=77").unwrap().seed, 77);
        // 16384 multiply-adds an invocation: 1e-12 of them is a chance of 70 in 2^32.
        assert_eq!(inj.threshold(16384.0), 70);
        assert!((inj.effective_rate(16384.0) / 1e-12 - 1.0).abs() < 0.01);
        assert!(Injection::parse("unit=3,bit=20").unwrap_err().contains("rate"));
        assert!(Injection::parse("unit=3,bit=x,rate=1e-9").unwrap_err().contains("bit"));
        assert!(Injection::parse("unit=3,bit=1,rate=2").unwrap_err().contains("between 0 and 1"));
    }
}
