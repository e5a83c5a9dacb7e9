# MoE expert block with all_to_all_single dispatch/combine over 2 ranks, a
# dynamic token count (SymInt placeholder s0, hint from --hint s0=4096),
# unbacked received counts u0/u1 and sizes computed through sym_size and
# SymInt arithmetic; print_readable() without strides or devices.
class GraphModule(torch.nn.Module):
    def forward(self, s0: "Sym(s0)", primals_1: "bf16[s0, 2048]", primals_2: "bf16[2048, 1024]", primals_3: "i64[2]"):
        sym_size_int: "Sym(s0)" = torch.ops.aten.sym_size.int(primals_1, 0)
        floordiv: "Sym((s0//2))" = sym_size_int // 2
        all_to_all_single: "i64[2]" = torch.ops._c10d_functional.all_to_all_single.default(primals_3, [1, 1], [1, 1], '1')
        wait_tensor: "i64[2]" = torch.ops._c10d_functional.wait_tensor.default(all_to_all_single);  all_to_all_single = None
        select: "i64[]" = torch.ops.aten.select.int(wait_tensor, 0, 0)
        _local_scalar_dense: "Sym(u0)" = torch.ops.aten._local_scalar_dense.default(select);  select = None
        select_1: "i64[]" = torch.ops.aten.select.int(wait_tensor, 0, 1);  wait_tensor = None
        _local_scalar_dense_1: "Sym(u1)" = torch.ops.aten._local_scalar_dense.default(select_1);  select_1 = None
        all_to_all_single_1: "bf16[u0 + u1, 2048]" = torch.ops._c10d_functional.all_to_all_single.default(primals_1, [_local_scalar_dense, _local_scalar_dense_1], [floordiv, floordiv], '1')
        permute: "bf16[1024, 2048]" = torch.ops.aten.permute.default(primals_2, [1, 0])
        mm: "bf16[s0, 1024]" = torch.ops.aten.mm.default(primals_1, primals_2)
        wait_tensor_1: "bf16[u0 + u1, 2048]" = torch.ops._c10d_functional.wait_tensor.default(all_to_all_single_1);  all_to_all_single_1 = None
        mm_1: "bf16[u0 + u1, 1024]" = torch.ops.aten.mm.default(wait_tensor_1, primals_2);  wait_tensor_1 = None
        silu: "bf16[u0 + u1, 1024]" = torch.ops.aten.silu.default(mm_1);  mm_1 = None
        mm_2: "bf16[u0 + u1, 2048]" = torch.ops.aten.mm.default(silu, permute);  silu = permute = None
        all_to_all_single_2: "bf16[s0, 2048]" = torch.ops._c10d_functional.all_to_all_single.default(mm_2, [floordiv, floordiv], [_local_scalar_dense, _local_scalar_dense_1], '1');  mm_2 = None
        wait_tensor_2: "bf16[s0, 2048]" = torch.ops._c10d_functional.wait_tensor.default(all_to_all_single_2);  all_to_all_single_2 = None
        mul: "Sym(2*s0)" = sym_size_int * 2
        view: "bf16[2*s0, 1024]" = torch.ops.aten.view.default(wait_tensor_2, [mul, 1024]);  wait_tensor_2 = mul = None
        return (view, mm)
