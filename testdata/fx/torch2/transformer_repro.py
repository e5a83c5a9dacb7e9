
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



    def forward(self, arg0_1, arg1_1, arg2_1, arg3_1, arg4_1, arg5_1, arg6_1, arg7_1, arg8_1, arg9_1, arg10_1, arg11_1, arg12_1):
        view = torch.ops.aten.view.default(arg0_1, [2, 8, 64]);  arg0_1 = None
        full = torch.ops.aten.full.default([8, 8], -inf, device = device(type='cpu'), pin_memory = False)
        triu = torch.ops.aten.triu.default(full, 1);  full = None
        transpose = torch.ops.aten.transpose.int(view, 1, 0)
        t = torch.ops.aten.t.default(arg1_1);  arg1_1 = None
        clone = torch.ops.aten.clone.default(transpose, memory_format = torch.contiguous_format);  transpose = None
        _unsafe_view = torch.ops.aten._unsafe_view.default(clone, [16, 64]);  clone = None
        mm = torch.ops.aten.mm.default(_unsafe_view, t);  t = None
        _unsafe_view_1 = torch.ops.aten._unsafe_view.default(mm, [8, 2, 192]);  mm = None
        add = torch.ops.aten.add.Tensor(_unsafe_view_1, arg2_1);  _unsafe_view_1 = arg2_1 = None
        view_1 = torch.ops.aten.view.default(add, [8, 2, 3, 64]);  add = None
        unsqueeze = torch.ops.aten.unsqueeze.default(view_1, 0);  view_1 = None
        transpose_1 = torch.ops.aten.transpose.int(unsqueeze, 0, -2);  unsqueeze = None
        squeeze = torch.ops.aten.squeeze.dim(transpose_1, -2);  transpose_1 = None
        clone_1 = torch.ops.aten.clone.default(squeeze, memory_format = torch.contiguous_format);  squeeze = None
        select = torch.ops.aten.select.int(clone_1, 0, 0)
        select_1 = torch.ops.aten.select.int(clone_1, 0, 1)
        select_2 = torch.ops.aten.select.int(clone_1, 0, 2);  clone_1 = None
        unsqueeze_1 = torch.ops.aten.unsqueeze.default(triu, 0);  triu = None
        view_2 = torch.ops.aten.view.default(select, [8, 8, 16]);  select = None
        transpose_2 = torch.ops.aten.transpose.int(view_2, 0, 1);  view_2 = None
        view_3 = torch.ops.aten.view.default(select_1, [8, 8, 16]);  select_1 = None
        transpose_3 = torch.ops.aten.transpose.int(view_3, 0, 1);  view_3 = None
        view_4 = torch.ops.aten.view.default(select_2, [8, 8, 16]);  select_2 = None
        transpose_4 = torch.ops.aten.transpose.int(view_4, 0, 1);  view_4 = None
        unsqueeze_2 = torch.ops.aten.unsqueeze.default(unsqueeze_1, 0);  unsqueeze_1 = None
        view_5 = torch.ops.aten.view.default(transpose_2, [2, 4, 8, 16]);  transpose_2 = None
        view_6 = torch.ops.aten.view.default(transpose_3, [2, 4, 8, 16]);  transpose_3 = None
        view_7 = torch.ops.aten.view.default(transpose_4, [2, 4, 8, 16]);  transpose_4 = None
        _scaled_dot_product_flash_attention_for_cpu = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu.default(view_5, view_6, view_7, attn_mask = unsqueeze_2)
        getitem = _scaled_dot_product_flash_attention_for_cpu[0]
        getitem_1 = _scaled_dot_product_flash_attention_for_cpu[1];  _scaled_dot_product_flash_attention_for_cpu = None
        alias = torch.ops.aten.alias.default(getitem)
        permute = torch.ops.aten.permute.default(getitem, [2, 0, 1, 3]);  getitem = None
        view_8 = torch.ops.aten.view.default(permute, [16, 64]);  permute = None
        t_1 = torch.ops.aten.t.default(arg3_1);  arg3_1 = None
        addmm = torch.ops.aten.addmm.default(arg4_1, view_8, t_1);  arg4_1 = None
        view_9 = torch.ops.aten.view.default(addmm, [8, 2, 64]);  addmm = None
        transpose_5 = torch.ops.aten.transpose.int(view_9, 1, 0);  view_9 = None
        add_1 = torch.ops.aten.add.Tensor(view, transpose_5);  view = transpose_5 = None
        native_layer_norm = torch.ops.aten.native_layer_norm.default(add_1, [64], arg9_1, arg10_1, 1e-05)
        getitem_2 = native_layer_norm[0]
        getitem_3 = native_layer_norm[1]
        getitem_4 = native_layer_norm[2];  native_layer_norm = None
        view_10 = torch.ops.aten.view.default(getitem_2, [16, 64])
        t_2 = torch.ops.aten.t.default(arg5_1);  arg5_1 = None
        addmm_1 = torch.ops.aten.addmm.default(arg6_1, view_10, t_2);  arg6_1 = None
        _unsafe_view_2 = torch.ops.aten._unsafe_view.default(addmm_1, [2, 8, 128]);  addmm_1 = None
        relu = torch.ops.aten.relu.default(_unsafe_view_2);  _unsafe_view_2 = None
        alias_1 = torch.ops.aten.alias.default(relu)
        view_11 = torch.ops.aten.view.default(relu, [16, 128]);  relu = None
        t_3 = torch.ops.aten.t.default(arg7_1);  arg7_1 = None
        addmm_2 = torch.ops.aten.addmm.default(arg8_1, view_11, t_3);  arg8_1 = None
        _unsafe_view_3 = torch.ops.aten._unsafe_view.default(addmm_2, [2, 8, 64]);  addmm_2 = None
        add_2 = torch.ops.aten.add.Tensor(getitem_2, _unsafe_view_3);  getitem_2 = _unsafe_view_3 = None
        native_layer_norm_1 = torch.ops.aten.native_layer_norm.default(add_2, [64], arg11_1, arg12_1, 1e-05)
        getitem_5 = native_layer_norm_1[0]
        getitem_6 = native_layer_norm_1[1]
        getitem_7 = native_layer_norm_1[2];  native_layer_norm_1 = None
        pow_1 = torch.ops.aten.pow.Tensor_Scalar(getitem_5, 2)
        mean = torch.ops.aten.mean.default(pow_1);  pow_1 = None
        ones_like = torch.ops.aten.ones_like.default(mean, pin_memory = False, memory_format = torch.preserve_format)
        expand = torch.ops.aten.expand.default(ones_like, [2, 8, 64]);  ones_like = None
        div = torch.ops.aten.div.Scalar(expand, 1024);  expand = None
        pow_2 = torch.ops.aten.pow.Tensor_Scalar(getitem_5, 1.0);  getitem_5 = None
        mul = torch.ops.aten.mul.Scalar(pow_2, 2.0);  pow_2 = None
        mul_1 = torch.ops.aten.mul.Tensor(div, mul);  div = mul = None
        native_layer_norm_backward = torch.ops.aten.native_layer_norm_backward.default(mul_1, add_2, [64], getitem_6, getitem_7, arg11_1, arg12_1, [True, True, True]);  mul_1 = add_2 = getitem_6 = getitem_7 = arg11_1 = arg12_1 = None
        getitem_8 = native_layer_norm_backward[0]
        getitem_9 = native_layer_norm_backward[1]
        getitem_10 = native_layer_norm_backward[2];  native_layer_norm_backward = None
        view_12 = torch.ops.aten.view.default(getitem_8, [16, 64])
        t_4 = torch.ops.aten.t.default(t_3);  t_3 = None
        mm_1 = torch.ops.aten.mm.default(view_12, t_4);  t_4 = None
        t_5 = torch.ops.aten.t.default(view_12)
        mm_2 = torch.ops.aten.mm.default(t_5, view_11);  t_5 = view_11 = None
        t_6 = torch.ops.aten.t.default(mm_2);  mm_2 = None
        sum_1 = torch.ops.aten.sum.dim_IntList(view_12, [0], True);  view_12 = None
        view_13 = torch.ops.aten.view.default(sum_1, [64]);  sum_1 = None
        t_7 = torch.ops.aten.t.default(t_6);  t_6 = None
        view_14 = torch.ops.aten.view.default(mm_1, [2, 8, 128]);  mm_1 = None
        alias_2 = torch.ops.aten.alias.default(alias_1);  alias_1 = None
        threshold_backward = torch.ops.aten.threshold_backward.default(view_14, alias_2, 0);  view_14 = alias_2 = None
        view_15 = torch.ops.aten.view.default(threshold_backward, [16, 128]);  threshold_backward = None
        t_8 = torch.ops.aten.t.default(t_2);  t_2 = None
        mm_3 = torch.ops.aten.mm.default(view_15, t_8);  t_8 = None
        t_9 = torch.ops.aten.t.default(view_15)
        mm_4 = torch.ops.aten.mm.default(t_9, view_10);  t_9 = view_10 = None
        t_10 = torch.ops.aten.t.default(mm_4);  mm_4 = None
        sum_2 = torch.ops.aten.sum.dim_IntList(view_15, [0], True);  view_15 = None
        view_16 = torch.ops.aten.view.default(sum_2, [128]);  sum_2 = None
        t_11 = torch.ops.aten.t.default(t_10);  t_10 = None
        view_17 = torch.ops.aten.view.default(mm_3, [2, 8, 64]);  mm_3 = None
        add_3 = torch.ops.aten.add.Tensor(getitem_8, view_17);  getitem_8 = view_17 = None
        native_layer_norm_backward_1 = torch.ops.aten.native_layer_norm_backward.default(add_3, add_1, [64], getitem_3, getitem_4, arg9_1, arg10_1, [True, True, True]);  add_3 = add_1 = getitem_3 = getitem_4 = arg9_1 = arg10_1 = None
        getitem_11 = native_layer_norm_backward_1[0]
        getitem_12 = native_layer_norm_backward_1[1]
        getitem_13 = native_layer_norm_backward_1[2];  native_layer_norm_backward_1 = None
        transpose_6 = torch.ops.aten.transpose.int(getitem_11, 1, 0);  getitem_11 = None
        clone_2 = torch.ops.aten.clone.default(transpose_6, memory_format = torch.contiguous_format);  transpose_6 = None
        _unsafe_view_4 = torch.ops.aten._unsafe_view.default(clone_2, [16, 64]);  clone_2 = None
        t_12 = torch.ops.aten.t.default(t_1);  t_1 = None
        mm_5 = torch.ops.aten.mm.default(_unsafe_view_4, t_12);  t_12 = None
        t_13 = torch.ops.aten.t.default(_unsafe_view_4)
        mm_6 = torch.ops.aten.mm.default(t_13, view_8);  t_13 = view_8 = None
        t_14 = torch.ops.aten.t.default(mm_6);  mm_6 = None
        sum_3 = torch.ops.aten.sum.dim_IntList(_unsafe_view_4, [0], True);  _unsafe_view_4 = None
        view_18 = torch.ops.aten.view.default(sum_3, [64]);  sum_3 = None
        t_15 = torch.ops.aten.t.default(t_14);  t_14 = None
        view_19 = torch.ops.aten.view.default(mm_5, [8, 2, 4, 16]);  mm_5 = None
        permute_1 = torch.ops.aten.permute.default(view_19, [1, 2, 0, 3]);  view_19 = None
        alias_3 = torch.ops.aten.alias.default(alias);  alias = None
        _scaled_dot_product_flash_attention_for_cpu_backward = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu_backward.default(permute_1, view_5, view_6, view_7, alias_3, getitem_1, 0.0, False, attn_mask = unsqueeze_2);  permute_1 = view_5 = view_6 = view_7 = alias_3 = getitem_1 = unsqueeze_2 = None
        getitem_14 = _scaled_dot_product_flash_attention_for_cpu_backward[0]
        getitem_15 = _scaled_dot_product_flash_attention_for_cpu_backward[1]
        getitem_16 = _scaled_dot_product_flash_attention_for_cpu_backward[2];  _scaled_dot_product_flash_attention_for_cpu_backward = None
        clone_3 = torch.ops.aten.clone.default(getitem_16, memory_format = torch.contiguous_format);  getitem_16 = None
        _unsafe_view_5 = torch.ops.aten._unsafe_view.default(clone_3, [8, 8, 16]);  clone_3 = None
        clone_4 = torch.ops.aten.clone.default(getitem_15, memory_format = torch.contiguous_format);  getitem_15 = None
        _unsafe_view_6 = torch.ops.aten._unsafe_view.default(clone_4, [8, 8, 16]);  clone_4 = None
        clone_5 = torch.ops.aten.clone.default(getitem_14, memory_format = torch.contiguous_format);  getitem_14 = None
        _unsafe_view_7 = torch.ops.aten._unsafe_view.default(clone_5, [8, 8, 16]);  clone_5 = None
        transpose_7 = torch.ops.aten.transpose.int(_unsafe_view_5, 0, 1);  _unsafe_view_5 = None
        clone_6 = torch.ops.aten.clone.default(transpose_7, memory_format = torch.contiguous_format);  transpose_7 = None
        _unsafe_view_8 = torch.ops.aten._unsafe_view.default(clone_6, [8, 2, 64]);  clone_6 = None
        transpose_8 = torch.ops.aten.transpose.int(_unsafe_view_6, 0, 1);  _unsafe_view_6 = None
        clone_7 = torch.ops.aten.clone.default(transpose_8, memory_format = torch.contiguous_format);  transpose_8 = None
        _unsafe_view_9 = torch.ops.aten._unsafe_view.default(clone_7, [8, 2, 64]);  clone_7 = None
        transpose_9 = torch.ops.aten.transpose.int(_unsafe_view_7, 0, 1);  _unsafe_view_7 = None
        clone_8 = torch.ops.aten.clone.default(transpose_9, memory_format = torch.contiguous_format);  transpose_9 = None
        _unsafe_view_10 = torch.ops.aten._unsafe_view.default(clone_8, [8, 2, 64]);  clone_8 = None
        select_backward = torch.ops.aten.select_backward.default(_unsafe_view_8, [3, 8, 2, 64], 0, 2);  _unsafe_view_8 = None
        select_backward_1 = torch.ops.aten.select_backward.default(_unsafe_view_9, [3, 8, 2, 64], 0, 1);  _unsafe_view_9 = None
        add_4 = torch.ops.aten.add.Tensor(select_backward, select_backward_1);  select_backward = select_backward_1 = None
        select_backward_2 = torch.ops.aten.select_backward.default(_unsafe_view_10, [3, 8, 2, 64], 0, 0);  _unsafe_view_10 = None
        add_5 = torch.ops.aten.add.Tensor(add_4, select_backward_2);  add_4 = select_backward_2 = None
        unsqueeze_3 = torch.ops.aten.unsqueeze.default(add_5, 3);  add_5 = None
        transpose_10 = torch.ops.aten.transpose.int(unsqueeze_3, 0, -2);  unsqueeze_3 = None
        squeeze_1 = torch.ops.aten.squeeze.dim(transpose_10, 0);  transpose_10 = None
        clone_9 = torch.ops.aten.clone.default(squeeze_1, memory_format = torch.contiguous_format);  squeeze_1 = None
        _unsafe_view_11 = torch.ops.aten._unsafe_view.default(clone_9, [8, 2, 192]);  clone_9 = None
        sum_4 = torch.ops.aten.sum.dim_IntList(_unsafe_view_11, [0, 1], True)
        view_20 = torch.ops.aten.view.default(sum_4, [192]);  sum_4 = None
        view_21 = torch.ops.aten.view.default(_unsafe_view_11, [16, 192]);  _unsafe_view_11 = None
        t_16 = torch.ops.aten.t.default(view_21);  view_21 = None
        mm_7 = torch.ops.aten.mm.default(t_16, _unsafe_view);  t_16 = _unsafe_view = None
        t_17 = torch.ops.aten.t.default(mm_7);  mm_7 = None
        t_18 = torch.ops.aten.t.default(t_17);  t_17 = None
        return (mean, t_18, view_20, t_15, view_18, t_11, view_16, t_7, view_13, getitem_12, getitem_13, getitem_9, getitem_10)

def load_args(reader):
    buf0 = reader.storage(None, 4096)
    reader.tensor(buf0, (16, 64), is_leaf=True)  # arg0_1
    buf1 = reader.storage(None, 49152)
    reader.tensor(buf1, (192, 64), requires_grad=True, is_leaf=True)  # arg1_1
    buf2 = reader.storage(None, 768)
    reader.tensor(buf2, (192,), requires_grad=True, is_leaf=True)  # arg2_1
    buf3 = reader.storage(None, 16384)
    reader.tensor(buf3, (64, 64), requires_grad=True, is_leaf=True)  # arg3_1
    buf4 = reader.storage(None, 256)
    reader.tensor(buf4, (64,), requires_grad=True, is_leaf=True)  # arg4_1
    buf5 = reader.storage(None, 32768)
    reader.tensor(buf5, (128, 64), requires_grad=True, is_leaf=True)  # arg5_1
    buf6 = reader.storage(None, 512)
    reader.tensor(buf6, (128,), requires_grad=True, is_leaf=True)  # arg6_1
    buf7 = reader.storage(None, 32768)
    reader.tensor(buf7, (64, 128), requires_grad=True, is_leaf=True)  # arg7_1
    buf8 = reader.storage(None, 256)
    reader.tensor(buf8, (64,), requires_grad=True, is_leaf=True)  # arg8_1
    buf9 = reader.storage(None, 256)
    reader.tensor(buf9, (64,), requires_grad=True, is_leaf=True)  # arg9_1
    buf10 = reader.storage(None, 256)
    reader.tensor(buf10, (64,), requires_grad=True, is_leaf=True)  # arg10_1
    buf11 = reader.storage(None, 256)
    reader.tensor(buf11, (64,), requires_grad=True, is_leaf=True)  # arg11_1
    buf12 = reader.storage(None, 256)
    reader.tensor(buf12, (64,), requires_grad=True, is_leaf=True)  # arg12_1
load_args._version = 0
mod = Repro()
if __name__ == '__main__':
    from torch._dynamo.repro.after_aot import run_repro
    with torch.no_grad():
        run_repro(mod, load_args, accuracy=False, command='run', save_dir=None, tracing_mode='real', check_str=None, is_inference=False)
        # To run it separately, do 
        # mod, args = run_repro(mod, load_args, accuracy=False, command='get_args', save_dir=None, tracing_mode='real', check_str=None, is_inference=False)
        # mod(*args)