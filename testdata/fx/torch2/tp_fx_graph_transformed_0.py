class GraphModule(torch.nn.Module):
    def forward(self, primals_1: "f32[8, 64]", primals_2: "f32[32, 64]", primals_3: "f32[64, 32]"):
        # recompute: MUST_SAVE File: /work/main/.venv-torch/lib/python3.11/site-packages/torch/distributed/_functional_collectives.py:229 in all_gather_single, code: tensor = torch.ops._c10d_functional.all_gather_into_tensor(
        all_gather_into_tensor: "f32[32, 64]" = torch.ops._c10d_functional.all_gather_into_tensor.default(primals_1, 4, '1')

        # recompute: MUST_SAVE File: /work/main/.venv-torch/lib/python3.11/site-packages/torch/distributed/_functional_collectives.py:143 in wait_tensor, code: return torch.ops._c10d_functional.wait_tensor(tensor)  # type: ignore[attr-defined]
        wait_tensor: "f32[32, 64]" = torch.ops._c10d_functional.wait_tensor.default(all_gather_into_tensor);  all_gather_into_tensor = None

        # File: /work/main/scripts/torch/capture_artifacts.py:70 in forward, code: y = torch.nn.functional.gelu(full @ self.w_in.t()) @ self.w_out.t()
        permute: "f32[64, 32]" = torch.ops.aten.permute.default(primals_2, [1, 0]);  primals_2 = None
        mm: "f32[32, 32]" = torch.ops.aten.mm.default(wait_tensor, permute);  permute = None
        mul: "f32[32, 32]" = torch.ops.aten.mul.Tensor(mm, 0.5)
        mul_1: "f32[32, 32]" = torch.ops.aten.mul.Tensor(mm, 0.7071067811865476)
        erf: "f32[32, 32]" = torch.ops.aten.erf.default(mul_1);  mul_1 = None
        add: "f32[32, 32]" = torch.ops.aten.add.Tensor(erf, 1);  erf = None
        mul_2: "f32[32, 32]" = torch.ops.aten.mul.Tensor(mul, add);  mul = add = None
        permute_1: "f32[32, 64]" = torch.ops.aten.permute.default(primals_3, [1, 0])
        mm_1: "f32[32, 64]" = torch.ops.aten.mm.default(mul_2, permute_1);  permute_1 = None

        # recompute: MUST_SAVE File: /work/main/.venv-torch/lib/python3.11/site-packages/torch/distributed/_functional_collectives.py:299 in reduce_scatter_single, code: tensor = torch.ops._c10d_functional.reduce_scatter_tensor(
        reduce_scatter_tensor: "f32[8, 64]" = torch.ops._c10d_functional.reduce_scatter_tensor.default(mm_1, 'sum', 4, '1');  mm_1 = None

        # recompute: MUST_SAVE File: /work/main/.venv-torch/lib/python3.11/site-packages/torch/distributed/_functional_collectives.py:143 in wait_tensor, code: return torch.ops._c10d_functional.wait_tensor(tensor)  # type: ignore[attr-defined]
        wait_tensor_1: "f32[8, 64]" = torch.ops._c10d_functional.wait_tensor.default(reduce_scatter_tensor);  reduce_scatter_tensor = None

        # File: /work/main/scripts/torch/capture_artifacts.py:71 in forward, code: return (x + funcol.reduce_scatter_single_autograd(y, "sum", 0, groups["1"])).pow(2).mean()
        add_1: "f32[8, 64]" = torch.ops.aten.add.Tensor(primals_1, wait_tensor_1);  primals_1 = wait_tensor_1 = None
        pow_1: "f32[8, 64]" = torch.ops.aten.pow.Tensor_Scalar(add_1, 2)
        mean: "f32[]" = torch.ops.aten.mean.default(pow_1);  pow_1 = None

        # Backward of forward node: File: /work/main/scripts/torch/capture_artifacts.py:71 in forward, code: return (x + funcol.reduce_scatter_single_autograd(y, "sum", 0, groups["1"])).pow(2).mean()
        pow_2: "f32[8, 64]" = torch.ops.aten.pow.Tensor_Scalar(add_1, 1.0);  add_1 = None
        mul_3: "f32[8, 64]" = torch.ops.aten.mul.Scalar(pow_2, 2.0);  pow_2 = None
        return (mean, primals_3, wait_tensor, mm, mul_2, mul_3)
