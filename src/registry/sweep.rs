//! Swept families: template cases run once per value N, named `NX template`.

use super::{templates, Case, Selected};

/// The values N of a swept family's cases: FROM to TO inclusive, every STEP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sweep {
    /// First value.
    pub from: u32,
    /// Last value (included when FROM + k * STEP reaches it).
    pub to: u32,
    /// Increment, at least 1.
    pub step: u32,
}

/// Bits of `Case::variant` below this hold the template's variant; N sits above.
pub const SWEEP_SHIFT: u32 = 16;

impl Sweep {
    /// 0 to 256 in steps of 8.
    pub const DEFAULT: Sweep = Sweep { from: 0, to: 256, step: 8 };

    /// The values, in order.
    pub fn values(self) -> impl Iterator<Item = u32> {
        (self.from..=self.to).step_by(self.step as usize)
    }

    /// Parses `FROM:TO:STEP` (N at most 65535, STEP at least 1).
    pub fn parse(text: &str) -> Result<Sweep, String> {
        let numbers: Vec<Result<u32, _>> = text.split(':').map(str::parse::<u32>).collect();
        match numbers.as_slice() {
            [Ok(from), Ok(to), Ok(step)] if from <= to && *step >= 1 && *to < (1 << (32 - SWEEP_SHIFT)) => {
                Ok(Sweep { from: *from, to: *to, step: *step })
            }
            _ => {
                Err("expected FROM:TO:STEP with FROM <= TO <= 65535 and STEP >= 1, for example 0:256:8"
                    .into())
            }
        }
    }
}

/// The swept value N of an expanded case.
pub fn swept(case: &Case) -> u32 {
    case.variant >> SWEEP_SHIFT
}

/// Every case in run order, with swept families expanded over [`Sweep::DEFAULT`].
pub fn all() -> Vec<Selected> {
    all_with(Sweep::DEFAULT)
}

fn leak(text: String) -> &'static str {
    Box::leak(text.into_boxed_str())
}

/// Every case in run order. The templates of all swept families are expanded together where the
/// first one stands: for each N, each template, named `NX template` (the original's order).
/// Expanded cases live for the rest of the process (they are few and made once per run).
pub fn all_with(sweep: Sweep) -> Vec<Selected> {
    let templates = templates();
    let swept: Vec<Selected> = templates.iter().copied().filter(|s| s.family.sweep).collect();
    let mut out = Vec::with_capacity(templates.len());
    let mut expanded = false;
    for s in templates {
        if !s.family.sweep {
            out.push(s);
        } else if !expanded {
            expanded = true;
            for n in sweep.values() {
                for t in &swept {
                    let name = leak(format!("{n}X {}", t.case.name));
                    let variant = t.case.variant | (n << SWEEP_SHIFT);
                    let case: &'static Case = Box::leak(Box::new(Case { name, variant, ..*t.case }));
                    let baseline = t.family.baseline.map(|b| leak(format!("{n}X {b}")));
                    out.push(Selected { family: t.family, case, baseline });
                }
            }
        }
    }
    out
}
