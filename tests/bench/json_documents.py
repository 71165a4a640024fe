"""The JSON documents of a file, one after another: what the bench scripts
collect from several `beast ... --json` commands (each prints one document,
pretty-printed over many lines, so the file is not JSON Lines)."""

import json


def documents(path):
    """Every JSON document in the file at path, in order."""
    with open(path) as f:
        text = f.read()
    found, at = [], 0
    while text[at:].strip():
        at += len(text[at:]) - len(text[at:].lstrip())
        document, at = json.JSONDecoder().raw_decode(text, at)
        found.append(document)
    return found
