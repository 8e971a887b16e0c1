//! Buffer device addresses: the structured loads through a `buffer_reference` pointer instead of a descriptor.
//!
//! `BufferAddress<float|float2|float4>.Load` reads the same elements with the same patterns as
//! `StructuredBuffer<...>.Load` (glsl/load.glsl, KIND 6), but the shader reaches the buffer
//! through its 64-bit address in push constants (`bufferDeviceAddress`), so each line sits beside
//! its descriptor twin with the ratio against `Buffer<RGBA8>.Load random`.

use super::data::Pattern;
use super::load;
use crate::registry::{self, CaseSpec, Env, Family};

fn expand(env: &Env) -> Vec<CaseSpec> {
    let n = env.workgroup_width(load::GROUP);
    [1, 2, 4].into_iter().flat_map(|width| Pattern::ALL.map(|p| load::address(width, p, n))).collect()
}

inventory::submit! {
    Family {
        about: registry::About {
            measures: "loads through a buffer device address (buffer_reference in push constants) beside the \
                       same loads through a storage-buffer descriptor (StructuredBuffer)",
            invocation: "as the load family: 256 float, vec2 or vec4 loads from a start chosen by the pattern, \
                         summed, through groupshared memory to the result write",
            rate: "loads per second, and bytes per second (the load's width)",
        },
        name: "address",
        order: 260,
        axes: &[],
        ratio_note: Some("\"Buffer<RGBA8>.Load random\""),
        levels: false,
        device_cases: false,
        quick: &["BufferAddress<float>.Load linear", "BufferAddress<float4>.Load linear"],
        expand,
    }
}
