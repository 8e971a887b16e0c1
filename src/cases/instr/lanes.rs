//! The instruction table's subgroup and workgroup operations.
//!
//! A step that leaves every lane the same value (a broadcast, a ballot, a reduction) adds the
//! lane's index, `gl_SubgroupInvocationID`, named in the case: a chain of a uniform value is
//! folded (Mesa's NIR turns a reduction of a uniform value into the value, or a multiply by the
//! subgroup size). The index is loop-invariant, so the step is the operation and one add.
//!
//! The CPU replays each step across the lanes of the invocation's group at the subgroup size the
//! device reports: a device that runs compute shaders at another size fails verify.

use super::ops::{int_op, integers, scrambled, small_integers, Consts, Needs, Op, Scope, Step, NONE};
use ash::vk::SubgroupFeatureFlags as Sg;

/// Scrambled words, every third one zero: a ballot or a vote sees both.
fn some_zero(i: u32) -> u32 {
    if i % 3 == 0 {
        0
    } else {
        scrambled(i) | 1
    }
}

const fn u(ua: u32, ub: u32) -> Consts {
    Consts { fa: 0.0, fb: 0.0, ua, ub }
}

/// A subgroup operation.
const fn subgroup(
    name: &'static str,
    define: &'static str,
    seed: fn(u32) -> u32,
    consts: Consts,
    operations: Sg,
    step: fn(&[u32], usize, &Consts) -> u32,
) -> Op {
    int_op(name, define, seed, consts, consts, Step::Lanes(step))
        .needing(Needs::Subgroup(Sg::from_raw(Sg::BASIC.as_raw() | operations.as_raw())))
        .across(Scope::Subgroup)
}

fn lane(l: usize) -> u32 {
    l as u32
}

pub(super) fn ops() -> Vec<Op> {
    vec![
        // From lane l ^ 1: a fixed other lane, the same for every invocation, not foldable.
        subgroup("subgroupShuffle", "OP_SG_SHUFFLE", scrambled, u(1, 0), Sg::SHUFFLE, |w, l, c| {
            w[l ^ c.ua as usize]
        }),
        subgroup("subgroupShuffleXor", "OP_SG_SHUFFLE_XOR", scrambled, u(0, 1), Sg::SHUFFLE, |w, l, c| {
            w[l ^ c.ub as usize]
        }),
        subgroup(
            "subgroupBroadcast (+ add)",
            "OP_SG_BROADCAST_ADD",
            scrambled,
            NONE,
            Sg::BALLOT,
            |w, l, _| w[3].wrapping_add(lane(l)),
        ),
        subgroup(
            "subgroupBroadcastFirst (+ add)",
            "OP_SG_BROADCAST_FIRST_ADD",
            scrambled,
            NONE,
            Sg::BALLOT,
            |w, l, _| w[0].wrapping_add(lane(l)),
        ),
        subgroup("subgroupBallot (+ add)", "OP_SG_BALLOT_ADD", some_zero, NONE, Sg::BALLOT, |w, l, _| {
            let bits = w.iter().take(32).enumerate().fold(0u32, |m, (j, &x)| m | u32::from(x != 0) << j);
            bits.wrapping_add(lane(l))
        }),
        subgroup("subgroupAll (+ add)", "OP_SG_ALL_ADD", some_zero, NONE, Sg::VOTE, |w, l, _| {
            u32::from(w.iter().all(|&x| x != 0)) + lane(l)
        }),
        subgroup(
            "subgroupAdd uint (+ add)",
            "OP_SG_ADD_UINT_ADD",
            scrambled,
            NONE,
            Sg::ARITHMETIC,
            |w, l, _| w.iter().fold(0u32, |s, &x| s.wrapping_add(x)).wrapping_add(lane(l)),
        ),
        // fma(subgroupAdd(x), 1 / lanes, lane): the mean and the lane's index, exact in f32 for
        // small integers (every partial sum is, in any order).
        subgroup(
            "subgroupAdd float (+ fma)",
            "OP_SG_ADD_FLOAT_FMA",
            small_integers,
            NONE,
            Sg::ARITHMETIC,
            |w, l, _| {
                let sum: f64 = w.iter().map(|&x| f64::from(f32::from_bits(x))).sum();
                ((sum / w.len() as f64 + l as f64) as f32).to_bits()
            },
        )
        .fa_per_lane(),
        subgroup(
            "subgroupInclusiveAdd uint",
            "OP_SG_INCLUSIVE_ADD",
            scrambled,
            NONE,
            Sg::ARITHMETIC,
            |w, l, _| w[..=l].iter().fold(0u32, |s, &x| s.wrapping_add(x)),
        ),
        subgroup("subgroupMin uint (+ add)", "OP_SG_MIN_ADD", scrambled, NONE, Sg::ARITHMETIC, |w, l, _| {
            w.iter().copied().min().unwrap_or(0).wrapping_add(lane(l))
        }),
        // barrier(): each invocation stores its word, waits, and loads its neighbour's (l ^ 1),
        // in two halves of shared memory taken in turn; one workgroup of 256.
        int_op(
            "barrier() with shared memory",
            "OP_WG_BARRIER",
            scrambled,
            u(0, 1),
            u(0, 1),
            Step::Lanes(|w, l, c| w[l ^ c.ub as usize]),
        )
        .across(Scope::Workgroup)
        .latency_only(),
        // atomicAdd(shared[x & 63], 64) returns the old word: from word l + 64 (the shader's
        // start), each invocation's own word, so the chain is x + 64 and no two invocations contend.
        int_op(
            "shared atomicAdd",
            "OP_WG_SHARED_ATOMIC_ADD",
            integers,
            u(64, 0),
            u(64, 0),
            Step::Word(|x, c| x.wrapping_add(c.ua)),
        )
        .latency_only(),
    ]
}
