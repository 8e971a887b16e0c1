//! The energy table: what a unit of work costs at each level a run measured with `--energy`, from
//! the arithmetic (fp32 and fp16 FMAs, the tensor cores) down the memory hierarchy (shared memory,
//! the cache levels and DRAM the linear vec4 sweep found, the host link), each row read from one
//! named case; and each such level on the data the run also measured it on (the `data` axis).

use super::levels::LATENCY;
use crate::registry::data::{self, Data};
use crate::registry::Unit;
use crate::results::model::{CaseResult, Run, Status};

/// The swept variant whose levels give the memory rows.
pub const SWEEP: &str = "Sweep SSBO vec4 linear";

/// Whether `case` ran on its family's default data (a case without a `data` axis does): a data
/// variant is another workload, never a family's best rate or its energy row.
pub fn on_default_data(case: &CaseResult) -> bool {
    case.labels.get(data::AXIS).is_none_or(|d| d == Data::Default.name())
}

/// One level's row.
#[derive(Clone, Debug, PartialEq)]
pub struct Level<'a> {
    /// What it is (`fp32 FMA`, `L2`, `DRAM`, `host link`).
    pub level: String,
    /// One unit of it as a sentence says it (`an fp32 FLOP`, `a byte from L2`).
    pub each: String,
    /// Whether it moves bytes (the memory rows) rather than computes (the arithmetic rows).
    pub memory: bool,
    /// The case it is read from.
    pub case: &'a CaseResult,
    /// The unit its energy is per (`FLOP`, `B`).
    pub unit: Unit,
    /// Picojoules per unit for the board.
    pub board: f64,
    /// Picojoules per unit above the idle board, where known.
    pub above: Option<f64>,
}

/// A case of the run that ran and has energy per `unit`.
fn with_energy(case: &CaseResult, unit: Unit) -> Option<(f64, Option<f64>)> {
    if case.status != Status::Ok {
        return None;
    }
    let (board, above) = case.energy.as_ref()?.per(unit);
    Some((board?, above))
}

fn row<'a>(level: &str, each: &str, case: &'a CaseResult, unit: Unit) -> Option<Level<'a>> {
    let (board, above) = with_energy(case, unit)?;
    let memory = unit == Unit::Byte;
    Some(Level { level: level.to_owned(), each: each.to_owned(), memory, case, unit, board, above })
}

/// The run's table, arithmetic first, then memory from the nearest level out; empty without
/// energy.
pub fn table(run: &Run) -> Vec<Level<'_>> {
    let named = |name: &str| run.cases.iter().find(|c| c.name == name);
    let mut rows = Vec::new();
    let arithmetic = [
        ("fp32 FMA", "an fp32 FLOP", "ALU fp32 FMA"),
        ("fp16 FMA (f16vec2)", "an fp16 FLOP", "ALU fp16 FMA (f16vec2)"),
    ];
    for (level, each, name) in arithmetic {
        rows.extend(named(name).and_then(|c| row(level, each, c, Unit::Flop)));
    }
    // The fastest of a family's cases on its default data (the others join the table by data).
    let fastest = |family: &str, unit: Unit| {
        run.cases
            .iter()
            .filter(|c| c.family == family && on_default_data(c) && with_energy(c, unit).is_some())
            .max_by(|a, b| rate(a).total_cmp(&rate(b)))
    };
    let tensor = fastest("coopmat", Unit::Flop);
    rows.extend(tensor.and_then(|c| row("tensor cores", "a tensor-core FLOP", c, Unit::Flop)));
    let shared = named("Shared vec4");
    rows.extend(shared.and_then(|c| row("shared memory", "a byte from shared memory", c, Unit::Byte)));
    rows.extend(sweep_rows(run));
    let link = run
        .cases
        .iter()
        .filter(|c| c.variant == "Copy host to device" && with_energy(c, Unit::Byte).is_some())
        .max_by_key(|c| c.axes.get("bytes").copied().unwrap_or(0));
    rows.extend(link.and_then(|c| row("host link", "a byte copied from the host", c, Unit::Byte)));
    rows
}

fn rate(case: &CaseResult) -> f64 {
    case.rate.as_ref().map_or(0.0, |r| r.value)
}

/// The sweep's rows: per level it found, the middle of its working sets the run has energy for
/// (the lower of two: a level's edges mix in the next level, and cost more: on the H100 a 32 MiB
/// set, still at the L2's rate, cost 30% more per byte than a 16 MiB one, results/energy/); where
/// it found no levels (few sizes ran), each size with energy; a size at a level's edge, that no
/// level holds, on its own where the run also measured it on other data.
fn sweep_rows(run: &Run) -> Vec<Level<'_>> {
    let swept: Vec<&CaseResult> =
        run.cases.iter().filter(|c| c.variant == SWEEP && with_energy(c, Unit::Byte).is_some()).collect();
    let bytes = |c: &CaseResult| c.axes.get("bytes").copied().unwrap_or(0);
    let levels = run.levels.iter().find(|l| l.variant == SWEEP && l.unit != LATENCY);
    let levels = levels.filter(|l| l.levels.len() > 1).map_or(&[][..], |l| &l.levels[..]);
    let mut rows: Vec<Level> = levels
        .iter()
        .filter_map(|level| {
            let mut within: Vec<&&CaseResult> =
                swept.iter().filter(|c| (level.from_bytes..=level.to_bytes).contains(&bytes(c))).collect();
            within.sort_by_key(|c| bytes(c));
            let case = *within.get(within.len().checked_sub(1)? / 2)?;
            row(&level.name, &format!("a byte from {}", level.name), case, Unit::Byte)
        })
        .collect();
    // Without levels (few sizes ran) each size is a row; with them, a size no level holds (a
    // level's edge) that the run measured on other data too, so that the table by data has it.
    let on_data = |c: &CaseResult| run.cases.iter().any(|o| on_other_data(c, o));
    let outside = swept
        .iter()
        .filter(|c| !levels.iter().any(|l| (l.from_bytes..=l.to_bytes).contains(&bytes(c))))
        .filter(|c| levels.is_empty() || on_data(c));
    rows.extend(outside.filter_map(|c| {
        let size = crate::format::format_bytes(bytes(c));
        row(&format!("reads of {size}"), &format!("a byte read from {size}"), c, Unit::Byte)
    }));
    rows.sort_by_key(|r| bytes(r.case));
    rows
}

/// One level on each data the run measured it on: the default first, then zeros, a constant
/// and random data where the run has them (`--axis FAMILY.data=...`).
#[derive(Clone, Debug)]
pub struct ByData<'a> {
    /// The level on its family's default data (the row of [`table`]).
    pub level: Level<'a>,
    /// The level on each other data the run has it on, in [`Data::ALL`]'s order.
    pub on: Vec<(Data, Level<'a>)>,
}

impl ByData<'_> {
    /// The level on `data`.
    pub fn on(&self, data: Data) -> Option<&Level<'_>> {
        match data {
            Data::Default => Some(&self.level),
            _ => self.on.iter().find(|(d, _)| *d == data).map(|(_, l)| l),
        }
    }

    /// The board energy on random data over that on zeros: what the data alone spans.
    pub fn span(&self) -> Option<f64> {
        Some(self.on(Data::Random)?.board / self.on(Data::Zeros)?.board)
    }
}

/// Whether `other` is the case `case` on other data: its family, its axis values, its variant
/// with a data suffix.
fn on_other_data(case: &CaseResult, other: &CaseResult) -> bool {
    other.family == case.family
        && other.axes == case.axes
        && other.variant != case.variant
        && Data::base(&other.variant) == case.variant
}

/// Each level's span in words, where the run has it on both zeros and random data: `an fp32
/// FLOP 1.589x`.
pub fn spans(rows: &[ByData]) -> Vec<String> {
    rows.iter()
        .filter_map(|r| Some(format!("{} {}", r.level.each, crate::format::ratio_text(r.span()?))))
        .collect()
}

/// The levels of [`table`] that the run also measured on other data than the default, each with
/// those; empty where it measured none.
pub fn by_data(run: &Run) -> Vec<ByData<'_>> {
    table(run)
        .into_iter()
        .filter_map(|level| {
            let mut on: Vec<(Data, Level)> = run
                .cases
                .iter()
                .filter(|c| on_other_data(level.case, c))
                .filter_map(|c| {
                    let data = Data::named(c.labels.get(data::AXIS)?)?;
                    Some((data, row(&level.level, &level.each, c, level.unit)?))
                })
                .collect();
            on.sort_by_key(|(d, _)| Data::ALL.iter().position(|a| a == d));
            (!on.is_empty()).then_some(ByData { level, on })
        })
        .collect()
}

/// The `fp32 FMA` row and each memory row with its board energy over an FMA's (two FLOPs): what
/// a byte from each level costs in fp32 FMAs' energy.
pub fn in_fmas<'a>(rows: &'a [Level<'a>]) -> Option<(&'a Level<'a>, Vec<(&'a Level<'a>, f64)>)> {
    let fma = rows.iter().find(|r| r.level == "fp32 FMA")?;
    // An FMA is two FLOPs.
    let per_fma = fma.board * 2.0;
    Some((fma, rows.iter().filter(|r| r.memory).map(|r| (r, r.board / per_fma)).collect()))
}

/// The levels in the order the runs first show them, each with its row per run.
pub fn side_by_side<'a>(runs: &'a [Run]) -> Vec<(String, Vec<Option<Level<'a>>>)> {
    let tables: Vec<Vec<Level>> = runs.iter().map(table).collect();
    let mut levels: Vec<String> = Vec::new();
    for row in tables.iter().flatten() {
        if !levels.contains(&row.level) {
            levels.push(row.level.clone());
        }
    }
    levels
        .into_iter()
        .map(|level| {
            let each = tables.iter().map(|t| t.iter().find(|r| r.level == level).cloned()).collect();
            (level, each)
        })
        .collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::results::energy::CaseEnergy;
    use crate::results::levels::{Level as SweptLevel, Levels};
    use crate::results::measure::Measure;
    use crate::results::model::Amount;

    fn energy(unit: Unit, board: f64, above: f64) -> CaseEnergy {
        CaseEnergy {
            seconds: 4.0,
            joules: 1600.0,
            measurements: 200,
            busy: None,
            per_unit: vec![Amount { value: board, unit: Measure::Energy(unit) }],
            above_idle: vec![Amount { value: above, unit: Measure::Energy(unit) }],
        }
    }

    pub(crate) fn run_with_energy() -> Run {
        let mut run = crate::results::model::tests::sample_run();
        let template = run.cases[0].clone();
        let case = |name: &str, family: &str, variant: &str, bytes: Option<u64>, e: Option<CaseEnergy>| {
            let mut c = CaseResult {
                name: name.into(),
                family: family.into(),
                variant: variant.into(),
                status: Status::Ok,
                energy: e.map(Box::new),
                ..template.clone()
            };
            c.axes = bytes.map(|b| [("bytes".to_owned(), b)].into()).unwrap_or_default();
            c
        };
        run.cases = vec![
            case("ALU fp32 FMA", "alu", "ALU fp32 FMA", None, Some(energy(Unit::Flop, 5.13, 3.11))),
            case("Shared vec4", "shared", "Shared vec4", None, Some(energy(Unit::Byte, 10.9, 7.13))),
            case(
                "Sweep SSBO vec4 linear 64 KiB",
                "sweep",
                SWEEP,
                Some(64 << 10),
                Some(energy(Unit::Byte, 12.6, 8.78)),
            ),
            case(
                "Sweep SSBO vec4 linear 16 MiB",
                "sweep",
                SWEEP,
                Some(16 << 20),
                Some(energy(Unit::Byte, 57.6, 41.9)),
            ),
            case("Sweep SSBO vec4 linear 32 MiB", "sweep", SWEEP, Some(32 << 20), None),
            case(
                "Sweep SSBO vec4 linear 2 MiB",
                "sweep",
                SWEEP,
                Some(2 << 20),
                Some(energy(Unit::Byte, 50.0, 36.0)),
            ),
            case(
                "Sweep SSBO vec4 linear 8 MiB",
                "sweep",
                SWEEP,
                Some(8 << 20),
                Some(energy(Unit::Byte, 55.0, 40.0)),
            ),
            case(
                "Sweep SSBO vec4 linear 1 GiB",
                "sweep",
                SWEEP,
                Some(1 << 30),
                Some(energy(Unit::Byte, 130.0, 90.0)),
            ),
        ];
        let level = |name: &str, from: u64, to: u64| SweptLevel {
            name: name.into(),
            rate: 1e12,
            from_bytes: from,
            to_bytes: to,
        };
        run.levels = vec![Levels {
            variant: SWEEP.into(),
            unit: "B/s".into(),
            levels: vec![
                level("L1", 16 << 10, 64 << 10),
                level("L2", 1 << 20, 32 << 20),
                level("DRAM", 128 << 20, 1 << 30),
            ],
        }];
        run
    }

    #[test]
    fn each_level_is_read_from_its_case_and_a_byte_is_priced_in_fmas() {
        let run = run_with_energy();
        let rows = table(&run);
        let names: Vec<(&str, &str)> =
            rows.iter().map(|r| (r.level.as_str(), r.case.name.as_str())).collect();
        assert_eq!(
            names,
            [
                ("fp32 FMA", "ALU fp32 FMA"),
                ("shared memory", "Shared vec4"),
                ("L1", "Sweep SSBO vec4 linear 64 KiB"),
                // The middle of the level's sizes with energy (2, 8 and 16 MiB; 32 MiB has none).
                ("L2", "Sweep SSBO vec4 linear 8 MiB"),
                ("DRAM", "Sweep SSBO vec4 linear 1 GiB"),
            ]
        );
        assert_eq!((rows[4].board, rows[4].above), (130.0, Some(90.0)));
        let (fma, bytes) = in_fmas(&rows).unwrap();
        assert_eq!(fma.level, "fp32 FMA");
        let dram = bytes.iter().find(|(r, _)| r.level == "DRAM").unwrap().1;
        assert!((dram - 130.0 / 10.26).abs() < 1e-9, "{dram}");
        // Without levels, each size is its own row.
        let mut few = run.clone();
        few.levels.clear();
        let rows = table(&few);
        assert_eq!(rows[2].level, "reads of 64 KiB");
        // Without energy, no table.
        let mut none = run;
        none.cases.iter_mut().for_each(|c| c.energy = None);
        assert!(table(&none).is_empty());
    }

    /// [`run_with_energy`] with the FMA on zeros and random data and the 8 MiB sweep on random
    /// data, and a case on zeros of another variant that must not join.
    pub(crate) fn run_on_data() -> Run {
        let mut run = run_with_energy();
        let like = |base: &str, name: &str, data: Data, board: f64| {
            let mut c = run.cases.iter().find(|c| c.name == base).unwrap().clone();
            c.name = name.into();
            c.variant.push_str(data.suffix());
            c.labels = [(data::AXIS.to_owned(), data.name().to_owned())].into();
            let unit = c.energy.as_ref().unwrap().per_unit[0].unit.clone();
            c.energy.as_mut().unwrap().per_unit = vec![Amount { value: board, unit }];
            c
        };
        let (fma, l2) = ("ALU fp32 FMA", "Sweep SSBO vec4 linear 8 MiB");
        let extra = [
            like(fma, "ALU fp32 FMA on zeros", Data::Zeros, 3.74),
            like(fma, "ALU fp32 FMA on random data", Data::Random, 8.47),
            like(l2, "Sweep SSBO vec4 linear on random data 8 MiB", Data::Random, 60.5),
        ];
        let mut other = like(l2, "Sweep SSBO vec4 linear on zeros 16 MiB", Data::Zeros, 1.0);
        other.axes.insert("bytes".into(), 16 << 20);
        run.cases.extend(extra);
        run.cases.push(other);
        run
    }

    #[test]
    fn the_tensor_row_is_the_fastest_case_on_its_default_data() {
        let mut run = run_with_energy();
        let template = run.cases[0].clone();
        let coopmat = |name: &str, data: Data, rate: f64, board: f64| {
            let mut c = template.clone();
            (c.name, c.family, c.variant) = (name.into(), "coopmat".into(), name.into());
            c.labels = [(data::AXIS.to_owned(), data.name().to_owned())].into();
            c.rate = Some(Amount { value: rate, unit: "FLOP/s".into() });
            c.energy = Some(Box::new(energy(Unit::Flop, board, board / 2.0)));
            c
        };
        let base = "CoopMat f16*f16+f32 16x16x16 subgroup";
        let mut zeros = coopmat(&format!("{base} on zeros"), Data::Zeros, 7e14, 0.4);
        zeros.variant = zeros.name.clone();
        run.cases.push(coopmat("CoopMat f16*f16+f16 16x8x8 subgroup", Data::Default, 4e14, 0.6));
        run.cases.push(coopmat(base, Data::Default, 6e14, 0.8));
        // Faster, but on zeros: the default's row on zeros, not the row.
        run.cases.push(zeros);
        let tensor =
            |rows: &[Level]| rows.iter().find(|r| r.level == "tensor cores").map(|r| r.case.name.clone());
        assert_eq!(tensor(&table(&run)).as_deref(), Some(base));
        let by = by_data(&run);
        let row = by.iter().find(|r| r.level.level == "tensor cores").unwrap();
        assert_eq!(row.on(Data::Zeros).unwrap().board, 0.4);
    }

    #[test]
    fn a_level_on_other_data_is_the_same_case_on_that_data() {
        let run = run_on_data();
        let rows = by_data(&run);
        let found: Vec<(&str, Vec<&str>)> = rows
            .iter()
            .map(|r| (r.level.level.as_str(), r.on.iter().map(|(_, l)| l.case.name.as_str()).collect()))
            .collect();
        assert_eq!(
            found,
            [
                ("fp32 FMA", vec!["ALU fp32 FMA on zeros", "ALU fp32 FMA on random data"]),
                // The zeros case of 16 MiB is another size: not the 8 MiB level's.
                ("L2", vec!["Sweep SSBO vec4 linear on random data 8 MiB"]),
            ]
        );
        assert!((rows[0].span().unwrap() - 8.47 / 3.74).abs() < 1e-12);
        assert_eq!(rows[1].span(), None, "no zeros at 8 MiB");
        assert_eq!(rows[0].on(Data::Default).unwrap().board, 5.13);
        assert!(by_data(&run_with_energy()).is_empty());
    }
}
