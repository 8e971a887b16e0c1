//! The GPU time of one measurement: the two timestamps' interval, checked against the CPU's wall
//! time of the submission that wrote them (or that wall time, where the device is timed by fences).

use std::time::Duration;

use crate::error::{Error, Result};
use crate::vk::timestamps::elapsed_ms;
use crate::vk::{Context, TimestampPool};

/// The GPU milliseconds between the two queries of `timestamps`, which a submission that took
/// `wall` on the CPU wrote; an error naming `case` if they are equal, or longer than the wall time
/// (the GPU cannot take longer than the CPU waited for it; clock granularity is allowed for).
/// Timed by CPU fences ([`Context::fenced`]), the wall time itself: from just before the submission
/// to the fence's wait returning.
pub(super) fn gpu_ms(
    ctx: &Context,
    timestamps: &TimestampPool<'_>,
    wall: Duration,
    case: &str,
) -> Result<f64> {
    gpu_ms_of(ctx, timestamps, wall, case, ctx.info.timestamp_valid_bits)
}

/// [`gpu_ms`] of timestamps written on a queue whose family has `valid_bits`.
pub(super) fn gpu_ms_of(
    ctx: &Context,
    timestamps: &TimestampPool<'_>,
    wall: Duration,
    case: &str,
    valid_bits: u32,
) -> Result<f64> {
    if ctx.fenced {
        let ms = wall.as_secs_f64() * 1e3;
        return match ms > 0.0 {
            true => Ok(ms),
            false => {
                Err(Error::Timing { case: case.to_owned(), detail: "the CPU's clock did not advance".into() })
            }
        };
    }
    let [start, end] = timestamps.read()?;
    let info = &ctx.info;
    let ms = elapsed_ms(start, end, valid_bits, info.timestamp_period).ok_or_else(|| Error::Timing {
        case: case.to_owned(),
        detail: format!("the timestamps are equal ({start})"),
    })?;
    let wall_ms = wall.as_secs_f64() * 1e3;
    if ms > wall_ms * 1.05 + 0.5 {
        return Err(Error::Timing {
            case: case.to_owned(),
            detail: format!(
                "{ms:.3} ms between the timestamps, but the submission took {wall_ms:.3} ms of wall time \
                 (timestamp period {} ns, {} valid bits)",
                info.timestamp_period, info.timestamp_valid_bits
            ),
        });
    }
    Ok(ms)
}
