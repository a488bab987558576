#!/usr/bin/env python3
"""Check vector files against their schema (semantic/*.jsonl.gz: schema.json; syntax/*.jsonl:
syntax.schema.json) and count what they hold. Exit 1 naming file:line on an invalid record."""
import collections, gzip, json, pathlib, sys
import jsonschema

here = pathlib.Path(__file__).parent
if len(sys.argv) < 2:
    print(f"usage: {sys.argv[0]} FILE.jsonl[.gz] ...  (vectors/semantic/*.jsonl.gz, vectors/syntax/*.jsonl)", file=sys.stderr)
    sys.exit(2)
for path in sys.argv[1:]:
    syntax = pathlib.Path(path).parent.name == "syntax"
    schema = json.loads((here / ("syntax.schema.json" if syntax else "schema.json")).read_text())
    validator = jsonschema.Draft202012Validator(schema)
    counts = collections.Counter()
    with (gzip.open if path.endswith(".gz") else open)(path, "rt", encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            try:
                record = json.loads(line)
            except ValueError as e:
                sys.exit(f"{path}:{n}: not JSON: {e}")
            error = jsonschema.exceptions.best_match(validator.iter_errors(record))
            if error is not None:
                sys.exit(f"{path}:{n}: {error.json_path}: {error.message}")
            if syntax:
                counts[record.get("kind", "legal")] += 1
                continue
            for p in ("ptx-isa", "sm_90"):  # a profile left out expects what ptx-isa does
                outputs = record["expect"].get(p, record["expect"]["ptx-isa"])
                for value in (v for values in outputs.values() for v in values):
                    if value is not None:  # null: the lane does not execute
                        counts[p, "exact" if isinstance(value, str) else value["accept"]] += 1
    print(f"{path}: {n} records valid")
    if syntax:
        print("  " + ", ".join(f"{counts[k]} {k}" for k in ("legal", "malformed", "invalid")))
    for p in () if syntax else ("ptx-isa", "sm_90"):
        print(f"  {p}: " + ", ".join(f"{counts[p, k]} {k}" for k in ("exact", "nan:any", "one_of", "permutation", "leader", "is_leader", "undefined")))
