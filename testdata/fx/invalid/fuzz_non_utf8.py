# FSDP2-style forward after post-grad passes, as print_readable(include_stride=True,
# include_device=True) prints it (TORCH_COMPILE_DEBUG's fx_graph_transformed.py form).
class GraphModule(torch.nn.Module):
    def forward(self, primals_1: "f32[4096, 1024][1024, 1]cuda:0", primals_2: "f32[4096, 1024][1024, 1]cuda:0", primals_3: "bf16[8, 2048, 4096][8388608, 4096, 1]cuda:0"):
        # File: /workspace/model.py:41 in forward, code: h = self.w1(x)
        convert_element_type: "bf16[4096, 1024][1024, 1]cuda:0" = torch.ops.prims.convert_element_type.default(primals_1, torch.bfloat16);  primals_1 = None
        all_gather_into_tensor: "bf16[32768, 1024][1024, 1]cuda:0" = torch.ops._c10d_functional.all_gather_into_tensor.default(convert_element_type, 8, '0');  convert_element_type = None
        wait_tensor: "bf16[32768, 1024][1024, 1]cuda:0" = torch.ops._c10d_functional.wait_tensor.default(all_gather_into_tensor);  all_gather_into_tensor = None
        view: "bf16[4096, 8192]Ñ[8192, 1]cuda:0" = torch.ops.aten.view.default(wait_tensor, [4096, 8192]);  wait_tensor = None
        convert_element_type_1: "bf16[4096, 1024][1024, 1]cuda:0" = torch.ops.prims.convert_element_type.default(primals_2, torch.bfloat16);  primals_2 = None
        all_gather_into_tensor_1: "bf16[32768, 1024][1024, 1]cuda:0" = torch.ops._c10d_functional.all_gather_into_tensor.default(convert_element_type_1, 8, '0');  convert_element_type_1 = None
        view_1: "bf16[16384, 4096][4096, 1]cuda:0" = torch.ops.aten.view.default(primals_3, [16384, 4096]);  primals_3 = None
        permute: "bf16[8192, 4096][1, 8192]cuda:0" = torch.ops.aten.permute.default(view, [1, 0]);  view = None
        mm: "bf16[16384, 8192][8192, 1]cuda:0" = torch.ops.aten.mm.default(view_1, permute);  view_1 = permute = None
        # File: /workspace/model.py:42 in forward, code: h = F.silu(h)
        silu: "bf16[16384, 8192][8192, 1]cuda:0" = torch.ops.aten.silu.default(mm)
        wait_tensor_1: "bf16[32768, 1024][1024, 1]cuda:0" = torch.ops._c10d_functional.wait_tensor.default(all_gather_into_tensor_1);  all_gather_into_tensor_1 = None
        view_2: "bf16[8192, 4096][4096, 1]cuda:0" = torch.ops.aten.view.default(wait_tensor_1, [8192, 4096]);  wait_tensor_1 = None
        permute_1: "bf16[4096, 8192][1, 4096]cuda:0" = torch.ops.aten.permute.default(view_2, [1, 0]);  view_2 = None
        mm_1: "bf16[16384, 4096][4096, 1]cuda:0" = torch.ops.aten.mm.default(silu, permute_1);  silu = permute_1 = None
        view_3: "bf16[8, 2048, 4096][8388608, 4096, 1]cuda:0" = torch.ops.aten.view.default(mm_1, [8, 2048, 4096]);  mm_1 = None
        return (view_3, mm)
