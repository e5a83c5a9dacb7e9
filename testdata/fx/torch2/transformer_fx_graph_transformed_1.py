class GraphModule(torch.nn.Module):
    def forward(self, primals_4: "f32[64, 64]", primals_6: "f32[64]", primals_8: "f32[128, 64]", primals_10: "f32[64, 128]", primals_12: "f32[64]", primals_13: "f32[64]", view_1: "f32[16, 64]", unsqueeze_4: "f32[1, 1, 8, 8]", view_7: "f32[2, 4, 8, 16]", view_8: "f32[2, 4, 8, 16]", view_9: "f32[2, 4, 8, 16]", getitem: "f32[2, 4, 8, 16]", getitem_1: "f32[2, 4, 8]", mul: "f32[2, 8, 64]", view_12: "f32[16, 64]", view_14: "f32[16, 128]", mul_2: "f32[2, 8, 64]", div_1: "f32[2, 8, 1]", le: "b8[2, 8, 128]", div_2: "f32[2, 8, 1]", tangents_1: "f32[]"):
        # Backward of forward node: File: /work/main/scripts/torch/capture_artifacts.py:99 in forward, code: return self.layer(x, src_mask=mask).pow(2).mean()
        expand: "f32[2, 8, 64]" = torch.ops.aten.expand.default(tangents_1, [2, 8, 64]);  tangents_1 = None
        div: "f32[2, 8, 64]" = torch.ops.aten.div.Scalar(expand, 1024);  expand = None
        mul_3: "f32[2, 8, 64]" = torch.ops.aten.mul.Tensor(mul_2, primals_12)
        add_6: "f32[2, 8, 64]" = torch.ops.aten.add.Tensor(mul_3, primals_13);  mul_3 = primals_13 = None
        pow_2: "f32[2, 8, 64]" = torch.ops.aten.pow.Tensor_Scalar(add_6, 1.0);  add_6 = None
        mul_4: "f32[2, 8, 64]" = torch.ops.aten.mul.Scalar(pow_2, 2.0);  pow_2 = None
        mul_5: "f32[2, 8, 64]" = torch.ops.aten.mul.Tensor(div, mul_4);  div = mul_4 = None
        mul_7: "f32[2, 8, 64]" = torch.ops.aten.mul.Tensor(mul_5, primals_12);  primals_12 = None
        mul_8: "f32[2, 8, 64]" = torch.ops.aten.mul.Tensor(mul_7, 64)
        sum_1: "f32[2, 8, 1]" = torch.ops.aten.sum.dim_IntList(mul_7, [2], True)
        mul_9: "f32[2, 8, 64]" = torch.ops.aten.mul.Tensor(mul_7, mul_2);  mul_7 = None
        sum_2: "f32[2, 8, 1]" = torch.ops.aten.sum.dim_IntList(mul_9, [2], True);  mul_9 = None
        mul_10: "f32[2, 8, 64]" = torch.ops.aten.mul.Tensor(mul_2, sum_2);  sum_2 = None
        sub_4: "f32[2, 8, 64]" = torch.ops.aten.sub.Tensor(mul_8, sum_1);  mul_8 = sum_1 = None
        sub_5: "f32[2, 8, 64]" = torch.ops.aten.sub.Tensor(sub_4, mul_10);  sub_4 = mul_10 = None
        mul_11: "f32[2, 8, 64]" = torch.ops.aten.mul.Tensor(div_1, sub_5);  div_1 = sub_5 = None
        mul_12: "f32[2, 8, 64]" = torch.ops.aten.mul.Tensor(mul_5, mul_2);  mul_2 = None
        sum_3: "f32[64]" = torch.ops.aten.sum.dim_IntList(mul_12, [0, 1]);  mul_12 = None
        sum_4: "f32[64]" = torch.ops.aten.sum.dim_IntList(mul_5, [0, 1]);  mul_5 = None
        view_16: "f32[16, 64]" = torch.ops.aten.reshape.default(mul_11, [16, 64])
        permute_10: "f32[128, 64]" = torch.ops.aten.permute.default(primals_10, [1, 0]);  primals_10 = None
        permute_11: "f32[64, 128]" = torch.ops.aten.permute.default(permute_10, [1, 0]);  permute_10 = None
        mm_1: "f32[16, 128]" = torch.ops.aten.mm.default(view_16, permute_11);  permute_11 = None
        permute_12: "f32[64, 16]" = torch.ops.aten.permute.default(view_16, [1, 0])
        mm_2: "f32[64, 128]" = torch.ops.aten.mm.default(permute_12, view_14);  permute_12 = view_14 = None
        sum_5: "f32[1, 64]" = torch.ops.aten.sum.dim_IntList(view_16, [0], True);  view_16 = None
        view_17: "f32[64]" = torch.ops.aten.reshape.default(sum_5, [64]);  sum_5 = None
        view_18: "f32[2, 8, 128]" = torch.ops.aten.reshape.default(mm_1, [2, 8, 128]);  mm_1 = None

        # Backward of forward node: File: /work/main/scripts/torch/capture_artifacts.py:98 in forward, code: mask = torch.nn.Transformer.generate_square_subsequent_mask(8)
        full_default_1: "f32[]" = torch.ops.aten.full.default([], 0.0, dtype = torch.float32, layout = torch.strided, device = device(type='cpu'), pin_memory = False)

        # Backward of forward node: File: /work/main/scripts/torch/capture_artifacts.py:99 in forward, code: return self.layer(x, src_mask=mask).pow(2).mean()
        where_1: "f32[2, 8, 128]" = torch.ops.aten.where.self(le, full_default_1, view_18);  le = full_default_1 = view_18 = None
        view_19: "f32[16, 128]" = torch.ops.aten.reshape.default(where_1, [16, 128]);  where_1 = None
        permute_9: "f32[64, 128]" = torch.ops.aten.permute.default(primals_8, [1, 0]);  primals_8 = None
        permute_15: "f32[128, 64]" = torch.ops.aten.permute.default(permute_9, [1, 0]);  permute_9 = None
        mm_3: "f32[16, 64]" = torch.ops.aten.mm.default(view_19, permute_15);  permute_15 = None
        permute_16: "f32[128, 16]" = torch.ops.aten.permute.default(view_19, [1, 0])
        mm_4: "f32[128, 64]" = torch.ops.aten.mm.default(permute_16, view_12);  permute_16 = view_12 = None
        sum_6: "f32[1, 128]" = torch.ops.aten.sum.dim_IntList(view_19, [0], True);  view_19 = None
        view_20: "f32[128]" = torch.ops.aten.reshape.default(sum_6, [128]);  sum_6 = None
        view_21: "f32[2, 8, 64]" = torch.ops.aten.reshape.default(mm_3, [2, 8, 64]);  mm_3 = None
        add_7: "f32[2, 8, 64]" = torch.ops.aten.add.Tensor(mul_11, view_21);  mul_11 = view_21 = None
        mul_14: "f32[2, 8, 64]" = torch.ops.aten.mul.Tensor(add_7, primals_6);  primals_6 = None
        mul_15: "f32[2, 8, 64]" = torch.ops.aten.mul.Tensor(mul_14, 64)
        sum_7: "f32[2, 8, 1]" = torch.ops.aten.sum.dim_IntList(mul_14, [2], True)
        mul_16: "f32[2, 8, 64]" = torch.ops.aten.mul.Tensor(mul_14, mul);  mul_14 = None
        sum_8: "f32[2, 8, 1]" = torch.ops.aten.sum.dim_IntList(mul_16, [2], True);  mul_16 = None
        mul_17: "f32[2, 8, 64]" = torch.ops.aten.mul.Tensor(mul, sum_8);  sum_8 = None
        sub_7: "f32[2, 8, 64]" = torch.ops.aten.sub.Tensor(mul_15, sum_7);  mul_15 = sum_7 = None
        sub_8: "f32[2, 8, 64]" = torch.ops.aten.sub.Tensor(sub_7, mul_17);  sub_7 = mul_17 = None
        mul_18: "f32[2, 8, 64]" = torch.ops.aten.mul.Tensor(div_2, sub_8);  div_2 = sub_8 = None
        mul_19: "f32[2, 8, 64]" = torch.ops.aten.mul.Tensor(add_7, mul);  mul = None
        sum_9: "f32[64]" = torch.ops.aten.sum.dim_IntList(mul_19, [0, 1]);  mul_19 = None
        sum_10: "f32[64]" = torch.ops.aten.sum.dim_IntList(add_7, [0, 1]);  add_7 = None
        permute_19: "f32[8, 2, 64]" = torch.ops.aten.permute.default(mul_18, [1, 0, 2]);  mul_18 = None
        clone_2: "f32[8, 2, 64]" = torch.ops.aten.clone.default(permute_19, memory_format = torch.contiguous_format);  permute_19 = None
        view_22: "f32[16, 64]" = torch.ops.aten.reshape.default(clone_2, [16, 64]);  clone_2 = None
        permute_7: "f32[64, 64]" = torch.ops.aten.permute.default(primals_4, [1, 0]);  primals_4 = None
        permute_20: "f32[64, 64]" = torch.ops.aten.permute.default(permute_7, [1, 0]);  permute_7 = None
        mm_5: "f32[16, 64]" = torch.ops.aten.mm.default(view_22, permute_20);  permute_20 = None
        permute_21: "f32[64, 16]" = torch.ops.aten.permute.default(view_22, [1, 0])
        permute_6: "f32[8, 2, 4, 16]" = torch.ops.aten.permute.default(getitem, [2, 0, 1, 3])
        view_10: "f32[16, 64]" = torch.ops.aten.reshape.default(permute_6, [16, 64]);  permute_6 = None
        mm_6: "f32[64, 64]" = torch.ops.aten.mm.default(permute_21, view_10);  permute_21 = view_10 = None
        sum_11: "f32[1, 64]" = torch.ops.aten.sum.dim_IntList(view_22, [0], True);  view_22 = None
        view_23: "f32[64]" = torch.ops.aten.reshape.default(sum_11, [64]);  sum_11 = None
        view_24: "f32[8, 2, 4, 16]" = torch.ops.aten.reshape.default(mm_5, [8, 2, 4, 16]);  mm_5 = None
        permute_24: "f32[2, 4, 8, 16]" = torch.ops.aten.permute.default(view_24, [1, 2, 0, 3]);  view_24 = None
        _scaled_dot_product_flash_attention_for_cpu_backward = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu_backward.default(permute_24, view_7, view_8, view_9, getitem, getitem_1, 0.0, False, attn_mask = unsqueeze_4);  permute_24 = view_7 = view_8 = view_9 = getitem = getitem_1 = unsqueeze_4 = None
        getitem_6: "f32[2, 4, 8, 16]" = _scaled_dot_product_flash_attention_for_cpu_backward[0]
        getitem_7: "f32[2, 4, 8, 16]" = _scaled_dot_product_flash_attention_for_cpu_backward[1]
        getitem_8: "f32[2, 4, 8, 16]" = _scaled_dot_product_flash_attention_for_cpu_backward[2];  _scaled_dot_product_flash_attention_for_cpu_backward = None
        clone_3: "f32[2, 4, 8, 16]" = torch.ops.aten.clone.default(getitem_8, memory_format = torch.contiguous_format);  getitem_8 = None
        view_25: "f32[8, 8, 16]" = torch.ops.aten.reshape.default(clone_3, [8, 8, 16]);  clone_3 = None
        clone_4: "f32[2, 4, 8, 16]" = torch.ops.aten.clone.default(getitem_7, memory_format = torch.contiguous_format);  getitem_7 = None
        view_26: "f32[8, 8, 16]" = torch.ops.aten.reshape.default(clone_4, [8, 8, 16]);  clone_4 = None
        clone_5: "f32[2, 4, 8, 16]" = torch.ops.aten.clone.default(getitem_6, memory_format = torch.contiguous_format);  getitem_6 = None
        view_27: "f32[8, 8, 16]" = torch.ops.aten.reshape.default(clone_5, [8, 8, 16]);  clone_5 = None
        permute_25: "f32[8, 8, 16]" = torch.ops.aten.permute.default(view_25, [1, 0, 2]);  view_25 = None
        clone_6: "f32[8, 8, 16]" = torch.ops.aten.clone.default(permute_25, memory_format = torch.contiguous_format);  permute_25 = None
        view_28: "f32[8, 2, 64]" = torch.ops.aten.reshape.default(clone_6, [8, 2, 64]);  clone_6 = None
        permute_26: "f32[8, 8, 16]" = torch.ops.aten.permute.default(view_26, [1, 0, 2]);  view_26 = None
        clone_7: "f32[8, 8, 16]" = torch.ops.aten.clone.default(permute_26, memory_format = torch.contiguous_format);  permute_26 = None
        view_29: "f32[8, 2, 64]" = torch.ops.aten.reshape.default(clone_7, [8, 2, 64]);  clone_7 = None
        permute_27: "f32[8, 8, 16]" = torch.ops.aten.permute.default(view_27, [1, 0, 2]);  view_27 = None
        clone_8: "f32[8, 8, 16]" = torch.ops.aten.clone.default(permute_27, memory_format = torch.contiguous_format);  permute_27 = None
        view_30: "f32[8, 2, 64]" = torch.ops.aten.reshape.default(clone_8, [8, 2, 64]);  clone_8 = None
        full_default_3: "f32[3, 8, 2, 64]" = torch.ops.aten.full.default([3, 8, 2, 64], 0, dtype = torch.float32, layout = torch.strided, device = device(type='cpu'), pin_memory = False)

        # No stacktrace found for following nodes
        select_scatter_default: "f32[3, 8, 2, 64]" = torch.ops.aten.select_scatter.default(full_default_3, view_28, 0, 2);  view_28 = None
        select_scatter_default_1: "f32[3, 8, 2, 64]" = torch.ops.aten.select_scatter.default(full_default_3, view_29, 0, 1);  view_29 = None

        # Backward of forward node: File: /work/main/scripts/torch/capture_artifacts.py:99 in forward, code: return self.layer(x, src_mask=mask).pow(2).mean()
        add_8: "f32[3, 8, 2, 64]" = torch.ops.aten.add.Tensor(select_scatter_default, select_scatter_default_1);  select_scatter_default = select_scatter_default_1 = None

        # No stacktrace found for following nodes
        select_scatter_default_2: "f32[3, 8, 2, 64]" = torch.ops.aten.select_scatter.default(full_default_3, view_30, 0, 0);  full_default_3 = view_30 = None

        # Backward of forward node: File: /work/main/scripts/torch/capture_artifacts.py:99 in forward, code: return self.layer(x, src_mask=mask).pow(2).mean()
        add_9: "f32[3, 8, 2, 64]" = torch.ops.aten.add.Tensor(add_8, select_scatter_default_2);  add_8 = select_scatter_default_2 = None
        unsqueeze_5: "f32[3, 8, 2, 1, 64]" = torch.ops.aten.unsqueeze.default(add_9, 3);  add_9 = None
        permute_28: "f32[1, 8, 2, 3, 64]" = torch.ops.aten.permute.default(unsqueeze_5, [3, 1, 2, 0, 4]);  unsqueeze_5 = None
        squeeze_1: "f32[8, 2, 3, 64]" = torch.ops.aten.squeeze.dim(permute_28, 0);  permute_28 = None
        clone_9: "f32[8, 2, 3, 64]" = torch.ops.aten.clone.default(squeeze_1, memory_format = torch.contiguous_format);  squeeze_1 = None
        view_31: "f32[8, 2, 192]" = torch.ops.aten.reshape.default(clone_9, [8, 2, 192]);  clone_9 = None
        sum_12: "f32[1, 1, 192]" = torch.ops.aten.sum.dim_IntList(view_31, [0, 1], True)
        view_32: "f32[192]" = torch.ops.aten.reshape.default(sum_12, [192]);  sum_12 = None
        view_33: "f32[16, 192]" = torch.ops.aten.reshape.default(view_31, [16, 192]);  view_31 = None
        permute_29: "f32[192, 16]" = torch.ops.aten.permute.default(view_33, [1, 0]);  view_33 = None
        mm_7: "f32[192, 64]" = torch.ops.aten.mm.default(permute_29, view_1);  permute_29 = view_1 = None
        return (None, view_32, mm_7, mm_6, view_23, sum_9, sum_10, mm_4, view_20, mm_2, view_17, sum_3, sum_4)
