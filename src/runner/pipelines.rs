//! Compiling and creating every selected case's pipeline up front, on worker threads.
//!
//! Cases that differ only in data or push constants (the branch sweep's N) share a pipeline:
//! the key is the shader permutation, the descriptor types and the push-block size. Each worker
//! has its own shaderc compiler and creates pipelines with the context's `VkPipelineCache`; all of
//! it finishes before the first measurement, so no compile runs while a GPU time is taken.
//!
//! Why it is built so: docs/design/faults.md.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use ash::vk;

use crate::caps::Feature;
use crate::error::{Error, Result};
use crate::registry::{CaseSpec, Glsl};
use crate::shader::{spirv, ShaderCompiler};
use crate::vk::pipeline::{self, PipelineDesc, RawPipeline};
use crate::vk::{Context, Pipeline};

/// What makes two cases share a pipeline.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PipelineKey {
    glsl: Glsl,
    defines: Vec<(String, String)>,
    local_size: [u32; 3],
    bindings: Vec<vk::DescriptorType>,
    push_bytes: usize,
}

/// Set 0 of a case: the results buffer at binding 0, then each descriptor-bound resource.
pub fn descriptor_types(case: &CaseSpec) -> Vec<vk::DescriptorType> {
    let resources = case.resources.iter().filter_map(|r| r.kind.descriptor_type());
    std::iter::once(vk::DescriptorType::STORAGE_BUFFER).chain(resources).collect()
}

/// The pipeline key of `case`.
pub fn key(case: &CaseSpec) -> PipelineKey {
    PipelineKey {
        glsl: case.glsl,
        defines: case.defines.clone(),
        local_size: case.local_size,
        bindings: descriptor_types(case),
        push_bytes: case.push.size(),
    }
}

/// The pipelines of a selection, and what building them cost.
pub struct Pipelines<'ctx> {
    by_key: HashMap<PipelineKey, Pipeline<'ctx>>,
    /// Wall time of compiling and creating them all.
    pub elapsed: Duration,
    /// Worker threads used.
    pub threads: usize,
}

impl<'ctx> Pipelines<'ctx> {
    /// The pipeline of `case`, if it was built.
    pub fn get(&self, case: &CaseSpec) -> Option<&Pipeline<'ctx>> {
        self.by_key.get(&key(case))
    }

    /// How many distinct pipelines there are.
    pub fn len(&self) -> usize {
        self.by_key.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.by_key.is_empty()
    }
}

/// Compiles `case` and checks that its push bytes fill the shader's push-constant block.
fn compile(compiler: &ShaderCompiler, case: &CaseSpec, capture_statistics: bool) -> Result<PipelineDesc> {
    let spirv = compiler.compile(case)?;
    let glsl_bytes = spirv::push_constant_bytes(&spirv);
    if glsl_bytes != Some(case.push.size() as u32) {
        let found = match glsl_bytes {
            Some(bytes) => format!("is {bytes} bytes"),
            None => "could not be measured (its last member is not a scalar, vector or pointer)".into(),
        };
        return Err(Error::Compile {
            case: case.name.clone(),
            file: case.glsl.file.into(),
            log: format!(
                "the shader's push-constant block {found} but the case fills {} bytes: \
                 FAMILY_PARAMS in the GLSL and the case's Push must describe the same block",
                case.push.size()
            ),
        });
    }
    let push_bytes = case.push.size() as u32;
    let full_subgroups = case.requirements().features.contains(&Feature::ComputeFullSubgroups);
    Ok(PipelineDesc {
        spirv,
        bindings: descriptor_types(case),
        push_bytes,
        capture_statistics,
        full_subgroups,
    })
}

/// Builds one pipeline per distinct key of `cases` on up to `threads` threads.
pub fn build_all<'ctx>(ctx: &'ctx Context, cases: &[&CaseSpec], threads: usize) -> Result<Pipelines<'ctx>> {
    adopt(ctx, build_raw(Device::of(ctx), cases, threads, &AtomicBool::new(false)))
}

/// What building pipelines needs of the device: all of it shareable between threads, so that the
/// pipelines can be built on other threads while the calling one loads the device.
#[derive(Clone, Copy)]
pub struct Device<'a> {
    /// The logical device.
    pub device: &'a ash::Device,
    /// The context's pipeline cache.
    pub cache: vk::PipelineCache,
    /// Whether to capture each pipeline's statistics.
    pub statistics: bool,
}

impl<'a> Device<'a> {
    /// What `ctx`'s pipelines are built with.
    pub fn of(ctx: &'a Context) -> Self {
        Device { device: &ctx.device, cache: ctx.pipeline_cache, statistics: ctx.pipeline_statistics() }
    }
}

/// Pipelines built, not yet owned by a context: each distinct case's key and name in order, and
/// what came of it.
pub struct Built {
    made: Vec<(PipelineKey, String, Result<RawPipeline>)>,
    elapsed: Duration,
    threads: usize,
}

/// Compiles and creates one pipeline per distinct key of `cases` on up to `threads` threads, until
/// `stop` is set (what was built by then is all there is); [`adopt`] makes them a context's.
pub fn build_raw(on: Device<'_>, cases: &[&CaseSpec], threads: usize, stop: &AtomicBool) -> Built {
    let started = Instant::now();
    let mut seen = HashSet::new();
    let unique: Vec<&CaseSpec> = cases.iter().copied().filter(|c| seen.insert(key(c))).collect();
    let threads = threads.clamp(1, unique.len().max(1));
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let built: Mutex<Vec<(usize, Result<RawPipeline>)>> = Mutex::new(Vec::with_capacity(unique.len()));
    let Device { device, cache, statistics } = on;
    let work = || {
        let compiler = ShaderCompiler::keeping();
        // After a failure the run ends with that error: no point compiling the rest.
        while !failed.load(Ordering::SeqCst) && !stop.load(Ordering::SeqCst) {
            let index = next.fetch_add(1, Ordering::SeqCst);
            let Some(case) = unique.get(index) else { break };
            let result = match &compiler {
                Ok(compiler) => compile(compiler, case, statistics)
                    .and_then(|desc| pipeline::build(device, cache, &desc))
                    .map_err(|e| e.in_case(&case.name)),
                Err(log) => Err(Error::Compile {
                    case: case.name.clone(),
                    file: case.glsl.file.into(),
                    log: log.clone(),
                }),
            };
            failed.fetch_or(result.is_err(), Ordering::SeqCst);
            // A worker that panicked re-panics out of the scope, so poison changes nothing.
            built.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).push((index, result));
        }
        if failed.load(Ordering::SeqCst) {
            // glslang's initialiser can fail (out of memory) holding its global, non-recursive
            // lock; finalising then blocks on that lock forever. The run is ending with an error
            // anyway, so this compiler is never finalised.
            std::mem::forget(compiler);
        }
    };
    std::thread::scope(|scope| {
        // Threads are spawned fallibly (an address-space limit can forbid them); with none, the
        // calling thread does the work.
        let spawned =
            (0..threads).filter(|_| std::thread::Builder::new().spawn_scoped(scope, work).is_ok()).count();
        if spawned == 0 {
            work();
        }
    });
    let mut built = built.into_inner().unwrap_or_else(|poisoned| poisoned.into_inner());
    built.sort_by_key(|(index, _)| *index);
    let made = built
        .into_iter()
        .map(|(index, result)| (key(unique[index]), unique[index].name.clone(), result))
        .collect();
    Built { made, elapsed: started.elapsed(), threads }
}

/// `built`'s pipelines as `ctx`'s; the first failure in case order is the error, and everything
/// that was built is then destroyed.
pub fn adopt<'ctx>(ctx: &'ctx Context, built: Built) -> Result<Pipelines<'ctx>> {
    let (mut made, mut first_error) = (Vec::with_capacity(built.made.len()), None);
    for (key, name, result) in built.made {
        match result {
            Ok(raw) => made.push((key, name, raw)),
            Err(error) => {
                first_error.get_or_insert(error);
            }
        }
    }
    if let Some(error) = first_error {
        made.into_iter().for_each(|(_, _, raw)| raw.destroy(&ctx.device));
        return Err(error);
    }
    let by_key = made.into_iter().map(|(key, name, raw)| (key, Pipeline::adopt(ctx, raw, &name))).collect();
    Ok(Pipelines { by_key, elapsed: built.elapsed, threads: built.threads })
}

/// The worker threads to use: the machine's cores.
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}
