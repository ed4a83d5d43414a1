#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# json-validate.py SCHEMA DEF FILE...: each FILE (one JSON document) against #/$defs/DEF of SCHEMA,
# with python3-jsonschema (Debian's, installed by tools/setup.sh --test) where it is there, else
# with the small strict validator below, which knows the keywords doc/hpfilld-json.schema.json
# uses and refuses any other. Exit 0 when every file is valid, 1 naming the first error.
import json
import re
import sys

KNOWN = {"$schema", "$id", "title", "description", "type", "properties", "required", "additionalProperties",
         "items", "enum", "const", "pattern", "minimum", "maximum", "minLength", "oneOf", "$ref", "$defs"}
TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def is_type(v, t):
    if t == "integer":
        return type(v) is int
    if t == "number":
        return type(v) in (int, float)
    return type(v) is TYPES[t]


def check(root, s, v, where):
    unknown = set(s) - KNOWN
    if unknown:
        raise SystemExit(f"schema keyword(s) this validator does not know: {unknown}")
    if "$ref" in s:
        node = root
        for part in s["$ref"].lstrip("#/").split("/"):
            node = node[part]
        check(root, node, v, where)
    if "type" in s:
        types = s["type"] if isinstance(s["type"], list) else [s["type"]]
        if not any(is_type(v, t) for t in types):
            raise ValueError(f"{where}: {v!r} is not of type {types}")
    if "const" in s and not (v == s["const"] and type(v) is type(s["const"])):
        raise ValueError(f"{where}: {v!r} is not {s['const']!r}")
    if "enum" in s and not any(v == e and type(v) is type(e) for e in s["enum"]):
        raise ValueError(f"{where}: {v!r} is not one of {s['enum']}")
    if type(v) in (int, float) and type(v) is not bool:
        if "minimum" in s and v < s["minimum"]:
            raise ValueError(f"{where}: {v} is below {s['minimum']}")
        if "maximum" in s and v > s["maximum"]:
            raise ValueError(f"{where}: {v} is above {s['maximum']}")
    if type(v) is str:
        if "pattern" in s and not re.search(s["pattern"], v):
            raise ValueError(f"{where}: {v!r} does not match {s['pattern']}")
        if "minLength" in s and len(v) < s["minLength"]:
            raise ValueError(f"{where}: {v!r} is too short")
    if type(v) is dict:
        for k in s.get("required", []):
            if k not in v:
                raise ValueError(f"{where}: no {k!r}")
        props = s.get("properties", {})
        for k, x in v.items():
            if k in props:
                check(root, props[k], x, f"{where}.{k}")
            elif s.get("additionalProperties", True) is False:
                raise ValueError(f"{where}: {k!r} is not in the schema")
    if type(v) is list and "items" in s:
        for i, x in enumerate(v):
            check(root, s["items"], x, f"{where}[{i}]")
    if "oneOf" in s:
        ok = 0
        for alt in s["oneOf"]:
            try:
                check(root, alt, v, where)
                ok += 1
            except ValueError:
                pass
        if ok != 1:
            raise ValueError(f"{where}: {v!r} matches {ok} of the oneOf alternatives, not 1")


def main():
    schema = json.load(open(sys.argv[1]))
    name = sys.argv[2]
    wanted = {"$ref": f"#/$defs/{name}"}
    try:
        import jsonschema
        validator = jsonschema.Draft202012Validator(dict(schema, **{"oneOf": [wanted]}))
        try:
            from importlib.metadata import version
            how = f"jsonschema {version('jsonschema')} and the strict validator of json-validate.py"
        except Exception:
            how = "jsonschema and the strict validator of json-validate.py"
    except ImportError:
        validator = None
        how = "the strict validator of json-validate.py"
    for path in sys.argv[3:]:
        with open(path) as f:
            text = f.read()
        doc = json.loads(text)
        try:
            check(schema, wanted, doc, "$")  # first: its messages name the field
            if validator:
                validator.validate(doc)
        except ValueError as e:
            sys.exit(f"{path}: not a valid {name} document: {e}")
        except Exception as e:  # jsonschema.ValidationError
            sys.exit(f"{path}: not a valid {name} document: {getattr(e, 'message', e)} at {list(getattr(e, 'absolute_path', []))}")
        print(f"{path}: a valid {name} document ({how})")


if __name__ == "__main__":
    main()
