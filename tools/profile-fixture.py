#!/usr/bin/env python3
"""tools/profile-fixture.py: writes a --simulate fixture (tests/profiles/NAME.json) from a device's
Khronos Vulkan Profiles JSON (a gpuinfo.org report export): the facts perftest plans with and nothing
else (the limits it reads, the features it knows that the device has, the format features it tests,
the subgroup operations, the queue families' timestamp bits), in the same format.
Usage: python3 tools/profile-fixture.py REPORT.json NAME "label" > tests/profiles/NAME.json"""
import json, re, sys

LIMITS = ["maxComputeWorkGroupInvocations", "maxComputeSharedMemorySize", "maxPushConstantsSize",
          "maxStorageBufferRange", "maxUniformBufferRange", "maxTexelBufferElements",
          "maxMemoryAllocationSize", "maxComputeWorkGroupCount", "maxComputeWorkGroupSize"]
FORMAT_BITS = ["VK_FORMAT_FEATURE_UNIFORM_TEXEL_BUFFER_BIT", "VK_FORMAT_FEATURE_STORAGE_TEXEL_BUFFER_BIT",
               "VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT", "VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT",
               "VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT"]
source = open("src/caps/features.rs").read()
FEATURES = set(re.findall(r'"([a-z][A-Za-z0-9]+)"', source))

report, name, label = sys.argv[1], sys.argv[2], sys.argv[3]
doc = json.load(open(report))
out = {"properties": {}, "features": {}, "formats": {}, "queueFamiliesProperties": []}
for block in doc["capabilities"].values():
    for struct, props in block.get("properties", {}).items():
        limits = props.get("limits", props)
        kept = {k: limits[k] for k in LIMITS if k in limits}
        if "supportedOperations" in props:
            kept["supportedOperations"] = props["supportedOperations"]
            kept["subgroupSize"] = props.get("subgroupSize")
        if kept:
            target = out["properties"].setdefault(struct, {})
            (target.setdefault("limits", {}) if "limits" in props else target).update(kept)
    for struct, members in block.get("features", {}).items():
        kept = {k: True for k, v in members.items() if v is True and k in FEATURES}
        if kept:
            out["features"].setdefault(struct, {}).update(kept)
    for fmt, props in block.get("formats", {}).items():
        p = props.get("VkFormatProperties") or props.get("VkFormatProperties2") or {}
        kept = {k: [b for b in p.get(k, []) if b in FORMAT_BITS] for k in ("bufferFeatures", "optimalTilingFeatures")}
        if any(kept.values()):
            out["formats"][fmt] = {"VkFormatProperties": kept}
    for family in block.get("queueFamiliesProperties", []):
        q = family.get("VkQueueFamilyProperties", {})
        out["queueFamiliesProperties"].append(
            {"VkQueueFamilyProperties": {"queueFlags": q.get("queueFlags", []), "timestampValidBits": q.get("timestampValidBits", 0)}})
fixture = {
    "$comment": f"perftest --simulate fixture: the values perftest reads, from {report.split('/')[-1]} (tools/profile-fixture.py)",
    "profiles": {name: {"label": label, "capabilities": ["device"]}},
    "capabilities": {"device": out},
}
print(json.dumps(fixture, indent=1, sort_keys=True))
