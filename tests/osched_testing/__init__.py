"""What the project's Python checks and benchmarks share: where the binary
is and how it runs (tool), graphs built in the graph format (graphs), and
graphs read back and compared (compare).

It lives in tests/, which every check there imports it from. Benchmarks and
other scripts reach it through PYTHONPATH (their shell wrappers and ctest set
it); no file edits sys.path."""

from .compare import load_graph, nodes_by_name
from .graphs import GraphBuilder, fsdp_guard, llama_fsdp, moe_a2a_sym_size, two_d
from .tool import ROOT, RunFailed, binary, run

__all__ = ["ROOT", "RunFailed", "binary", "run", "GraphBuilder", "fsdp_guard", "llama_fsdp",
           "moe_a2a_sym_size", "two_d", "load_graph", "nodes_by_name"]
