#!/usr/bin/env python3
"""repro.py BIN: issue 58's probes (hostile use, round 5: the health check fails closed), one
line each, against one binary, on lavapipe with a fake `scontrol` that logs its argv.

    python3 results/hostile-5/repro.py /path/to/perftest > after.txt

Each line is the item, the probe, the exit code (124: still running when the probe gave up; the
process group is then killed), the wall time, and what was drained, written or left behind. A
reference is made once, with BIN, from three short runs of two ALU cases on lavapipe; the probes
that need a verdict scale it (x10: no GPU meets it; x0.1: any does). Every probe works in a
scratch folder of its own; none needs a GPU.
"""
import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
H200 = ROOT / "results/instructions/h200-instr-vulkan.json"
BIN = os.path.abspath(sys.argv[1])
SCRATCH = pathlib.Path(tempfile.mkdtemp(prefix="hostile5-"))
FAKE = SCRATCH / "bin"
LOG = SCRATCH / "scontrol.log"


def lavapipe():
    """The environment after sourcing tools/lavapipe-env.sh, with the fake scontrol first on PATH."""
    out = subprocess.run(["bash", "-c", f"source {ROOT}/tools/lavapipe-env.sh >/dev/null 2>&1 && env -0"],
                         capture_output=True)
    env = dict(kv.split("=", 1) for kv in out.stdout.decode().split("\0") if "=" in kv)
    env["PATH"] = f"{FAKE}:{env['PATH']}"
    env.pop("SLURMD_NODENAME", None)
    return env


def drains():
    """The fake scontrol's calls since the last look, then forgets them."""
    calls = LOG.read_text().splitlines() if LOG.exists() else []
    LOG.unlink(missing_ok=True)
    return calls


def run(args, env=None, timeout=120, stdout_closed=False):
    """Exit code, wall seconds, stdout, stderr."""
    env = env or lavapipe()
    start = time.monotonic()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen([BIN, *args], env=env, stdout=subprocess.PIPE if stdout_closed else out,
                                stderr=err, start_new_session=True)
        if stdout_closed:
            proc.stdout.close()
        try:
            proc.wait(timeout=timeout)
            code = proc.returncode
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            code = 124
        out.seek(0)
        err.seek(0)
        return code, time.monotonic() - start, out.read().decode(errors="replace"), err.read().decode(errors="replace")


def first(text, n=150):
    line = next((l for l in text.splitlines() if l.strip()), "")
    return line[:n]


def say(item, probe, code, seconds, what):
    print(f"{item} | {probe} | exit {code} | {seconds:.1f} s | {what}")
    sys.stdout.flush()


def make_reference():
    runs = SCRATCH / "runs"
    runs.mkdir()
    for n in range(3):
        code, _, _, err = run(["--case", "ALU fp32 FMA", "--case", "ALU int32 multiply-add", "--target-ms", "1",
                               "--samples", "3", "--json", str(runs / f"run{n}.json")])
        assert code == 0, err
    code, _, _, err = run(["fleet", str(runs), "--write-reference", str(SCRATCH / "made.json")])
    assert code == 0, err
    return json.loads((SCRATCH / "made.json").read_text())


def reference(made, name, scale, edit=None):
    value = json.loads(json.dumps(made))
    for model in value["models"]:
        for case in model["cases"]:
            case["median"] *= scale
            case["spread"] *= scale
    if edit:
        edit(value)
    path = SCRATCH / name
    path.write_text(json.dumps(value))
    return path


def h200_fleet(folder, slow=0.0, edit=None):
    """The committed H200 instruction run as eight GPUs of node07 (as tests/common's)."""
    folder.mkdir(parents=True, exist_ok=True)
    run_ = json.loads(H200.read_text())
    for gpu in range(8):
        r = json.loads(json.dumps(run_))
        r["host"] = "node07"
        r["device"]["pci"] = f"0000:{0x1b + gpu:02x}:00.0"
        r["device"]["uuid"] = f"{gpu:08x}-0000-0000-0000-000000000000"
        for i, case in enumerate(r["cases"]):
            jitter = 1.0 + ((gpu * 7919 + i * 104729) % 41) / 40.0 * 0.004 - 0.002
            if case.get("rate"):
                case["rate"]["value"] *= jitter * ((1.0 - slow) if gpu == 5 else 1.0)
        if edit:
            edit(gpu, r)
        (folder / f"node07-gpu{gpu}.json").write_text(json.dumps(r))


def children(pid):
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = pathlib.Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(") ", 1)[1].split()[1]) == pid:
                found.append(int(entry))
    return found


def alive(pid):
    try:
        stat = pathlib.Path(f"/proc/{pid}/stat").read_text()
        return stat.rsplit(") ", 1)[1][0] != "Z"
    except OSError:
        return False


def signal_probe(made, target):
    """SIGTERM to `health` or to its perftest while it measures: exit, what is left, drains."""
    def longer(r):
        for m in r["models"]:
            m["settings"].update(samples=200, target_ms=20.0)
            rest = m["key"]["settings"].split(" samples", 1)[1]
            m["key"]["settings"] = "20 ms per measurement, 200 samples" + rest
    slow = reference(made, f"slow-{target}.json", 0.1, longer)
    tmp = SCRATCH / f"tmp-{target}"
    tmp.mkdir()
    env = lavapipe()
    env.update(TMPDIR=str(tmp), SLURMD_NODENAME="citest")
    start = time.monotonic()
    proc = subprocess.Popen([BIN, "health", "--reference", str(slow), "--drain"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    perftest = worker = None
    while time.monotonic() - start < 60 and worker is None:
        kids = children(proc.pid)
        if kids:
            perftest = kids[0]
            workers = children(perftest)
            worker = workers[0] if workers else None
        time.sleep(0.05)
    os.kill(proc.pid if target == "health" else perftest, signal.SIGTERM)
    try:
        proc.wait(timeout=60)
        code = proc.returncode
    except subprocess.TimeoutExpired:
        code = 124
    time.sleep(1)
    left = [p for p in (perftest, worker) if p and alive(p)]
    ps = subprocess.run(["ps", "-o", "pid,ppid,args", "-p", ",".join(str(p) for p in (perftest, worker) if p)],
                        capture_output=True, text=True).stdout.strip().splitlines()
    temporary = [str(p.relative_to(tmp)) for p in tmp.rglob("*")]
    stderr = proc.stderr.read().decode(errors="replace").strip().splitlines()
    for p in left:
        os.kill(p, signal.SIGKILL)
    say(4, f"SIGTERM to {target} mid-check", code, time.monotonic() - start,
        f"left running: {len(left)} ({'; '.join(ps[1:]) or 'ps: none'}); temporary folder: "
        f"{len(temporary)} entries; drained: {drains()}; last words: {stderr[-1][:120] if stderr else ''}")


def main():
    FAKE.mkdir()
    (FAKE / "scontrol").write_text(f"#!/bin/sh\nprintf '%s|' \"$@\" >> '{LOG}'\necho >> '{LOG}'\n")
    (FAKE / "scontrol").chmod(0o755)
    made = make_reference()
    slurm = {"SLURMD_NODENAME": "citest"}

    # 2. A health check that cannot write its metrics; a closed stdout; fleet's verdict.
    unmeetable = reference(made, "unmeetable.json", 10.0)
    env = lavapipe() | slurm
    missing = SCRATCH / "no-such-folder/perftest.prom"
    code, t, out, err = run(["health", "--reference", str(unmeetable), "--drain", "--metrics", str(missing)], env)
    say(2, "health --drain --metrics MISSING/F (a reference no GPU meets)", code, t,
        f"stdout: {first(out, 60)!r}; drained: {drains()}")
    code, t, out, err = run(["health", "--reference", str(unmeetable), "--drain"], env, stdout_closed=True)
    say(2, "health --drain, stdout closed", code, t, f"drained: {drains()}")
    h200_fleet(SCRATCH / "slow", 0.05)
    code, t, out, err = run(["fleet", str(SCRATCH / "slow"), "--metrics", str(missing)])
    say(2, "fleet (a slow GPU) --metrics MISSING/F", code, t, f"verdict printed: {bool(out.strip())}")

    # 3. Lost devices and crashed workers.
    easy = reference(made, "easy.json", 0.1)
    for timeout in ("1",):
        env = lavapipe() | slurm | {"MESA_VK_MAX_TIMEOUT": timeout}
        code, t, out, err = run(["health", "--reference", str(easy), "--drain"], env)
        say(3, f"health --drain, MESA_VK_MAX_TIMEOUT={timeout} (device lost)", code, t,
            f"{first(out, 90)!r}; drained: {[d[:90] for d in drains()]}")
        code, t, out, err = run(["health", "--reference", str(easy), "--npd"], env)
        say(3, f"health --npd, MESA_VK_MAX_TIMEOUT={timeout}", code, t, f"{first(out, 60)!r}")

    def lost(gpu, r):
        if gpu == 3:
            for case in r["cases"][:2]:
                case["status"] = "device_lost"
                for field in ("rate", "median_ms", "samples_ms", "rates"):
                    case.pop(field, None)
    h200_fleet(SCRATCH / "lost", 0.0, lost)
    code, t, out, err = run(["fleet", str(SCRATCH / "lost")])
    say(3, "fleet, one GPU lost the device in 2 of 128 cases", code, t, first(out, 110))

    # 4. Signals.
    signal_probe(made, "health")
    signal_probe(made, "its perftest")

    # 5. Argument injection through a reference's model name and filter.
    planted = SCRATCH / "planted"
    named = reference(made, "named.json", 0.1, lambda r: r["models"][0]["key"].update(device=f"--output={planted}"))
    trace = SCRATCH / "trace"
    env = lavapipe()
    start = time.monotonic()
    proc = subprocess.run(["strace", "-f", "-qq", "-e", "trace=execve", "-e", "signal=none", "-s", "300", "-o",
                           str(trace), BIN, "health", "--reference", str(named)], env=env, capture_output=True)
    child = [l.split("execve(", 1)[1] for l in trace.read_text().splitlines()
             if "execve(" in l and "health" not in l and "--worker" not in l and "= -1" not in l][:1]
    say(5, "health, a reference whose model is named --output=PLANTED", proc.returncode, time.monotonic() - start,
        f"written at the planted path: {sorted(p.name for p in SCRATCH.glob('planted*'))}; the child's argv: "
        f"{child[0][:400] if child else 'none'}")

    # 6. The environment's options.
    env = lavapipe() | {"PERFTEST_FORMAT": "json", "PERFTEST_FILTER": "no such case"}
    code, t, out, err = run(["health", "--reference", str(easy)], env)
    say(6, "health with PERFTEST_FORMAT=json PERFTEST_FILTER=... set", code, t, first(out, 80) or first(err, 80))

    # 7. An output over an input.
    reference(made, "own.json", 0.1)
    own = SCRATCH / "own.json"
    before = own.read_bytes()
    code, t, out, err = run(["health", "--reference", str(own), "--metrics", str(own)], timeout=60)
    after = own.read_bytes() == before
    code2, _, _, _ = run(["health", "--reference", str(own)])
    say(7, "health --reference R --metrics R", code, t, f"R unchanged: {after}; the next check exits {code2}")

    # 8. Odd folder entries.
    h200_fleet(SCRATCH / "history", 0.0)
    odd = SCRATCH / "history/odd"
    odd.mkdir()
    os.mkfifo(odd / "fifo.json")
    code, t, out, err = run(["history", str(SCRATCH / "history")], timeout=10)
    say(8, "history DIR with a FIFO named *.json", code, t, first(err, 100))
    os.unlink(odd / "fifo.json")
    os.symlink(SCRATCH / "gone.json", odd / "dangling.json")
    code, t, out, err = run(["history", str(SCRATCH / "history")], timeout=10)
    say(8, "history DIR with a dangling *.json link", code, t, first(err, 100))
    os.unlink(odd / "dangling.json")
    os.symlink(SCRATCH / "history", odd / "folder.json")
    code, t, out, err = run(["history", str(SCRATCH / "history")], timeout=10)
    say(8, "history DIR with a *.json link to a folder", code, t, first(err, 100))
    shutil.rmtree(odd)

    # 9. Host names.
    code, t, out, err = run(["show", str(H200)], lavapipe() | {"PERFTEST_HOST_NAME": ""})
    say(9, "PERFTEST_HOST_NAME= (empty), show RUN", code, t, first(err, 100))
    into = SCRATCH / "into"
    into.mkdir()
    code, t, out, err = run(["--all-devices", "--case", "ALU fp32 FMA", "--target-ms", "1", "--samples", "3",
                             "--json", f"{into}/"], lavapipe() | {"PERFTEST_HOST_NAME": "../outside"})
    outside = sorted(p.name for p in SCRATCH.glob("outside*"))
    say(9, "PERFTEST_HOST_NAME=../outside, --all-devices --json DIR/", code, t,
        f"written outside DIR: {outside}; {first(err, 90)!r}")
    # A verdict that drains on lavapipe whatever the load: the reference's one case is one
    # lavapipe skips (no cooperative matrices), so nothing is timed.
    def skipped(r):
        model = r["models"][0]
        model["settings"]["cases"] = ["CoopMat f16*f16+f16 16x16x16 subgroup"]
        key = model["key"]["settings"].split(", --case", 1)[0]
        model["key"]["settings"] = key + ", --case CoopMat f16*f16+f16 16x16x16 subgroup"
    untimed = reference(made, "untimed.json", 1.0, skipped)
    env = lavapipe() | {"PERFTEST_HOST_NAME": "node[01-99],login1"}
    code, t, out, err = run(["health", "--reference", str(untimed), "--drain"], env)
    say(9, "health --drain, no SLURMD_NODENAME, PERFTEST_HOST_NAME=node[01-99],login1", code, t,
        f"drained: {drains()}; {first(err, 90)!r}")

    # 10. Unbounded and followed.
    code, t, out, err = run(["health", "--reference", "/dev/zero"], timeout=10)
    say(10, "health --reference /dev/zero", code, t, first(err, 100))
    shared = SCRATCH / "sticky"
    shared.mkdir()
    shared.chmod(0o1777)
    victim = SCRATCH / "victim"
    victim.mkdir()
    os.symlink(victim, shared / "keep")
    os.lchown(shared / "keep", 65534, -1)
    code, t, out, err = run(["health", "--reference", str(easy), "--keep", str(shared / "keep")])
    say(10, "health --keep STICKY/LINK (user 65534's link)", code, t,
        f"made through the link: {len(list(victim.iterdir()))}; {first(err, 80)!r}")

    # 11. Weak points.
    twice = reference(made, "twice.json", 1.0, lambda r: r["models"].append(r["models"][0]))
    code, t, out, err = run(["health", "--reference", str(twice)])
    say(11, "a reference with one model twice", code, t, first(out, 60) or first(err, 90))
    h200_fleet(SCRATCH / "dates", 0.0, lambda gpu, r: r.update(date="yesterday") if gpu == 4 else None)
    code, t, out, err = run(["history", str(SCRATCH / "dates")])
    say(11, "history, one run dated 'yesterday'", code, t, first(err, 100) or first(out, 60))

    def two_groups(gpu, r):
        r["device"]["uuid"] = f"{gpu % 4:08x}-0000-0000-0000-000000000000"
        r["device"]["pci"] = f"0000:{0x1b + gpu % 4:02x}:00.0"
        if gpu >= 4:
            r["settings"]["samples"] = 20
    h200_fleet(SCRATCH / "groups", 0.05, two_groups)
    prom = SCRATCH / "groups.prom"
    code, t, out, err = run(["fleet", str(SCRATCH / "groups"), "--metrics", str(prom)])
    slow = [l for l in prom.read_text().splitlines() if l.startswith("perftest_gpu_slow_cases{UUID=\"GPU-00000001")]
    say(11, "metrics of a GPU slow in one of its two groups", code, t, f"{slow}")
    esc = SCRATCH / "esc.json"
    value = json.loads(H200.read_text())
    value["device"]["name"] = "NVIDIA H200\x1b]0;owned\x07"
    esc.write_text(json.dumps(value))
    code, t, out, err = run(["report", str(esc), "--output", str(SCRATCH / "page")])
    html = (SCRATCH / "page/index.html").read_text() if (SCRATCH / "page/index.html").exists() else ""
    say(11, "report of a run with ESC and BEL in its device name", code, t,
        f"raw ESC in index.html: {chr(27) in html}; raw BEL: {chr(7) in html}")
    for args in (["--list"], ["show", str(H200)]):
        code, t, out, err = run(args, stdout_closed=True)
        say(11, f"{' '.join(args[:1])} | head (the reader gone)", code, t, f"stderr: {first(err, 80)!r}")
    shutil.rmtree(SCRATCH)


main()
