
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



    def forward(self, arg0_1, arg1_1, arg2_1, arg3_1):
        t = torch.ops.aten.t.default(arg1_1);  arg1_1 = None
        mm = torch.ops.aten.mm.default(arg0_1, t);  t = None
        _softmax = torch.ops.aten._softmax.default(mm, -1, False);  mm = None
        alias = torch.ops.aten.alias.default(_softmax)
        max_1 = torch.ops.aten.max.dim(_softmax, -1, True);  _softmax = None
        getitem = max_1[0]
        getitem_1 = max_1[1];  max_1 = None
        mul = torch.ops.aten.mul.Tensor(arg0_1, getitem);  getitem = None
        all_to_all_single = torch.ops._c10d_functional.all_to_all_single.default(mul, [8, 8, 8, 8], [8, 8, 8, 8], '1');  mul = None
        wait_tensor = torch.ops._c10d_functional.wait_tensor.default(all_to_all_single);  all_to_all_single = None
        split = torch.ops.aten.split.Tensor(wait_tensor, 8);  wait_tensor = None
        getitem_2 = split[0]
        getitem_3 = split[1]
        getitem_4 = split[2]
        getitem_5 = split[3];  split = None
        unbind = torch.ops.aten.unbind.int(arg2_1);  arg2_1 = None
        getitem_6 = unbind[0]
        getitem_7 = unbind[1]
        getitem_8 = unbind[2]
        getitem_9 = unbind[3];  unbind = None
        t_1 = torch.ops.aten.t.default(getitem_6);  getitem_6 = None
        mm_1 = torch.ops.aten.mm.default(getitem_2, t_1)
        relu = torch.ops.aten.relu.default(mm_1);  mm_1 = None
        alias_1 = torch.ops.aten.alias.default(relu)
        t_2 = torch.ops.aten.t.default(getitem_7);  getitem_7 = None
        mm_2 = torch.ops.aten.mm.default(getitem_3, t_2)
        relu_1 = torch.ops.aten.relu.default(mm_2);  mm_2 = None
        alias_2 = torch.ops.aten.alias.default(relu_1)
        t_3 = torch.ops.aten.t.default(getitem_8);  getitem_8 = None
        mm_3 = torch.ops.aten.mm.default(getitem_4, t_3)
        relu_2 = torch.ops.aten.relu.default(mm_3);  mm_3 = None
        alias_3 = torch.ops.aten.alias.default(relu_2)
        t_4 = torch.ops.aten.t.default(getitem_9);  getitem_9 = None
        mm_4 = torch.ops.aten.mm.default(getitem_5, t_4)
        relu_3 = torch.ops.aten.relu.default(mm_4);  mm_4 = None
        alias_4 = torch.ops.aten.alias.default(relu_3)
        cat = torch.ops.aten.cat.default([relu, relu_1, relu_2, relu_3]);  relu = relu_1 = relu_2 = relu_3 = None
        all_to_all_single_1 = torch.ops._c10d_functional.all_to_all_single.default(cat, [8, 8, 8, 8], [8, 8, 8, 8], '1');  cat = None
        wait_tensor_1 = torch.ops._c10d_functional.wait_tensor.default(all_to_all_single_1);  all_to_all_single_1 = None
        t_5 = torch.ops.aten.t.default(arg3_1);  arg3_1 = None
        mm_5 = torch.ops.aten.mm.default(arg0_1, t_5);  t_5 = None
        tanh = torch.ops.aten.tanh.default(mm_5);  mm_5 = None
        alias_5 = torch.ops.aten.alias.default(tanh)
        add = torch.ops.aten.add.Tensor(wait_tensor_1, tanh);  wait_tensor_1 = tanh = None
        pow_1 = torch.ops.aten.pow.Tensor_Scalar(add, 2)
        mean = torch.ops.aten.mean.default(pow_1);  pow_1 = None
        ones_like = torch.ops.aten.ones_like.default(mean, pin_memory = False, memory_format = torch.preserve_format)
        expand = torch.ops.aten.expand.default(ones_like, [32, 64]);  ones_like = None
        div = torch.ops.aten.div.Scalar(expand, 2048);  expand = None
        pow_2 = torch.ops.aten.pow.Tensor_Scalar(add, 1.0);  add = None
        mul_1 = torch.ops.aten.mul.Scalar(pow_2, 2.0);  pow_2 = None
        mul_2 = torch.ops.aten.mul.Tensor(div, mul_1);  div = mul_1 = None
        alias_6 = torch.ops.aten.alias.default(alias_5);  alias_5 = None
        tanh_backward = torch.ops.aten.tanh_backward.default(mul_2, alias_6);  alias_6 = None
        t_6 = torch.ops.aten.t.default(tanh_backward);  tanh_backward = None
        mm_6 = torch.ops.aten.mm.default(t_6, arg0_1);  t_6 = None
        t_7 = torch.ops.aten.t.default(mm_6);  mm_6 = None
        t_8 = torch.ops.aten.t.default(t_7);  t_7 = None
        all_to_all_single_2 = torch.ops._c10d_functional.all_to_all_single.default(mul_2, [8, 8, 8, 8], [8, 8, 8, 8], '1');  mul_2 = None
        wait_tensor_2 = torch.ops._c10d_functional.wait_tensor.default(all_to_all_single_2);  all_to_all_single_2 = None
        slice_1 = torch.ops.aten.slice.Tensor(wait_tensor_2, 0, 0, 8)
        slice_2 = torch.ops.aten.slice.Tensor(wait_tensor_2, 0, 8, 16)
        slice_3 = torch.ops.aten.slice.Tensor(wait_tensor_2, 0, 16, 24)
        slice_4 = torch.ops.aten.slice.Tensor(wait_tensor_2, 0, 24, 32);  wait_tensor_2 = None
        alias_7 = torch.ops.aten.alias.default(alias_4);  alias_4 = None
        threshold_backward = torch.ops.aten.threshold_backward.default(slice_4, alias_7, 0);  slice_4 = alias_7 = None
        t_9 = torch.ops.aten.t.default(threshold_backward)
        mm_7 = torch.ops.aten.mm.default(t_9, getitem_5);  t_9 = getitem_5 = None
        t_10 = torch.ops.aten.t.default(mm_7);  mm_7 = None
        t_11 = torch.ops.aten.t.default(t_4);  t_4 = None
        mm_8 = torch.ops.aten.mm.default(threshold_backward, t_11);  threshold_backward = t_11 = None
        t_12 = torch.ops.aten.t.default(t_10);  t_10 = None
        alias_8 = torch.ops.aten.alias.default(alias_3);  alias_3 = None
        threshold_backward_1 = torch.ops.aten.threshold_backward.default(slice_3, alias_8, 0);  slice_3 = alias_8 = None
        t_13 = torch.ops.aten.t.default(threshold_backward_1)
        mm_9 = torch.ops.aten.mm.default(t_13, getitem_4);  t_13 = getitem_4 = None
        t_14 = torch.ops.aten.t.default(mm_9);  mm_9 = None
        t_15 = torch.ops.aten.t.default(t_3);  t_3 = None
        mm_10 = torch.ops.aten.mm.default(threshold_backward_1, t_15);  threshold_backward_1 = t_15 = None
        t_16 = torch.ops.aten.t.default(t_14);  t_14 = None
        alias_9 = torch.ops.aten.alias.default(alias_2);  alias_2 = None
        threshold_backward_2 = torch.ops.aten.threshold_backward.default(slice_2, alias_9, 0);  slice_2 = alias_9 = None
        t_17 = torch.ops.aten.t.default(threshold_backward_2)
        mm_11 = torch.ops.aten.mm.default(t_17, getitem_3);  t_17 = getitem_3 = None
        t_18 = torch.ops.aten.t.default(mm_11);  mm_11 = None
        t_19 = torch.ops.aten.t.default(t_2);  t_2 = None
        mm_12 = torch.ops.aten.mm.default(threshold_backward_2, t_19);  threshold_backward_2 = t_19 = None
        t_20 = torch.ops.aten.t.default(t_18);  t_18 = None
        alias_10 = torch.ops.aten.alias.default(alias_1);  alias_1 = None
        threshold_backward_3 = torch.ops.aten.threshold_backward.default(slice_1, alias_10, 0);  slice_1 = alias_10 = None
        t_21 = torch.ops.aten.t.default(threshold_backward_3)
        mm_13 = torch.ops.aten.mm.default(t_21, getitem_2);  t_21 = getitem_2 = None
        t_22 = torch.ops.aten.t.default(mm_13);  mm_13 = None
        t_23 = torch.ops.aten.t.default(t_1);  t_1 = None
        mm_14 = torch.ops.aten.mm.default(threshold_backward_3, t_23);  threshold_backward_3 = t_23 = None
        t_24 = torch.ops.aten.t.default(t_22);  t_22 = None
        stack = torch.ops.aten.stack.default([t_24, t_20, t_16, t_12]);  t_24 = t_20 = t_16 = t_12 = None
        cat_1 = torch.ops.aten.cat.default([mm_14, mm_12, mm_10, mm_8]);  mm_14 = mm_12 = mm_10 = mm_8 = None
        all_to_all_single_3 = torch.ops._c10d_functional.all_to_all_single.default(cat_1, [8, 8, 8, 8], [8, 8, 8, 8], '1');  cat_1 = None
        wait_tensor_3 = torch.ops._c10d_functional.wait_tensor.default(all_to_all_single_3);  all_to_all_single_3 = None
        mul_3 = torch.ops.aten.mul.Tensor(wait_tensor_3, arg0_1);  wait_tensor_3 = None
        sum_1 = torch.ops.aten.sum.dim_IntList(mul_3, [1], True);  mul_3 = None
        new_zeros = torch.ops.aten.new_zeros.default(sum_1, [32, 4])
        scatter = torch.ops.aten.scatter.src(new_zeros, -1, getitem_1, sum_1);  new_zeros = getitem_1 = sum_1 = None
        alias_11 = torch.ops.aten.alias.default(alias);  alias = None
        _softmax_backward_data = torch.ops.aten._softmax_backward_data.default(scatter, alias_11, -1, torch.float32);  scatter = alias_11 = None
        t_25 = torch.ops.aten.t.default(_softmax_backward_data);  _softmax_backward_data = None
        mm_15 = torch.ops.aten.mm.default(t_25, arg0_1);  t_25 = arg0_1 = None
        t_26 = torch.ops.aten.t.default(mm_15);  mm_15 = None
        t_27 = torch.ops.aten.t.default(t_26);  t_26 = None
        return (mean, t_27, stack, t_8)

def load_args(reader):
    buf0 = reader.storage(None, 8192)
    reader.tensor(buf0, (32, 64), is_leaf=True)  # arg0_1
    buf1 = reader.storage(None, 1024)
    reader.tensor(buf1, (4, 64), requires_grad=True, is_leaf=True)  # arg1_1
    buf2 = reader.storage(None, 65536)
    reader.tensor(buf2, (4, 64, 64), requires_grad=True, is_leaf=True)  # arg2_1
    buf3 = reader.storage(None, 16384)
    reader.tensor(buf3, (64, 64), requires_grad=True, is_leaf=True)  # arg3_1
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
