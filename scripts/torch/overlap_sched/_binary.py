"""Finding and running the overlap-sched binary (no torch needed)."""

import os
import shutil
import subprocess

NAME = "overlap-sched"


class BinaryNotFound(FileNotFoundError):
    """No overlap-sched binary where this package looks for one."""


class RunError(RuntimeError):
    """overlap-sched exited non-zero; .returncode and .stderr say how."""

    def __init__(self, cmd, returncode, stderr):
        super().__init__(f"{' '.join(cmd)}: exit {returncode}: {stderr.strip()}")
        self.returncode = returncode
        self.stderr = stderr


def _installed():
    """The binary the wheel installed, from the distribution's file list (it
    sits in the environment's scripts folder, wherever the scheme puts it)."""
    try:
        from importlib import metadata

        dist = metadata.distribution(NAME)
    except Exception:
        return None
    for f in dist.files or ():
        if f.name == NAME and f.parent.name == "bin" or str(f).endswith("scripts/" + NAME):
            path = str(dist.locate_file(f))
            if os.access(path, os.X_OK):
                return os.path.realpath(path)
    return None


def _source_build():
    """build/overlap-sched of the checkout this package is imported from."""
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, "..", "..", "..", "build", NAME)
    return os.path.realpath(path) if os.access(path, os.X_OK) else None


def binary():
    """The overlap-sched binary's path: $OSCHED_BINARY, else the one installed
    with this package, else the checkout's build/, else the PATH's."""
    env = os.environ.get("OSCHED_BINARY")
    if env:
        if not os.access(env, os.X_OK):
            raise BinaryNotFound(f"OSCHED_BINARY={env}: not an executable file")
        return env
    for found in (_installed(), _source_build(), shutil.which(NAME)):
        if found:
            return found
    raise BinaryNotFound(f"no {NAME} binary: pip install overlap-sched, build it "
                         "(scripts/build.sh) or set OSCHED_BINARY")


def run(args, check=True, **kwargs):
    """Runs `overlap-sched ARGS...` and returns its subprocess.CompletedProcess
    (text output captured unless told otherwise); raises RunError on a
    non-zero exit when check is true."""
    cmd = [binary(), *map(str, args)]
    kwargs.setdefault("capture_output", True)
    kwargs.setdefault("text", True)
    r = subprocess.run(cmd, **kwargs)
    if check and r.returncode != 0:
        raise RunError(cmd, r.returncode, r.stderr or "")
    return r
