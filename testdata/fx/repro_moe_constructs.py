# A minifier repro in the form of autoparallel's MoE repros (hand-written,
# small): an empty stub class before the real graph, unbacked sizes from
# _local_scalar_dense with runtime asserts, SymInt arithmetic and sym_sum,
# all_to_all_single with symbolic splits, a triton kernel wrapper with dict
# arguments and a getitem by name, flex_attention with submodule
# attributes, and get_pg_config().
import torch
from torch import tensor, device

class Stub(torch.nn.Module):
    def forward(self, x):
        return (x,)

class Repro(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.sdpa_score0 = lambda score, b, h, m, n, *args: score

    def forward(self, primals_1, primals_2, primals_3, primals_4):
        sym_size_int = torch.ops.aten.sym_size.int(primals_1, 0)
        select = torch.ops.aten.select.int(primals_2, 0, 0)
        _local_scalar_dense = torch.ops.aten._local_scalar_dense.default(select);  select = None
        ge = _local_scalar_dense >= 0
        _assert_scalar = torch.ops.aten._assert_scalar.default(ge, "Runtime assertion failed for expression u0 >= 0 on node 'ge'");  ge = _assert_scalar = None
        inv = ~primals_3
        sym_sum = torch.sym_sum((_local_scalar_dense, sym_size_int, 1))
        add_1 = sym_sum + 7
        floordiv = add_1 // 8;  add_1 = None
        mul_1 = floordiv * 8
        a2a = torch.ops._c10d_functional.all_to_all_single.default(primals_1, [_local_scalar_dense, 3], [2, 2], '5')
        wait = torch.ops._c10d_functional.wait_tensor.default(a2a);  a2a = None
        full = torch.ops.aten.full.default([mul_1], -1, dtype = torch.int32, device = device(type='cuda', index=0), pin_memory = False)
        tkw = torch.ops.higher_order.triton_kernel_wrapper_functional(kernel_idx = 0, constant_args_idx = 0, grid = [(8, 1, 1)], tma_descriptor_metadata = {}, kwargs = {'in_ptr': primals_2, 'output_ptr': full}, tensors_to_clone = ['output_ptr'])
        getitem = tkw['output_ptr'];  tkw = None
        sdpa_score0 = self.sdpa_score0
        q = torch.ops.aten.permute.default(primals_4, [0, 2, 1, 3])
        flex_attention = torch.ops.higher_order.flex_attention(q, q, q, sdpa_score0, (16, 16, 128, 128, sdpa_score0), 0.125, {'BACKEND': 'AUTO', 'OUTPUT_LOGSUMEXP': True}, (), ());  sdpa_score0 = None
        getitem_1 = flex_attention[0]
        getitem_2 = flex_attention[1];  flex_attention = None
        return (wait, getitem, getitem_1, getitem_2, inv, sym_sum)

def load_args(reader):
    buf0 = reader.storage(None, 1600, device=device(type='cuda', index=0))
    reader.tensor(buf0, (10, 40), is_leaf=True)  # primals_1
    buf1 = reader.storage(None, 64, device=device(type='cuda', index=0), dtype_hint=torch.int64)
    reader.tensor(buf1, (8,), dtype=torch.int64, is_leaf=True)  # primals_2
    buf2 = reader.storage(None, 8, device=device(type='cuda', index=0))
    reader.tensor(buf2, (8,), dtype=torch.bool, is_leaf=True)  # primals_3
    buf3 = reader.storage(None, 16384, device=device(type='cuda', index=0))
    reader.tensor(buf3, (2, 16, 4, 64), dtype=torch.bfloat16, is_leaf=True)  # primals_4

def get_pg_config():
    return {'5': {'size': 2, 'rank': 0}, '9': {'size': 4, 'rank': 0}}
