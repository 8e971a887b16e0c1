// broadcast.glsl: the subgroup-broadcast trick's channel pass (src/cases/broadcast.rs), shared by
// load.glsl and texture.glsl. The includer defines VEC (its value type) and CHANNELS.
#ifndef PERFTEST_BROADCAST_GLSL
#define PERFTEST_BROADCAST_GLSL

// Lane `lane`'s value of the CHANNELS components the data has. The others are the same
// constants (0, or a typed format's missing alpha of 1) on every lane, so each lane keeps its own.
VEC broadcast(VEC v, uint lane) {
    v.x = subgroupBroadcast(v.x, lane);
#if CHANNELS >= 2
    v.y = subgroupBroadcast(v.y, lane);
#endif
#if CHANNELS >= 3
    v.z = subgroupBroadcast(v.z, lane);
#endif
#if CHANNELS >= 4
    v.w = subgroupBroadcast(v.w, lane);
#endif
    return v;
}

#endif
