//! The parent's side of a run: messages in (from a worker process or from this one), records,
//! lines and the progress bar out. Each case becomes its results record and its text line here,
//! in list order with its ratio ([`Assembler`]), whichever process measured it.

use std::collections::BTreeMap;

use super::progress::Progress;
use crate::analysis::trust::Trust;
use crate::analysis::twins;
use crate::error::{Error, ExitCode, Result};
use crate::registry::CaseSpec;
use crate::report::columns::{self, Known, Layouts};
use crate::report::text;
use crate::results::model::CaseResult;
use crate::runner::assemble::{Assembler, Finished};
use crate::runner::message::{Message, Ready};

/// What the messages of a run have given so far.
pub struct Collector<'c> {
    assembler: Assembler<'c>,
    trust: Trust,
    /// How lines are printed as they come (text to stdout): the columns of `layouts`, or with
    /// `Some(true)` each case's full line; `None` when they are not.
    stream: Option<bool>,
    /// The default line's columns per family, decided by `line_widths` and the device row (when
    /// it is ready).
    layouts: Layouts,
    /// Per family of the cases, its widest name and whether its lines lead with the original's
    /// time and ratio ([`columns::widths`]): what the results file keeps for `perftest show`.
    pub line_widths: BTreeMap<String, (usize, bool)>,
    progress: Progress,
    /// The first worker's header facts (a fresh worker after a crash says the same).
    pub ready: Option<Ready>,
    /// The records, in list order.
    pub records: Vec<CaseResult>,
    /// What the validation layer said, each with the case it came in.
    pub validation: Vec<String>,
    /// The first error writing a line to stdout.
    pub write_error: Option<std::io::Error>,
}

impl<'c> Collector<'c> {
    /// A collector for `cases` (in list order), judging rates with `trust`; with `stream`, lines
    /// are printed as they come (`Some(verbose)`).
    pub fn new(cases: &'c [CaseSpec], trust: Trust, stream: Option<bool>) -> Self {
        Collector {
            assembler: Assembler::new(cases),
            trust,
            stream,
            layouts: Layouts::default(),
            line_widths: columns::widths(
                cases.iter().map(|c| (c.family, c.name.as_str(), c.baseline.is_some())),
            ),
            progress: Progress::new(cases.len()),
            ready: None,
            records: Vec::new(),
            validation: Vec::new(),
            write_error: None,
        }
    }

    /// Takes one message; a worker's fatal error comes back as the error it was.
    pub fn take(&mut self, message: Message) -> Result<()> {
        match message {
            Message::Ready(ready) if self.ready.is_none() => {
                let mut device = ready.device.clone();
                device.clock = Some(ready.clock.clone());
                self.layouts = Layouts::of_widths(&self.line_widths, Known::of(&device));
                match self.stream {
                    Some(true) => super::progress::write_line(&ready.header)?,
                    Some(false) => super::progress::write_line(&columns::header(&ready.header))?,
                    None => {}
                }
                self.ready = Some(*ready);
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
            Message::End { validation } => self.validation.extend(validation),
            Message::Fatal { message, exit_code } => {
                let code =
                    ExitCode::ALL.into_iter().find(|c| *c as u8 == exit_code).unwrap_or(ExitCode::Failure);
                return Err(Error::Remote { message, code });
            }
        }
        Ok(())
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
        let Finished { case, outcome, baseline, notes, shader } = done;
        let mut record = CaseResult::new(case, outcome, &self.trust, baseline);
        record.shader_stats = shader.map(<[String]>::to_vec).unwrap_or_default();
        let twin = case.twin.as_ref().and_then(|twin| self.records.iter().find(|r| r.name == *twin));
        record.compiled = twin.and_then(|t| twins::compiled(&t.name, &t.shader_stats, &record.shader_stats));
        let compiled = record.compiled.iter().map(|c| format!("compiled: {c}"));
        record.notes = notes.iter().cloned().chain(text::retry_note(outcome)).chain(compiled).collect();
        let line = match self.stream {
            None => None,
            Some(true) => Some(text::line(&record)),
            Some(false) => Some(self.layouts.line(&record)),
        };
        match line {
            None => self.progress.advance(),
            Some(line) => {
                if let Err(e) = self.progress.finish_case(&line) {
                    self.write_error.get_or_insert(e);
                }
            }
        }
        self.records.push(record);
    }
}
