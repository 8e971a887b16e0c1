//! What a worker process and its parent say to each other: the job on the worker's stdin, then one
//! message per line on its stdout, each line marked so that whatever a driver prints there is told
//! apart from perftest's messages.

use serde::{Deserialize, Serialize};

use crate::record::outcome::Outcome;
use crate::results::model;

/// What the parent asks a worker to do: which device row, and which cases in which order (names,
/// so that a worker that expanded the families differently says so instead of running others).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Job {
    /// The device row among those DEVICE matches (`None`: the best).
    pub row: Option<usize>,
    /// The cases to run, in order.
    pub cases: Vec<String>,
    /// Build each case's pipeline just before it runs, not all of them first: a worker died
    /// building them all, and this way a driver that crashes on one shader costs that case.
    #[serde(default)]
    pub lazy: bool,
}

/// The device opened and made ready: what the header says.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Ready {
    /// The device row (with how clocks are measured, or why they are unknown).
    pub device: model::Device,
    /// What else the header shows.
    pub facts: crate::results::header::Facts,
    /// What the warm-up did (timed runs).
    pub warm_up: Option<model::WarmUp>,
    /// How energy is measured, and the idle power before the warm-up, or why it is unknown
    /// (`--energy` only).
    #[serde(default)]
    pub energy: Option<crate::results::energy::RunEnergy>,
}

/// One finished case: the plain record a worker streams back.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Record {
    /// The case's name.
    pub case: String,
    /// How it ended.
    pub outcome: Outcome,
    /// Notes for the text output (memory placement, a re-warm, shader statistics on request).
    pub notes: Vec<String>,
    /// The driver's statistics of its shader, where offered.
    pub shader: Option<Vec<String>>,
    /// What the validation layer said while it ran.
    pub validation: Vec<String>,
    /// Where its wall time went in the worker.
    #[serde(default)]
    pub phases: crate::record::phases::Phases,
    /// The energy sensor's window of its work held after its samples (`--energy`).
    #[serde(default)]
    pub energy: Option<crate::record::energy::Held>,
}

impl Record {
    /// The record of `case`, ended as `outcome`, with these notes and shader statistics (what the
    /// validation layer said is added when the case is over).
    pub fn of(
        case: &crate::registry::CaseSpec,
        outcome: Outcome,
        notes: Vec<String>,
        shader: Option<Vec<String>>,
    ) -> Self {
        Record {
            case: case.name.clone(),
            outcome,
            notes,
            shader,
            validation: Vec::new(),
            phases: Default::default(),
            energy: None,
        }
    }
}

/// One message from a worker.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub enum Message {
    /// The device is open, the pipelines built and the device warm.
    Ready(Box<Ready>),
    /// A case started.
    Start {
        /// Its name.
        case: String,
    },
    /// A case finished.
    Done(Box<Record>),
    /// Every object was destroyed; what the validation layer said after the last case.
    End {
        /// The messages.
        validation: Vec<String>,
        /// The idle device's watts after the last case (`--energy`), or why not.
        #[serde(default)]
        idle_w: Option<Result<f64, String>>,
    },
    /// The worker could not open the device or build the pipelines: the run ends with this.
    Fatal {
        /// The error's sentence.
        message: String,
        /// Its exit code.
        exit_code: u8,
    },
}

/// What starts each message line.
pub const MARK: &str = "@perftest ";

impl Message {
    /// The message as one line (without its newline).
    pub fn line(&self) -> String {
        // A message holds strings, numbers and enums only: it always serializes.
        format!("{MARK}{}", serde_json::to_string(self).unwrap_or_default())
    }

    /// Splits `line` into what came before the mark (a driver's text) and the message after it;
    /// a line without the mark, or whose message does not parse, is text.
    pub fn parse(line: &str) -> (&str, Option<Message>) {
        match line.find(MARK) {
            Some(at) => match serde_json::from_str(&line[at + MARK.len()..]) {
                Ok(message) => (&line[..at], Some(message)),
                Err(_) => (line, None),
            },
            None => (line, None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::outcome::Failure;

    #[test]
    fn a_message_survives_its_line_and_text_before_the_mark_is_kept() {
        let record = Record {
            case: "ALU fp32 FMA".into(),
            outcome: Outcome::Failed {
                failure: Failure::Differs,
                detail: "word 0: expected 64, got 128".into(),
            },
            notes: vec!["memory: device-local".into()],
            shader: None,
            validation: vec![],
            phases: Default::default(),
            energy: Some(crate::record::energy::Held {
                seconds: 4.0,
                joules: 1600.0,
                measurements: 200,
                gpu_s: 3.99,
            }),
        };
        let message = Message::Done(Box::new(record));
        let line = message.line();
        assert_eq!(Message::parse(&line), ("", Some(message.clone())));
        let mixed = format!("driver says hi{line}");
        assert_eq!(Message::parse(&mixed), ("driver says hi", Some(message)));
        assert_eq!(Message::parse("plain text"), ("plain text", None));
        let broken = format!("{MARK}{{\"Start\":");
        assert_eq!(Message::parse(&broken), (broken.as_str(), None));
    }
}
