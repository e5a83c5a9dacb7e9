#!/usr/bin/env python3
"""The op registry (lib/ops/op_registry.cpp) against the pinned PyTorch:
every op torch.utils.flop_counter counts is a Compute row, every Compute row
is one it counts or one of the few the tool prices by their plain form,
every row with a FLOP formula is a Compute row, no packet has two rows, and
every packet names an op PyTorch has.

usage: check_op_registry.py"""

import os
import re
import sys

import osched_testing as ot

import torch
import torch._inductor.inductor_prims  # noqa: F401  (registers prims.fma)
from torch.utils.flop_counter import flop_registry

# Compute rows flop_counter does not count: priced by their plain form.
OWN_FORMULAS = {
    "aten._grouped_mm",
    "aten._scaled_grouped_mm",
    "aten._scaled_dot_product_fused_attention_overrideable",
    "aten._scaled_dot_product_fused_attention_overrideable_backward",
    "aten.cudnn_convolution_transpose",
}
# Packets that are FX's, not torch.ops'.
NOT_TORCH_OPS = {"getitem", "operator.getitem", "_operator.getitem"}


def packet_name(op):
    """flop_registry's key as the registry spells packets."""
    if isinstance(op, torch._ops.OpOverloadPacket):
        return op._qualified_op_name.replace("::", ".")
    return "higher_order." + op.name()


def torch_has(packet):
    ns, _, name = packet.partition(".")
    if ns == "higher_order":
        return hasattr(torch.ops.higher_order, name)
    return hasattr(getattr(torch.ops, ns), name)


def main():
    with open(os.path.join(ot.ROOT, "lib", "ops", "op_registry.cpp")) as f:
        src = f.read()
    rows = re.findall(r'\{"([^"]+)",\s*C::(\w+),\s*F::(\w+),\s*S::(\w+)\}', src)
    bad = []
    seen = set()
    for packet, cls, flops, _ in rows:
        if packet in seen:
            bad.append(f"{packet}: two rows")
        seen.add(packet)
        if (cls == "Compute") != (flops != "None"):
            bad.append(f"{packet}: class {cls} with FLOP formula {flops}")
        if packet not in NOT_TORCH_OPS and not torch_has(packet):
            bad.append(f"{packet}: PyTorch {torch.__version__} has no such op")
    compute = {p for p, c, _, _ in rows if c == "Compute"}
    counted = {packet_name(op) for op in flop_registry}
    for p in sorted(counted - compute):
        bad.append(f"{p}: flop_counter counts it, the registry has no Compute row")
    for p in sorted(compute - counted - OWN_FORMULAS):
        bad.append(f"{p}: a Compute row flop_counter does not count")
    for line in bad:
        print(line)
    print(f"{len(rows)} rows, {len(compute)} compute, {len(counted)} ops flop_counter counts, "
          f"{len(bad)} problem(s)")
    return 1 if bad or len(rows) < 100 else 0


if __name__ == "__main__":
    sys.exit(main())
