#!/usr/bin/env bash
# results/verdicts/host4.sh: what the device tool ran on a host of four GPUs for the verdicts
# study. PART=healthy: `--devices`, then a full default screen of every GPU at once and
# `perftest fleet --confirm` of it. PART=shared: the same host with a PyTorch process running
# matmuls on its third GPU: how long `--devices` takes, a `--quick` screen of every GPU at once,
# and `perftest fleet` of it. After tools/h100-prepare.sh here.
# Usage (on the device machine, from the repository root): PART=healthy bash results/verdicts/host4.sh
set -uo pipefail
source tools/device-env.sh
o=$out/$PART
mkdir -p "$o"
nvidia-smi --query-gpu=index,name,uuid,pci.bus_id,driver_version --format=csv > "$o/smi.txt"
stamp() { date +%s.%N; }
took() { python3 -c "print(f'{$(stamp) - $1:.1f}')"; }
if [ "$PART" = healthy ]; then
    t=$(stamp); .bin/perftest --devices > "$o/devices.txt" 2>&1; echo "wall $(took "$t") s" >> "$o/devices.txt"
    t=$(stamp); .bin/perftest --all-devices --json "$o/full.json" > "$o/full.txt" 2>&1
    echo "rc=$? wall $(took "$t") s" >> "$o/full.txt"
    t=$(stamp); .bin/perftest fleet "$o"/full-gpu*.json --confirm --output "$o/fleet.txt" 2> "$o/fleet-stderr.txt"
    echo "rc=$? wall $(took "$t") s" >> "$o/fleet-stderr.txt"
    .bin/perftest fleet "$o"/full-gpu*.json --format json --output "$o/fleet.json" 2>> "$o/fleet-stderr.txt"
else
    uuid=$(nvidia-smi --query-gpu=uuid --format=csv,noheader | sed -n 3p)
    CUDA_VISIBLE_DEVICES=$uuid python3 -c '
import time, torch
a = torch.randn(8192, 8192, device="cuda", dtype=torch.float16)
b = torch.randn(8192, 8192, device="cuda", dtype=torch.float16)
end = time.time() + 420
while time.time() < end:
    c = a @ b
    torch.cuda.synchronize()
' > "$o/pytorch.txt" 2>&1 &
    torch=$!
    sleep 15
    nvidia-smi > "$o/smi-busy.txt"
    t=$(stamp); .bin/perftest --devices > "$o/devices.txt" 2>&1; echo "wall $(took "$t") s" >> "$o/devices.txt"
    t=$(stamp); .bin/perftest --all-devices --quick --json "$o/quick.json" > "$o/quick.txt" 2>&1
    echo "rc=$? wall $(took "$t") s" >> "$o/quick.txt"
    .bin/perftest fleet "$o"/quick-gpu*.json --output "$o/fleet.txt" 2> "$o/fleet-stderr.txt"
    echo "rc=$?" >> "$o/fleet-stderr.txt"
    kill "$torch"
fi
(cd "$out" && tar czf "$PART.tgz" "$PART" && rm -r "$PART")
