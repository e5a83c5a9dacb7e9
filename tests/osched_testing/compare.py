"""Graphs read back, and their nodes by name for comparing."""

import json


def load_graph(path):
    """A JSON graph file as a dict."""
    with open(path) as f:
        return json.load(f)


def nodes_by_name(graph):
    """name -> node."""
    return {n["name"]: n for n in graph["nodes"]}

