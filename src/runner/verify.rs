//! Comparing a verify run's results with the CPU reference.

use crate::error::{Error, Result};
use crate::registry::Value;

/// Compares each GPU word with `reference(index)`, on all cores (a GEMM's reference is a dot
/// product per word; a verify run of every case spent 77 of its 128 s here on one core); returns
/// how many were checked (words the reference leaves [`Value::Unchecked`] are not counted). The
/// first difference is reported with the case name, as `what` and its index (`invocation 3`,
/// `word 3`), and how many differ in all.
pub fn compare(
    case: &str,
    words: &[u32],
    what: &str,
    reference: impl Fn(u32) -> Value + Sync,
) -> Result<usize> {
    use rayon::prelude::*;
    /// Words checked, words that differ, and the first that does (index, expected, got).
    type Tally = (usize, usize, Option<(usize, Value, Value)>);
    let tally = |index: usize, got: u32| -> Tally {
        let expected = reference(index as u32);
        let differs = !expected.matches(got);
        let first = differs.then(|| (index, expected, expected.same_type(got)));
        (usize::from(expected != Value::Unchecked), usize::from(differs), first)
    };
    let join = |a: Tally, b: Tally| -> Tally {
        let first = match (a.2, b.2) {
            (Some(x), Some(y)) => Some(if x.0 <= y.0 { x } else { y }),
            (x, y) => x.or(y),
        };
        (a.0 + b.0, a.1 + b.1, first)
    };
    let (checked, mismatches, first) =
        words.par_iter().enumerate().map(|(index, &got)| tally(index, got)).reduce(|| (0, 0, None), join);
    match first {
        None => Ok(checked),
        Some((invocation, expected, got)) => Err(Error::Verify {
            case: case.to_owned(),
            checked,
            mismatches,
            first: format!("{what} {invocation}"),
            expected: expected.to_string(),
            got: got.to_string(),
        }),
    }
}

/// Reads native-endian 32-bit words from mapped memory, on all cores (a 1 GiB copy's target is
/// seconds of one core's reads of host memory).
pub fn words(bytes: &[u8]) -> Vec<u32> {
    use rayon::prelude::*;
    bytes.par_chunks_exact(4).map(|c| u32::from_ne_bytes([c[0], c[1], c[2], c[3]])).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_results_pass_and_count() {
        let words = [1.0f32.to_bits(), 2.0f32.to_bits()];
        assert_eq!(compare("c", &words, "invocation", |i| Value::F32((i + 1) as f32)).unwrap(), 2);
    }

    #[test]
    fn a_mismatch_names_the_case_and_first_invocation() {
        let words = [0, 5, 9, 7];
        let error =
            compare("ALU int32 multiply-add", &words, "invocation", |i| Value::U32(i * 2 + 1)).unwrap_err();
        assert_eq!(error.exit_code(), crate::ExitCode::Verify);
        assert_eq!(
            error.to_string(),
            "case \"ALU int32 multiply-add\" failed verification: 3 of 4 results differ from the CPU \
             reference; the first is invocation 0: expected 1, got 0"
        );
    }

    #[test]
    fn unchecked_words_pass_and_are_not_counted() {
        let words = [7, 0xDEAD_BEEF, 11];
        let reference = |i| if i == 1 { Value::Unchecked } else { Value::U32(2 * i + 7) };
        assert_eq!(compare("sampled", &words, "word", reference).unwrap(), 2);
        let error = compare("sampled", &[7, 0, 8], "word", reference).unwrap_err();
        assert!(error.to_string().contains("1 of 2 results differ"), "{error}");
    }

    #[test]
    fn floats_are_shown_as_floats() {
        let error = compare("f", &[0xDEAD_BEEF], "invocation", |_| Value::F32(1032.0)).unwrap_err();
        let text = error.to_string();
        assert!(text.contains("expected 1032.0, got -6.2598534e18"), "{text}");
    }
}
