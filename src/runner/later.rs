//! The pipelines of the families after the first: on a GPU, built on a thread of their own while
//! the cases run (the CPU compiles while the GPU measures), family by family in run order in a
//! timed run (a case waits only where its family's are not built yet), all at once in an untimed
//! one (fewer compilers to start, no family's tail of work on one thread); on a CPU driver, whose
//! cases are the same cores' work, all at once when the run reaches the second family.
//!
//! Why it is built so: docs/design/faults.md.

use std::cell::{Cell, OnceCell};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, TryRecvError};
use std::sync::Arc;
use std::thread::JoinHandle;

use super::pipelines::{self, adopt, build_raw, Built, Pipelines};
use super::warmth::Warmth;
use crate::error::{Error, Result};
use crate::registry::CaseSpec;
use crate::vk::Context;

/// The later families' pipelines, batch by batch: each batch one family (or, built here, all of
/// them), its pipelines once the run has them (`None`: they failed, and the first case to ask
/// was told why).
pub struct Later<'ctx> {
    ctx: &'ctx Context,
    batches: Vec<(Vec<&'static str>, OnceCell<Option<Pipelines<'ctx>>>)>,
    /// How many distinct pipelines they are.
    pub pipelines: usize,
    /// On how many threads they are built.
    pub threads: usize,
    source: Source,
}

/// Whether the later families' pipelines are built beside the cases, and in what batches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Beside {
    /// Here, when the run reaches them.
    No,
    /// On a thread, all at once.
    AllAtOnce,
    /// On a thread, family by family in run order.
    FamilyByFamily,
}

/// Where the batches come from.
enum Source {
    /// Built on this thread, on [`Later::threads`] threads, when the run reaches them.
    Here { cases: Vec<CaseSpec> },
    /// Built by `builder` beside the cases and sent, in order; `stop` asks it to stop after the
    /// pipelines in hand.
    Beside { received: Receiver<(usize, Built)>, stop: Arc<AtomicBool>, builder: Option<JoinHandle<()>> },
}

impl<'ctx> Later<'ctx> {
    /// The pipelines of `cases` (the later families', in run order): built on a thread beside the
    /// cases on `threads` threads where `beside` asks (and a thread can be started), family by
    /// family where it says so, else all at once; or else here, all at once, when the run reaches
    /// them.
    pub fn new(ctx: &'ctx Context, cases: Vec<CaseSpec>, threads: usize, beside: Beside) -> Self {
        let mut keys = std::collections::HashSet::new();
        let pipelines = cases.iter().filter(|c| keys.insert(pipelines::key(c))).count();
        let mut families: Vec<&'static str> = Vec::new();
        for case in &cases {
            if !families.contains(&case.family) {
                families.push(case.family);
            }
        }
        let here = |cases| {
            let batches = vec![(families.clone(), OnceCell::new())];
            Later { ctx, batches, pipelines, threads, source: Source::Here { cases } }
        };
        let groups: Vec<Vec<&'static str>> = match beside {
            _ if cases.is_empty() => return here(cases),
            Beside::No => return here(cases),
            Beside::AllAtOnce => vec![families.clone()],
            Beside::FamilyByFamily => families.iter().map(|f| vec![*f]).collect(),
        };
        let by_family: Vec<Vec<CaseSpec>> = groups
            .iter()
            .map(|group| cases.iter().filter(|c| group.contains(&c.family)).cloned().collect())
            .collect();
        let (send, received) = channel();
        let stop = Arc::new(AtomicBool::new(false));
        let (device, cache, statistics) = (ctx.device.clone(), ctx.pipeline_cache, ctx.pipeline_statistics());
        let stopped = stop.clone();
        let build = move || {
            let on = pipelines::Device { device: &device, cache, statistics };
            for (index, family) in by_family.iter().enumerate() {
                if stopped.load(Ordering::SeqCst) {
                    break;
                }
                let cases: Vec<&CaseSpec> = family.iter().collect();
                // The receiver outlives this thread (it is joined first): a send cannot fail.
                let _ = send.send((index, build_raw(on, &cases, threads, &stopped)));
            }
        };
        match std::thread::Builder::new().name("perftest pipelines".into()).spawn(build) {
            Ok(builder) => {
                let batches = groups.into_iter().map(|group| (group, OnceCell::new())).collect();
                let builder = Some(builder);
                Later { ctx, batches, pipelines, threads, source: Source::Beside { received, stop, builder } }
            }
            // No thread (an address-space limit): built here as the run reaches them.
            Err(_) => here(cases),
        }
    }

    /// Whether they are built beside the cases.
    pub fn beside(&self) -> bool {
        matches!(self.source, Source::Beside { .. })
    }

    /// The pipelines of `case`'s family, waited for (the device held warm by `warmth`, where the
    /// run has one) or built now if the run has not had them yet.
    pub fn of(&self, case: &CaseSpec, warmth: Option<&Warmth<'_>>) -> Result<&Pipelines<'ctx>> {
        let Some(batch) = self.batches.iter().position(|(families, _)| families.contains(&case.family))
        else {
            return Err(Error::CaseSpec {
                case: case.name.clone(),
                problem: "its family's pipelines were not asked for (run it through runner::prepare)".into(),
            });
        };
        let cell = &self.batches[batch].1;
        if cell.get().is_none() {
            let built = match &self.source {
                Source::Here { cases } => {
                    let cases: Vec<&CaseSpec> = cases.iter().collect();
                    pipelines::build_all(self.ctx, &cases, self.threads)
                }
                Source::Beside { received, .. } => self.wait(received, batch, warmth),
            };
            // Set only here, where the cell was empty; a failure is said once, to this case.
            match built {
                Ok(pipelines) => drop(cell.set(Some(pipelines))),
                Err(error) => {
                    let _ = cell.set(None);
                    return Err(error);
                }
            }
        }
        match cell.get() {
            Some(Some(pipelines)) => Ok(pipelines),
            _ => Err(Error::CaseSpec {
                case: case.name.clone(),
                problem: "its family's pipelines did not build (the first of its cases to run says why)"
                    .into(),
            }),
        }
    }

    /// Receives batches until `batch` has come, adopting each (the others into their cells), the
    /// device held warm meanwhile; `batch`'s pipelines, or why they failed.
    fn wait(
        &self,
        received: &Receiver<(usize, Built)>,
        batch: usize,
        warmth: Option<&Warmth<'_>>,
    ) -> Result<Pipelines<'ctx>> {
        let came: Cell<Option<(usize, Built)>> = Cell::new(None);
        let gone = Cell::new(false);
        loop {
            let ready = || match received.try_recv() {
                Ok(message) => {
                    came.set(Some(message));
                    true
                }
                Err(TryRecvError::Disconnected) => {
                    gone.set(true);
                    true
                }
                Err(TryRecvError::Empty) => false,
            };
            match warmth {
                Some(warmth) => warmth.hold_while(|| !ready())?,
                None => match received.recv() {
                    Ok(message) => came.set(Some(message)),
                    Err(_) => gone.set(true),
                },
            }
            if gone.get() {
                return Err(Error::CaseSpec {
                    case: self.batches[batch].0.join(", "),
                    problem: "the thread that builds the later families' pipelines ended before it built \
                              these (it panicked: see above)"
                        .into(),
                });
            }
            let Some((index, built)) = came.take() else { continue };
            let adopted = adopt(self.ctx, built);
            if index == batch {
                return adopted;
            }
            let _ = self.batches[index].1.set(adopted.ok());
        }
    }
}

impl Drop for Later<'_> {
    /// Stops the builder after the pipelines in hand, waits for it, and destroys what it built that
    /// no case took: before the device the pipelines were made on is destroyed.
    fn drop(&mut self) {
        if let Source::Beside { received, stop, builder } = &mut self.source {
            stop.store(true, Ordering::SeqCst);
            if let Some(builder) = builder.take() {
                // A builder that panicked has said so on stderr; what it built is still destroyed.
                let _ = builder.join();
            }
            while let Ok((_, built)) = received.try_recv() {
                drop(adopt(self.ctx, built));
            }
        }
    }
}
