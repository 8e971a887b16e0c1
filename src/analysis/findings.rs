//! What a run says a programmer should do, as tested rules: each reads named cases of the run and
//! says one sentence with its evidence, or nothing where the run lacks the cases, they did not
//! run, or the data do not support a claim (a difference within [`SAME`] is said to be none).

use super::levels::LATENCY;
use crate::format::ratio_text;
use crate::results::flag::Flag;
use crate::results::model::Amount;
use crate::results::model::{CaseResult, Run, Status};

/// Rates within this fraction of each other are the same rate here: the run-to-run spread of a
/// steady case is under 1% on the H100 (results/2026-11-21-first-runs/README.md), so 5% is a difference, not noise.
pub const SAME: f64 = 0.05;

/// How far above its datasheet's bandwidth a memory level may read and still be called DRAM: a
/// datasheet's figure is rounded (4.8 TB/s).
const DATASHEET_MARGIN: f64 = 0.01;

/// One finding: a sentence, and the result lines it rests on.
#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    /// A short name (`typed-raw-structured`), stable for tests and links.
    pub id: &'static str,
    /// The family whose rows it rests on (where the report links to).
    pub family: &'static str,
    /// What to do or know, with its numbers.
    pub text: String,
    /// The cases it rests on, each with what it measured (`1.92 Tloads/s`).
    pub evidence: Vec<(String, String)>,
}

/// Every finding the run supports, in the order of the families.
pub fn of(run: &Run) -> Vec<Finding> {
    let rules: [fn(&Run) -> Option<Finding>; 11] = [
        typed_raw_structured,
        load_or_sample,
        writable_buffers,
        cache_levels,
        subgroup_broadcast,
        shared_staging,
        atomics,
        copies,
        compute_peaks,
        energy_levels,
        flagged,
    ];
    let mut found: Vec<Finding> = rules.iter().filter_map(|rule| rule(run)).collect();
    // The instruction table's, before the flags'.
    let at = found.iter().position(|f| f.id == "flagged").unwrap_or(found.len());
    found.splice(at..at, instr::findings(run));
    let cpu = cpu_driver(run);
    for finding in found.iter_mut().filter(|f| f.id != "flagged") {
        // A flag on a rate counts; one on a ratio only (its baseline's) does not: no rule here
        // rests on a ratio.
        let flagged: Vec<&Flag> = finding
            .evidence
            .iter()
            .filter_map(|(name, _)| run.cases.iter().find(|c| c.name == *name))
            .filter_map(|c| c.flags.iter().find(|f| !matches!(f, Flag::Baseline(_))))
            .collect();
        if !flagged.is_empty() {
            // A rerun is advised only where it can clear the flags (noise, a clock).
            let advice = match flagged.iter().all(|f| f.rerun_helps()) {
                true => "rerun before acting on it",
                false => "weigh it with them",
            };
            finding.text.push_str(&format!(
                " ({} of the {} results it rests on {} flagged: {advice}.)",
                flagged.len(),
                finding.evidence.len(),
                crate::format::is_are(flagged.len())
            ));
        }
        if let Some(cpu) = &cpu {
            finding.text.push_str(&format!(" {cpu}"));
        }
    }
    found
}

/// What a finding on a CPU driver says it is, or `None` on a GPU.
fn cpu_driver(run: &Run) -> Option<String> {
    let name = run.device.name.split(" (").next().unwrap_or(&run.device.name);
    (run.device.kind == "Cpu").then(|| {
        format!("{name} is a CPU driver (its shaders ran on the host's CPU): this says nothing of a GPU.")
    })
}

/// Whether a finding may tell a programmer what to do: only from a GPU (a CPU driver's shaders run
/// on the host's cores) and only from results that carry no flag (a ratio's baseline flag aside).
pub(super) fn may_advise(run: &Run, cases: &[&CaseResult]) -> bool {
    run.device.kind != "Cpu" && cases.iter().all(|c| c.flags.iter().all(|f| matches!(f, Flag::Baseline(_))))
}

/// The case named `name` if it ran and has a rate.
fn ok<'r>(run: &'r Run, name: &str) -> Option<&'r CaseResult> {
    run.cases.iter().find(|c| c.name == name && c.timed_rate().is_some())
}

fn rate(case: &CaseResult) -> f64 {
    case.rate.as_ref().map_or(0.0, |r| r.value)
}

fn shown(case: &CaseResult) -> (String, String) {
    let mut text = case.rate.as_ref().map(Amount::text).unwrap_or_default();
    if let Some(percent) = case.peak_percent {
        text.push_str(&format!(", {percent:.1}% of peak"));
    }
    if !case.flags.is_empty() {
        let names: Vec<String> = case.flags.iter().map(|f| f.name()).collect();
        text.push_str(&format!(" (flagged: {})", names.join(", ")));
    }
    (case.name.clone(), text)
}

/// `b`'s rate against `a`'s, which is `of`, as a sentence says it: `2.600x the rate of {of}`, or
/// `the same rate as {of}` within [`SAME`].
fn versus(a: &CaseResult, b: &CaseResult, of: &str) -> String {
    let ratio = rate(b) / rate(a);
    if (ratio - 1.0).abs() <= SAME {
        format!("the same rate as {of}")
    } else {
        format!("{} the rate of {of}", ratio_text(ratio))
    }
}

/// Typed (`Buffer<T>`), raw (`ByteAddressBuffer`) and structured loads of 4 and 16 bytes.
fn typed_raw_structured(run: &Run) -> Option<Finding> {
    let widths = [
        (
            "4-byte",
            "Buffer<R32f>.Load linear",
            "ByteAddressBuffer.Load linear",
            "StructuredBuffer<float>.Load linear",
        ),
        (
            "16-byte",
            "Buffer<RGBA32f>.Load linear",
            "ByteAddressBuffer.Load4 linear",
            "StructuredBuffer<float4>.Load linear",
        ),
    ];
    let mut parts = Vec::new();
    let mut evidence = Vec::new();
    for (width, typed, raw, structured) in widths {
        let (Some(t), Some(r), Some(s)) = (ok(run, typed), ok(run, raw), ok(run, structured)) else {
            continue;
        };
        let best = [t, r, s].into_iter().max_by(|a, b| rate(a).total_cmp(&rate(b)))?;
        let slowest = [t, r, s].into_iter().map(rate).fold(f64::INFINITY, f64::min);
        if slowest >= rate(best) * (1.0 - SAME) {
            parts.push(format!(
                "{width} linear loads run at the same rate typed, raw and structured ({})",
                best.rate.as_ref()?.text()
            ));
            evidence.extend([t, r, s].map(shown));
            continue;
        }
        let kind = |c: &CaseResult| match c.name.as_str() {
            n if n == typed => "typed",
            n if n == raw => "raw",
            _ => "structured",
        };
        // The fastest, then the other two at their share of its rate.
        let others: Vec<String> = [t, r, s]
            .into_iter()
            .filter(|c| c.name != best.name)
            .map(|c| format!("{} at {}", kind(c), percent(c, best)))
            .collect();
        parts.push(format!(
            "{width} linear loads: {} is fastest ({}); {} of its rate",
            kind(best),
            best.rate.as_ref()?.text(),
            others.join(", ")
        ));
        evidence.extend([t, r, s].map(shown));
    }
    (!parts.is_empty()).then(|| Finding {
        id: "typed-raw-structured",
        family: "load",
        text: sentence(&parts),
        evidence,
    })
}

fn percent(case: &CaseResult, of: &CaseResult) -> String {
    format!("{:.0}%", rate(case) / rate(of) * 100.0)
}

fn sentence(parts: &[String]) -> String {
    let mut text = parts.join("; ");
    text.push('.');
    text
}

/// Texture loads against point and bilinear samples of the same format.
fn load_or_sample(run: &Run) -> Option<Finding> {
    let mut parts = Vec::new();
    let mut evidence = Vec::new();
    for format in ["RGBA8", "RGBA32F"] {
        let load = ok(run, &format!("Texture2D<{format}>.Load linear"));
        let bilinear = ok(run, &format!("Texture2D<{format}>.Sample(bilinear) linear"));
        let (Some(load), Some(bilinear)) = (load, bilinear) else { continue };
        parts.push(format!(
            "{format}: a bilinear sample runs at {} of a texel load",
            ratio_text(rate(bilinear) / rate(load))
        ));
        evidence.extend([load, bilinear].map(shown));
    }
    (!parts.is_empty()).then(|| Finding {
        id: "load-or-sample",
        family: "texture",
        text: sentence(&parts),
        evidence,
    })
}

/// Loads from buffers declared writable (the `uav` family) against the same loads from
/// read-only ones, and the convolution's `readonly` path against its plain one.
fn writable_buffers(run: &Run) -> Option<Finding> {
    let mut ratios: Vec<(f64, &CaseResult, &CaseResult)> = Vec::new();
    for writable in run.cases.iter().filter(|c| c.family == "uav") {
        let Some(name) = writable.name.strip_prefix("RW") else { continue };
        if let (Some(w), Some(r)) = (ok(run, &writable.name), ok(run, name)) {
            ratios.push((rate(w) / rate(r), w, r));
        }
    }
    let median = crate::record::stats::median(ratios.iter().map(|(ratio, ..)| *ratio))?;
    let &(worst, w, _) = ratios.iter().min_by(|a, b| a.0.total_cmp(&b.0))?;
    // Two pairs carry no median: each is said.
    let mut text = match ratios.len() {
        1 | 2 => {
            let each: Vec<String> = ratios.iter().map(|(ratio, ..)| ratio_text(*ratio)).collect();
            format!(
                "Loads from a writable buffer run at {} of the same load from a read-only one ({})",
                each.join(" and "),
                crate::format::count(ratios.len(), "pair")
            )
        }
        n => format!(
            "Loads from a writable buffer run at {} of the same load from a read-only one (median of {n} pairs)",
            ratio_text(median)
        ),
    };
    if ratios.len() > 2 && worst < 1.0 - SAME {
        text.push_str(&format!("; the worst pair, {}, at {}", w.name, ratio_text(worst)));
    }
    // Every pair it rests on, the weakest too.
    let mut evidence: Vec<(String, String)> =
        ratios.iter().flat_map(|&(_, w, r)| [shown(w), shown(r)]).collect();
    let plain = ok(run, "Conv1D<float> M=15 plain 1 MiB");
    if let (Some(plain), Some(readonly)) = (plain, ok(run, "Conv1D<float> M=15 readonly 1 MiB")) {
        text.push_str(&format!(
            "; declaring a convolution's input `readonly` gives {}",
            versus(plain, readonly, "the plain path")
        ));
        evidence.extend([plain, readonly].map(shown));
    }
    text.push('.');
    Some(Finding { id: "writable-buffers", family: "uav", text, evidence })
}

/// Where each cache level ends and what it delivers, from the linear vec4 sweep's levels, with
/// DRAM against the board's datasheet where perftest knows the board.
fn cache_levels(run: &Run) -> Option<Finding> {
    let levels = run.levels.iter().find(|l| l.variant == "Sweep SSBO vec4 linear" && l.unit != LATENCY)?;
    if levels.levels.len() < 2 {
        return None;
    }
    let bytes = |b: u64| crate::format::format_bytes(b);
    let board = crate::caps::boards::board(run.device.vendor_id, run.device.device_id);
    let dram = levels.levels.iter().find(|l| l.name == "DRAM");
    let share = board.zip(dram).map(|(board, dram)| dram.rate / board.memory_bytes_per_s * 100.0);
    // No memory reads faster than its datasheet: a level above it is no DRAM rate alone.
    let above = share.is_some_and(|share| share > 100.0 * (1.0 + DATASHEET_MARGIN));
    let mut parts: Vec<String> = levels
        .levels
        .iter()
        .map(|l| {
            let rate = Amount { value: l.rate, unit: levels.unit.as_str().into() }.text();
            let name = if above && l.name == "DRAM" { "the last level" } else { l.name.as_str() };
            match l.from_bytes == l.to_bytes {
                true => format!("{name} {rate} at {}", bytes(l.from_bytes)),
                false => format!("{name} {rate} from {} to {}", bytes(l.from_bytes), bytes(l.to_bytes)),
            }
        })
        .collect();
    if let (Some(board), Some(share)) = (board, share) {
        let datasheet = Amount { value: board.memory_bytes_per_s, unit: "B/s".into() }.text();
        parts.push(match above {
            true => format!(
                "that is {share:.0}% of the {} datasheet's {datasheet} ({}): its smaller sizes still hit a \
                 cache, so it is no DRAM rate (a sweep to larger sizes, as a full run's, settles it)",
                board.name, board.memory
            ),
            false => format!(
                "DRAM reads reach {share:.0}% of the {} datasheet's {datasheet} ({})",
                board.name, board.memory
            ),
        });
    }
    let evidence: Vec<(String, String)> = run
        .cases
        .iter()
        .filter(|c| c.variant == levels.variant && c.status == Status::Ok)
        .filter(|c| levels.levels.iter().any(|l| c.axes.get("bytes") == Some(&l.to_bytes)))
        .map(shown)
        .collect();
    // Levels kept in a file whose cases are gone support nothing.
    if evidence.is_empty() {
        return None;
    }
    Some(Finding {
        id: "cache-levels",
        family: "sweep",
        text: format!("Linear vec4 reads (Sweep SSBO vec4 linear): {}.", parts.join("; ")),
        evidence,
    })
}

/// The subgroup-broadcast trick: one invocation loads, the subgroup shares it.
fn subgroup_broadcast(run: &Run) -> Option<Finding> {
    let plain = ok(run, "ByteAddressBuffer.Load4 uniform")?;
    let broadcast = ok(run, "ByteAddressBuffer.Load4 uniform (subgroup broadcast)")?;
    let ratio = rate(broadcast) / rate(plain);
    // Advice only from a GPU's unflagged results.
    let advice = match (may_advise(run, &[plain, broadcast]), ratio > 1.0 + SAME) {
        (false, _) => "",
        (true, true) => ": use it",
        (true, false) => ": it does not pay here",
    };
    let text = format!(
        "A uniform 16-byte load read by one invocation and shared with subgroupBroadcastFirst runs at {} \
         of the plain uniform load{advice}.",
        ratio_text(ratio)
    );
    Some(Finding {
        id: "subgroup-broadcast",
        family: "broadcast",
        text,
        evidence: vec![shown(plain), shown(broadcast)],
    })
}

/// Where staging through shared memory (`reuse`) beats the plain path by more than [`SAME`]: in
/// how many of the (type, size, mask) pairs, from which mask size on in most of them, and by how
/// much at best.
fn shared_staging(run: &Run) -> Option<Finding> {
    // Per mask size M: pairs, pairs where staging pays, and the best pair.
    let mut by_m: std::collections::BTreeMap<u64, (usize, usize)> = Default::default();
    let mut best: Option<(f64, &CaseResult, &CaseResult)> = None;
    let mut involved: Vec<&CaseResult> = Vec::new();
    for reuse in run.cases.iter().filter(|c| c.family == "conv" && c.name.contains(" reuse ")) {
        let (Some(r), Some(p), Some(&m)) =
            (ok(run, &reuse.name), ok(run, &reuse.name.replace(" reuse ", " plain ")), reuse.axes.get("m"))
        else {
            continue;
        };
        let gain = rate(r) / rate(p);
        involved.extend([r, p]);
        let entry = by_m.entry(m).or_default();
        entry.0 += 1;
        if gain > 1.0 + SAME {
            entry.1 += 1;
        }
        if best.is_none_or(|(b, ..)| gain > b) {
            best = Some((gain, r, p));
        }
    }
    let (gain, r, p) = best?;
    let pairs: usize = by_m.values().map(|(n, _)| n).sum();
    let paying: usize = by_m.values().map(|(_, k)| k).sum();
    // One pair (a --quick run) carries its ratio and nothing more: no count, no advice.
    if pairs == 1 {
        let text = format!(
            "Staging a convolution's input through shared memory runs at {} of the plain path ({}, the one \
             pair measured).",
            ratio_text(gain),
            r.name
        );
        return Some(Finding {
            id: "shared-staging",
            family: "conv",
            text,
            evidence: vec![shown(p), shown(r)],
        });
    }
    let mut text = format!(
        "Staging a convolution's input through shared memory beats the plain path by more than {:.0}% in \
         {paying} of {pairs} type, size and mask pairs",
        SAME * 100.0
    );
    // The smallest M from which on most pairs pay, if a smaller measured M did not.
    let sizes: Vec<(&u64, &(usize, usize))> = by_m.iter().collect();
    let from = (1..sizes.len()).find(|&i| sizes[i..].iter().all(|(_, (n, k))| 2 * k > *n));
    if let Some(i) = from {
        text.push_str(&format!("; from M={} taps on, in most of them", sizes[i].0));
    }
    if paying > 0 {
        text.push_str(&format!("; at best {} ({})", ratio_text(gain), r.name));
    } else if may_advise(run, &involved) {
        text.push_str(": let the caches do it");
    }
    text.push('.');
    Some(Finding { id: "shared-staging", family: "conv", text, evidence: vec![shown(p), shown(r)] })
}

/// What contention does to atomics, and what a subgroup reduction first buys.
fn atomics(run: &Run) -> Option<Finding> {
    let one = ok(run, "AtomicAdd u32 1 address")?;
    let spread = ok(run, "AtomicAdd u32 1048576 addresses")?;
    let mut text = format!(
        "Every invocation adding to one address runs at {} of the same adds spread over 1048576 addresses",
        ratio_text(rate(one) / rate(spread))
    );
    let mut evidence = vec![shown(one), shown(spread)];
    if let Some(reduced) = ok(run, "SubgroupAdd + AtomicAdd u32 1 address") {
        text.push_str(&format!(
            "; adding within the subgroup first (subgroupAdd, then one atomic) gives {}",
            versus(one, reduced, "the contended adds")
        ));
        evidence.push(shown(reduced));
    }
    text.push('.');
    Some(Finding { id: "atomics", family: "atomic", text, evidence })
}

/// A copy within the GPU by a compute shader against `vkCmdCopyBuffer`.
fn copies(run: &Run) -> Option<Finding> {
    let command = ok(run, "Copy device to device 1 GiB")?;
    let shader = ok(run, "Copy device to device by shader 1 GiB")?;
    let text = format!(
        "Copying 1 GiB within the GPU with a compute shader gives {} on the same queue.",
        versus(command, shader, "vkCmdCopyBuffer")
    );
    Some(Finding { id: "copies", family: "copy", text, evidence: vec![shown(command), shown(shader)] })
}

/// The ALU and tensor rates against the architecture's peaks.
fn compute_peaks(run: &Run) -> Option<Finding> {
    let mut parts = Vec::new();
    let mut evidence = Vec::new();
    for name in ["ALU fp32 FMA", "ALU fp16 FMA (f16vec2)", "ALU fp64 FMA", "ALU int32 multiply-add"] {
        if let Some(case) = ok(run, name).filter(|c| c.peak_percent.is_some()) {
            parts.push(format!("{} {:.0}%", name.trim_start_matches("ALU "), case.peak_percent?));
            evidence.push(shown(case));
        }
    }
    for family in ["coopmat", "gemm"] {
        let best = run
            .cases
            .iter()
            .filter(|c| c.family == family && c.status == Status::Ok && c.peak_percent.is_some())
            .filter(|c| super::energy::on_default_data(c))
            .max_by(|a, b| a.peak_percent.unwrap_or(0.0).total_cmp(&b.peak_percent.unwrap_or(0.0)));
        if let Some(best) = best {
            let what =
                if family == "gemm" { "the best GEMM" } else { "the best cooperative-matrix multiply-add" };
            parts.push(format!("{what} {:.0}% ({})", best.peak_percent?, best.name));
            evidence.push(shown(best));
        }
    }
    (!parts.is_empty()).then(|| Finding {
        id: "compute-peaks",
        family: "alu",
        text: format!("Against the architecture's peak: {}.", parts.join(", ")),
        evidence,
    })
}

/// What a unit of work costs in energy down the hierarchy (`--energy`): each level's picojoules,
/// the farthest memory level's byte against the nearest's and in fp32 FMAs.
fn energy_levels(run: &Run) -> Option<Finding> {
    let rows = super::energy::table(run);
    let pj = |board: f64, above: Option<f64>| {
        let above = above.map_or(String::new(), |a| format!(" ({} above idle)", crate::format::sig4(a)));
        format!("{} pJ{above}", crate::format::sig4(board))
    };
    let parts: Vec<String> = rows.iter().map(|r| format!("{} {}", r.each, pj(r.board, r.above))).collect();
    if parts.len() < 2 {
        return None;
    }
    let mut text = format!("In energy for the board: {}", parts.join(", "));
    let memory: Vec<_> = rows.iter().filter(|r| r.memory && r.level != "shared memory").collect();
    if let (Some(near), Some(far)) = (memory.first(), memory.iter().rfind(|r| !r.level.starts_with("host"))) {
        if near.level != far.level {
            text.push_str(&format!(
                "; a byte from {} costs {} a byte from {}",
                far.level,
                ratio_text(far.board / near.board),
                near.level
            ));
            if let Some((_, in_fmas)) = super::energy::in_fmas(&rows) {
                if let Some((_, fmas)) = in_fmas.iter().find(|(r, _)| r.level == far.level) {
                    text.push_str(&format!(", as much as {} fp32 FMAs", crate::format::sig4(*fmas)));
                }
            }
        }
    }
    let spans = super::energy::spans(&super::energy::by_data(run));
    if !spans.is_empty() {
        text.push_str(&format!(". What the data costs, on random data against zeros: {}", spans.join(", ")));
    }
    text.push('.');
    let evidence = rows
        .iter()
        .map(|r| {
            let unit = r.unit.amount_name();
            (r.case.name.clone(), format!("{} pJ/{unit}", crate::format::sig4(r.board)))
        })
        .collect();
    Some(Finding { id: "energy-levels", family: "sweep", text, evidence })
}

/// The results to doubt: implausible, throttled, noisy or otherwise flagged.
fn flagged(run: &Run) -> Option<Finding> {
    let timed = run.cases.iter().filter(|c| c.median_ms.is_some()).count();
    let flagged: Vec<&CaseResult> = run.cases.iter().filter(|c| !c.flags.is_empty()).collect();
    if timed == 0 {
        return None;
    }
    let mut counts: Vec<(String, usize)> = Vec::new();
    for name in flagged.iter().flat_map(|c| c.flags.iter().map(|f| f.name())) {
        match counts.iter_mut().find(|(n, _)| *n == name) {
            Some((_, count)) => *count += 1,
            None => counts.push((name, 1)),
        }
    }
    let text = match counts.is_empty() {
        true => {
            format!("None of the {timed} timed results is flagged: no noise, throttling or implausible rate.")
        }
        false => {
            let list: Vec<String> = counts.iter().map(|(name, n)| format!("{n} {name}")).collect();
            format!(
                "{} of {timed} timed results are flagged ({}): read them with care.",
                flagged.len(),
                list.join(", ")
            )
        }
    };
    let family = "flags";
    Some(Finding {
        id: "flagged",
        family,
        text,
        evidence: flagged.iter().take(5).map(|c| shown(c)).collect(),
    })
}

mod instr;
#[cfg(test)]
mod tests;
