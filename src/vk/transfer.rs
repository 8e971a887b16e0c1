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
            let mut staging = staging(ctx, &format!("{name}: staging"), buffer.size)?;
            let size = buffer.size as usize;
            fill(&mut staging.bytes_mut()?[..size]);
            submit(ctx, |rec| {
                rec.copy_range(&staging, buffer, 0, buffer.size);
                rec.transfer_to_compute();
            })?;
            keep_staging(ctx, staging);
            Ok(())
        }
    }
}

/// A staging buffer of at least `size` bytes named `name`: the one kept from the last upload where
/// it is large enough, else a new one (the kept one let go first). Allocating and freeing staging
/// memory cost about 50 ms a GiB on an H200, more than half of an upload (results/half-the-time-9/).
pub fn staging<'ctx>(ctx: &'ctx Context, name: &str, size: u64) -> Result<Buffer<'ctx>> {
    match ctx.staging.take() {
        Some(parked) if parked.size >= size => {
            let staging = Buffer::unpark(ctx, parked);
            ctx.set_name(staging.raw, name);
            Ok(staging)
        }
        smaller => {
            if let Some(parked) = smaller {
                parked.free(ctx);
            }
            Buffer::new(ctx, name, BufferDesc::staging(size))
        }
    }
}

/// The largest staging buffer kept from one upload to the next: a sixteenth of the largest
/// device-local heap (2 GiB would do for every upload of the default list; staging memory may be
/// the device's own, reached through its BAR, so it is held to the device's size).
pub fn kept_staging_bytes(ctx: &Context) -> u64 {
    crate::caps::memory::device_local_share(&ctx.caps.memory_types, 16)
}

/// Keeps `staging` (a buffer from [`staging`], done with) for the next upload where it is mapped
/// and no larger than [`kept_staging_bytes`]; else lets it go.
pub fn keep_staging<'ctx>(ctx: &'ctx Context, staging: Buffer<'ctx>) {
    if staging.mapped() && staging.size <= kept_staging_bytes(ctx) {
        if let Some(before) = ctx.staging.replace(staging.park()) {
            before.free(ctx);
        }
    }
}

/// Lets go of the staging buffer kept from the last upload (for a case that needs its room);
/// whether there was one.
pub fn let_go_of_staging(ctx: &Context) -> bool {
    ctx.staging.take().map(|parked| parked.free(ctx)).is_some()
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
