"""results/health-log/burn.py: keeps the GPU busy for 150 s (8192x8192 fp32 matmuls in a loop), the
other process of run.sh's `shared` check: BURN="python3 burn.py"."""
import time

import torch

a = torch.randn(8192, 8192, device="cuda")
end = time.time() + 150
while time.time() < end:
    a = (a @ a).clamp_(-1, 1)
    torch.cuda.synchronize()
