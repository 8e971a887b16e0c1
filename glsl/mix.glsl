// mix.glsl: a 32-bit mix and the random data words made from it (src/registry/data.rs).
#ifndef MIX_GLSL
#define MIX_GLSL

// The lowbias32 hash: every input bit moves about half the output bits.
uint mix32(uint v) {
    v ^= v >> 16u;
    v *= 0x7feb352du;
    v ^= v >> 15u;
    v *= 0x846ca68bu;
    v ^= v >> 16u;
    return v;
}

// Word k of random data: random bits, but bit 30 the inverse of bit 29 (a finite, normal float).
uint random_word(uint k) {
    uint h = mix32(k ^ 0x9E3779B9u);
    return (h & ~(1u << 30u)) | (((~h >> 29u) & 1u) << 30u);
}

#endif
