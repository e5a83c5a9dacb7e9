# Backward of a 2-D (TP x FSDP) layer: tp all-reduce of activations' gradient,
# dp reduce-scatters of weight gradients, coalesced all-gather of the next
# layer's shards read through getitem; tuple output with None entries.
class GraphModule(torch.nn.Module):
    def forward(self, primals_1: "bf16[512, 1024][1024, 1]cuda:0", primals_2: "bf16[512, 1024][1024, 1]cuda:0", primals_3: "bf16[4096, 1024][1024, 1]cuda:0", view: "bf16[4096, 1024][1024, 1]cuda:0", tangents_1: "bf16[4096, 1024][1024, 1]cuda:0"):
        all_gather_into_tensor_coalesced = torch.ops._c10d_functional.all_gather_into_tensor_coalesced.default([primals_1, primals_2], 2, 'dp')
        getitem: "bf16[1024, 1024][1024, 1]cuda:0" = all_gather_into_tensor_coalesced[0]
        getitem_1: "bf16[1024, 1024][1024, 1]cuda:0" = all_gather_into_tensor_coalesced[1];  all_gather_into_tensor_coalesced = None
        permute: "bf16[1024, 4096][1, 1024]cuda:0" = torch.ops.aten.permute.default(tangents_1, [1, 0])
        mm: "bf16[1024, 1024][1024, 1]cuda:0" = torch.ops.aten.mm.default(permute, view);  permute = view = None
        mm_1: "bf16[4096, 1024][1024, 1]cuda:0" = torch.ops.aten.mm.default(tangents_1, primals_3);  tangents_1 = None
        all_reduce: "bf16[4096, 1024][1024, 1]cuda:0" = torch.ops._c10d_functional.all_reduce.default(mm_1, 'sum', 'tp');  mm_1 = None
        reduce_scatter_tensor: "bf16[512, 1024][1024, 1]cuda:0" = torch.ops._c10d_functional.reduce_scatter_tensor.default(mm, 'avg', 2, 'dp');  mm = None
        wait_tensor: "bf16[-024, 1024][1024, 1]cuda:0" = torch.ops._c10d_functional.wait_tensor.default(getitem);  getitem = None
        wait_tensor_1: "bf16[1024, 1024][1024, 1]cuda:0" = torch.ops._c10d_functional.wait_tensor.default(getitem_1);  getitem_1 = None
        mm_2: "bf16[4096, 1024][1024, 1]cuda:0" = torch.ops.aten.mm.default(primals_3, wait_tensor);  wait_tensor = None
        mm_3: "bf16[4096, 1024][1024, 1]cuda:0" = torch.ops.aten.mm.default(mm_2, wait_tensor_1);  mm_2 = wait_tensor_1 = None
        wait_tensor_2: "bf16[4096, 1024][1024, 1]cuda:0" = torch.ops._c10d_functional.wait_tensor.default(all_reduce);  all_reduce = None
        wait_tensor_3: "bf16[512, 1024][1024, 1]cuda:0" = torch.ops._c10d_functional.wait_tensor.default(reduce_scatter_tensor);  reduce_scatter_tensor = None
        return (wait_tensor_3, None, None, wait_tensor_2, mm_3)
