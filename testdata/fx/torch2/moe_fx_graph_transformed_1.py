class GraphModule(torch.nn.Module):
    def forward(self, primals_2: "f32[32, 64]", primals_3: "f32[4, 64, 64]", mm: "f32[32, 4]", getitem_2: "f32[8, 64]", getitem_3: "f32[8, 64]", getitem_4: "f32[8, 64]", getitem_5: "f32[8, 64]", wait_tensor_1: "f32[32, 64]", mm_5: "f32[32, 64]", le: "b8[8, 64]", le_1: "b8[8, 64]", le_2: "b8[8, 64]", le_3: "b8[8, 64]", tangents_1: "f32[]"):
        # Backward of forward node: File: /work/main/scripts/torch/capture_artifacts.py:86 in forward, code: return (back + torch.tanh(x @ self.dense.t())).pow(2).mean()
        expand: "f32[32, 64]" = torch.ops.aten.expand.default(tangents_1, [32, 64]);  tangents_1 = None
        div_1: "f32[32, 64]" = torch.ops.aten.div.Scalar(expand, 2048);  expand = None
        tanh: "f32[32, 64]" = torch.ops.aten.tanh.default(mm_5);  mm_5 = None
        add: "f32[32, 64]" = torch.ops.aten.add.Tensor(wait_tensor_1, tanh);  wait_tensor_1 = None
        pow_2: "f32[32, 64]" = torch.ops.aten.pow.Tensor_Scalar(add, 1.0);  add = None
        mul_1: "f32[32, 64]" = torch.ops.aten.mul.Scalar(pow_2, 2.0);  pow_2 = None
        mul_2: "f32[32, 64]" = torch.ops.aten.mul.Tensor(div_1, mul_1);  div_1 = mul_1 = None
        mul_3: "f32[32, 64]" = torch.ops.aten.mul.Tensor(tanh, tanh);  tanh = None
        sub_1: "f32[32, 64]" = torch.ops.aten.sub.Tensor(1, mul_3);  mul_3 = None
        mul_4: "f32[32, 64]" = torch.ops.aten.mul.Tensor(mul_2, sub_1);  sub_1 = None
        permute_6: "f32[64, 32]" = torch.ops.aten.permute.default(mul_4, [1, 0]);  mul_4 = None
        mm_6: "f32[64, 64]" = torch.ops.aten.mm.default(permute_6, primals_2);  permute_6 = None

        # recompute: MUST_SAVE Backward of forward node: File: /work/main/.venv-torch/lib/python3.11/site-packages/torch/distributed/_functional_collectives.py:612 in all_to_all_single, code: tensor = torch.ops._c10d_functional.all_to_all_single(  # type: ignore[attr-defined]
        all_to_all_single_2: "f32[32, 64]" = torch.ops._c10d_functional.all_to_all_single.default(mul_2, [8, 8, 8, 8], [8, 8, 8, 8], '1');  mul_2 = None
        wait_tensor_2: "f32[32, 64]" = torch.ops._c10d_functional.wait_tensor.default(all_to_all_single_2);  all_to_all_single_2 = None

        # Backward of forward node: File: /work/main/scripts/torch/capture_artifacts.py:84 in forward, code: out = torch.cat([torch.relu(c @ w.t()) for c, w in zip(recv.chunk(4), self.experts)])
        slice_1: "f32[8, 64]" = torch.ops.aten.slice.Tensor(wait_tensor_2, 0, 0, 8)
        slice_2: "f32[8, 64]" = torch.ops.aten.slice.Tensor(wait_tensor_2, 0, 8, 16)
        slice_3: "f32[8, 64]" = torch.ops.aten.slice.Tensor(wait_tensor_2, 0, 16, 24)
        slice_4: "f32[8, 64]" = torch.ops.aten.slice.Tensor(wait_tensor_2, 0, 24, 32);  wait_tensor_2 = None

        # Backward of forward node: File: /work/main/scripts/torch/capture_artifacts.py:84 in <listcomp>, code: out = torch.cat([torch.relu(c @ w.t()) for c, w in zip(recv.chunk(4), self.experts)])
        full_default: "f32[]" = torch.ops.aten.full.default([], 0.0, dtype = torch.float32, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        where: "f32[8, 64]" = torch.ops.aten.where.self(le, full_default, slice_4);  le = slice_4 = None
        permute_9: "f32[64, 8]" = torch.ops.aten.permute.default(where, [1, 0])
        mm_7: "f32[64, 64]" = torch.ops.aten.mm.default(permute_9, getitem_5);  permute_9 = getitem_5 = None

        # Backward of forward node: File: /work/main/scripts/torch/capture_artifacts.py:84 in forward, code: out = torch.cat([torch.relu(c @ w.t()) for c, w in zip(recv.chunk(4), self.experts)])
        select_3: "f32[64, 64]" = torch.ops.aten.select.int(primals_3, 0, 3)

        # Backward of forward node: File: /work/main/scripts/torch/capture_artifacts.py:84 in <listcomp>, code: out = torch.cat([torch.relu(c @ w.t()) for c, w in zip(recv.chunk(4), self.experts)])
        permute_4: "f32[64, 64]" = torch.ops.aten.permute.default(select_3, [1, 0]);  select_3 = None
        permute_11: "f32[64, 64]" = torch.ops.aten.permute.default(permute_4, [1, 0]);  permute_4 = None
        mm_8: "f32[8, 64]" = torch.ops.aten.mm.default(where, permute_11);  where = permute_11 = None
        where_1: "f32[8, 64]" = torch.ops.aten.where.self(le_1, full_default, slice_3);  le_1 = slice_3 = None
        permute_13: "f32[64, 8]" = torch.ops.aten.permute.default(where_1, [1, 0])
        mm_9: "f32[64, 64]" = torch.ops.aten.mm.default(permute_13, getitem_4);  permute_13 = getitem_4 = None

        # Backward of forward node: File: /work/main/scripts/torch/capture_artifacts.py:84 in forward, code: out = torch.cat([torch.relu(c @ w.t()) for c, w in zip(recv.chunk(4), self.experts)])
        select_2: "f32[64, 64]" = torch.ops.aten.select.int(primals_3, 0, 2)

        # Backward of forward node: File: /work/main/scripts/torch/capture_artifacts.py:84 in <listcomp>, code: out = torch.cat([torch.relu(c @ w.t()) for c, w in zip(recv.chunk(4), self.experts)])
        permute_3: "f32[64, 64]" = torch.ops.aten.permute.default(select_2, [1, 0]);  select_2 = None
        permute_15: "f32[64, 64]" = torch.ops.aten.permute.default(permute_3, [1, 0]);  permute_3 = None
        mm_10: "f32[8, 64]" = torch.ops.aten.mm.default(where_1, permute_15);  where_1 = permute_15 = None
        where_2: "f32[8, 64]" = torch.ops.aten.where.self(le_2, full_default, slice_2);  le_2 = slice_2 = None
        permute_17: "f32[64, 8]" = torch.ops.aten.permute.default(where_2, [1, 0])
        mm_11: "f32[64, 64]" = torch.ops.aten.mm.default(permute_17, getitem_3);  permute_17 = getitem_3 = None

        # Backward of forward node: File: /work/main/scripts/torch/capture_artifacts.py:84 in forward, code: out = torch.cat([torch.relu(c @ w.t()) for c, w in zip(recv.chunk(4), self.experts)])
        select_1: "f32[64, 64]" = torch.ops.aten.select.int(primals_3, 0, 1)

        # Backward of forward node: File: /work/main/scripts/torch/capture_artifacts.py:84 in <listcomp>, code: out = torch.cat([torch.relu(c @ w.t()) for c, w in zip(recv.chunk(4), self.experts)])
        permute_2: "f32[64, 64]" = torch.ops.aten.permute.default(select_1, [1, 0]);  select_1 = None
        permute_19: "f32[64, 64]" = torch.ops.aten.permute.default(permute_2, [1, 0]);  permute_2 = None
        mm_12: "f32[8, 64]" = torch.ops.aten.mm.default(where_2, permute_19);  where_2 = permute_19 = None
        where_3: "f32[8, 64]" = torch.ops.aten.where.self(le_3, full_default, slice_1);  le_3 = full_default = slice_1 = None
        permute_21: "f32[64, 8]" = torch.ops.aten.permute.default(where_3, [1, 0])
        mm_13: "f32[64, 64]" = torch.ops.aten.mm.default(permute_21, getitem_2);  permute_21 = getitem_2 = None

        # Backward of forward node: File: /work/main/scripts/torch/capture_artifacts.py:84 in forward, code: out = torch.cat([torch.relu(c @ w.t()) for c, w in zip(recv.chunk(4), self.experts)])
        select: "f32[64, 64]" = torch.ops.aten.select.int(primals_3, 0, 0);  primals_3 = None

        # Backward of forward node: File: /work/main/scripts/torch/capture_artifacts.py:84 in <listcomp>, code: out = torch.cat([torch.relu(c @ w.t()) for c, w in zip(recv.chunk(4), self.experts)])
        permute_1: "f32[64, 64]" = torch.ops.aten.permute.default(select, [1, 0]);  select = None
        permute_23: "f32[64, 64]" = torch.ops.aten.permute.default(permute_1, [1, 0]);  permute_1 = None
        mm_14: "f32[8, 64]" = torch.ops.aten.mm.default(where_3, permute_23);  where_3 = permute_23 = None

        # Backward of forward node: File: /work/main/scripts/torch/capture_artifacts.py:84 in forward, code: out = torch.cat([torch.relu(c @ w.t()) for c, w in zip(recv.chunk(4), self.experts)])
        full_default_4: "f32[4, 64, 64]" = torch.ops.aten.full.default([4, 64, 64], 0, dtype = torch.float32, layout = torch.strided, device = device(type='cpu'), pin_memory = False)

        # No stacktrace found for following nodes
        select_scatter_default: "f32[4, 64, 64]" = torch.ops.aten.select_scatter.default(full_default_4, mm_7, 0, 3);  mm_7 = None
        select_scatter_default_1: "f32[4, 64, 64]" = torch.ops.aten.select_scatter.default(full_default_4, mm_9, 0, 2);  mm_9 = None

        # Backward of forward node: File: /work/main/scripts/torch/capture_artifacts.py:84 in forward, code: out = torch.cat([torch.relu(c @ w.t()) for c, w in zip(recv.chunk(4), self.experts)])
        add_1: "f32[4, 64, 64]" = torch.ops.aten.add.Tensor(select_scatter_default, select_scatter_default_1);  select_scatter_default = select_scatter_default_1 = None

        # No stacktrace found for following nodes
        select_scatter_default_2: "f32[4, 64, 64]" = torch.ops.aten.select_scatter.default(full_default_4, mm_11, 0, 1);  mm_11 = None

        # Backward of forward node: File: /work/main/scripts/torch/capture_artifacts.py:84 in forward, code: out = torch.cat([torch.relu(c @ w.t()) for c, w in zip(recv.chunk(4), self.experts)])
        add_2: "f32[4, 64, 64]" = torch.ops.aten.add.Tensor(add_1, select_scatter_default_2);  add_1 = select_scatter_default_2 = None

        # No stacktrace found for following nodes
        select_scatter_default_3: "f32[4, 64, 64]" = torch.ops.aten.select_scatter.default(full_default_4, mm_13, 0, 0);  full_default_4 = mm_13 = None

        # Backward of forward node: File: /work/main/scripts/torch/capture_artifacts.py:84 in forward, code: out = torch.cat([torch.relu(c @ w.t()) for c, w in zip(recv.chunk(4), self.experts)])
        add_3: "f32[4, 64, 64]" = torch.ops.aten.add.Tensor(add_2, select_scatter_default_3);  add_2 = select_scatter_default_3 = None
        cat_1: "f32[32, 64]" = torch.ops.aten.cat.default([mm_14, mm_12, mm_10, mm_8]);  mm_14 = mm_12 = mm_10 = mm_8 = None

        # recompute: MUST_SAVE Backward of forward node: File: /work/main/.venv-torch/lib/python3.11/site-packages/torch/distributed/_functional_collectives.py:612 in all_to_all_single, code: tensor = torch.ops._c10d_functional.all_to_all_single(  # type: ignore[attr-defined]
        all_to_all_single_3: "f32[32, 64]" = torch.ops._c10d_functional.all_to_all_single.default(cat_1, [8, 8, 8, 8], [8, 8, 8, 8], '1');  cat_1 = None
        wait_tensor_3: "f32[32, 64]" = torch.ops._c10d_functional.wait_tensor.default(all_to_all_single_3);  all_to_all_single_3 = None

        # Backward of forward node: File: /work/main/scripts/torch/capture_artifacts.py:83 in forward, code: recv = funcol.all_to_all_single_autograd(x * weight, splits, splits, groups["1"])
        mul_5: "f32[32, 64]" = torch.ops.aten.mul.Tensor(wait_tensor_3, primals_2);  wait_tensor_3 = None
        sum_2: "f32[32, 1]" = torch.ops.aten.sum.dim_IntList(mul_5, [1], True);  mul_5 = None

        # Backward of forward node: File: /work/main/scripts/torch/capture_artifacts.py:81 in forward, code: weight, _ = torch.softmax(x @ self.router.t(), -1).max(-1, keepdim=True)
        full_default_8: "f32[32, 4]" = torch.ops.aten.full.default([32, 4], 0, dtype = torch.float32, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        amax: "f32[32, 1]" = torch.ops.aten.amax.default(mm, [-1], True)
        sub: "f32[32, 4]" = torch.ops.aten.sub.Tensor(mm, amax);  mm = amax = None
        exp: "f32[32, 4]" = torch.ops.aten.exp.default(sub);  sub = None
        sum_1: "f32[32, 1]" = torch.ops.aten.sum.dim_IntList(exp, [-1], True)
        div: "f32[32, 4]" = torch.ops.aten.div.Tensor(exp, sum_1);  exp = sum_1 = None
        max_1 = torch.ops.aten.max.dim(div, -1, True)
        getitem_1: "i64[32, 1]" = max_1[1];  max_1 = None
        scatter: "f32[32, 4]" = torch.ops.aten.scatter.src(full_default_8, -1, getitem_1, sum_2);  full_default_8 = getitem_1 = sum_2 = None
        mul_6: "f32[32, 4]" = torch.ops.aten.mul.Tensor(scatter, div);  scatter = None
        sum_3: "f32[32, 1]" = torch.ops.aten.sum.dim_IntList(mul_6, [-1], True)
        neg: "f32[32, 4]" = torch.ops.aten.neg.default(div);  div = None
        fma: "f32[32, 4]" = torch.ops.prims.fma.default(neg, sum_3, mul_6);  neg = sum_3 = mul_6 = None
        permute_25: "f32[4, 32]" = torch.ops.aten.permute.default(fma, [1, 0]);  fma = None
        mm_15: "f32[4, 64]" = torch.ops.aten.mm.default(permute_25, primals_2);  permute_25 = primals_2 = None
        return (mm_15, None, add_3, mm_6)
