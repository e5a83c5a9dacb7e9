class GraphModule(torch.nn.Module):
    def forward(self, primals_1: "f32[16, 64]", primals_2: "f32[192]", primals_3: "f32[192, 64]", primals_4: "f32[64, 64]", primals_5: "f32[64]", primals_6: "f32[64]", primals_7: "f32[64]", primals_8: "f32[128, 64]", primals_9: "f32[128]", primals_10: "f32[64, 128]", primals_11: "f32[64]", primals_12: "f32[64]", primals_13: "f32[64]"):
        # File: /work/main/scripts/torch/capture_artifacts.py:97 in forward, code: x = x.view(2, 8, 64)
        view: "f32[2, 8, 64]" = torch.ops.aten.reshape.default(primals_1, [2, 8, 64]);  primals_1 = None

        # File: /work/main/scripts/torch/capture_artifacts.py:98 in forward, code: mask = torch.nn.Transformer.generate_square_subsequent_mask(8)
        full_default: "f32[8, 8]" = torch.ops.aten.full.default([8, 8], -inf, dtype = torch.float32, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        iota: "i64[8]" = torch.ops.prims.iota.default(8, start = 0, step = 1, dtype = torch.int64, device = device(type='cpu'), requires_grad = False)
        unsqueeze: "i64[1, 8]" = torch.ops.aten.unsqueeze.default(iota, -2)
        unsqueeze_1: "i64[8, 1]" = torch.ops.aten.unsqueeze.default(iota, -1);  iota = None
        sub: "i64[8, 8]" = torch.ops.aten.sub.Tensor(unsqueeze, unsqueeze_1);  unsqueeze = unsqueeze_1 = None
        ge: "b8[8, 8]" = torch.ops.aten.ge.Scalar(sub, 1);  sub = None
        full_default_1: "f32[]" = torch.ops.aten.full.default([], 0.0, dtype = torch.float32, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        where: "f32[8, 8]" = torch.ops.aten.where.self(ge, full_default, full_default_1);  ge = full_default = full_default_1 = None

        # File: /work/main/scripts/torch/capture_artifacts.py:99 in forward, code: return self.layer(x, src_mask=mask).pow(2).mean()
        permute: "f32[8, 2, 64]" = torch.ops.aten.permute.default(view, [1, 0, 2])
        permute_1: "f32[64, 192]" = torch.ops.aten.permute.default(primals_3, [1, 0]);  primals_3 = None
        clone: "f32[8, 2, 64]" = torch.ops.aten.clone.default(permute, memory_format = torch.contiguous_format);  permute = None
        view_1: "f32[16, 64]" = torch.ops.aten.reshape.default(clone, [16, 64]);  clone = None
        mm: "f32[16, 192]" = torch.ops.aten.mm.default(view_1, permute_1);  permute_1 = None
        view_2: "f32[8, 2, 192]" = torch.ops.aten.reshape.default(mm, [8, 2, 192]);  mm = None
        add: "f32[8, 2, 192]" = torch.ops.aten.add.Tensor(view_2, primals_2);  view_2 = primals_2 = None
        view_3: "f32[8, 2, 3, 64]" = torch.ops.aten.reshape.default(add, [8, 2, 3, 64]);  add = None
        unsqueeze_2: "f32[1, 8, 2, 3, 64]" = torch.ops.aten.unsqueeze.default(view_3, 0);  view_3 = None
        permute_2: "f32[3, 8, 2, 1, 64]" = torch.ops.aten.permute.default(unsqueeze_2, [3, 1, 2, 0, 4]);  unsqueeze_2 = None
        squeeze: "f32[3, 8, 2, 64]" = torch.ops.aten.squeeze.dim(permute_2, -2);  permute_2 = None
        clone_1: "f32[3, 8, 2, 64]" = torch.ops.aten.clone.default(squeeze, memory_format = torch.contiguous_format);  squeeze = None
        select: "f32[8, 2, 64]" = torch.ops.aten.select.int(clone_1, 0, 0)
        select_1: "f32[8, 2, 64]" = torch.ops.aten.select.int(clone_1, 0, 1)
        select_2: "f32[8, 2, 64]" = torch.ops.aten.select.int(clone_1, 0, 2);  clone_1 = None
        unsqueeze_3: "f32[1, 8, 8]" = torch.ops.aten.unsqueeze.default(where, 0);  where = None
        view_4: "f32[8, 8, 16]" = torch.ops.aten.reshape.default(select, [8, 8, 16]);  select = None
        permute_3: "f32[8, 8, 16]" = torch.ops.aten.permute.default(view_4, [1, 0, 2]);  view_4 = None
        view_5: "f32[8, 8, 16]" = torch.ops.aten.reshape.default(select_1, [8, 8, 16]);  select_1 = None
        permute_4: "f32[8, 8, 16]" = torch.ops.aten.permute.default(view_5, [1, 0, 2]);  view_5 = None
        view_6: "f32[8, 8, 16]" = torch.ops.aten.reshape.default(select_2, [8, 8, 16]);  select_2 = None
        permute_5: "f32[8, 8, 16]" = torch.ops.aten.permute.default(view_6, [1, 0, 2]);  view_6 = None
        unsqueeze_4: "f32[1, 1, 8, 8]" = torch.ops.aten.unsqueeze.default(unsqueeze_3, 0);  unsqueeze_3 = None
        view_7: "f32[2, 4, 8, 16]" = torch.ops.aten.reshape.default(permute_3, [2, 4, 8, 16]);  permute_3 = None
        view_8: "f32[2, 4, 8, 16]" = torch.ops.aten.reshape.default(permute_4, [2, 4, 8, 16]);  permute_4 = None
        view_9: "f32[2, 4, 8, 16]" = torch.ops.aten.reshape.default(permute_5, [2, 4, 8, 16]);  permute_5 = None
        _scaled_dot_product_flash_attention_for_cpu = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu.default(view_7, view_8, view_9, attn_mask = unsqueeze_4)
        getitem: "f32[2, 4, 8, 16]" = _scaled_dot_product_flash_attention_for_cpu[0]
        getitem_1: "f32[2, 4, 8]" = _scaled_dot_product_flash_attention_for_cpu[1];  _scaled_dot_product_flash_attention_for_cpu = None
        permute_6: "f32[8, 2, 4, 16]" = torch.ops.aten.permute.default(getitem, [2, 0, 1, 3])
        view_10: "f32[16, 64]" = torch.ops.aten.reshape.default(permute_6, [16, 64]);  permute_6 = None
        permute_7: "f32[64, 64]" = torch.ops.aten.permute.default(primals_4, [1, 0])
        addmm: "f32[16, 64]" = torch.ops.aten.addmm.default(primals_5, view_10, permute_7);  primals_5 = view_10 = permute_7 = None
        view_11: "f32[8, 2, 64]" = torch.ops.aten.reshape.default(addmm, [8, 2, 64]);  addmm = None
        permute_8: "f32[2, 8, 64]" = torch.ops.aten.permute.default(view_11, [1, 0, 2]);  view_11 = None
        add_1: "f32[2, 8, 64]" = torch.ops.aten.add.Tensor(view, permute_8);  view = permute_8 = None
        var_mean = torch.ops.aten.var_mean.correction(add_1, [2], correction = 0, keepdim = True)
        getitem_2: "f32[2, 8, 1]" = var_mean[0]
        getitem_3: "f32[2, 8, 1]" = var_mean[1];  var_mean = None
        add_2: "f32[2, 8, 1]" = torch.ops.aten.add.Tensor(getitem_2, 1e-05);  getitem_2 = None
        rsqrt: "f32[2, 8, 1]" = torch.ops.aten.rsqrt.default(add_2);  add_2 = None
        sub_1: "f32[2, 8, 64]" = torch.ops.aten.sub.Tensor(add_1, getitem_3);  add_1 = getitem_3 = None
        mul: "f32[2, 8, 64]" = torch.ops.aten.mul.Tensor(sub_1, rsqrt);  sub_1 = None
        mul_1: "f32[2, 8, 64]" = torch.ops.aten.mul.Tensor(mul, primals_6)
        add_3: "f32[2, 8, 64]" = torch.ops.aten.add.Tensor(mul_1, primals_7);  mul_1 = primals_7 = None
        view_12: "f32[16, 64]" = torch.ops.aten.reshape.default(add_3, [16, 64])
        permute_9: "f32[64, 128]" = torch.ops.aten.permute.default(primals_8, [1, 0])
        addmm_1: "f32[16, 128]" = torch.ops.aten.addmm.default(primals_9, view_12, permute_9);  primals_9 = permute_9 = None
        view_13: "f32[2, 8, 128]" = torch.ops.aten.reshape.default(addmm_1, [2, 8, 128]);  addmm_1 = None
        relu: "f32[2, 8, 128]" = torch.ops.aten.relu.default(view_13);  view_13 = None
        view_14: "f32[16, 128]" = torch.ops.aten.reshape.default(relu, [16, 128])
        permute_10: "f32[128, 64]" = torch.ops.aten.permute.default(primals_10, [1, 0])
        addmm_2: "f32[16, 64]" = torch.ops.aten.addmm.default(primals_11, view_14, permute_10);  primals_11 = permute_10 = None
        view_15: "f32[2, 8, 64]" = torch.ops.aten.reshape.default(addmm_2, [2, 8, 64]);  addmm_2 = None
        add_4: "f32[2, 8, 64]" = torch.ops.aten.add.Tensor(add_3, view_15);  add_3 = view_15 = None
        var_mean_1 = torch.ops.aten.var_mean.correction(add_4, [2], correction = 0, keepdim = True)
        getitem_4: "f32[2, 8, 1]" = var_mean_1[0]
        getitem_5: "f32[2, 8, 1]" = var_mean_1[1];  var_mean_1 = None
        add_5: "f32[2, 8, 1]" = torch.ops.aten.add.Tensor(getitem_4, 1e-05);  getitem_4 = None
        rsqrt_1: "f32[2, 8, 1]" = torch.ops.aten.rsqrt.default(add_5);  add_5 = None
        sub_2: "f32[2, 8, 64]" = torch.ops.aten.sub.Tensor(add_4, getitem_5);  add_4 = getitem_5 = None
        mul_2: "f32[2, 8, 64]" = torch.ops.aten.mul.Tensor(sub_2, rsqrt_1);  sub_2 = None
        mul_3: "f32[2, 8, 64]" = torch.ops.aten.mul.Tensor(mul_2, primals_12)
        add_6: "f32[2, 8, 64]" = torch.ops.aten.add.Tensor(mul_3, primals_13);  mul_3 = None
        pow_1: "f32[2, 8, 64]" = torch.ops.aten.pow.Tensor_Scalar(add_6, 2);  add_6 = None
        mean: "f32[]" = torch.ops.aten.mean.default(pow_1);  pow_1 = None

        # Backward of forward node: File: /work/main/scripts/torch/capture_artifacts.py:99 in forward, code: return self.layer(x, src_mask=mask).pow(2).mean()
        div_1: "f32[2, 8, 1]" = torch.ops.aten.div.Tensor(rsqrt_1, 64);  rsqrt_1 = None
        le: "b8[2, 8, 128]" = torch.ops.aten.le.Scalar(relu, 0);  relu = None
        div_2: "f32[2, 8, 1]" = torch.ops.aten.div.Tensor(rsqrt, 64);  rsqrt = None
        return (mean, primals_4, primals_6, primals_8, primals_10, primals_12, primals_13, view_1, unsqueeze_4, view_7, view_8, view_9, getitem, getitem_1, mul, view_12, view_14, mul_2, div_1, le, div_2)
