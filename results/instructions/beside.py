#!/usr/bin/env python3
"""beside.py VULKAN.json CUDA.csv: perftest's instruction table beside CUDA's, as markdown.

Per operation: Vulkan's and CUDA's operations per clock per SM and their ratio, the two latencies
in clocks per operation and their ratio, and perftest's cost in fp32 FMAs. A throughput under
0.95x or a latency over 1.05x CUDA's is marked with a cross, as issue 38 asks. CUDA's rows are
per operation as instr.cu counts them; `clamp` counts two there and one call here, so its CUDA
figures are per call.
"""
import csv
import json
import sys

# perftest's operation, CUDA's row, and how many of CUDA's operations one of perftest's is.
ROWS = [
    ("fp32 add", "f32_add", 1), ("fp32 mul", "f32_mul", 1), ("fp32 fma", "f32_fma", 1),
    ("fp32 exp2", "f32_exp2", 1), ("fp32 log2", "f32_log2", 1), ("fp32 exp", "f32_exp", 1),
    ("fp32 log", "f32_log", 1), ("fp32 sin", "f32_sin", 1), ("fp32 cos", "f32_cos", 1),
    ("fp32 inversesqrt", "f32_inversesqrt", 1), ("fp32 sqrt", "f32_sqrt", 1),
    ("fp32 1/x (+ add)", "f32_rcp_add", 1), ("fp32 a/b", "f32_div", 1), ("fp32 pow", "f32_pow", 1),
    ("fp32 atan", "f32_atan", 1), ("fp32 fract", "f32_fract", 1), ("fp32 min", "f32_min", 1),
    ("fp32 max", "f32_max", 1), ("fp32 clamp", "f32_clamp", 2),
    ("int32 add", "u32_add", 1), ("int32 mul", "u32_mul", 1), ("int32 mad", "u32_mad", 1),
    ("uint32 / (run-time)", "u32_div", 1), ("uint32 % (run-time, + xor)", "u32_mod_xor", 1),
    ("int32 <<", "u32_shl", 1), ("int32 >>", "u32_shr", 1), ("bitCount", "u32_bitcount", 1),
    ("findMSB", "u32_findmsb", 1), ("findLSB", "u32_findlsb", 1),
    ("bitfieldReverse (+ xor)", "u32_bitfieldreverse_xor", 1),
    ("bitfieldExtract", "u32_bitfieldextract", 1), ("bitfieldInsert", "u32_bitfieldinsert", 1),
    ("uint min (+ sub)", "u32_min_sub", 1), ("uint max (+ sub)", "u32_max_sub", 1),
    ("fp16 add", "f16_add", 1), ("fp16 fma", "f16_fma", 1), ("fp16 exp2", "f16_exp2", 1),
    ("fp16 inversesqrt", "f16_inversesqrt", 1), ("f16vec2 add", "f16x2_add", 1),
    ("f16vec2 fma", "f16x2_fma", 1), ("f16vec2 exp2", "f16x2_exp2", 1),
    ("f16vec2 inversesqrt", "f16x2_inversesqrt", 1),
    ("fp64 add", "f64_add", 1), ("fp64 fma", "f64_fma", 1), ("fp64 a/b", "f64_div", 1),
    ("fp64 sqrt", "f64_sqrt", 1), ("int64 add", "u64_add", 1), ("int64 mul", "u64_mul", 1),
    ("float -> int -> float (+ add)", "cvt_float_int_add", 1),
    ("float -> uint -> float (+ add)", "cvt_float_uint_add", 1),
    ("float -> float16_t -> float (+ add)", "cvt_float_half_add", 1),
    ("packHalf2x16 and back (+ add)", "cvt_packhalf2x16_add", 1),
    ("packUnorm4x8 and back (+ add)", "cvt_packunorm4x8_add", 1),
    ("subgroupShuffle", "sg_shuffle", 1), ("subgroupShuffleXor", "sg_shufflexor", 1),
    ("subgroupBroadcast (+ add)", "sg_broadcast_add", 1),
    ("subgroupBroadcastFirst (+ add)", "sg_broadcastfirst_add", 1),
    ("subgroupBallot (+ add)", "sg_ballot_add", 1), ("subgroupAll (+ add)", "sg_all_add", 1),
    ("subgroupAdd uint (+ add)", "sg_add_uint_add", 1), ("subgroupAdd float (+ fma)", "sg_add_float_fma", 1),
    ("subgroupInclusiveAdd uint", "sg_inclusive_add", 1), ("subgroupMin uint (+ add)", "sg_min_uint_add", 1),
    ("barrier() with shared memory", "wg_barrier_shared", 1), ("shared atomicAdd", "wg_shared_atomicadd", 1),
]


def vulkan(path):
    """Per operation: (ops/clk/SM, clk/op, cost in FMAs, whether the shader clock counted it)."""
    table = {}
    for case in json.load(open(path))["cases"]:
        if case.get("family") != "instr" or case.get("status") != "ok" or not case.get("per_clock"):
            continue
        row = table.setdefault(case["variant"], [None, None, None, False])
        value = case["per_clock"][0]["value"]
        if case["labels"]["measure"] == "throughput":
            row[0] = value
            row[2] = 1.0 / case["ratio"] if case.get("ratio") else None
        else:
            row[1] = value
            row[3] = case.get("shader_clocked", False)
    return table


def cuda(path):
    rows = csv.DictReader(line for line in open(path) if not line.startswith("#"))
    out = {}
    for r in rows:
        per_clock = float(r["ops_per_clk_per_sm"]) if r["ops_per_clk_per_sm"] else None
        out[r["operation"]] = (per_clock, float(r["latency_clk"]))
    return out


def fmt(v, digits=1):
    return "-" if v is None else f"{v:.{digits}f}"


def main(vulkan_path, cuda_path):
    v, c = vulkan(vulkan_path), cuda(cuda_path)
    print("| operation | Vulkan ops/clk/SM | CUDA | ratio | Vulkan clk/op | CUDA | ratio | cost in FMAs |")
    print("|---|---|---|---|---|---|---|---|")
    met = {"throughput": [0, 0], "latency": [0, 0]}
    for name, row, per in ROWS:
        ours = v.get(name, [None, None, None, False])
        theirs = c.get(row)
        cuda_rate = theirs[0] / per if theirs and theirs[0] else None
        cuda_clk = theirs[1] * per if theirs else None
        cells = []
        for kind, mine, other, good in [
            ("throughput", ours[0], cuda_rate, lambda r: r >= 0.95),
            ("latency", ours[1], cuda_clk, lambda r: r <= 1.05),
        ]:
            ratio = mine / other if mine and other else None
            mark = ""
            if ratio is not None:
                met[kind][1] += 1
                met[kind][0] += good(ratio)
                mark = "" if good(ratio) else " ✗"
            cells += [fmt(mine), fmt(other), fmt(ratio, 2) + mark]
        print(f"| `{name}` | " + " | ".join(cells) + f" | {fmt(ours[2])} |")
    clocked = sum(1 for r in v.values() if r[3])
    print()
    print(
        f"{met['throughput'][0]} of {met['throughput'][1]} throughputs at least 0.95x CUDA's; "
        f"{met['latency'][0]} of {met['latency'][1]} latencies at most 1.05x; "
        f"{clocked} latencies counted by the shader clock."
    )


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
