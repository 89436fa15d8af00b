# SPDX-License-Identifier: Apache-2.0
"""The layout of the committed result files (book/results/*.json): JSON that json.load reads as
usual, written a line per top-level key and, where a key holds a list of objects (the rows, runs
or cases of a run), a line per object. A re-run then changes the lines of the records it
changed, and the file's line count follows its records, not their depth.
Python standard library only.
"""
import json


def is_records(value):
    return isinstance(value, list) and value and all(isinstance(item, dict) for item in value)


def dumps(document):
    """@p document, a dict, as text in the layout above (ending in a newline)."""
    entries = []
    for key, value in document.items():
        if is_records(value):
            records = ",\n".join("  " + json.dumps(record) for record in value)
            entries.append(f" {json.dumps(key)}: [\n{records}\n ]")
        else:
            entries.append(f" {json.dumps(key)}: {json.dumps(value)}")
    return "{\n" + ",\n".join(entries) + "\n}\n" if entries else "{}\n"


def self_test():
    document = {"gpu": "Test GPU", "grid": {"cols": [1, 2]}, "missing": [],
                "rows": [{"a": 1.0000000000000002, "b": [1, {"c": None}]}, {"a": -0.0}],
                "widths": [3, 4]}
    text = dumps(document)
    assert json.loads(text) == document, text
    assert text.splitlines() == [
        "{", ' "gpu": "Test GPU",', ' "grid": {"cols": [1, 2]},', ' "missing": [],',
        ' "rows": [', '  {"a": 1.0000000000000002, "b": [1, {"c": null}]},', '  {"a": -0.0}',
        " ],", ' "widths": [3, 4]', "}"], text
    assert dumps({}) == "{}\n"
    print("record_lines self-test: ok")


if __name__ == "__main__":
    self_test()
