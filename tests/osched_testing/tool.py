"""Where the overlap-sched binary is, and running it."""

import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class RunFailed(RuntimeError):
    """A run that exited non-zero where success was expected."""


def binary(path=None):
    """The binary under test: `path` when given (a check's argument), else
    $OSCHED_BINARY (ctest sets it), else the checkout's build/overlap-sched.
    An absolute path; SystemExit with one line when it is not executable."""
    chosen = path or os.environ.get("OSCHED_BINARY") or os.path.join(ROOT, "build", "overlap-sched")
    chosen = os.path.abspath(chosen)
    if not os.access(chosen, os.X_OK):
        raise SystemExit(f"{chosen}: no overlap-sched binary there (scripts/build.sh builds it)")
    return chosen


def run(tool, *args, check=False, **kwargs):
    """`tool ARGS...` with text output captured; a CompletedProcess. With
    check, a non-zero exit raises RunFailed naming the command and its
    stderr's last line."""
    kwargs.setdefault("capture_output", True)
    kwargs.setdefault("text", True)
    cmd = [tool, *map(str, args)]
    r = subprocess.run(cmd, **kwargs)
    if check and r.returncode != 0:
        err = (r.stderr or "").strip().splitlines()
        raise RunFailed(f"{' '.join(cmd[1:3])}: exit {r.returncode}: {err[-1] if err else ''}")
    return r
