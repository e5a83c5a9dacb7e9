#!/usr/bin/env python3
"""Validates graph files against schemas/graph.schema.json with python3-jsonschema.

Usage: check_schema.py SCHEMA GRAPH... [--expect-invalid GRAPH...]
Graphs before --expect-invalid must validate; those after must not (used for
the invalid cases the schema can express).
"""
import json
import sys

import jsonschema

import osched_testing as ot


def main(argv):
    schema = json.load(open(argv[1]))
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    expect_valid = True
    failures = 0
    checked = 0
    for path in argv[2:]:
        if path == "--expect-invalid":
            expect_valid = False
            continue
        doc = ot.load_graph(path)
        errors = list(validator.iter_errors(doc))
        checked += 1
        if expect_valid and errors:
            failures += 1
            print(f"{path}: schema violation: {errors[0].message} at {list(errors[0].absolute_path)}")
        elif not expect_valid and not errors:
            failures += 1
            print(f"{path}: expected a schema violation, found none")
    print(f"{checked - failures} passed, {failures} failed")
    return 1 if failures or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
