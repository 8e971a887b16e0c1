#!/usr/bin/env python3
"""repro.py BIN: issue 47's probes (hostile use, round 4), one line each, against one binary.

Run it once with the binary before the fixes and once after, on this project's machine with
lavapipe (and SwiftShader from tools/swiftshader-env.sh's cache for the two-device probes):

    python3 results/hostile-4/repro.py /path/to/perftest > after.txt

Each line is the probe, the exit code (124: still running when the probe gave up), the wall time,
the child's peak memory where it matters, and what was written. Every probe works in a scratch
folder of its own and removes it; none needs a GPU.
"""
import json
import os
import pathlib
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
RUN = ROOT / "results/instructions/h200-instr-vulkan.json"
LAVAPIPE = ROOT / "tools/lavapipe-env.sh"
SWIFTSHADER = ROOT / "tools/swiftshader-env.sh"


def env_of(script):
    """The environment after sourcing one of tools/*-env.sh."""
    out = subprocess.run(["bash", "-c", f"source {script} >/dev/null 2>&1 && env -0"], capture_output=True)
    return dict(kv.split("=", 1) for kv in out.stdout.decode().split("\0") if "=" in kv)


def two_devices():
    """lavapipe and SwiftShader, both loaded (as ci/main-job.sh's two-devices job)."""
    env = env_of(SWIFTSHADER)
    lavapipe = env_of(LAVAPIPE).get("VK_DRIVER_FILES", "")
    env["VK_DRIVER_FILES"] = env["VK_ICD_FILENAMES"] = f"{lavapipe}:{env.get('VK_DRIVER_FILES', '')}"
    return env


def run(bin_, args, env=None, timeout=30, signals=()):
    """Exit code, wall seconds, peak memory (MiB, GNU time's), stdout and stderr. Signals go to
    the process group, as a terminal's Ctrl-C does."""
    start = time.monotonic()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        command = ["/usr/bin/time", "-f", "MAXRSS %M", bin_, *args]
        proc = subprocess.Popen(command, env=env, stdout=out, stderr=err, start_new_session=True)
        for delay in signals:
            time.sleep(delay)
            os.killpg(proc.pid, signal.SIGINT)
        try:
            proc.wait(timeout=timeout)
            code = proc.returncode
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            code = 124
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(errors="replace"), err.read().decode(errors="replace")
    lines = stderr.rstrip("\n").split("\n")
    mib = None
    if lines and lines[-1].startswith("MAXRSS "):
        mib = int(lines.pop().split()[1]) / 1024
    stderr = "\n".join(line for line in lines if not line.startswith("Command exited with non-zero"))
    if code != 124 and stderr.rstrip().endswith("Command terminated by signal 2"):
        code = 130
    return code, time.monotonic() - start, mib, stdout, stderr


def first_line(text):
    return next((line for line in text.splitlines() if line.strip()), "")[:150]


def say(item, probe, code, wall, mib, what):
    memory = f"{mib:.0f} MiB" if mib else "-"
    print(f"{item} | {probe} | exit {code} | {wall:.1f} s | {memory} | {what}")


def edited(path, edit):
    run_ = json.loads(RUN.read_text())
    edit(run_)
    path.write_text(json.dumps(run_))


def timed(run_):
    return next(c for c in run_["cases"] if c["status"] == "ok")


def fleet_folder(scratch, plant):
    """Three H200 runs of one model with their own UUIDs; `plant` edits the third."""
    folder = scratch / "screen"
    folder.mkdir()
    for n in range(3):
        def edit(r, n=n):
            r["device"]["uuid"] = f"{n:032x}"
            if n == 2:
                plant(r)
        edited(folder / f"gpu{n}.json", edit)
    return folder


def slow(r):
    """Every timed case at half its rate: a GPU slower than its fleet."""
    for case in r["cases"]:
        if case["status"] == "ok":
            case["rate"]["value"] *= 0.5


def item1(bin_, scratch):
    folder = fleet_folder(scratch, slow)
    for path in folder.iterdir():
        edited(path, lambda r, name=path.name: (
            r["device"].update(uuid=name), slow(r) if name == "gpu2.json" else None,
            timed(r)["rate"].update(unit="<img src=x onerror=alert(1)>")))
    code, wall, mib, out, err = run(bin_, ["fleet", str(folder), "--format", "markdown"])
    say(1, "fleet --format markdown, a unit that is markup", code, wall, mib,
        f"raw <img in the verdict: {'<img' in out}; {first_line(err)}")


def item2(bin_, scratch):
    folder = fleet_folder(scratch, lambda r: (slow(r), r.update(host="h" * 2_000_000)))
    for r in folder.iterdir():
        if r.name != "gpu2.json":
            edited(r, lambda x, name=r.name: (x["device"].update(uuid=name), x.update(host="h" * 2_000_000)))
    out_file = scratch / "verdict.txt"
    code, wall, mib, out, err = run(bin_, ["fleet", str(folder), "--output", str(out_file)], timeout=120)
    size = out_file.stat().st_size if out_file.exists() else 0
    say(2, "fleet --output, hosts of 2,000,000 characters", code, wall, mib,
        f"wrote {size / 2**20:.1f} MiB; {first_line(err)}")


def item3(bin_, scratch):
    big = scratch / "big.json"

    def bloat(r):
        for case in r["cases"]:
            if case["status"] == "ok":
                case["samples_ms"] = [case["median_ms"]] * 20_000
    edited(big, bloat)
    folder = scratch / "links"
    folder.mkdir()
    for n in range(3):
        (folder / f"link{n}.json").symlink_to(big)
    code, wall, mib, out, err = run(bin_, ["fleet", str(folder)], timeout=120)
    say(3, f"fleet over 3 links to one {big.stat().st_size / 2**20:.0f} MiB run", code, wall, mib,
        first_line(err) or first_line(out))


def item4(bin_, scratch):
    src = scratch / "run.json"
    edited(src, lambda r: None)
    sticky = pathlib.Path(tempfile.mkdtemp(prefix="hostile4-sticky-"))
    os.chmod(sticky, 0o1777)
    theirs = sticky / "x.json"
    os.mkfifo(theirs, 0o666)
    nobody = pwd.getpwnam("nobody")
    os.chown(theirs, nobody.pw_uid, nobody.pw_gid)
    code, wall, mib, out, err = run(bin_, ["show", str(src), "--output", str(theirs)], timeout=10)
    say(4, "show --output another user's FIFO in a sticky folder", code, wall, mib, first_line(err))
    mine = scratch / "mine.fifo"
    os.mkfifo(mine, 0o600)
    code, wall, mib, out, err = run(bin_, ["show", str(src), "--output", str(mine)], timeout=10)
    say(4, "show --output one's own FIFO that nobody reads", code, wall, mib, first_line(err))
    shutil.rmtree(sticky)


def item5(bin_, scratch):
    doc = scratch / "stopped.json"
    for env, label in ((env_of(LAVAPIPE), "one device"), (two_devices(), "--all-devices")):
        args = ["--json", str(doc)] + (["--all-devices"] if label == "--all-devices" else [])
        code, wall, mib, out, err = run(bin_, args, env=env, timeout=60, signals=(0.3, 0.3))
        written = sorted(p.name for p in scratch.glob("stopped*.json"))
        say(5, f"two Ctrl-Cs in the first 0.6 s, {label}", code, wall, mib,
            f"written: {written or 'nothing'}; {first_line(err)}")
        for p in scratch.glob("stopped*.json"):
            p.unlink()


def item6(bin_, scratch):
    folder = scratch / "outdir"
    folder.mkdir()
    env = two_devices()
    quick = ["--all-devices", "--filter", "ALU int32", "--target-ms", "1", "--samples", "3"]
    for label, args in (
        ("--json /dev/null", ["--json", "/dev/null"]),
        ("--output /dev/stdout", ["--output", "/dev/stdout", "--format", "json"]),
        ("--output DIR/", ["--output", f"{folder}/", "--format", "json"]),
    ):
        made = set(os.listdir("/dev")) | set(os.listdir(scratch))
        code, wall, mib, out, err = run(bin_, quick + args, env=env, timeout=120)
        new = sorted((set(os.listdir("/dev")) | set(os.listdir(scratch))) - made)
        inside = sorted(os.listdir(folder))
        say(6, f"--all-devices {label}", code, wall, mib,
            f"new files beside: {new or 'none'}; in DIR: {inside or 'none'}; {first_line(err)}")
        for name in new:
            for base in ("/dev", scratch):
                path = pathlib.Path(base) / name
                if path.is_file():
                    path.unlink()


def item7(bin_, scratch):
    profile = json.loads((ROOT / "tests/profiles/vulkan-minimum.json").read_text())
    text = json.dumps(profile)
    hacked = scratch / "profile.json"
    hacked.write_text(text.replace('"timestampValidBits": 36', '"timestampValidBits": 16'))
    code, wall, mib, out, err = run(
        bin_, ["--simulate", str(hacked), "--filter", "ALU int32", "--samples", "3"],
        env=env_of(LAVAPIPE), timeout=90)
    say(7, "--simulate with timestampValidBits 16", code, wall, mib, first_line(err))


def item8(bin_, scratch):
    edits = (
        ("a peak of -256 per clock", lambda r: r["facts"]["peaks"][0].update(per_clock=-256.0)),
        ("a throttled flag at -1e308 MHz",
         lambda r: timed(r).update(flags=[{"throttled": {"mhz": -1e308, "median_mhz": 1980.0}}])),
        ("a case peak of -51.2 GB/s",
         lambda r: timed(r).update(peak={"ceiling": "L1", "value": -51.2, "unit": "GB/s"})),
    )
    src = scratch / "numbers.json"
    for what, edit in edits:
        edited(src, edit)
        code, wall, mib, out, err = run(bin_, ["show", str(src), "--verbose"])
        say(8, f"show a run with {what}", code, wall, mib, first_line(err) or "shown")
    formula = scratch / "formula.json"
    edited(formula, lambda r: timed(r).update(name="=HYPERLINK(\"http://x\",\"y\")"))
    code, wall, mib, out, err = run(bin_, ["show", str(formula), "--format", "csv"])
    line = next((line for line in out.splitlines() if "HYPERLINK" in line), "")
    cell = line[line.index("HYPERLINK") - 3:line.index("HYPERLINK") + 9] if line else "none"
    say(8, "show --format csv of a case named =HYPERLINK(...)", code, wall, mib, f"the cell starts: {cell}")


def main(bin_):
    print(f"# {bin_}: {subprocess.run([bin_, '--version'], capture_output=True, text=True).stdout.strip()}")
    print("item | probe | exit | wall | peak memory | what was written or said")
    for item in (item1, item2, item3, item4, item5, item6, item7, item8):
        scratch = pathlib.Path(tempfile.mkdtemp(prefix="hostile4-"))
        try:
            item(bin_, scratch)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(os.path.abspath(sys.argv[1]))
