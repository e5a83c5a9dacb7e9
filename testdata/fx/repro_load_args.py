# A minifier repro (after_aot): no annotations; shapes come from load_args and
# are propagated through the ops.
import torch
from torch import tensor, device
import torch.fx as fx
from torch._dynamo.testing import rand_strided
from math import inf
import torch._inductor.inductor_prims

from torch.nn import *
class Repro(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()

    def forward(self, primals_1, primals_2, primals_3, primals_4, primals_5):
        convert_element_type = torch.ops.prims.convert_element_type.default(primals_1, torch.bfloat16);  primals_1 = None
        all_gather_into_tensor = torch.ops._c10d_functional.all_gather_into_tensor.default(convert_element_type, 4, '0');  convert_element_type = None
        wait_tensor = torch.ops._c10d_functional.wait_tensor.default(all_gather_into_tensor);  all_gather_into_tensor = None
        t = torch.ops.aten.t.default(wait_tensor);  wait_tensor = None
        view = torch.ops.aten.view.default(primals_2, [-1, 512])
        addmm = torch.ops.aten.addmm.default(primals_3, view, t);  primals_3 = t = None
        view_1 = torch.ops.aten.view.default(addmm, [4, 256, 8, 64]);  addmm = None
        transpose = torch.ops.aten.transpose.int(view_1, 1, 2);  view_1 = None
        _scaled_dot_product_flash_attention = torch.ops.aten._scaled_dot_product_flash_attention.default(transpose, transpose, transpose, 0.0, True, scale = 0.125)
        getitem = _scaled_dot_product_flash_attention[0]
        getitem_1 = _scaled_dot_product_flash_attention[1];  _scaled_dot_product_flash_attention = None
        permute = torch.ops.aten.permute.default(getitem, [0, 2, 1, 3]);  getitem = None
        clone = torch.ops.aten.clone.default(permute, memory_format = torch.contiguous_format);  permute = None
        view_2 = torch.ops.aten.view.default(clone, [1024, 512]);  clone = None
        expand = torch.ops.aten.expand.default(primals_4, [1024, 512]);  primals_4 = None
        add = torch.ops.aten.add.Tensor(view_2, expand);  view_2 = expand = None
        split = torch.ops.aten.split.Tensor(add, 256, 1);  add = None
        getitem_2 = split[0]
        getitem_3 = operator.getitem(split, 1);  split = None
        cat = torch.ops.aten.cat.default([getitem_2, getitem_3], 1);  getitem_2 = getitem_3 = None
        slice_1 = torch.ops.aten.slice.Tensor(cat, 0, 0, 512);  cat = None
        relu = torch.ops.aten.relu.default(slice_1);  slice_1 = None
        sum_1 = torch.ops.aten.sum.dim_IntList(relu, [0], True)
        mul = torch.ops.aten.mul.Tensor(relu, primals_5);  relu = None
        reduce_scatter_tensor = torch.ops._c10d_functional.reduce_scatter_tensor.default(mul, 'sum', 4, '0');  mul = None
        wait_tensor_1 = torch.ops._c10d_functional.wait_tensor.default(reduce_scatter_tensor);  reduce_scatter_tensor = None
        amax = torch.ops.aten.amax.default(getitem_1, [-1], True);  getitem_1 = None
        mystery = torch.ops.mylib.mystery_op.default(amax)
        return (wait_tensor_1, amax, mystery, sum_1)

def load_args(reader):
    buf0 = reader.storage(None, 262144, device=device(type='cuda', index=0))
    reader.tensor(buf0, (128, 512), is_leaf=True)  # primals_1
    buf1 = reader.storage(None, 1048576, device=device(type='cuda', index=0), dtype_hint=torch.bfloat16)
    reader.tensor(buf1, (4, 256, 512), dtype=torch.bfloat16, is_leaf=True)  # primals_2
    buf2 = reader.storage(None, 1024, device=device(type='cuda', index=0), dtype_hint=torch.bfloat16)
    reader.tensor(buf2, (512,), dtype=torch.bfloat16, is_leaf=True)  # primals_3
    reader.tensor(buf2, (512,), dtype=torch.bfloat16, is_leaf=True)  # primals_4
    buf3 = reader.storage(None, 1024, device=device(type='cuda', index=0), dtype_hint=torch.bfloat16)
    reader.tensor(buf3, (512,), (1,), dtype=torch.bfloat16, is_leaf=True)  # primals_5
load_args._version = 0
mod = Repro()
if __name__ == '__main__':
    from torch._dynamo.repro.after_aot import run_repro
    with torch.no_grad():
        run_repro(mod, load_args, accuracy=False, command='run', save_dir=None, tracing_mode='real', check_str=None)
