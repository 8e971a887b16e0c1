//! A case as owned plain data: what to compile, what to bind, what to push, what it does, what it needs.
//!
//! Families build [`CaseSpec`]s at run time (see [`super::Family::expand`]); the runner turns one
//! into Vulkan objects. A case never sees Vulkan: resources are descriptions with a fill function,
//! the push block is bytes, and the CPU reference is a function of the invocation index.

use std::sync::Arc;

use super::resource::Resource;
use super::value::Value;
use crate::caps::{Ceiling, Feature, Limit, QueueKind, Requirements};

/// Workgroups of a verify run: what a family's CPU reference covers.
pub const VERIFY_GROUPS: u32 = 2;
/// How the note of a case with an injected fault begins ([`CaseSpec::injected`]; the note goes on
/// to say what was injected).
pub const INJECTED: &str = "fault injected: ";
/// Dispatches of a verify run of a [`Scale::Dispatches`] case.
pub const VERIFY_DISPATCHES: u64 = 64;

/// One GLSL file from `glsl/`, embedded in the binary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Glsl {
    /// The file name under `glsl/`, used in compiler messages.
    pub file: &'static str,
    /// The file's text (`include_str!`).
    pub source: &'static str,
}

/// A quantity of work, so a time becomes a rate.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Work {
    /// How much one shader invocation does.
    pub per_invocation: f64,
    /// What is counted.
    pub unit: Unit,
    /// What bounds the rate on known architectures (`None`: nothing perftest has a figure for).
    pub ceiling: Option<Ceiling>,
}

impl Work {
    /// `per_invocation` of `unit`, with no known ceiling.
    pub const fn new(per_invocation: f64, unit: Unit) -> Self {
        Self { per_invocation, unit, ceiling: None }
    }

    /// The same work, bounded by `ceiling` (its rate is shown as a % of that peak where known).
    pub const fn bounded_by(self, ceiling: Ceiling) -> Self {
        Self { ceiling: Some(ceiling), ..self }
    }
}

/// What a [`Work`] counts; each unit has the name its rate is printed with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Unit {
    /// Floating-point operations (an FMA is two).
    Flop,
    /// Integer operations (a multiply-add is two).
    IntOp,
    /// Shader loads (one texelFetch, one buffer read of 1-4 words, one sample).
    Load,
    /// Bytes loaded.
    Byte,
    /// Shader invocations (threads) run to completion.
    Invocation,
    /// Loads that each wait for the one before (a pointer chase): their rate is a latency,
    /// printed as nanoseconds (and clocks) per load.
    DependentLoad,
    /// Atomic read-modify-write operations.
    Atomic,
    /// Shader stores (one buffer write of 1-4 words, one imageStore).
    Store,
    /// Dispatches recorded in one command buffer: their rate is a cost, printed with the
    /// nanoseconds (and clocks) each takes.
    Dispatch,
    /// Submissions waited for one at a time (CPU-timed round trips), printed with the time each
    /// takes.
    Submission,
    /// Shader operations of one kind (a `sin`, an integer division), each counted once.
    Op,
    /// Operations that each wait for the one before (one chain): their rate is a latency,
    /// printed as nanoseconds (and clocks) per operation.
    DependentOp,
}

impl Unit {
    /// Every unit.
    pub const ALL: [Unit; 12] = [
        Unit::Flop,
        Unit::IntOp,
        Unit::Load,
        Unit::Byte,
        Unit::Invocation,
        Unit::DependentLoad,
        Unit::Atomic,
        Unit::Store,
        Unit::Dispatch,
        Unit::Submission,
        Unit::Op,
        Unit::DependentOp,
    ];

    /// The unit whose rate is written `name` (`B/s`), as results files hold it.
    pub fn of_rate_name(name: &str) -> Option<Unit> {
        Unit::ALL.into_iter().find(|u| u.rate_name() == name)
    }

    /// The rate's unit, printed after an SI prefix (`65.2 TFLOPS`).
    pub fn rate_name(self) -> &'static str {
        match self {
            Unit::Flop => "FLOPS",
            Unit::IntOp => "IOPS",
            Unit::Load => "loads/s",
            Unit::Byte => "B/s",
            Unit::Invocation => "invocations/s",
            Unit::DependentLoad => "dependent loads/s",
            Unit::Atomic => "atomics/s",
            Unit::Store => "stores/s",
            Unit::Dispatch => "dispatches/s",
            Unit::Submission => "submissions/s",
            Unit::Op => "ops/s",
            Unit::DependentOp => "dependent ops/s",
        }
    }

    /// What one of a latency unit is (`load`, `op`): its rate is one at a time, read as the
    /// time (and clocks) each takes; `None` for every other unit.
    pub fn latency_of(self) -> Option<&'static str> {
        match self {
            Unit::DependentLoad => Some("load"),
            Unit::DependentOp => Some("op"),
            _ => None,
        }
    }

    /// The amount's unit, for reports (`1.2 GFLOP`).
    pub fn amount_name(self) -> &'static str {
        match self {
            Unit::Flop => "FLOP",
            Unit::IntOp => "IOP",
            Unit::Load => "loads",
            Unit::Byte => "B",
            Unit::Invocation => "invocations",
            Unit::DependentLoad => "dependent loads",
            Unit::Atomic => "atomics",
            Unit::Store => "stores",
            Unit::Dispatch => "dispatches",
            Unit::Submission => "submissions",
            Unit::Op => "ops",
            Unit::DependentOp => "dependent ops",
        }
    }
}

/// What invocation `index` of a verify run writes, as the CPU computes it.
pub type Reference = Arc<dyn Fn(u32) -> Value + Send + Sync>;

/// Whether a dispatch is timed or verified; the shader is the same SPIR-V in both.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Timing: the guarded result write never happens.
    Time,
    /// Verification: every invocation writes its result.
    Verify,
}

/// Bytes of the push-constant header every shader starts with (`Params` in glsl/common.glsl):
/// write_enable, address_mask, sentinel, reserved.
pub const HEADER_BYTES: usize = 16;
/// The largest push-constant block every Vulkan device accepts.
pub const MAX_PUSH_BYTES: usize = 128;
/// The result that triggers the guarded write in timing runs: a NaN pattern no case produces.
pub const SENTINEL: u32 = u32::MAX;

/// The family's own push constants, after the common header; one block per mode.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Push {
    /// The block in timing runs.
    pub time: Vec<u8>,
    /// The block in verify runs.
    pub verify: Vec<u8>,
}

impl Push {
    /// The same 32-bit words in both modes.
    pub fn words(words: &[u32]) -> Self {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_ne_bytes()).collect();
        Self { time: bytes.clone(), verify: bytes }
    }

    /// Different words per mode (they must be as long).
    pub fn per_mode(time: &[u32], verify: &[u32]) -> Self {
        Self { time: Push::words(time).time, verify: Push::words(verify).verify }
    }

    /// The whole push-constant block: the header, then the family's block for `mode`.
    pub fn bytes(&self, mode: Mode) -> Vec<u8> {
        let write_enable = u32::from(mode == Mode::Verify);
        let header = [write_enable, 0, SENTINEL, 0];
        let block = match mode {
            Mode::Time => &self.time,
            Mode::Verify => &self.verify,
        };
        header.iter().flat_map(|w| w.to_ne_bytes()).chain(block.iter().copied()).collect()
    }

    /// Size of the whole block in bytes.
    pub fn size(&self) -> usize {
        HEADER_BYTES + self.time.len().max(self.verify.len())
    }
}

/// One case, owned: a permutation of its family's shader with its resources and reference.
#[derive(Clone)]
pub struct CaseSpec {
    /// The name printed and matched by `--filter`.
    pub name: String,
    /// The registering family's name (set by the registry after expansion).
    pub family: &'static str,
    /// The group reports and plots draw it in (a panel); the family name unless set.
    pub group: String,
    /// The name without its axis values: plots draw one line per variant across an axis.
    pub variant: String,
    /// The family's axis values that made this case (`n` = 64).
    pub axes: Vec<(&'static str, u64)>,
    /// Its values on the family's string axes (`pattern` = `random`, `format` = `R16f`): what
    /// `--axis FAMILY.AXIS=VALUE` selects by, as nvbench's string axes do.
    pub labels: Vec<(&'static str, String)>,
    /// The shader.
    pub glsl: Glsl,
    /// Preprocessor defines (`NAME`, `value`) that make this permutation.
    pub defines: Vec<(String, String)>,
    /// Workgroup size, passed to the shader as `LOCAL_SIZE_X/Y/Z`.
    pub local_size: [u32; 3],
    /// Resources, bound in order from binding 1.
    pub resources: Vec<Resource>,
    /// The family's push constants.
    pub push: Push,
    /// What one invocation does; the first entry is the headline rate.
    pub work: Vec<Work>,
    /// What the device must offer.
    pub requires: Requirements,
    /// The case whose rate is 1.0x in this case's ratio, if it reports one.
    pub baseline: Option<String>,
    /// The CPU reference of a verify run (a case without one fails `--verify` with a sentence).
    pub reference: Option<Reference>,
    /// Where timed runs scale the work: the workgroup count (the default), or, for a case that
    /// must stay one workgroup (a latency chain), a count in its push block.
    pub scale: Scale,
    /// A transfer case: no shader; the runner copies resource 0 into resource 1.
    pub transfer: bool,
    /// A transfer case's buffers hold this many equal parts; copy i copies part i modulo it, so
    /// the copies rotate through more bytes than a cache holds (1: the whole buffer each time).
    pub slots: u64,
    /// A transfer case's queue: a family of this kind (`None`: the run's own queue).
    pub queue: Option<QueueKind>,
    /// The case compiled from the same source with its access qualifiers changed (`readonly` or
    /// not), run before this one: the reports compare the two shaders' statistics.
    pub twin: Option<String>,
    /// Verify runs read this resource back whole (a storage buffer, storage texel buffer or
    /// storage image, texels row by row) and compare its words with the reference instead of the
    /// results buffer: stores and atomics, whose work is the memory they leave behind.
    pub checks: Option<usize>,
    /// Notes every record of the case carries (a workgroup narrowed to fit the device).
    pub notes: Vec<String>,
    /// A latency chain timed by the shader clock as well (VK_KHR_shader_clock): the shader,
    /// compiled with `SHADER_CLOCK`, reads the subgroup clock before and after the loop whose
    /// trips are the [`Scale::PushWord`] count, and in timing runs invocation 0 writes the span
    /// into words 0 (low) and 1 (high) of the results buffer. See [`CaseSpec::chain_clock`].
    pub chain_clock: bool,
    /// The resource (a read-write storage buffer) in which each workgroup of a
    /// [`Scale::Problem`] grid records the compute unit that ran it and the unit's clock around
    /// its work (8 words: unit, start low and high, end low and high, 1, 0, 0): the runner reads
    /// the last timed dispatch's records and rates each unit ([`crate::record::units`]).
    pub unit_records: Option<usize>,
    /// The resource (a read-write storage buffer, zeroed once, never reset) in which the shader
    /// counts and records every result of timed work that differs from its known bits: the
    /// corruption screen ([`crate::record::faults`]). The runner reads it after the case's last
    /// dispatch and counts the results it checked from the invocations it dispatched.
    pub fault_log: Option<FaultLog>,
    /// A fault the test-only injector compiled into the shader on purpose: what and where
    /// ([`CaseSpec::injected`]).
    pub injected: Option<String>,
    /// Copies the runner records before each dispatch of a [`Scale::Problem`] grid, whose shader
    /// then checks what they left (the corruption screen's copies).
    pub copies: Option<Copies>,
    /// The string axis by which alone a case runs: only when an `--axis` setting of this axis
    /// selects it (the non-default values of the [`data`](super::data) axis), so that a run's
    /// default stays as it was.
    pub on_request: Option<&'static str>,
}

/// `name` with `suffix` after its `variant` part (before its axis values, `... 8 MiB`).
fn insert_suffix(name: &str, variant: &str, suffix: &str) -> String {
    match name.strip_prefix(variant) {
        Some(rest) => format!("{variant}{suffix}{rest}"),
        None => format!("{name}{suffix}"),
    }
}

/// `vkCmdCopyBuffer` of storage buffer `source` into `through` and back, `count` copies in all
/// (even, so the last lands in `source`), a transfer barrier between two, before each dispatch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Copies {
    /// The resource index of the buffer the shader checks.
    pub source: usize,
    /// The resource index of the buffer the copies go through (as large).
    pub through: usize,
    /// Copies before each dispatch.
    pub count: u32,
}

/// Where a self-checking case logs its faults, and how many results each invocation checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FaultLog {
    /// The resource index of the log (a read-write storage buffer).
    pub resource: usize,
    /// Results each invocation compares with their known bits, per dispatch.
    pub per_invocation: u64,
    /// Dispatches (of a [`Scale::Problem`] grid) at the start that check nothing: a pass that
    /// writes what the next one checks.
    pub unchecked_passes: u64,
    /// Whether the first pass sums a fingerprint of its results into the log's header
    /// ([`crate::record::faults::FINGERPRINT_WORD`]): answers no CPU knows, which GPUs of one
    /// model and driver share bit for bit.
    pub fingerprint: bool,
}

/// The shader of a case that runs none (a transfer): never compiled.
pub const NO_SHADER: Glsl = Glsl { file: "(none: a transfer)", source: "" };

/// How the runner makes a timed measurement last its target.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Scale {
    /// Dispatch more workgroups.
    #[default]
    Groups,
    /// Dispatch one workgroup and write the count (at most 65,535: lavapipe's loop limit) into
    /// the family's push word at this index (0 = the first word after the header); the shader
    /// repeats its work that many times, and work is counted per repetition as if per workgroup.
    PushWord(usize),
    /// Record more dispatches of one workgroup (`vkCmdDispatch` or, with `indirect`,
    /// `vkCmdDispatchIndirect`), with a compute barrier between two where `barrier`; work is
    /// counted per dispatch.
    Dispatches {
        /// A compute-to-compute barrier between two dispatches.
        barrier: bool,
        /// Each dispatch reads its workgroup count from a buffer.
        indirect: bool,
    },
    /// Submit more command buffers of one dispatch each, waiting for each one's fence before the
    /// next: the CPU's time from submit to fence, so the measurement is CPU-timed.
    Submissions,
    /// Record more dispatches of one whole problem (every tile of a matrix multiply: this many
    /// workgroups), with a compute barrier between two, as a stream of kernel launches runs them;
    /// work is counted per dispatch, and a verify run dispatches the problem once.
    Problem {
        /// Workgroups per dispatch.
        groups: u32,
    },
}

impl std::fmt::Debug for CaseSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CaseSpec")
            .field("name", &self.name)
            .field("family", &self.family)
            .field("defines", &self.defines)
            .field("local_size", &self.local_size)
            .field("resources", &self.resources)
            .finish_non_exhaustive()
    }
}

impl CaseSpec {
    /// A case named `name` running `glsl` in workgroups of `local_size`, with nothing else yet.
    pub fn new(name: impl Into<String>, glsl: Glsl, local_size: [u32; 3]) -> Self {
        let name = name.into();
        Self {
            variant: name.clone(),
            name,
            family: "",
            group: String::new(),
            axes: Vec::new(),
            labels: Vec::new(),
            glsl,
            defines: Vec::new(),
            local_size,
            resources: Vec::new(),
            push: Push::default(),
            work: Vec::new(),
            requires: Requirements::new(),
            baseline: None,
            reference: None,
            scale: Scale::Groups,
            transfer: false,
            copies: None,
            slots: 1,
            queue: None,
            twin: None,
            checks: None,
            notes: Vec::new(),
            chain_clock: false,
            unit_records: None,
            fault_log: None,
            injected: None,
            on_request: None,
        }
    }

    /// Has the shader check `per_invocation` results of its own and log those that differ in
    /// `resource` (see [`CaseSpec::fault_log`]).
    pub fn logs_faults(mut self, resource: usize, per_invocation: u64) -> Self {
        self.fault_log = Some(FaultLog { resource, per_invocation, unchecked_passes: 0, fingerprint: false });
        self
    }

    /// Rates each compute unit from the records its workgroups leave in `resource` (see
    /// [`CaseSpec::unit_records`]).
    pub fn records_per_unit(mut self, resource: usize) -> Self {
        self.unit_records = Some(resource);
        self
    }

    /// Times the chain by the shader clock too (see [`CaseSpec::chain_clock`]): the case needs
    /// `shaderSubgroupClock`, so a family sets this only on a device that has it.
    pub fn chain_clock(mut self) -> Self {
        self.chain_clock = true;
        self.requires = self.requires.feature(Feature::ShaderSubgroupClock);
        self.defines([("SHADER_CLOCK", "1")])
    }

    /// Sets the variant: the name of what the case measures, shared with its twins in other
    /// groups (an operation's throughput and latency cases).
    pub fn variant(mut self, variant: impl Into<String>) -> Self {
        self.variant = variant.into();
        self
    }

    /// Says that the shader holds a fault injected on purpose (`what`: the bit and where), in the
    /// case's notes and its fault log's record.
    pub fn injected(mut self, what: impl Into<String>) -> Self {
        let what = what.into();
        self.notes.push(format!("{INJECTED}{what}"));
        self.injected = Some(what);
        self
    }

    /// Adds a note every record of the case carries.
    pub fn note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// Notes that the case runs fewer invocations per workgroup than the `wanted` it runs where
    /// the device allows them (see [`Env::workgroup_width`](super::Env::workgroup_width)); a case
    /// at its full size gets no note.
    pub fn narrowed_from(mut self, wanted: u64) -> Self {
        let has = self.invocations_per_group();
        if has < wanted {
            self.notes
                .push(format!("workgroups of {has} invocations, not {wanted}: the device allows no more"));
        }
        self
    }

    /// A transfer case: `vkCmdCopyBuffer` from `source` (resource 0) into `target` (resource 1),
    /// of equal size; timed runs repeat the copy, verify runs compare every word of the target
    /// with `reference` (the word the source holds there).
    pub fn copy(name: impl Into<String>, source: Resource, target: Resource) -> Self {
        let mut case = Self::new(name, NO_SHADER, [1, 1, 1]).resource(source).resource(target);
        case.transfer = true;
        case
    }

    /// Runs a transfer case on a queue of a family of `kind` (skipped where the device has none
    /// with timestamps).
    pub fn on_queue(mut self, kind: QueueKind) -> Self {
        self.queue = Some(kind);
        self.requires = self.requires.queue(kind);
        self
    }

    /// Makes a transfer case's copies rotate through `slots` equal parts of its buffers.
    pub fn rotating(mut self, slots: u64) -> Self {
        self.slots = slots.max(1);
        self
    }

    /// Scales timed runs by the number of dispatches (see [`Scale::Dispatches`]).
    pub fn scale_by_dispatches(mut self, barrier: bool, indirect: bool) -> Self {
        self.scale = Scale::Dispatches { barrier, indirect };
        self
    }

    /// Scales timed runs by whole problems of `groups` workgroups each (see [`Scale::Problem`]).
    pub fn scale_by_problem(mut self, groups: u32) -> Self {
        self.scale = Scale::Problem { groups: groups.max(1) };
        self
    }

    /// Scales timed runs by the number of submissions (see [`Scale::Submissions`]).
    pub fn scale_by_submissions(mut self) -> Self {
        self.scale = Scale::Submissions;
        self
    }

    /// Scales timed runs by a push word instead of the workgroup count (see [`Scale::PushWord`]).
    pub fn scale_by_push_word(mut self, index: usize) -> Self {
        self.scale = Scale::PushWord(index);
        self
    }

    /// Adds preprocessor defines.
    pub fn defines<'a>(mut self, defines: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        self.defines.extend(defines.into_iter().map(|(k, v)| (k.to_owned(), v.to_owned())));
        self
    }

    /// Adds a resource (the next binding, unless it is a buffer address).
    pub fn resource(mut self, resource: Resource) -> Self {
        self.resources.push(resource);
        self
    }

    /// Sets the push block.
    pub fn push(mut self, push: Push) -> Self {
        self.push = push;
        self
    }

    /// Sets the work per invocation (the first unit is the headline rate).
    pub fn work(mut self, work: impl IntoIterator<Item = Work>) -> Self {
        self.work = work.into_iter().collect();
        self
    }

    /// Sets the requirements.
    pub fn requires(mut self, requires: Requirements) -> Self {
        self.requires = requires;
        self
    }

    /// Sets the baseline case's name.
    pub fn baseline(mut self, name: impl Into<String>) -> Self {
        self.baseline = Some(name.into());
        self
    }

    /// Sets the CPU reference.
    pub fn reference(mut self, reference: impl Fn(u32) -> Value + Send + Sync + 'static) -> Self {
        self.reference = Some(Arc::new(reference));
        self
    }

    /// Verifies the final words of resource `index` (0 = the first resource) instead of the
    /// results buffer (see [`CaseSpec::checks`]).
    pub fn checks(mut self, index: usize) -> Self {
        self.checks = Some(index);
        self
    }

    /// Names the twin whose compiled shader the reports compare with this one's.
    pub fn twin(mut self, name: impl Into<String>) -> Self {
        self.twin = Some(name.into());
        self
    }

    /// Sets the report group.
    pub fn group(mut self, group: impl Into<String>) -> Self {
        self.group = group.into();
        self
    }

    /// Records an axis value, and the variant name that stays the same along the axis.
    pub fn axis(mut self, axis: &'static str, value: u64, variant: impl Into<String>) -> Self {
        self.axes.push((axis, value));
        self.variant = variant.into();
        self
    }

    /// Its value on the string axis `axis` (see [`CaseSpec::labels`]).
    pub fn label(mut self, axis: &'static str, value: impl Into<String>) -> Self {
        self.labels.push((axis, value.into()));
        self
    }

    /// Has the case hold `data` on the [`data`](super::data) axis: labelled, named with its
    /// suffix, and, for other data than the default, run only on request.
    pub fn data(mut self, data: super::data::Data) -> Self {
        if data != super::data::Data::Default {
            self.name = insert_suffix(&self.name, &self.variant, data.suffix());
            self.variant.push_str(data.suffix());
            self.on_request = Some(super::data::AXIS);
        }
        self.label(super::data::AXIS, data.name())
    }

    /// Its value on the string axis `axis`, if it has one.
    pub fn label_of(&self, axis: &str) -> Option<&str> {
        self.labels.iter().find(|(a, _)| *a == axis).map(|(_, v)| v.as_str())
    }

    /// Everything the case needs: what it states, what its resources imply (formats, the
    /// buffer-address feature, sizes within limits), its push block and its workgroup size.
    pub fn requirements(&self) -> Requirements {
        let mut all = self.requires.clone();
        for resource in &self.resources {
            all.union(&resource.requirements());
        }
        all.limit(Limit::PushConstantBytes(self.push.size() as u32))
            .limit(Limit::WorkgroupInvocations(self.invocations_per_group() as u32))
            .limit(Limit::WorkgroupWidth(self.local_size[0]))
            .limit(Limit::WorkgroupHeight(self.local_size[1]))
    }

    /// Invocations in one workgroup.
    pub fn invocations_per_group(&self) -> u64 {
        self.local_size.iter().map(|&n| u64::from(n)).product()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_push_block_is_the_header_then_the_family_words() {
        let push = Push::per_mode(&[2.0f32.to_bits()], &[1.0f32.to_bits()]);
        let verify = push.bytes(Mode::Verify);
        assert_eq!(verify.len(), HEADER_BYTES + 4);
        assert_eq!(&verify[0..4], &1u32.to_ne_bytes(), "write_enable");
        assert_eq!(&verify[4..8], &0u32.to_ne_bytes(), "address_mask");
        assert_eq!(&verify[8..12], &SENTINEL.to_ne_bytes());
        assert_eq!(&verify[16..20], &1.0f32.to_ne_bytes());
        let time = push.bytes(Mode::Time);
        assert_eq!(&time[0..4], &0u32.to_ne_bytes());
        assert_eq!(&time[16..20], &2.0f32.to_ne_bytes());
        assert_eq!(push.size(), 20);
        assert_eq!(Push::default().size(), HEADER_BYTES);
    }
}
