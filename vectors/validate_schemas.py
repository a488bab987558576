#!/usr/bin/env python3
"""Validate ptxvec's JSON files against their schemas in vectors/ (draft 2020-12).

    validate_schemas.py                        every committed example
    validate_schemas.py SCHEMA=FILE ...        these files
    validate_schemas.py --invalid SCHEMA=FILE  every line of FILE must be refused

SCHEMA is syntax-results, semantic-results, litmus-results, lint or grade-report
(vectors/<SCHEMA>.schema.json), or syntax, semantic or litmus (the vectors
themselves: syntax.schema.json, schema.json, litmus.schema.json). A results or vector file is JSON Lines, one value a
line (blank lines skipped, as `ptxvec grade` skips them); a lint or grade-report file
(`lint --json`, `grade --json`) is one JSON document. A `*.gz` file is read
through gzip. What a schema cannot say is checked here as the Rust readers check it:
a key written twice, NaN or Infinity, bytes that are not UTF-8.

The committed examples: every recorded client's results (vectors/clients/*/syntax.jsonl.gz,
semantic.jsonl.gz where one is recorded) and lint.json, the litmus records
(vectors/litmus.jsonl.gz), and the schemas' own test lines,
tests/fixtures/schemas/<SCHEMA>.valid.jsonl (each line valid) and .invalid.jsonl (each
line invalid: tests/schemas.rs holds both files to the Rust readers too).

Exit 0 when every file is as expected; 1 naming file:line (file: for a JSON document,
with the path of the value inside it) for each that is not; 2 on a bad command line.
"""
import concurrent.futures
import gzip
import json
import os
import pathlib
import sys

import jsonschema

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
SCHEMAS = {
    "syntax-results": "syntax-results.schema.json",
    "semantic-results": "semantic-results.schema.json",
    "lint": "lint.schema.json",
    "grade-report": "grade-report.schema.json",
    "litmus-results": "litmus-results.schema.json",
    "syntax": "syntax.schema.json",
    "semantic": "schema.json",
    "litmus": "litmus.schema.json",
}
# One JSON document a file; the others are JSON Lines.
DOCUMENTS = {"lint", "grade-report"}


def strict_object(pairs):
    """A JSON object whose keys are each written once (serde refuses a duplicate field)."""
    seen = {}
    for key, value in pairs:
        if key in seen:
            raise ValueError(f"duplicate key {key!r}")
        seen[key] = value
    return seen


def no_constant(name):
    raise ValueError(f"{name} is not JSON")


def loads(text):
    return json.loads(text, object_pairs_hook=strict_object, parse_constant=no_constant)


def values(path, document):
    """(line or None, value or the error reading it) for each value of the file."""
    with (gzip.open if path.suffix == ".gz" else open)(path, "rb") as f:
        data = f.read()
    if document:
        try:
            yield None, loads(data.decode("utf-8"))
        except ValueError as e:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
            yield None, e
        return
    for n, raw in enumerate(data.split(b"\n"), 1):
        raw = raw[:-1] if raw.endswith(b"\r") else raw
        try:
            text = raw.decode("utf-8")
            if not text.strip():
                continue
            yield n, loads(text)
        except ValueError as e:
            yield n, e


def check(name, path, expect_valid):
    """The summary line of one file, and its problems: a message for each value not
    as expected."""
    validator = jsonschema.Draft202012Validator(json.loads((HERE / SCHEMAS[name]).read_text()))
    problems, count = [], 0
    for n, value in values(path, name in DOCUMENTS):
        count += 1
        where = f"{path}:{n}" if n is not None else f"{path}"
        if isinstance(value, ValueError):
            error = f"not JSON: {value}"
        elif validator.is_valid(value):
            error = None
        else:
            best = jsonschema.exceptions.best_match(validator.iter_errors(value))
            error = f"{best.json_path}: {best.message}"
        if expect_valid and error is not None:
            problems.append(f"{where}: {error}")
        if not expect_valid and error is None:
            problems.append(f"{where}: valid under {SCHEMAS[name]}, and it should not be")
    if count == 0:
        problems.append(f"{path}: no value to check")
    summary = (f"{path}: {count} {'valid' if expect_valid else 'refused'} ({SCHEMAS[name]})"
               if not problems else f"{path}: {len(problems)} of {count} not as expected")
    return summary, problems


def checked(job):
    """check(), with a file that cannot be read as its one problem."""
    name, path, expect_valid = job
    try:
        return check(name, path, expect_valid)
    except OSError as e:
        return f"{path}: unreadable", [f"{path}: {e.strerror or e}"]


def committed():
    """(schema, file, valid?) for every committed example, named from the repository's root."""
    clients = sorted(p.relative_to(ROOT) for p in (HERE / "clients").iterdir() if p.is_dir())
    for client in clients:
        for name, stem in (("syntax-results", "syntax"), ("semantic-results", "semantic")):
            for suffix in (".jsonl", ".jsonl.gz"):
                if (client / (stem + suffix)).is_file():
                    yield name, client / (stem + suffix), True
        if (client / "lint.json").is_file():
            yield "lint", client / "lint.json", True
    yield "litmus", pathlib.Path("vectors", "litmus.jsonl.gz"), True
    fixtures = pathlib.Path("tests", "fixtures", "schemas")
    for name in ("syntax-results", "semantic-results", "litmus-results"):
        yield name, fixtures / f"{name}.valid.jsonl", True
        yield name, fixtures / f"{name}.invalid.jsonl", False


def usage(why):
    print(f"usage: {sys.argv[0]} [[--invalid] SCHEMA=FILE ...]: {why}", file=sys.stderr)
    sys.exit(2)


def from_arguments(args):
    expect_valid = True
    for arg in args:
        if arg == "--invalid":
            expect_valid = False
            continue
        name, sep, file = arg.partition("=")
        if not sep or name not in SCHEMAS or not file:
            usage(f"expected SCHEMA=FILE (SCHEMA: {', '.join(SCHEMAS)}), got {arg!r}")
        yield name, pathlib.Path(file), expect_valid


def main():
    if sys.argv[1:]:
        jobs = list(from_arguments(sys.argv[1:]))
    else:
        # Named from the repository's root, as the committed files are.
        os.chdir(ROOT)
        jobs = list(committed())
    if not jobs:
        usage("no file named after --invalid")
    # One process a file, as many at once as there are cores (jsonschema validates
    # on one); the lines are printed in the jobs' order whatever order they end in.
    problems = []
    with concurrent.futures.ProcessPoolExecutor(max_workers=min(len(jobs), os.cpu_count() or 1)) as pool:
        for summary, found in pool.map(checked, jobs):
            print(summary)
            problems += found
    for p in problems:
        print(p, file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
