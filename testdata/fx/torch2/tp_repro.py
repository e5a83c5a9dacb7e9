
import os
os.environ['TORCHINDUCTOR_CACHE_DIR'] = '/tmp/torchinductor_root'
os.environ.pop('TORCHDYNAMO_REPRO_AFTER', None)
os.environ.pop('TORCHDYNAMO_REPRO_LEVEL', None)

import torch
from torch import tensor, device
import torch.fx as fx
from torch._dynamo.testing import rand_strided
import math
from math import inf
import torch._inductor.inductor_prims
import torch.distributed as dist
from torch.testing._internal.distributed.fake_pg import FakeStore


import torch._dynamo.config
import torch._inductor.config
import torch._functorch.config
import torch.fx.experimental._config


torch._functorch.config.fake_tensor_allow_unsafe_data_ptr_access = True




isolate_fails_code_str = None





if "__compile_source__" in globals():
    import inspect as __after_aot_inspect
    import linecache as __after_aot_linecache
    __after_aot_filename = __after_aot_inspect.currentframe().f_code.co_filename
    __after_aot_linecache.cache[__after_aot_filename] = (
        len(__compile_source__),
        None,
        __compile_source__.splitlines(True),
        __after_aot_filename,
    )
# torch version: 2.15.0+cu132
# torch cuda version: 13.2
# torch git version: d0f2af8b66b20da4baa50644c0cd3f887a2eae2e


# torch.cuda.is_available()==False, no GPU info collected
torch._higher_order_ops.triton_kernel_wrap.kernel_side_table.reset_table()

from torch.nn import *
class Repro(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()



    def forward(self, arg0_1, arg1_1, arg2_1):
        all_gather_into_tensor = torch.ops._c10d_functional.all_gather_into_tensor.default(arg0_1, 4, '1')
        wait_tensor = torch.ops._c10d_functional.wait_tensor.default(all_gather_into_tensor);  all_gather_into_tensor = None
        t = torch.ops.aten.t.default(arg1_1);  arg1_1 = None
        mm = torch.ops.aten.mm.default(wait_tensor, t);  t = None
        gelu = torch.ops.aten.gelu.default(mm)
        t_1 = torch.ops.aten.t.default(arg2_1);  arg2_1 = None
        mm_1 = torch.ops.aten.mm.default(gelu, t_1)
        reduce_scatter_tensor = torch.ops._c10d_functional.reduce_scatter_tensor.default(mm_1, 'sum', 4, '1');  mm_1 = None
        wait_tensor_1 = torch.ops._c10d_functional.wait_tensor.default(reduce_scatter_tensor);  reduce_scatter_tensor = None
        add = torch.ops.aten.add.Tensor(arg0_1, wait_tensor_1);  arg0_1 = wait_tensor_1 = None
        pow_1 = torch.ops.aten.pow.Tensor_Scalar(add, 2)
        mean = torch.ops.aten.mean.default(pow_1);  pow_1 = None
        ones_like = torch.ops.aten.ones_like.default(mean, pin_memory = False, memory_format = torch.preserve_format)
        expand = torch.ops.aten.expand.default(ones_like, [8, 64]);  ones_like = None
        div = torch.ops.aten.div.Scalar(expand, 512);  expand = None
        pow_2 = torch.ops.aten.pow.Tensor_Scalar(add, 1.0);  add = None
        mul = torch.ops.aten.mul.Scalar(pow_2, 2.0);  pow_2 = None
        mul_1 = torch.ops.aten.mul.Tensor(div, mul);  div = mul = None
        all_gather_into_tensor_1 = torch.ops._c10d_functional.all_gather_into_tensor.default(mul_1, 4, '1');  mul_1 = None
        wait_tensor_2 = torch.ops._c10d_functional.wait_tensor.default(all_gather_into_tensor_1);  all_gather_into_tensor_1 = None
        t_2 = torch.ops.aten.t.default(wait_tensor_2)
        mm_2 = torch.ops.aten.mm.default(t_2, gelu);  t_2 = gelu = None
        t_3 = torch.ops.aten.t.default(mm_2);  mm_2 = None
        t_4 = torch.ops.aten.t.default(t_1);  t_1 = None
        mm_3 = torch.ops.aten.mm.default(wait_tensor_2, t_4);  wait_tensor_2 = t_4 = None
        t_5 = torch.ops.aten.t.default(t_3);  t_3 = None
        gelu_backward = torch.ops.aten.gelu_backward.default(mm_3, mm);  mm_3 = mm = None
        t_6 = torch.ops.aten.t.default(gelu_backward);  gelu_backward = None
        mm_4 = torch.ops.aten.mm.default(t_6, wait_tensor);  t_6 = wait_tensor = None
        t_7 = torch.ops.aten.t.default(mm_4);  mm_4 = None
        t_8 = torch.ops.aten.t.default(t_7);  t_7 = None
        return (mean, t_8, t_5)

def load_args(reader):
    buf0 = reader.storage(None, 2048)
    reader.tensor(buf0, (8, 64), is_leaf=True)  # arg0_1
    buf1 = reader.storage(None, 8192)
    reader.tensor(buf1, (32, 64), requires_grad=True, is_leaf=True)  # arg1_1
    buf2 = reader.storage(None, 8192)
    reader.tensor(buf2, (64, 32), requires_grad=True, is_leaf=True)  # arg2_1
load_args._version = 0
mod = Repro()
if __name__ == '__main__':
    from torch._dynamo.repro.after_aot import run_repro
    from torch._dynamo.repro.after_aot import setup_fake_process_groups
    setup_fake_process_groups({'1': {'size': 4, 'rank': 0}})
    with torch.no_grad():
        run_repro(mod, load_args, accuracy=False, command='run', save_dir=None, tracing_mode='real', check_str=None, is_inference=False)
        # To run it separately, do 
        # mod, args = run_repro(mod, load_args, accuracy=False, command='get_args', save_dir=None, tracing_mode='real', check_str=None, is_inference=False)
        # mod(*args)
    dist.destroy_process_group()
