"""Graphs read back and compared by their nodes."""

import json


def load_graph(path):
    """A JSON graph file as a dict."""
    with open(path) as f:
        return json.load(f)


def node_names(graph):
    """The nodes' names, in the graph's order."""
    return [n["name"] for n in graph["nodes"]]


def nodes_by_name(graph):
    """name -> node."""
    return {n["name"]: n for n in graph["nodes"]}


def same_nodes(a, b):
    """Whether two graphs hold the same nodes, whatever their order; the
    names of the nodes only one holds, or that differ, otherwise."""
    na, nb = nodes_by_name(a), nodes_by_name(b)
    differ = sorted(set(na) ^ set(nb)) + sorted(k for k in set(na) & set(nb) if na[k] != nb[k])
    return not differ, differ
