"""Checks scene files against resources/scene.schema.json (JSON Schema 2020-12).

usage: check_schema.py SCHEMA SCENE...   (exit 1 and a line per problem when one does not match)
Also checks that the schema rejects a few files the reader rejects, so it cannot pass vacuously.
"""
import json
import sys

import jsonschema


def main() -> int:
    schema = json.load(open(sys.argv[1], encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    failures = 0
    for path in sys.argv[2:]:
        errors = sorted(validator.iter_errors(json.load(open(path, encoding="utf-8"))), key=str)
        for error in errors:
            print(f"{path}: /{'/'.join(str(p) for p in error.absolute_path)}: {error.message}")
        failures += bool(errors)
        if not errors:
            print(f"{path}: valid")
    # The schema must refuse what the reader refuses.
    for bad in (
        {"format": "motus-scene", "version": 1, "parts": [{"name": "a", "mass": -1, "inertia": [1, 1, 1]}]},
        {"format": "motus-scene", "version": 1, "colour": "red"},
        {"format": "motus-scene", "version": 2},
        {"format": "motus-scene", "version": 1, "joints": [{"name": "j", "type": "hinge", "markerI": "a.m", "markerJ": "b.m"}]},
    ):
        if validator.is_valid(bad):
            print(f"schema accepts an invalid scene: {json.dumps(bad)}")
            failures += 1
    print(f"{len(sys.argv) - 2 - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
