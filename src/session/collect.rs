//! The parent's side of a run: messages in (from a worker process or from this one), records,
//! lines and the progress bar out. Each case becomes its results record and its text line here,
//! in list order with its ratio ([`Assembler`]), whichever process measured it.

use super::progress::Progress;
use crate::analysis::trust::Trust;
use crate::analysis::twins;
use crate::error::{Error, ExitCode, Result};
use crate::record::outcome::Outcome;
use crate::registry::CaseSpec;
use crate::report::columns::Layouts;
use crate::report::text;
use crate::results::energy::{CaseEnergy, RunEnergy};
use crate::results::family::FamilyFacts;
use crate::results::model::{self, CaseResult, NotRun, Run};
use crate::runner::assemble::{Assembler, Finished};
use crate::runner::message::Message;

/// What the messages of a run have given so far.
pub struct Collector<'c> {
    assembler: Assembler<'c>,
    trust: Trust,
    /// How lines are printed as they come (text to stdout): the columns of `layouts`, or with
    /// `Some(true)` each case's full line; `None` when they are not.
    stream: Option<bool>,
    /// The default line's columns per family, decided by the selected cases and the device row
    /// (when it is ready).
    layouts: Layouts,
    /// The lines printed so far: a line of another family comes after its heading.
    printed: crate::report::columns::CaseLines,
    /// The run as far as it has come: made when the first worker says it is ready (a fresh
    /// worker after a crash says the same), with every selected case in `not_run` and the
    /// records, in list order, in `cases`.
    pub run: Option<Run>,
    /// What the run is before the device is ready: its date, settings and families.
    template: Option<Template>,
    progress: Progress,
    /// What the validation layer said, each with the case it came in.
    pub validation: Vec<String>,
    /// The first error writing a line to stdout.
    pub write_error: Option<std::io::Error>,
}

/// What a run's record is before the device is ready.
pub struct Template {
    /// When it started (RFC 3339, UTC).
    pub date: String,
    /// The options that shaped the numbers.
    pub settings: model::Settings,
    /// The host's name, unless it is to be left out.
    pub host: Option<String>,
    /// The devices running at the same time.
    pub together: Vec<model::Peer>,
}

impl<'c> Collector<'c> {
    /// A collector for `cases` (in list order) of a run that starts as `template`, judging rates
    /// with `trust`; with `stream`, lines are printed as they come (`Some(verbose)`).
    /// With `bar`, a progress bar shows on a terminal (not for one of several devices at once).
    pub fn new(
        cases: &'c [CaseSpec],
        template: Template,
        trust: Trust,
        stream: Option<bool>,
        bar: bool,
    ) -> Self {
        Collector {
            assembler: Assembler::new(cases),
            trust,
            stream,
            layouts: Layouts::default(),
            printed: Default::default(),
            run: None,
            template: Some(template),
            progress: Progress::new(cases.len(), bar),
            validation: Vec::new(),
            write_error: None,
        }
    }

    /// Takes one message; a worker's fatal error comes back as the error it was.
    pub fn take(&mut self, message: Message) -> Result<()> {
        match message {
            Message::Ready(ready) if self.run.is_none() => {
                let ready = *ready;
                self.begin(ready.device, Some(ready.facts), ready.warm_up, ready.energy)?;
            }
            Message::Ready(_) => {}
            Message::Start { case } => self.progress.start(&case),
            Message::Done(record) => {
                let case = record.case.clone();
                self.validation.extend(record.validation.iter().map(|m| format!("in case \"{case}\": {m}")));
                let mut assembler = std::mem::replace(&mut self.assembler, Assembler::new(&[]));
                assembler.take(*record, &mut |finished| self.add(finished));
                self.assembler = assembler;
            }
            Message::End { validation, idle_w } => {
                self.validation.extend(validation);
                // The last worker's reading: the device at rest after the last case.
                if let (Some(Ok(watts)), Some(energy)) =
                    (idle_w, self.run.as_mut().and_then(|r| r.energy.as_mut()))
                {
                    energy.idle_end_w = Some(watts);
                }
            }
            Message::Fatal { message, exit_code } => {
                let code =
                    ExitCode::ALL.into_iter().find(|c| *c as u8 == exit_code).unwrap_or(ExitCode::Failure);
                return Err(Error::Remote { message, code });
            }
        }
        Ok(())
    }

    /// Makes the run's record, now that the device is ready (or, with no facts, that it never
    /// became ready: [`Collector::never_ready`]), and prints the header where lines stream.
    fn begin(
        &mut self,
        device: model::Device,
        facts: Option<crate::results::header::Facts>,
        warm_up: Option<model::WarmUp>,
        energy: Option<RunEnergy>,
    ) -> Result<()> {
        let Some(Template { date, settings, host, together }) = self.template.take() else {
            return Ok(());
        };
        let cases = self.assembler.cases();
        let run = Run {
            format_version: model::FORMAT_VERSION,
            perftest_version: env!("CARGO_PKG_VERSION").to_owned(),
            date,
            settings,
            device,
            facts,
            header: String::new(),
            families: FamilyFacts::of_names(cases.iter().map(|c| c.family)),
            interrupted: false,
            ending: model::Ending::default(),
            clock_median_mhz: None,
            warm_up,
            levels: Vec::new(),
            workers: None,
            wall_s: None,
            not_run: cases
                .iter()
                .map(|c| NotRun {
                    family: c.family.to_owned(),
                    name: c.name.clone(),
                    original_time: c.baseline.is_some(),
                })
                .collect(),
            legacy_line_widths: Default::default(),
            host,
            together,
            sharing: None,
            energy,
            cases: Vec::new(),
        };
        self.layouts = Layouts::of_run(&run);
        if let (Some(verbose), true) = (self.stream, run.facts.is_some()) {
            self.progress.print(&text::header(&run, verbose))?;
        }
        self.run = Some(run);
        Ok(())
    }

    /// The run's record where its worker never said the device was ready (it died opening it):
    /// the device as the parent planned it, every case not run. A device of several running at
    /// once still leaves its document, so a screen hears of it.
    pub fn never_ready(&mut self, device: model::Device) {
        if self.run.is_none() {
            // Nothing streams without facts, so this cannot fail.
            let _ = self.begin(device, None, None, None);
        }
    }

    /// Hands on the cases still held (measured early, their turn never came) and removes the bar.
    pub fn finish(&mut self) {
        let mut assembler = std::mem::replace(&mut self.assembler, Assembler::new(&[]));
        assembler.finish(&mut |finished| self.add(finished));
        self.progress.finish();
    }

    /// Makes the record of a case now in place, and prints its line (rendered from the record
    /// alone, as `perftest show` renders it).
    fn add(&mut self, done: Finished<'_>) {
        let Finished { case, record: sent, baseline } = done;
        let (outcome, notes) = (&sent.outcome, &sent.notes);
        let mut record = CaseResult::new(case, outcome, &self.trust, baseline);
        record.shader_stats = sent.shader.clone().unwrap_or_default();
        record.phases = (sent.phases.total_ms > 0.0).then_some(sent.phases);
        if let (Some(held), Outcome::Timed { work, .. }) = (&sent.energy, outcome) {
            let idle = self.run.as_ref().and_then(|r| r.energy.as_ref()).and_then(|e| e.idle_w);
            record.energy = CaseEnergy::of(held, work, idle).map(Box::new);
        }
        let done = self.run.as_ref().map_or(&[][..], |run| &run.cases[..]);
        let twin = case.twin.as_ref().and_then(|twin| done.iter().find(|r| r.name == *twin));
        record.compiled = twin.and_then(|t| twins::compiled(&t.name, &t.shader_stats, &record.shader_stats));
        let compiled = record.compiled.iter().map(|c| format!("compiled: {c}"));
        record.notes = notes.iter().cloned().chain(text::retry_note(outcome)).chain(compiled).collect();
        let line = match self.stream {
            None => None,
            Some(true) => Some(text::line(&record)),
            Some(false) => Some(self.printed.next(&self.layouts, &record)),
        };
        match line {
            None => self.progress.advance(),
            Some(line) => {
                if let Err(e) = self.progress.finish_case(&line) {
                    self.write_error.get_or_insert(e);
                }
            }
        }
        if let Some(run) = self.run.as_mut() {
            run.not_run.retain(|n| n.name != record.name);
            run.cases.push(record);
        }
    }
}
