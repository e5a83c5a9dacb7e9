class GraphModule(torch.nn.Module):
    def forward(self, primals_1: "f32[4, 64]", primals_2: "f32[32, 64]", primals_3: "f32[4, 64, 64]", primals_4: "f32[64, 64]"):
        # File: /work/main/scripts/torch/capture_artifacts.py:81 in forward, code: weight, _ = torch.softmax(x @ self.router.t(), -1).max(-1, keepdim=True)
        permute: "f32[64, 4]" = torch.ops.aten.permute.default(primals_1, [1, 0]);  primals_1 = None
        mm: "f32[32, 4]" = torch.ops.aten.mm.default(primals_2, permute);  permute = None
        amax: "f32[32, 1]" = torch.ops.aten.amax.default(mm, [-1], True)
        sub: "f32[32, 4]" = torch.ops.aten.sub.Tensor(mm, amax);  amax = None
        exp: "f32[32, 4]" = torch.ops.aten.exp.default(sub);  sub = None
        sum_1: "f32[32, 1]" = torch.ops.aten.sum.dim_IntList(exp, [-1], True)
        div: "f32[32, 4]" = torch.ops.aten.div.Tensor(exp, sum_1);  exp = sum_1 = None
        max_1 = torch.ops.aten.max.dim(div, -1, True);  div = None
        getitem: "f32[32, 1]" = max_1[0];  max_1 = None

        # File: /work/main/scripts/torch/capture_artifacts.py:83 in forward, code: recv = funcol.all_to_all_single_autograd(x * weight, splits, splits, groups["1"])
        mul: "f32[32, 64]" = torch.ops.aten.mul.Tensor(primals_2, getitem);  getitem = None

        # recompute: MUST_SAVE File: /work/main/.venv-torch/lib/python3.11/site-packages/torch/distributed/_functional_collectives.py:612 in all_to_all_single, code: tensor = torch.ops._c10d_functional.all_to_all_single(  # type: ignore[attr-defined]
        all_to_all_single: "f32[32, 64]" = torch.ops._c10d_functional.all_to_all_single.default(mul, [8, 8, 8, 8], [8, 8, 8, 8], '1');  mul = None

        # recompute: MUST_SAVE File: /work/main/.venv-torch/lib/python3.11/site-packages/torch/distributed/_functional_collectives.py:143 in wait_tensor, code: return torch.ops._c10d_functional.wait_tensor(tensor)  # type: ignore[attr-defined]
        wait_tensor: "f32[32, 64]" = torch.ops._c10d_functional.wait_tensor.default(all_to_all_single);  all_to_all_single = None

        # File: /work/main/scripts/torch/capture_artifacts.py:84 in forward, code: out = torch.cat([torch.relu(c @ w.t()) for c, w in zip(recv.chunk(4), self.experts)])
        split = torch.ops.aten.split.Tensor(wait_tensor, 8);  wait_tensor = None
        getitem_2: "f32[8, 64]" = split[0]
        getitem_3: "f32[8, 64]" = split[1]
        getitem_4: "f32[8, 64]" = split[2]
        getitem_5: "f32[8, 64]" = split[3];  split = None
        select: "f32[64, 64]" = torch.ops.aten.select.int(primals_3, 0, 0)
        select_1: "f32[64, 64]" = torch.ops.aten.select.int(primals_3, 0, 1)
        select_2: "f32[64, 64]" = torch.ops.aten.select.int(primals_3, 0, 2)
        select_3: "f32[64, 64]" = torch.ops.aten.select.int(primals_3, 0, 3)

        # File: /work/main/scripts/torch/capture_artifacts.py:84 in <listcomp>, code: out = torch.cat([torch.relu(c @ w.t()) for c, w in zip(recv.chunk(4), self.experts)])
        permute_1: "f32[64, 64]" = torch.ops.aten.permute.default(select, [1, 0]);  select = None
        mm_1: "f32[8, 64]" = torch.ops.aten.mm.default(getitem_2, permute_1);  permute_1 = None
        relu: "f32[8, 64]" = torch.ops.aten.relu.default(mm_1);  mm_1 = None
        permute_2: "f32[64, 64]" = torch.ops.aten.permute.default(select_1, [1, 0]);  select_1 = None
        mm_2: "f32[8, 64]" = torch.ops.aten.mm.default(getitem_3, permute_2);  permute_2 = None
        relu_1: "f32[8, 64]" = torch.ops.aten.relu.default(mm_2);  mm_2 = None
        permute_3: "f32[64, 64]" = torch.ops.aten.permute.default(select_2, [1, 0]);  select_2 = None
        mm_3: "f32[8, 64]" = torch.ops.aten.mm.default(getitem_4, permute_3);  permute_3 = None
        relu_2: "f32[8, 64]" = torch.ops.aten.relu.default(mm_3);  mm_3 = None
        permute_4: "f32[64, 64]" = torch.ops.aten.permute.default(select_3, [1, 0]);  select_3 = None
        mm_4: "f32[8, 64]" = torch.ops.aten.mm.default(getitem_5, permute_4);  permute_4 = None
        relu_3: "f32[8, 64]" = torch.ops.aten.relu.default(mm_4);  mm_4 = None

        # File: /work/main/scripts/torch/capture_artifacts.py:84 in forward, code: out = torch.cat([torch.relu(c @ w.t()) for c, w in zip(recv.chunk(4), self.experts)])
        cat: "f32[32, 64]" = torch.ops.aten.cat.default([relu, relu_1, relu_2, relu_3])

        # recompute: MUST_SAVE File: /work/main/.venv-torch/lib/python3.11/site-packages/torch/distributed/_functional_collectives.py:612 in all_to_all_single, code: tensor = torch.ops._c10d_functional.all_to_all_single(  # type: ignore[attr-defined]
        all_to_all_single_1: "f32[32, 64]" = torch.ops._c10d_functional.all_to_all_single.default(cat, [8, 8, 8, 8], [8, 8, 8, 8], '1');  cat = None

        # recompute: MUST_SAVE File: /work/main/.venv-torch/lib/python3.11/site-packages/torch/distributed/_functional_collectives.py:143 in wait_tensor, code: return torch.ops._c10d_functional.wait_tensor(tensor)  # type: ignore[attr-defined]
        wait_tensor_1: "f32[32, 64]" = torch.ops._c10d_functional.wait_tensor.default(all_to_all_single_1);  all_to_all_single_1 = None

        # File: /work/main/scripts/torch/capture_artifacts.py:86 in forward, code: return (back + torch.tanh(x @ self.dense.t())).pow(2).mean()
        permute_5: "f32[64, 64]" = torch.ops.aten.permute.default(primals_4, [1, 0]);  primals_4 = None
        mm_5: "f32[32, 64]" = torch.ops.aten.mm.default(primals_2, permute_5);  permute_5 = None
        tanh: "f32[32, 64]" = torch.ops.aten.tanh.default(mm_5)
        add: "f32[32, 64]" = torch.ops.aten.add.Tensor(wait_tensor_1, tanh);  tanh = None
        pow_1: "f32[32, 64]" = torch.ops.aten.pow.Tensor_Scalar(add, 2);  add = None
        mean: "f32[]" = torch.ops.aten.mean.default(pow_1);  pow_1 = None

        # Backward of forward node: File: /work/main/scripts/torch/capture_artifacts.py:84 in <listcomp>, code: out = torch.cat([torch.relu(c @ w.t()) for c, w in zip(recv.chunk(4), self.experts)])
        le: "b8[8, 64]" = torch.ops.aten.le.Scalar(relu_3, 0);  relu_3 = None
        le_1: "b8[8, 64]" = torch.ops.aten.le.Scalar(relu_2, 0);  relu_2 = None
        le_2: "b8[8, 64]" = torch.ops.aten.le.Scalar(relu_1, 0);  relu_1 = None
        le_3: "b8[8, 64]" = torch.ops.aten.le.Scalar(relu, 0);  relu = None
        return (mean, primals_2, primals_3, mm, getitem_2, getitem_3, getitem_4, getitem_5, wait_tensor_1, mm_5, le, le_1, le_2, le_3)
