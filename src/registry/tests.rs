//! Tests of the registry: the registered names and order, filtering, requirements, values.

use super::*;

fn names(cases: &[Selected]) -> Vec<&'static str> {
    cases.iter().map(|s| s.case.name).collect()
}

#[test]
fn the_registered_cases_are_exactly_these_in_this_order() {
    // Catches a family module that the linker dropped (inventory issue 9) or a reordering.
    // The load and texture cases have the names and order of sebbbi/perftest's result tables
    // (whose RTX 3090 block mislabels RGBA32F nearest-uniform as bilinear).
    let expected = [
        "Buffer<R8>.Load uniform",
        "Buffer<R8>.Load linear",
        "Buffer<R8>.Load random",
        "Buffer<RG8>.Load uniform",
        "Buffer<RG8>.Load linear",
        "Buffer<RG8>.Load random",
        "Buffer<RGBA8>.Load uniform",
        "Buffer<RGBA8>.Load linear",
        "Buffer<RGBA8>.Load random",
        "Buffer<R16f>.Load uniform",
        "Buffer<R16f>.Load linear",
        "Buffer<R16f>.Load random",
        "Buffer<RG16f>.Load uniform",
        "Buffer<RG16f>.Load linear",
        "Buffer<RG16f>.Load random",
        "Buffer<RGBA16f>.Load uniform",
        "Buffer<RGBA16f>.Load linear",
        "Buffer<RGBA16f>.Load random",
        "Buffer<R32f>.Load uniform",
        "Buffer<R32f>.Load linear",
        "Buffer<R32f>.Load random",
        "Buffer<RG32f>.Load uniform",
        "Buffer<RG32f>.Load linear",
        "Buffer<RG32f>.Load random",
        "Buffer<RGBA32f>.Load uniform",
        "Buffer<RGBA32f>.Load linear",
        "Buffer<RGBA32f>.Load random",
        "ByteAddressBuffer.Load uniform",
        "ByteAddressBuffer.Load linear",
        "ByteAddressBuffer.Load random",
        "ByteAddressBuffer.Load2 uniform",
        "ByteAddressBuffer.Load2 linear",
        "ByteAddressBuffer.Load2 random",
        "ByteAddressBuffer.Load3 uniform",
        "ByteAddressBuffer.Load3 linear",
        "ByteAddressBuffer.Load3 random",
        "ByteAddressBuffer.Load4 uniform",
        "ByteAddressBuffer.Load4 linear",
        "ByteAddressBuffer.Load4 random",
        "ByteAddressBuffer.Load2 unaligned uniform",
        "ByteAddressBuffer.Load2 unaligned linear",
        "ByteAddressBuffer.Load2 unaligned random",
        "ByteAddressBuffer.Load4 unaligned uniform",
        "ByteAddressBuffer.Load4 unaligned linear",
        "ByteAddressBuffer.Load4 unaligned random",
        "StructuredBuffer<float>.Load uniform",
        "StructuredBuffer<float>.Load linear",
        "StructuredBuffer<float>.Load random",
        "StructuredBuffer<float2>.Load uniform",
        "StructuredBuffer<float2>.Load linear",
        "StructuredBuffer<float2>.Load random",
        "StructuredBuffer<float4>.Load uniform",
        "StructuredBuffer<float4>.Load linear",
        "StructuredBuffer<float4>.Load random",
        "cbuffer{float4} load uniform",
        "cbuffer{float4} load linear",
        "cbuffer{float4} load random",
        "Texture2D<R8>.Load uniform",
        "Texture2D<R8>.Load linear",
        "Texture2D<R8>.Load random",
        "Texture2D<RG8>.Load uniform",
        "Texture2D<RG8>.Load linear",
        "Texture2D<RG8>.Load random",
        "Texture2D<RGBA8>.Load uniform",
        "Texture2D<RGBA8>.Load linear",
        "Texture2D<RGBA8>.Load random",
        "Texture2D<R16F>.Load uniform",
        "Texture2D<R16F>.Load linear",
        "Texture2D<R16F>.Load random",
        "Texture2D<RG16F>.Load uniform",
        "Texture2D<RG16F>.Load linear",
        "Texture2D<RG16F>.Load random",
        "Texture2D<RGBA16F>.Load uniform",
        "Texture2D<RGBA16F>.Load linear",
        "Texture2D<RGBA16F>.Load random",
        "Texture2D<R32F>.Load uniform",
        "Texture2D<R32F>.Load linear",
        "Texture2D<R32F>.Load random",
        "Texture2D<RG32F>.Load uniform",
        "Texture2D<RG32F>.Load linear",
        "Texture2D<RG32F>.Load random",
        "Texture2D<RGBA32F>.Load uniform",
        "Texture2D<RGBA32F>.Load linear",
        "Texture2D<RGBA32F>.Load random",
        "Texture2D<R8>.Sample(nearest) uniform",
        "Texture2D<R8>.Sample(nearest) linear",
        "Texture2D<R8>.Sample(nearest) random",
        "Texture2D<RG8>.Sample(nearest) uniform",
        "Texture2D<RG8>.Sample(nearest) linear",
        "Texture2D<RG8>.Sample(nearest) random",
        "Texture2D<RGBA8>.Sample(nearest) uniform",
        "Texture2D<RGBA8>.Sample(nearest) linear",
        "Texture2D<RGBA8>.Sample(nearest) random",
        "Texture2D<R16F>.Sample(nearest) uniform",
        "Texture2D<R16F>.Sample(nearest) linear",
        "Texture2D<R16F>.Sample(nearest) random",
        "Texture2D<RG16F>.Sample(nearest) uniform",
        "Texture2D<RG16F>.Sample(nearest) linear",
        "Texture2D<RG16F>.Sample(nearest) random",
        "Texture2D<RGBA16F>.Sample(nearest) uniform",
        "Texture2D<RGBA16F>.Sample(nearest) linear",
        "Texture2D<RGBA16F>.Sample(nearest) random",
        "Texture2D<R32F>.Sample(nearest) uniform",
        "Texture2D<R32F>.Sample(nearest) linear",
        "Texture2D<R32F>.Sample(nearest) random",
        "Texture2D<RG32F>.Sample(nearest) uniform",
        "Texture2D<RG32F>.Sample(nearest) linear",
        "Texture2D<RG32F>.Sample(nearest) random",
        "Texture2D<RGBA32F>.Sample(nearest) uniform",
        "Texture2D<RGBA32F>.Sample(nearest) linear",
        "Texture2D<RGBA32F>.Sample(nearest) random",
        "Texture2D<R8>.Sample(bilinear) uniform",
        "Texture2D<R8>.Sample(bilinear) linear",
        "Texture2D<R8>.Sample(bilinear) random",
        "Texture2D<RG8>.Sample(bilinear) uniform",
        "Texture2D<RG8>.Sample(bilinear) linear",
        "Texture2D<RG8>.Sample(bilinear) random",
        "Texture2D<RGBA8>.Sample(bilinear) uniform",
        "Texture2D<RGBA8>.Sample(bilinear) linear",
        "Texture2D<RGBA8>.Sample(bilinear) random",
        "Texture2D<R16F>.Sample(bilinear) uniform",
        "Texture2D<R16F>.Sample(bilinear) linear",
        "Texture2D<R16F>.Sample(bilinear) random",
        "Texture2D<RG16F>.Sample(bilinear) uniform",
        "Texture2D<RG16F>.Sample(bilinear) linear",
        "Texture2D<RG16F>.Sample(bilinear) random",
        "Texture2D<RGBA16F>.Sample(bilinear) uniform",
        "Texture2D<RGBA16F>.Sample(bilinear) linear",
        "Texture2D<RGBA16F>.Sample(bilinear) random",
        "Texture2D<R32F>.Sample(bilinear) uniform",
        "Texture2D<R32F>.Sample(bilinear) linear",
        "Texture2D<R32F>.Sample(bilinear) random",
        "Texture2D<RG32F>.Sample(bilinear) uniform",
        "Texture2D<RG32F>.Sample(bilinear) linear",
        "Texture2D<RG32F>.Sample(bilinear) random",
        "Texture2D<RGBA32F>.Sample(bilinear) uniform",
        "Texture2D<RGBA32F>.Sample(bilinear) linear",
        "Texture2D<RGBA32F>.Sample(bilinear) random",
        "Coherent branch baseline",
        "Coherent branch long",
        "Coherent branch short",
        "Divergent branch baseline",
        "Divergent branch long",
        "Divergent branch short",
        "All-taken branch baseline",
        "All-taken branch long",
        "All-taken branch short",
        "None-taken branch baseline",
        "None-taken branch long",
        "None-taken branch short",
        "ALU fp32 FMA",
        "ALU fp16 FMA (f16vec2)",
        "ALU fp64 FMA",
        "ALU int32 multiply-add",
    ];
    assert_eq!(names(&templates()), expected);
}

#[test]
fn names_are_unique() {
    let mut seen = std::collections::HashSet::new();
    for name in names(&all()) {
        assert!(seen.insert(name), "duplicate case name {name}");
    }
}

#[test]
fn filter_is_case_insensitive_and_skip_wins() {
    let fp = filter(all(), Some("ALU FP"), &[]).unwrap();
    assert_eq!(names(&fp), ["ALU fp32 FMA", "ALU fp16 FMA (f16vec2)", "ALU fp64 FMA"]);
    let no64 = filter(all(), Some("alu fp"), &["fp64".into(), "FP16".into()]).unwrap();
    assert_eq!(names(&no64), ["ALU fp32 FMA"]);
}

#[test]
fn a_filter_that_matches_nothing_is_an_error_naming_it() {
    let error = filter(all(), Some("fp128"), &[]).err().unwrap();
    assert_eq!(error.exit_code(), crate::ExitCode::NothingMatched);
    assert!(error.to_string().contains("--filter \"fp128\""), "{error}");
    // Every case name contains an "a" (Load, Sample, branch, ALU).
    let skip = ["a".into(), "zzz".into()];
    let error = filter(all(), None, &skip).err().unwrap();
    let expected = "--skip \"a\" with --skip \"zzz\"";
    assert!(error.to_string().contains(expected), "{error}");
}

#[test]
fn requirements_name_the_missing_feature() {
    let none = Capabilities::default();
    assert_eq!(Requirement::ShaderFloat16.unmet(&none).unwrap(), "the device lacks shaderFloat16");
    assert_eq!(Requirement::ShaderFloat64.unmet(&none).unwrap(), "the device lacks shaderFloat64");
    let r8 = Requirement::UniformTexelBuffer(vk::Format::R8_UNORM);
    assert_eq!(r8.unmet(&none).unwrap(), "the device cannot use R8_UNORM in a uniform texel buffer");
    let all = Capabilities {
        shader_float16: true,
        shader_float64: true,
        pipeline_statistics: false,
        uniform_texel_buffer_formats: vec![vk::Format::R8_UNORM],
        ..Capabilities::default()
    };
    assert_eq!(Requirement::ShaderFloat16.unmet(&all), None);
    assert_eq!(Requirement::ShaderFloat64.unmet(&all), None);
    assert_eq!(r8.unmet(&all), None);
    let rgba32 = vk::Format::R32G32B32A32_SFLOAT;
    let expected = "the device cannot filter R32G32B32A32_SFLOAT images linearly";
    assert_eq!(Requirement::LinearFilter(rgba32).unmet(&all).unwrap(), expected);
    let expected = "the device cannot sample R32G32B32A32_SFLOAT images";
    assert_eq!(Requirement::SampledImage(rgba32).unmet(&all).unwrap(), expected);
    let expected = "the device allows 0 invocations per workgroup, the case needs 1024";
    assert_eq!(Requirement::WorkgroupInvocations(1024).unmet(&all).unwrap(), expected);
}

#[test]
fn near_values_tolerate_rounding_only() {
    let expected = Value::F32Near(1000.0);
    assert!(expected.matches(1000.005f32.to_bits()));
    assert!(!expected.matches(1000.05f32.to_bits()));
    assert!(!Value::F32(1.0).matches(1.0000001f32.to_bits()));
    assert!(Value::U32(7).matches(7));
}

#[test]
fn params_are_laid_out_as_eight_words() {
    let params = Params { write_enable: 1, sentinel: 7, f: [2.0, 0.0, 0.0, 0.0], ..Default::default() };
    let bytes = params.as_bytes();
    assert_eq!(&bytes[0..4], &1u32.to_ne_bytes());
    assert_eq!(&bytes[8..12], &7u32.to_ne_bytes());
    assert_eq!(&bytes[16..20], &2.0f32.to_ne_bytes());
}
