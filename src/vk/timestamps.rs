//! GPU timestamps: a two-query pool, and the conversion of a tick pair into milliseconds.
//!
//! Why it is built so: docs/design/timing.md.

use ash::vk;

use super::context::Context;
use crate::error::{vk_err, Result};

/// The milliseconds between two raw timestamps, or `None` if the pair is not a forward interval.
///
/// Only `valid_bits` of each value count; the difference wraps within them, as the counter does.
pub fn elapsed_ms(start: u64, end: u64, valid_bits: u32, period_ns: f32) -> Option<f64> {
    let mask = if valid_bits >= 64 { u64::MAX } else { (1u64 << valid_bits) - 1 };
    let ticks = (end & mask).wrapping_sub(start & mask) & mask;
    let ms = ticks as f64 * f64::from(period_ns) / 1e6;
    (ticks > 0 && ms.is_finite()).then_some(ms)
}

/// A query pool of timestamps: two, start and end of one measurement (or more, `transfer::steps`).
pub struct TimestampPool<'ctx> {
    ctx: &'ctx Context,
    /// The pool handle.
    pub raw: vk::QueryPool,
    /// How many queries it holds.
    pub count: u32,
    /// Whether the context is timed by CPU fences ([`Context::fenced`]): then recording resets
    /// and writes nothing (a queue without timestamps may not write them).
    pub fenced: bool,
}

impl<'ctx> TimestampPool<'ctx> {
    /// Creates the pool of two.
    pub fn new(ctx: &'ctx Context, name: &str) -> Result<Self> {
        Self::of(ctx, name, 2)
    }

    /// Creates a pool of `count`.
    pub(super) fn of(ctx: &'ctx Context, name: &str, count: u32) -> Result<Self> {
        let info = vk::QueryPoolCreateInfo::default().query_type(vk::QueryType::TIMESTAMP).query_count(count);
        // SAFETY: valid device and create-info.
        let raw =
            unsafe { ctx.device.create_query_pool(&info, None) }.map_err(vk_err("vkCreateQueryPool"))?;
        ctx.set_name(raw, name);
        Ok(Self { ctx, raw, count, fenced: ctx.fenced })
    }

    /// The two raw values, after the submission that wrote them has completed.
    pub fn read(&self) -> Result<[u64; 2]> {
        let all = self.read_all()?;
        Ok([all[0], all[1]])
    }

    /// Every raw value, after the submission that wrote them has completed.
    pub(super) fn read_all(&self) -> Result<Vec<u64>> {
        let mut ticks = vec![0u64; self.count as usize];
        // SAFETY: both queries were reset and written by a completed submission.
        unsafe {
            self.ctx.device.get_query_pool_results(
                self.raw,
                0,
                &mut ticks,
                vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT,
            )
        }
        .map_err(vk_err("vkGetQueryPoolResults"))?;
        Ok(ticks)
    }
}

impl Drop for TimestampPool<'_> {
    fn drop(&mut self) {
        // SAFETY: no submission using the pool is pending.
        unsafe { self.ctx.device.destroy_query_pool(self.raw, None) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_ticks_with_the_period() {
        assert_eq!(elapsed_ms(1_000, 21_000_000 + 1_000, 64, 1.0), Some(21.0));
        assert_eq!(elapsed_ms(0, 1_000_000, 64, 52.5), Some(52.5));
    }

    #[test]
    fn masks_to_the_valid_bits_and_wraps() {
        // A 36-bit counter that wrapped between the two reads; garbage above bit 36 is ignored.
        let start = ((1u64 << 36) - 10) | (0xABu64 << 56);
        let end = 90 | (0xCDu64 << 56);
        assert_eq!(elapsed_ms(start, end, 36, 1e6), Some(100.0));
    }

    #[test]
    fn zero_is_not_a_duration() {
        assert_eq!(elapsed_ms(500, 500, 64, 1.0), None);
        assert_eq!(elapsed_ms(7, 7 | (1 << 40), 32, 1.0), None);
    }
}
