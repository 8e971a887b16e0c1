"""Seconds from start to the first byte a program writes to a terminal, and to its first result line."""
import os, pty, sys, time, select
def measure(argv):
    t0 = time.monotonic()
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(argv[0], argv)
    first = None; first_result = None; buf = b""
    while True:
        r, _, _ = select.select([fd], [], [], 60)
        if not r: break
        try: data = os.read(fd, 65536)
        except OSError: break
        if not data: break
        now = time.monotonic() - t0
        if first is None: first = now
        buf += data
        if first_result is None and b"loads/s" in buf: first_result = now
    os.waitpid(pid, 0)
    return first, first_result, time.monotonic() - t0
for binary in sys.argv[1:]:
    f, r, end = measure([binary, "--quick"])
    print(f"{binary}: first output {f:.2f} s, first result {r:.2f} s, end {end:.1f} s")
