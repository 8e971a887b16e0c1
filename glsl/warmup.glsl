// warmup.glsl: the warm-up load (src/runner/heater.rs). Each invocation runs eight multiply-add
// chains of `steps` steps, so every compute unit is busy while the clock ramps up.
#version 450
#define FAMILY_PARAMS uint steps;
#include "common.glsl"

void main() {
    float seed = float(gl_LocalInvocationIndex);
    vec4 x = vec4(seed, seed + 1.0, seed + 2.0, seed + 3.0);
    vec4 y = x + 4.0;
    for (uint i = 0u; i < params.steps; ++i) {
        x = fma(x, vec4(0.999), vec4(0.01));
        y = fma(y, vec4(0.999), vec4(0.01));
    }
    vec4 sum = x + y;
    write_result(global_index(), floatBitsToUint(sum.x + sum.y + sum.z + sum.w));
}
