// conv.glsl: the texture-cache study's 1D convolution (src/cases/conv.rs), one output per invocation:
// out[i] = sum over k < taps of signal[i + k] * mask[k].
#version 460
#extension GL_GOOGLE_include_directive : require
#if TYPE == 0
#extension GL_EXT_shader_16bit_storage : require
#endif
// set_mask: the set's elements - 1 (a power of two); last_first: the last workgroup start whose
// reads stay in the set (elements - LOCAL_SIZE_X - (taps - 1)); taps: M; phase: elements -
// LOCAL_SIZE_X, so that workgroup 0 starts at the set's last window (moved back) and workgroup 1
// wraps to its start: a verify run of two workgroups checks both.
#define FAMILY_PARAMS uint set_mask; uint last_first; uint taps; uint phase;
#include "common.glsl"

// Defines from src/cases/conv.rs:
//   TYPE      0 float16 (stored as float16_t, summed in fp32), 1 float, 2 double
//   PATH      0 plain storage buffers, 1 readonly restrict storage buffers, 2 uniform texel
//             buffers, 3 register reuse: the workgroup's window and the mask in shared memory
//   MAX_TAPS  reuse only: the shared arrays' size (the case's M)
#if TYPE == 0
#define T float16_t
#define ACC float
#elif TYPE == 1
#define T float
#define ACC float
#else
#define T double
#define ACC double
#endif

#if PATH == 0
#define ACCESS
#else
#define ACCESS readonly restrict
#endif

#if PATH == 2
#if TYPE == 2
// Doubles as RG32UI texels: what a texel buffer of 64-bit floats has to be on most devices.
layout(set = 0, binding = 1) uniform utextureBuffer signal;
layout(set = 0, binding = 2) uniform utextureBuffer mask;
ACC signal_at(uint e) { return packDouble2x32(texelFetch(signal, int(e)).xy); }
ACC mask_at(uint k) { return packDouble2x32(texelFetch(mask, int(k)).xy); }
#else
layout(set = 0, binding = 1) uniform textureBuffer signal;
layout(set = 0, binding = 2) uniform textureBuffer mask;
ACC signal_at(uint e) { return texelFetch(signal, int(e)).x; }
ACC mask_at(uint k) { return texelFetch(mask, int(k)).x; }
#endif
#else
layout(set = 0, binding = 1, std430) ACCESS buffer Signal { T signal[]; };
layout(set = 0, binding = 2, std430) ACCESS buffer Mask { T mask[]; };
ACC signal_at(uint e) { return ACC(signal[e]); }
ACC mask_at(uint k) { return ACC(mask[k]); }
#endif

layout(set = 0, binding = 3, std430) writeonly buffer Output { T outputs[]; };

#if PATH == 3
shared ACC window[LOCAL_SIZE_X + MAX_TAPS - 1];
shared ACC weights[MAX_TAPS];
#endif

void main() {
    uint tid = gl_LocalInvocationIndex;
    // Workgroups take consecutive windows of the set, wrapping; a window that would read past
    // the set's end is moved back to the last one that does not.
    uint first = min((global_index() - tid + params.phase) & params.set_mask, params.last_first);
    uint i = first + tid;
    ACC acc = ACC(0);
#if PATH == 3
    for (uint t = tid; t < LOCAL_SIZE_X + params.taps - 1u; t += LOCAL_SIZE_X) {
        window[t] = signal_at(first + t);
    }
    for (uint t = tid; t < params.taps; t += LOCAL_SIZE_X) {
        weights[t] = mask_at(t);
    }
    barrier();
    for (uint k = 0u; k < params.taps; ++k) {
        acc += window[tid + k] * weights[k];
    }
#else
    for (uint k = 0u; k < params.taps; ++k) {
        acc += signal_at(i + k) * mask_at(k);
    }
#endif
    outputs[i] = T(acc);
    write_result(global_index(), floatBitsToUint(float(acc)));
}
