#!/usr/bin/env python3
"""The wheel (scripts/build-wheel.sh), installed into fresh virtual
environments, not this checkout:

- without torch: `import overlap_sched` imports no torch, finds the installed
  binary and runs it; the bridge's names say torch is missing;
- the installed binary names no MPI, CUDA or NCCL library, never looks for
  one while it schedules (the dynamic loader's own log), writes the same
  bytes as the build's binary, and under an MPI launcher without its MPI
  plugin stops with exit 3 and one line;
- beside the project's pinned torch (.venv-torch's packages on the path): the
  bridge test (tests/test_torch_bridge.py) and the artifacts check run
  against the installed package and binary.

usage: check_wheel.py DIST TORCH_PYTHON BUILD_BINARY WORKDIR
Skips (exit 77) when DIST holds no wheel, unless OSCHED_REQUIRE_WHEEL=1."""

import glob
import os
import re
import shutil
import sys

import osched_testing as ot

ROOT = ot.ROOT
EXAMPLE = os.path.join(ROOT, "testdata", "example_llama_fsdp.json")
LAZY_LIBS = re.compile(r"lib(mpi|open-pal|open-rte|cudart|cublas|cuda|nccl)\b")


def sh(cmd, **kw):
    r = ot.run(*cmd, **kw)
    if r.returncode != 0:
        raise SystemExit(f"FAIL: {' '.join(map(str, cmd))}: exit {r.returncode}\n"
                         f"{r.stdout[-3000:]}{r.stderr[-3000:]}")
    return r


def make_venv(python, path, wheel):
    shutil.rmtree(path, ignore_errors=True)
    sh([python, "-m", "venv", path])
    sh([os.path.join(path, "bin", "pip"), "install", "-q", "--no-index", "--no-deps", wheel])
    return os.path.join(path, "bin")


def check_binary(bindir, build_binary, work):
    tool = os.path.join(bindir, "overlap-sched")
    needed = sh(["readelf", "-d", tool]).stdout
    names = re.findall(r"\(NEEDED\).*\[(.*)\]", needed)
    bad = [n for n in names if LAZY_LIBS.search(n)]
    assert not bad, f"the installed binary links {bad}"
    env = dict(os.environ, LD_DEBUG="libs")
    out = os.path.join(work, "installed.json")
    r = ot.run(tool, "schedule", EXAMPLE, "-o", out, "-q", env=env)
    assert r.returncode == 0, r.stderr[-2000:]
    looked = [ln for ln in r.stderr.splitlines() if "find library=" in ln and LAZY_LIBS.search(ln)]
    assert not looked, f"scheduling looked for {looked[:3]}"
    ref = os.path.join(work, "build.json")
    sh([build_binary, "schedule", EXAMPLE, "-o", ref, "-q"])
    with open(out, "rb") as a, open(ref, "rb") as b:
        assert a.read() == b.read(), "the installed binary's output differs from the build's"
    # Under a launcher, with the MPI plugin unreachable: exit 3, one line.
    env = dict(os.environ, OMPI_COMM_WORLD_SIZE="2",
               OSCHED_MPI_PLUGIN=os.path.join(work, "missing", "libosched_mpi.so"))
    r = ot.run(tool, "batch", os.path.join(ROOT, "testdata", "golden"), "-o",
               os.path.join(work, "batch_out"), env=env)
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 3 and len(lines) == 1 and "MPI" in lines[0], (r.returncode, r.stderr)
    return tool


def check_without_torch(bindir):
    code = (
        "import sys, overlap_sched as o\n"
        "assert 'torch' not in sys.modules\n"
        "assert o.binary().startswith(sys.prefix), o.binary()\n"
        "assert o.run(['--version']).stdout.strip() == 'overlap-sched ' + o.__version__\n"
        "try:\n"
        "    o.OverlapSchedPass\n"
        "except ModuleNotFoundError as e:\n"
        "    assert e.name == 'torch', e\n"
        "else:\n"
        "    raise AssertionError('the bridge imported without torch')\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "OSCHED_BINARY")}
    sh([os.path.join(bindir, "python"), "-c", code], cwd="/", env=env)


def torch_site_packages(torch_python):
    return sh([torch_python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]
              ).stdout.strip()


def check_with_torch(torch_python, wheel, work):
    venv = os.path.join(work, "with_torch")
    bindir = make_venv(torch_python, venv, wheel)
    site = sh([os.path.join(bindir, "python"), "-c",
               "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip()
    with open(os.path.join(site, "pinned_torch.pth"), "w") as f:
        f.write(torch_site_packages(torch_python) + "\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "OSCHED_BINARY")}
    env.update(OSCHED_TEST_INSTALLED="1",
               TORCHINDUCTOR_CACHE_DIR=os.path.join(work, "inductor_cache"))
    sh([os.path.join(bindir, "python"), os.path.join(ROOT, "tests", "test_torch_bridge.py")],
       cwd=work, env=env)
    sh([sys.executable, os.path.join(ROOT, "tests", "check_torch_artifacts.py"),
        os.path.join(bindir, "overlap-sched"), os.path.join(ROOT, "testdata", "fx", "torch2"),
        os.path.join(work, "artifacts")])


def main():
    dist, torch_python, work = sys.argv[1], sys.argv[2], sys.argv[4]
    build_binary = ot.binary(sys.argv[3])
    wheels = sorted(glob.glob(os.path.join(dist, "overlap_sched-*.whl")))
    if not wheels:
        if os.environ.get("OSCHED_REQUIRE_WHEEL") == "1":
            print(f"FAIL: no wheel in {dist}")
            return 1
        print(f"skipped: no wheel in {dist} (scripts/build-wheel.sh makes one)")
        return 77
    if len(wheels) > 1:
        print(f"FAIL: several wheels in {dist}: {wheels}")
        return 1
    os.makedirs(work, exist_ok=True)
    bare = make_venv(torch_python, os.path.join(work, "bare"), wheels[0])
    check_without_torch(bare)
    check_binary(bare, build_binary, work)
    check_with_torch(torch_python, wheels[0], work)
    print(f"wheel {os.path.basename(wheels[0])}: installed and checked with and without torch")
    return 0


if __name__ == "__main__":
    sys.exit(main())
