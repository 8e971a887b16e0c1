//! Getting data onto the device: buffers written in place or through a staging buffer, images
//! uploaded and moved to the layout shaders read them in, and the timer probe's back-to-back
//! timestamps. The one module above [`super::commands`] that records and submits for the objects
//! below it, so buffers, images and timestamps never call back up into commands.

use ash::vk;

use super::buffer::{write, Buffer, BufferDesc, Contents};
use super::commands::submit;
use super::context::Context;
use super::image::{Image, ImageDesc};
use super::timestamps::{elapsed_ms, TimestampPool};
use crate::caps::Steps;
use crate::error::Result;

/// Creates a buffer whose contents `fill` writes (zeros without one): host-visible buffers are
/// written in place, device-local ones through a staging buffer, as kajiya's
/// `create_buffer(desc, name, initial_data)` does.
pub fn with_data<'ctx>(
    ctx: &'ctx Context,
    name: &str,
    desc: BufferDesc,
    fill: Contents<'_>,
) -> Result<Buffer<'ctx>> {
    let mut buffer = Buffer::new(ctx, name, desc)?;
    upload(ctx, &mut buffer, name, fill)?;
    Ok(buffer)
}

/// Writes `buffer`'s whole contents with `fill` (zeros without one), in place if it is
/// host-visible, else through a staging buffer named after `name`.
pub fn upload(ctx: &Context, buffer: &mut Buffer<'_>, name: &str, fill: Contents<'_>) -> Result<()> {
    if buffer.mapped() {
        write(buffer.bytes_mut()?, fill);
        return Ok(());
    }
    match fill {
        None => submit(ctx, |rec| {
            rec.fill_buffer(buffer, 0);
            rec.transfer_to_compute();
        })
        .map(drop),
        Some(fill) => {
            let staging = Buffer::staging(ctx, &format!("{name}: staging"), buffer.size, Some(fill))?;
            submit(ctx, |rec| {
                rec.copy_buffer(&staging, buffer);
                rec.transfer_to_compute();
            })
            .map(drop)
        }
    }
}

/// Creates an image and uploads `staging` (texels row by row, tightly packed) into it, leaving it
/// in the layout shaders read it in.
pub fn image<'ctx>(
    ctx: &'ctx Context,
    name: &str,
    desc: ImageDesc,
    staging: &Buffer<'_>,
) -> Result<Image<'ctx>> {
    let image = Image::new(ctx, name, desc)?;
    let transfer = vk::ImageLayout::TRANSFER_DST_OPTIMAL;
    submit(ctx, |rec| {
        rec.image_layout(&image, vk::ImageLayout::UNDEFINED, transfer);
        rec.copy_to_image(staging, &image, transfer);
        rec.image_layout(&image, transfer, image.layout);
    })?;
    Ok(image)
}

/// How many timestamps [`steps`] writes.
const STEP_QUERIES: u32 = 64;

/// Writes 64 timestamps back to back in one submission (nothing between them) and measures how
/// far apart consecutive ones read: an upper bound of the counter's step, and how fast the GPU
/// writes them. `None` where the run is timed by fences, or no pair differed.
pub fn steps(ctx: &Context) -> Result<Option<Steps>> {
    if ctx.fenced {
        return Ok(None);
    }
    let pool = TimestampPool::of(ctx, "timestamp steps", STEP_QUERIES)?;
    submit(ctx, |rec| {
        rec.reset_timestamps(&pool);
        for index in 0..STEP_QUERIES {
            rec.timestamp_at(&pool, index);
        }
    })?;
    let ticks = pool.read_all()?;
    let (bits, period) = (ctx.info.timestamp_valid_bits, ctx.info.timestamp_period);
    // elapsed_ms says `None` for two equal readings: a gap of 0.
    let mut gaps: Vec<f64> =
        ticks.windows(2).map(|w| elapsed_ms(w[0], w[1], bits, period).map_or(0.0, |ms| ms * 1e6)).collect();
    gaps.sort_by(f64::total_cmp);
    let equal = gaps.iter().filter(|&&g| g == 0.0).count();
    let Some(&min_ns) = gaps.iter().find(|&&g| g > 0.0) else { return Ok(None) };
    Ok(Some(Steps { min_ns, median_ns: gaps[gaps.len() / 2], equal, pairs: gaps.len() }))
}
