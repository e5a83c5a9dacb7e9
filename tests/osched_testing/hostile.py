"""Builders of graph inputs with hostile shapes (deep nesting, long flat
chains), shared by tests/check_hostile_inputs.py and the fuzz seeds
(tests/fuzz/make_seeds.py). Protobuf is encoded by hand: the format is
small (proto/graph.proto)."""
import json
import struct

# ---------------------------------------------------------------- protobuf


def varint(n):
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field_len(num, payload):
    return varint(num << 3 | 2) + varint(len(payload)) + payload


def field_varint(num, n):
    return varint(num << 3) + varint(n)


def field_str(num, s):
    return field_len(num, s.encode() if isinstance(s, str) else s)


def pb_value_int(n):
    return field_varint(3, n)


def pb_value_float(x):
    return varint(4 << 3 | 1) + struct.pack("<d", x)


def pb_value_list(items):
    return field_len(6, b"".join(field_len(1, v) for v in items))


def pb_value_nested(depth, leaf):
    """A Value holding `depth` lists around `leaf`, built without recursion."""
    v = leaf
    for _ in range(depth):
        v = pb_value_list([v])
    return v


def pb_meta(shape, dtype="float32", extra_json=""):
    m = b"".join(field_len(1, field_varint(1, d)) for d in shape)
    stride, s = [], 1
    for d in reversed(shape):
        stride.append(s)
        s *= d
    m += b"".join(field_len(2, field_varint(1, d)) for d in reversed(stride))
    m += field_str(3, dtype) + field_str(4, "cuda:0")
    if extra_json:
        m += field_str(8, extra_json)
    return m


def pb_node(name, op, target, args=(), meta=None, meta_json="", list_val=False):
    n = field_str(1, name) + field_str(2, op) + field_str(3, target)
    for a in args:
        n += field_len(4, a)
    if meta is not None:
        n += field_varint(6, 2 if list_val else 1) + field_len(7, field_len(1, meta))
    if meta_json:
        n += field_str(12, meta_json)
    return n


def pb_graph(nodes, extra_json="", hardware_json=""):
    g = field_str(1, "overlap-sched.graph") + field_varint(2, 1) + field_str(3, "hostile")
    g += field_varint(4, 0) + field_varint(5, 8)
    g += field_len(6, field_str(1, "0") + field_len(2, b"".join(varint(r) for r in range(8))))
    if hardware_json:
        g += field_str(7, hardware_json)
    for n in nodes:
        g += field_len(8, n)
    if extra_json:
        g += field_str(9, extra_json)
    return g


def pb_simple_graph(x_args=(), x_meta_json="", extra_json="", meta_extra=""):
    x = pb_node("x", "placeholder", "x", meta=pb_meta([4, 4], extra_json=meta_extra),
                meta_json=x_meta_json)
    y = pb_node("y", "call_function", "aten.relu.default",
                args=[field_len(7, field_str(1, "x"))] + list(x_args), meta=pb_meta([4, 4]))
    out = pb_node("output", "output", "output", args=[pb_value_list([field_len(7, field_str(1, "y"))])])
    return pb_graph([x, y, out], extra_json=extra_json)


def nested_json(depth, leaf="1", open_="[", close="]"):
    return open_ * depth + leaf + close * depth


def nested_obj(depth):
    return '{"a":' * depth + "1" + "}" * depth


# -------------------------------------------------------------------- JSON


def json_graph(extra_node_fields=None, y_args_json=None, top_extra="", name="y", dtype="float32"):
    """A three-node graph as JSON text; pieces given as raw JSON text."""
    y_args = y_args_json if y_args_json is not None else '[{"node":"x"}]'
    extra = ""
    if extra_node_fields:
        extra = "," + ",".join(f'"{k}":{v}' for k, v in extra_node_fields.items())
    meta = '{"shape":[4,4],"stride":[4,1],"dtype":"%s","device":"cuda:0"}'
    return (
        '{"format":"overlap-sched.graph","version":1,"world_size":8,"process_groups":{"0":{"ranks":[0,1,2,3,4,5,6,7]}},'
        + top_extra + '"nodes":['
        '{"name":"x","op":"placeholder","target":"x","args":[],"kwargs":{},"val":' + meta % "float32" + '},'
        '{"name":' + json.dumps(name) + ',"op":"call_function","target":"aten.relu.default","args":' + y_args
        + ',"kwargs":{},"val":' + meta % dtype + extra + '},'
        '{"name":"output","op":"output","target":"output","args":[[{"node":' + json.dumps(name) + '}]],"kwargs":{},"val":null}'
        ']}')


# ---------------------------------------------------------------------- FX


def fx_file(body_lines, params='x: "f32[4, 4][4, 1]cuda:0"', ret="y"):
    lines = ["class GraphModule(torch.nn.Module):", f"    def forward(self, {params}):"]
    lines += ["        " + l for l in body_lines]
    lines.append(f"        return ({ret},)")
    return "\n".join(lines) + "\n"
