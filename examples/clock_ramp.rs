//! Traces a GPU's clock under the warm-up load from idle, and how far it falls after idle gaps:
//! the data the warm-up plan (src/runner/warmup.rs) is chosen from. Prints CSV.
//!
//! Usage: `cargo run --release --example clock_ramp [RAMP_MS]` on a GPU left idle first (the
//! first rows are the cold start). RAMP_MS is the load to trace (default 8000).

use std::time::{Duration, Instant};

use perftest::runner::clock;
use perftest::runner::heater::Heater;
use perftest::runner::open::context_for;
use perftest::vk::context::{Adapter, ContextOptions};
use perftest::Error;

/// Load between two readings of the ramp, ms.
const SLICE_MS: f64 = 25.0;
/// Idle gaps after which the clock is read, ms.
const GAPS_MS: [u64; 10] = [50, 100, 200, 400, 700, 1000, 1500, 2000, 3000, 5000];
/// Load before each gap, ms: enough to be at the sustained clock again.
const REWARM_MS: f64 = 2000.0;

fn main() {
    if let Err(error) = trace() {
        eprintln!("clock_ramp: {error}");
        std::process::exit(error.exit_code() as i32);
    }
}

fn trace() -> Result<(), Error> {
    let ramp_ms: f64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(8000.0);
    let ctx = context_for(Adapter::open(&ContextOptions::default())?, &[])?;
    let probe = clock::probe(&ctx).map_err(|reason| Error::Io(std::io::Error::other(reason)))?;
    let heater = Heater::new(&ctx)?;
    let mhz = || -> Result<String, Error> { Ok(probe.mhz()?.map_or("none".into(), |m| format!("{m:.0}"))) };
    let start = Instant::now();
    let wall = || start.elapsed().as_secs_f64() * 1e3;
    println!("wall_ms,load_ms,mhz");
    let mut load = 0.0;
    println!("{:.0},0,{}", wall(), mhz()?);
    while load < ramp_ms {
        load += heater.heat(SLICE_MS)?;
        println!("{:.0},{load:.0},{}", wall(), mhz()?);
    }
    println!("\ngap_ms,mhz_before,mhz_after_gap,mhz_after_{SLICE_MS}_ms_of_load");
    for gap in GAPS_MS {
        heater.heat(REWARM_MS)?;
        let before = mhz()?;
        std::thread::sleep(Duration::from_millis(gap));
        let after = mhz()?;
        heater.heat(SLICE_MS)?;
        println!("{gap},{before},{after},{}", mhz()?);
    }
    Ok(())
}
