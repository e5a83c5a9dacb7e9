"""A PyTorch minifier repro (the autoparallel corpus's form) loaded on fake
tensors: its module, its inputs as its load_args describes them, and the
collective table it names.

    mod, inputs, table = load_repro(path)
    mod.Repro()(*inputs)   # under inputs[0].fake_mode

The repro's process groups are registered under their names in PyTorch's
fake process group (overlap_sched.example_models.init_fake_world), so its functional
collectives trace. With keep_values, the source is loaded without its
`; x = None` frees, so every intermediate stays bound in forward's locals.
"""

import os
import re
import types


def load_repro(path, keep_values=False):
    import torch
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.fx.experimental.symbolic_shapes import ShapeEnv

    from overlap_sched import example_models as tm

    with open(path) as f:
        src = f.read()
    if keep_values:
        src = re.sub(r";(\s+[A-Za-z_][A-Za-z_0-9]* = None)+", "", src)
    mod = types.ModuleType("repro")
    mod.__file__ = path
    exec(compile(src, path, "exec"), mod.__dict__)
    tm.init_fake_world({k: v["size"] for k, v in mod.get_pg_config().items()})
    mode = FakeTensorMode(shape_env=ShapeEnv(), allow_non_fake_inputs=True)

    class Reader:  # the repro's load_args protocol, building fake tensors
        def __init__(self):
            self.args = []

        def storage(self, _hash, _nbytes, device=None, dtype_hint=None):
            return device

        def tensor(self, device, shape, stride=None, storage_offset=0, dtype=torch.float32,
                   is_leaf=False, **_):
            if stride is None:
                stride, acc = [], 1
                for d in reversed(shape):
                    stride.insert(0, acc)
                    acc *= d
            with mode:
                t = torch.empty_strided(shape, stride, dtype=dtype, device=device)
            self.args.append(t)
            return t

        def symint(self, value, expr=None):
            # As PyTorch's InputReader: the size's hint, a plain int here
            # (the trace specializes on it, as the repro was recorded).
            self.args.append(value)
            return value

    reader = Reader()
    mod.load_args(reader)
    table = None
    if hasattr(mod, "get_colls_estimations_file"):
        table = os.path.join(os.path.dirname(path), mod.get_colls_estimations_file())
    return mod, reader.args, table if table and os.path.exists(table) else None
