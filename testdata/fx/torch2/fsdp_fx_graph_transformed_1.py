class GraphModule(torch.nn.Module):
    def forward(self, primals_2: "f32[16, 64]", relu: "f32[16, 64]", mm_1: "f32[16, 64]", permute_4: "f32[64, 64]", tangents_1: "f32[]"):
        # Backward of forward node: File: /work/main/scripts/torch/capture_artifacts.py:60 in forward, code: return x.pow(2).mean()
        expand: "f32[16, 64]" = torch.ops.aten.expand.default(tangents_1, [16, 64]);  tangents_1 = None
        div: "f32[16, 64]" = torch.ops.aten.div.Scalar(expand, 1024);  expand = None

        # Backward of forward node: File: /work/main/scripts/torch/capture_artifacts.py:59 in forward, code: x = torch.relu(x @ funcol.all_gather_single_autograd(s, 0, groups["0"]).t())
        relu_1: "f32[16, 64]" = torch.ops.aten.relu.default(mm_1);  mm_1 = None

        # Backward of forward node: File: /work/main/scripts/torch/capture_artifacts.py:60 in forward, code: return x.pow(2).mean()
        pow_2: "f32[16, 64]" = torch.ops.aten.pow.Tensor_Scalar(relu_1, 1.0)
        mul: "f32[16, 64]" = torch.ops.aten.mul.Scalar(pow_2, 2.0);  pow_2 = None
        mul_1: "f32[16, 64]" = torch.ops.aten.mul.Tensor(div, mul);  div = mul = None

        # Backward of forward node: File: /work/main/scripts/torch/capture_artifacts.py:59 in forward, code: x = torch.relu(x @ funcol.all_gather_single_autograd(s, 0, groups["0"]).t())
        le: "b8[16, 64]" = torch.ops.aten.le.Scalar(relu_1, 0);  relu_1 = None
        full_default: "f32[]" = torch.ops.aten.full.default([], 0.0, dtype = torch.float32, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        where: "f32[16, 64]" = torch.ops.aten.where.self(le, full_default, mul_1);  le = mul_1 = None
        permute_2: "f32[64, 16]" = torch.ops.aten.permute.default(where, [1, 0])
        mm_2: "f32[64, 64]" = torch.ops.aten.mm.default(permute_2, relu);  permute_2 = None
        mm_3: "f32[16, 64]" = torch.ops.aten.mm.default(where, permute_4);  where = permute_4 = None

        # recompute: MUST_SAVE Backward of forward node: File: /work/main/.venv-torch/lib/python3.11/site-packages/torch/distributed/_functional_collectives.py:229 in all_gather_single, code: tensor = torch.ops._c10d_functional.all_gather_into_tensor(
        reduce_scatter_tensor: "f32[8, 64]" = torch.ops._c10d_functional.reduce_scatter_tensor.default(mm_2, 'sum', 8, '0');  mm_2 = None
        wait_tensor_2: "f32[8, 64]" = torch.ops._c10d_functional.wait_tensor.default(reduce_scatter_tensor);  reduce_scatter_tensor = None

        # Backward of forward node: File: /work/main/scripts/torch/capture_artifacts.py:59 in forward, code: x = torch.relu(x @ funcol.all_gather_single_autograd(s, 0, groups["0"]).t())
        le_1: "b8[16, 64]" = torch.ops.aten.le.Scalar(relu, 0);  relu = None
        where_1: "f32[16, 64]" = torch.ops.aten.where.self(le_1, full_default, mm_3);  le_1 = full_default = mm_3 = None
        permute_6: "f32[64, 16]" = torch.ops.aten.permute.default(where_1, [1, 0]);  where_1 = None
        mm_4: "f32[64, 64]" = torch.ops.aten.mm.default(permute_6, primals_2);  permute_6 = primals_2 = None

        # recompute: MUST_SAVE Backward of forward node: File: /work/main/.venv-torch/lib/python3.11/site-packages/torch/distributed/_functional_collectives.py:229 in all_gather_single, code: tensor = torch.ops._c10d_functional.all_gather_into_tensor(
        reduce_scatter_tensor_1: "f32[8, 64]" = torch.ops._c10d_functional.reduce_scatter_tensor.default(mm_4, 'sum', 8, '0');  mm_4 = None
        wait_tensor_3: "f32[8, 64]" = torch.ops._c10d_functional.wait_tensor.default(reduce_scatter_tensor_1);  reduce_scatter_tensor_1 = None
        return (wait_tensor_3, None, wait_tensor_2)
