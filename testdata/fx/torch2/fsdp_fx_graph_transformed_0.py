class GraphModule(torch.nn.Module):
    def forward(self, primals_1: "f32[8, 64]", primals_2: "f32[16, 64]", primals_3: "f32[8, 64]"):
        # recompute: MUST_SAVE File: /work/main/.venv-torch/lib/python3.11/site-packages/torch/distributed/_functional_collectives.py:229 in all_gather_single, code: tensor = torch.ops._c10d_functional.all_gather_into_tensor(
        all_gather_into_tensor: "f32[64, 64]" = torch.ops._c10d_functional.all_gather_into_tensor.default(primals_1, 8, '0');  primals_1 = None

        # recompute: MUST_SAVE File: /work/main/.venv-torch/lib/python3.11/site-packages/torch/distributed/_functional_collectives.py:143 in wait_tensor, code: return torch.ops._c10d_functional.wait_tensor(tensor)  # type: ignore[attr-defined]
        wait_tensor: "f32[64, 64]" = torch.ops._c10d_functional.wait_tensor.default(all_gather_into_tensor);  all_gather_into_tensor = None

        # File: /work/main/scripts/torch/capture_artifacts.py:59 in forward, code: x = torch.relu(x @ funcol.all_gather_single_autograd(s, 0, groups["0"]).t())
        permute: "f32[64, 64]" = torch.ops.aten.permute.default(wait_tensor, [1, 0]);  wait_tensor = None
        mm: "f32[16, 64]" = torch.ops.aten.mm.default(primals_2, permute);  permute = None
        relu: "f32[16, 64]" = torch.ops.aten.relu.default(mm);  mm = None

        # recompute: MUST_SAVE File: /work/main/.venv-torch/lib/python3.11/site-packages/torch/distributed/_functional_collectives.py:229 in all_gather_single, code: tensor = torch.ops._c10d_functional.all_gather_into_tensor(
        all_gather_into_tensor_1: "f32[64, 64]" = torch.ops._c10d_functional.all_gather_into_tensor.default(primals_3, 8, '0');  primals_3 = None

        # recompute: MUST_SAVE File: /work/main/.venv-torch/lib/python3.11/site-packages/torch/distributed/_functional_collectives.py:143 in wait_tensor, code: return torch.ops._c10d_functional.wait_tensor(tensor)  # type: ignore[attr-defined]
        wait_tensor_1: "f32[64, 64]" = torch.ops._c10d_functional.wait_tensor.default(all_gather_into_tensor_1);  all_gather_into_tensor_1 = None

        # File: /work/main/scripts/torch/capture_artifacts.py:59 in forward, code: x = torch.relu(x @ funcol.all_gather_single_autograd(s, 0, groups["0"]).t())
        permute_1: "f32[64, 64]" = torch.ops.aten.permute.default(wait_tensor_1, [1, 0]);  wait_tensor_1 = None
        mm_1: "f32[16, 64]" = torch.ops.aten.mm.default(relu, permute_1)
        relu_1: "f32[16, 64]" = torch.ops.aten.relu.default(mm_1)

        # File: /work/main/scripts/torch/capture_artifacts.py:60 in forward, code: return x.pow(2).mean()
        pow_1: "f32[16, 64]" = torch.ops.aten.pow.Tensor_Scalar(relu_1, 2);  relu_1 = None
        mean: "f32[]" = torch.ops.aten.mean.default(pow_1);  pow_1 = None

        # Backward of forward node: File: /work/main/scripts/torch/capture_artifacts.py:59 in forward, code: x = torch.relu(x @ funcol.all_gather_single_autograd(s, 0, groups["0"]).t())
        permute_4: "f32[64, 64]" = torch.ops.aten.permute.default(permute_1, [1, 0]);  permute_1 = None
        return (mean, primals_2, relu, mm_1, permute_4)
