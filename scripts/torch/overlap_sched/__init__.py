"""overlap-sched from Python.

    import overlap_sched
    overlap_sched.binary()                      # the CLI's path
    overlap_sched.run(["schedule", "g.json", "-o", "out.json"])

With PyTorch installed (pip install overlap-sched[torch]), the bridge is here
too, imported on first use so that this package never needs torch:

    p = overlap_sched.OverlapSchedPass(args=["--max-in-flight-gb", "2"])
    compiled = torch.compile(step, options=p.inductor_options())

See overlap_sched.torch_bridge for export_graph, apply_schedule and pin_order.
"""

from ._binary import BinaryNotFound, RunError, binary, run

__version__ = "0.1.0"

_BRIDGE = ("ExportError", "OverlapSchedPass", "apply_schedule", "export_graph", "pin_order",
           "read_schedule", "schedule_with_tool", "written_sequence")

__all__ = ["BinaryNotFound", "RunError", "binary", "run", *_BRIDGE]


def __getattr__(name):
    if name in _BRIDGE:
        from . import torch_bridge

        return getattr(torch_bridge, name)
    raise AttributeError(f"module 'overlap_sched' has no attribute {name!r}")
