#!/usr/bin/env python3
"""Writes the seed corpora under fuzz/corpus/<target>/ from the repository's own
inputs: the spec files, lines of vectors/syntax and vectors/semantic, and the hostile
cases of tests/hostile.rs. Run from anywhere: `python3 fuzz/make_corpus.py`. The
choice of lines is seeded, so the files come out the same each time. Each file's
first byte is the target's selector (fuzz/README.md)."""

import hashlib
import json
import random
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "fuzz" / "corpus"
rng = random.Random(15)


def write(target, units):
    d = OUT / target
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    for name, data in units:
        if isinstance(data, str):
            data = data.encode()
        (d / name).write_bytes(data)


def digest(data):
    return hashlib.sha1(data if isinstance(data, bytes) else data.encode()).hexdigest()[:12]


def lines(path):
    return path.read_text().splitlines()


def spec_loader():
    spec = ROOT / "spec"
    units = []
    for f in sorted((spec / "instructions").glob("*.yaml")):
        units.append((f.stem, b"0" + f.read_bytes()))
    units.append(("targets", b"2" + (spec / "targets.yaml").read_bytes()))
    units.append(("errata", b"3" + (spec / "errata.yaml").read_bytes()))
    act = (spec / "instructions" / "activemask.yaml").read_text()
    msync = (spec / "instructions" / "match.sync.yaml").read_text()
    redux = (spec / "instructions" / "redux.sync.yaml").read_text()
    targets = (spec / "targets.yaml").read_text()
    bomb = "instruction: x\nmnemonic: red\na0: &a0 [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]\n"
    for i in range(1, 10):
        bomb += f"a{i}: &a{i} [{', '.join([f'*a{i-1}'] * 10)}]\n"
    nl = act.index("\n") + 1
    hostile = {
        "hostile-duplicate-key": "0" + msync.replace("          a: &a {", "          a: {class: type}\n          a: &a {", 1),
        "hostile-name-escapes": "0" + act.replace("instruction: activemask", "instruction: ../../escaped", 1),
        "hostile-invalid-utf8": b"0" + act[: nl + 3].encode() + b"\xff" + act[nl + 3 :].encode(),
        "hostile-caret-multibyte": "2" + targets.replace("  - name: sm_10\n", '  - {source: {doc: "é — é", section: x}, name: sm_1x, ptx: "1.0"}\n  - name: sm_10\n', 1),
        "hostile-two-typos": "0" + redux.replace(".add, .min, .max]", ".add, .minn, .max]", 1).replace(".and, .or, .xor]", ".and, .or, .xorr]", 1),
        "hostile-deep-nesting": "0instruction: x\nmnemonic: red\nsummary:\n" + "  [\n" * 100 + "  ]\n" * 100,
        "hostile-alias-bomb": "0" + bomb,
        "hostile-unknown-mnemonic": "0" + act.replace("mnemonic: activemask", "mnemonic: redd", 1),
        "hostile-empty": "0",
        "hostile-not-a-mapping": "0- a\n- b\n",
        "hostile-tabs": "0instruction:\tx\n\t- y\n",
        "hostile-errata-empty": "3errata: []\n",
        "hostile-errata-unknown": "3errata:\n  - id: E999\n    instructions: [nope]\n",
        "hostile-targets-empty": "2{}\n",
        # tests/hostile.rs spec_one_error_many_elements, unrepeated.
        "hostile-families-line-removed": "2" + targets.replace("families:\n", "", 1),
    }
    units += list(hostile.items())
    write("spec_loader", units)


# The sample grade_results_line grades against: GradeSample in generator/src/cmd/fuzz.rs
# (tests/fuzz_corpora.rs holds these two equal to its constants).
SYNTAX_STRIDE = 32
SEMANTIC_RECORDS = 8


def syntax_cases():
    cases = []
    for f in sorted((ROOT / "vectors" / "syntax").glob("*.jsonl")):
        cs = [json.loads(l) for l in lines(f)][::SYNTAX_STRIDE]
        legal = [c for c in cs if c["verdict"] == "legal"]
        illegal = [c for c in cs if c["verdict"] != "legal"]
        cases += rng.sample(legal, min(3, len(legal))) + rng.sample(illegal, min(3, len(illegal)))
    return cases


def check_syntax_line():
    units = []
    for i, c in enumerate(syntax_cases()):
        req = {"text": c["text"], "ptx": c["ptx"], "target": c["target"]}
        if i % 5 == 0:
            req["id"] = c["id"]
        sel = "0123"[i % 4]
        units.append((f"case-{digest(c['id'])}", sel + json.dumps(req)))
    hostile = {
        "hostile-unknown-target": '0{"text": "activemask.b32 %r1;", "ptx": "8.6", "target": "sm_999"}',
        "hostile-unknown-version": '0{"text": "activemask.b32 %r1;", "ptx": "99.9", "target": "sm_90"}',
        "hostile-future-version": '0{"text": "activemask.b32 %r1;", "ptx": "10.0", "target": "sm_90"}',
        "hostile-invalid-utf8": b'0{"text": "a\xffb"}',
        "hostile-not-json": "0x",
        "hostile-blank": "0   ",
        "hostile-missing-semicolon": '2{"text": "activemask.b32 %r1"}',
        "hostile-wide-immediate": '2{"text": "redux.sync.add.u32 %r1, %r2, 0x1000000000000000000000000;"}',
        "hostile-wide-immediate-33": '2{"text": "vote.sync.ballot.b32 %r1, %p1, 0x1ffffffff;"}',
        "hostile-unknown-key": '2{"text": "activemask.b32 %r1;", "extra": 1}',
        "hostile-no-defaults": '0{"text": "activemask.b32 %r1;"}',
        "hostile-reordered": '3{"text": "red.global.v8.f32.add [%rd1], {%f1,%f2,%f3,%f4,%f5,%f6,%f7,%f8};", "ptx": "8.1"}',
    }
    units += list(hostile.items())
    write("check_syntax_line", units)


def semantic_records(n_files):
    files = sorted((ROOT / "vectors" / "semantic").glob("*.jsonl"))
    recs = []
    for f in rng.sample(files, n_files):
        ls = lines(f)
        recs.append(json.loads(rng.choice(ls[:SEMANTIC_RECORDS])))
    return recs


def eval_record():
    units = []
    for i, r in enumerate(semantic_records(36)):
        if i % 2 == 0:
            r = {"text": r["text"], "inputs": r["inputs"]}
        units.append((f"record-{digest(r['text'] + str(i))}", json.dumps(r, separators=(",", ":"))))
    red = '{"text": "red.add.u32 [%rd1], %r1;", "inputs": {"mem": ["0xffffffff"], "operand": ["0x00000002"]}}'
    vote = json.dumps({"text": "vote.sync.all.pred %p1, %p2, %r1;",
                       "inputs": {"a": ["0x0"] * 32, "executing": "0xffffffff", "membermask": "0xffffffff"}})
    hostile = {
        "readme": red,
        "hostile-bad-bits": red.replace("0x00000002", "0x+1"),
        "hostile-predicate-2": vote.replace('"0x0"', '"0x2"', 1),
        "hostile-31-lanes": vote.replace('"0x0", ', "", 1),
        "hostile-key-twice": red.replace('"text": "red.add.u32 [%rd1], %r1;",', '"text": "x", "text": "red.add.u32 [%rd1], %r1;",'),
        "hostile-unknown-key": red[:-1] + ', "extra": 1}',
        "hostile-not-json": "x",
        "hostile-unknown-text": '{"text": "foo.bar;", "inputs": {}}',
        "hostile-crlf": red + "\r\n",
    }
    units += list(hostile.items())
    write("eval_record", units)


def concrete(slot):
    if isinstance(slot, dict):
        return slot["bits"][0] if slot.get("bits") else None
    return slot


def grade_results_line():
    units = []
    for i, c in enumerate(syntax_cases()[:20]):
        res = {"id": c["id"], "accepted": (c["verdict"] == "legal") != (i % 3 == 0)}
        if i % 4 == 0:
            res["message"] = "parse error"
        units.append((f"syntax-{digest(c['id'])}", "0246"[i % 4] + json.dumps(res)))
    for i, r in enumerate(semantic_records(20)):
        exp = r["expect"]["ptx-isa"]
        outputs = {k: [concrete(s) for s in v] for k, v in exp.items()}
        res = {"id": r["id"], "outputs": outputs}
        units.append((f"semantic-{digest(r['id'])}", "1357"[i % 4] + json.dumps(res, separators=(",", ":"))))
    # tests of grade/results.rs, one line each.
    hostile = {
        "hostile-sem-ok": '3{"id":"red.add.f32#0","outputs":{"mem":["0x00000000"]}}',
        "hostile-sem-not-json": "3not json",
        "hostile-sem-bad-bits": '3{"id":"b","outputs":{"mem":["0x+1"]}}',
        "hostile-sem-unknown-output": '3{"id":"c","outputs":{"q":[]}}',
        "hostile-sem-number": '3{"id":"d","outputs":{"d":[7]}}',
        "hostile-sem-extra": '3{"id":"e","outputs":{},"extra":1}',
        "hostile-sem-null": '3{"id":"f","outputs":{"d":[null,"0x1"]}}',
        "hostile-syn-message": '2{"id":"y","accepted":false,"message":"no"}',
        "hostile-syn-string": '2{"id":"z","accepted":"yes"}',
        "hostile-syn-utf8": b"2\xff\n",
        "hostile-two-lines": '3{"id":"red.add.f32#0","outputs":{"mem":["0x00000000"]}}\n{"id":"red.add.f32#0","outputs":{"mem":["0x00000000"]}}\r\n',
    }
    units += list(hostile.items())
    write("grade_results_line", units)


spec_loader()
check_syntax_line()
eval_record()
grade_results_line()
