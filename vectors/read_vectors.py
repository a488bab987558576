#!/usr/bin/env python3
"""Check one vectors/semantic/<variant>.jsonl against vectors/schema.json and count,
per profile, its exact and accept-class expectations. Exit 1 on an invalid record."""
import collections, json, pathlib, sys
import jsonschema

schema = json.loads(pathlib.Path(__file__).with_name("schema.json").read_text())
validator = jsonschema.Draft202012Validator(schema)
profiles = list(schema["$defs"]["memoryExpect"]["properties"])  # ptx-isa, sm_90
path = sys.argv[1]
n, counts = 0, {p: collections.Counter() for p in profiles}
with open(path, encoding="utf-8") as f:
    for n, line in enumerate(f, 1):
        try:
            record = json.loads(line)
        except ValueError as e:
            sys.exit(f"{path}:{n}: not JSON: {e}")
        error = jsonschema.exceptions.best_match(validator.iter_errors(record))
        if error is not None:
            sys.exit(f"{path}:{n}: {error.json_path}: {error.message}")
        for p in profiles:  # a profile the record leaves out expects what ptx-isa does
            outputs = record["expect"].get(p, record["expect"]["ptx-isa"])
            for value in (v for values in outputs.values() for v in values):
                if value is not None:  # null: the lane does not execute
                    counts[p]["exact" if isinstance(value, str) else value["accept"]] += 1
print(f"{path}: {n} records valid")
for p, c in counts.items():
    print(f"  {p}: {c['exact']} exact, " + ", ".join(f"{c[k]} {k}" for k in ("nan:any", "one_of", "undefined")))
