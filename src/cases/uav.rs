//! UAV loads: the original's Todo "UAV loads (RWBuffer, RWByteAddressBuffer)", in Vulkan's terms.
//!
//! The load and texture families' cases with their resources bound read-write: typed buffers as
//! storage texel buffers (`imageBuffer` + `imageLoad`), raw and structured buffers as storage
//! buffers declared without `readonly`, and 2D textures as storage images (`image2D` +
//! `imageLoad`). Typed UAVs are declared with their format (r8 ... rgba32f; the "extended" ones
//! need `shaderStorageImageExtendedFormats`), which converts as a sampled view's does. Same
//! shaders, patterns, references and ratio (against `Buffer<RGBA8>.Load random`) as the
//! original's 138, so each `RW...` line sits beside its read-only twin.

use super::data::Pattern;
use super::load::{self, View, RAW, STRUCTURED};
use super::texture::{self, Op};
use crate::registry::originals;
use crate::registry::{self, CaseSpec, Env, Family};

fn expand(env: &Env) -> Vec<CaseSpec> {
    let (n, rows) = (env.workgroup_width(load::GROUP), texture::rows(env));
    let mut cases = Vec::new();
    for f in originals() {
        cases.extend(Pattern::ALL.map(|p| load::typed(f, p, View::Uav, n)));
    }
    for (base, width, offset) in RAW {
        cases.extend(Pattern::ALL.map(|p| load::raw(base, width, offset, p, View::Uav, n)));
    }
    for (base, width) in STRUCTURED {
        cases.extend(Pattern::ALL.map(|p| load::structured(base, width, p, View::Uav, n)));
    }
    for f in originals() {
        cases.extend(Pattern::ALL.map(|p| texture::case(f, Op::StorageLoad, p, rows)));
    }
    cases
}

inventory::submit! {
    Family {
        about: registry::About {
            measures: "UAV (read-write) loads beside the original's read-only ones: storage texel buffers \
                       (RWBuffer) in nine formats, storage buffers without readonly (RWByteAddressBuffer, \
                       RWStructuredBuffer), storage images (RWTexture2D) in nine formats",
            invocation: "as the load and texture families: 256 loads from a start chosen by the pattern, summed, \
                         through groupshared memory to the result write",
            rate: "loads per second, and bytes per second (the load's width)",
        },
        name: "uav",
        order: 250,
        axes: &[],
        ratio_note: Some("\"Buffer<RGBA8>.Load random\""),
        levels: false,
        device_cases: false,
        quick: &[
            "RWBuffer<RGBA8>.Load linear",
            "RWByteAddressBuffer.Load4 linear",
            "RWStructuredBuffer<float4>.Load linear",
        ],
        expand,
    }
}
