"""`ptogen import`: turn existing ISA pages (either layout, flattened captures too) into specs.

The page parser (pagefacts) finds the facts; this module maps them onto the spec model and
reports, per page, what it could not place. Output is canonical (constraint order, expression
spelling), so importing a page that ptogen generated gives back the spec it came from.
"""

from __future__ import annotations

import ast
import os
import re
import sys
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from ruamel.yaml import YAML
from ruamel.yaml.scalarstring import LiteralScalarString

from ..paths import Layout
from ..rules import RULE_KINDS, PageContext, PageLine, kind_name, page_prefixes
from ..spec import expr as semantics
from ..spec.load import check_op, load_specs
from ..spec.model import OpSpec, Targets
from .pagefacts import PageFacts, parse_page

_DTYPE_LINE = re.compile(r"must be one of:?\s*(?P<list>[^()]*?)\s*(\((?P<note>[^)]*)\))?\.?\s*$")


class ImportProblem(Exception):
    pass


# ----------------------------------------------------------------------------- signature


def parse_signature(sig: str) -> tuple[str, str, list[dict[str, Any]], list[dict[str, Any]]]:
    """(qualifier, name, template params, params) of a normalised C++ declaration."""
    m = re.match(r"template<(.*)>(PTO_INST|PTO_INTERNAL) RecordEvent (\w+)\((.*)\);?$", sig)
    if m is None:
        raise ImportProblem(f"cannot read the C++ declaration: {sig}")
    targs, qual, name, params = m.groups()
    template: list[dict[str, Any]] = []
    for t in _split(targs):
        if t.startswith("typename..."):
            template.append({"name": t.removeprefix("typename..."), "kind": "pack"})
        elif t.startswith("typename"):
            template.append({"name": t.removeprefix("typename").strip(), "kind": "typename"})
        else:
            decl, _, default = t.partition("=")
            vtype, vname = decl.rsplit(" ", 1)
            entry: dict[str, Any] = {"name": vname, "kind": "value", "type": vtype}
            if default:
                entry["default"] = default
            template.append(entry)
    kinds = {t["name"]: t["kind"] for t in template}
    out: list[dict[str, Any]] = []
    for p in _split(params):
        if "&..." in p:
            ptype, pname = p.split("&...")
            out.append({"name": pname, "type": ptype, "events": True})
        elif p.startswith("typename "):
            owner, pname = re.match(r"typename (\w+)::DType (\w+)", p).groups()  # type: ignore[union-attr]
            out.append({"name": pname, "dtype_of": owner, "operand": pname})
        elif "&" in p:
            ptype, pname = p.split("&")
            out.append({"name": pname, "type": ptype, "operand": pname})
        else:
            ptype, pname = p.rsplit(" ", 1)
            key = "value_type" if kinds.get(ptype) == "typename" else "attr"
            out.append({"name": pname, key: ptype, "operand": pname})
    for entry in out:
        if "operand" in entry:  # spec operand names are snake_case; C++ parameters may be camelCase
            entry["operand"] = _snake(entry["operand"])
    return qual, name, template, out


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def _split(text: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return [p for p in (*parts, cur.strip()) if p]


# ----------------------------------------------------------------------------- math


def latex_to_expr(math: str, names: set[str]) -> str:
    """Read back the element math of a page (the forms ptogen writes and the seeds use)."""
    rhs = math.split("=", 1)[1] if "=" in math else math
    text = re.sub(r"\\mathrm\{(\w+)\}_\{[^}]*\}", r"\1", rhs)
    text = re.sub(r"\\(?:mathrm|operatorname)\{(\w+)\}", r"\1", text)
    for tex, py in (
        (r"\cdot", "*"),
        (r"\times", "*"),
        (r"\ge", ">="),
        (r"\le", "<="),
        (r"\ne", "!="),
        (r"\max", "max"),
        (r"\min", "min"),
        (r"\left(", "("),
        (r"\right)", ")"),
        (r"\ll", "<<"),
        (r"\gg", ">>"),
        (r"\oplus", "^"),
        (r"\lnot", "~"),
        (r"\mathbin{\&}", "&"),
        (r"\;\&\;", "&"),
        (r"\exp", "exp"),
        (r"\ln", "log"),
    ):
        text = text.replace(tex, py)
    text = re.sub(r"\\frac\{([^{}]*)\}\{([^{}]*)\}", r"(\1) / (\2)", text)
    text = re.sub(r"\\sqrt\{([^{}]*)\}", r"sqrt(\1)", text)
    text = text.replace("remainder", "rem").replace("\\,", " ").replace("\\!", "")
    expr = _ternary(text.strip())
    node = semantics.parse(expr, names)
    return canonical(node)


def _ternary(text: str) -> str:
    """`(c) ? a : b` -> `select(c, a, b)` (right-associative, top level only)."""
    depth = 0
    for i, ch in enumerate(text):
        depth += ch == "("
        depth -= ch == ")"
        if ch == "?" and depth == 0:
            cond, rest = text[:i], text[i + 1 :]
            depth2 = 0
            for j, ch2 in enumerate(rest):
                depth2 += ch2 == "("
                depth2 -= ch2 == ")"
                if ch2 == ":" and depth2 == 0:
                    yes, no = _ternary(rest[:j].strip()), _ternary(rest[j + 1 :].strip())
                    return f"select({cond.strip()}, {yes}, {no})"
    return text


def canonical(node: semantics.Node) -> str:
    """One spelling per expression tree, so re-imports compare equal."""

    def go(n: semantics.Node) -> ast.expr:
        if n.op == "name":
            return ast.Name(str(n.value))
        if n.op == "const":
            return ast.Constant(n.value)
        if n.op == "neg":
            return ast.UnaryOp(ast.USub(), go(n.args[0]))
        if n.op == "not":
            return ast.UnaryOp(ast.Invert(), go(n.args[0]))
        if n.op in ("bin", "cmp"):
            ops: dict[str, Any] = {
                "+": ast.Add,
                "-": ast.Sub,
                "*": ast.Mult,
                "/": ast.Div,
                "&": ast.BitAnd,
                "|": ast.BitOr,
                "^": ast.BitXor,
                "<<": ast.LShift,
                ">>": ast.RShift,
            }
            cmps: dict[str, Any] = {
                ">": ast.Gt,
                ">=": ast.GtE,
                "<": ast.Lt,
                "<=": ast.LtE,
                "==": ast.Eq,
                "!=": ast.NotEq,
            }
            left, right = go(n.args[0]), go(n.args[1])
            if n.op == "bin":
                return ast.BinOp(left, ops[str(n.value)](), right)
            return ast.Compare(left, [cmps[str(n.value)]()], [right])
        return ast.Call(ast.Name(str(n.value)), [go(a) for a in n.args], [])

    return ast.unparse(go(node))


# ----------------------------------------------------------------------------- constraints


def _groups(text: str) -> list[tuple[str | None, str]]:
    """Constraint-ish lines of a page with the profile group they sit in (None: common)."""
    out: list[tuple[str | None, str]] = []
    group: str | None = None
    for raw in text.splitlines():
        line = raw.replace("`", "").replace("*", "").strip(" -\t¶")
        m = re.search(r"Implementation checks \((\w+)\)", line)
        if m:
            group = m.group(1)
            continue
        if re.match(r"(#+ |Common constraints|Valid region|Examples|Exceptions)", line):
            group = None
        if line:
            out.append((group, line))
    return out


def _rules(
    facts: PageFacts,
    text: str,
    targets: Targets,
    data: list[str],
    distinct_types: bool,
    vector: bool,
    unplaced: list[str],
) -> tuple[list[dict[str, Any]], list[str]]:
    prose: list[str] = []
    profiles = set(targets.profile_names())
    dtype_rules: list[dict[str, Any]] = []
    seen: set[str] = set()
    for key, values in facts.dtypes.items():
        profile, _, cond = key.partition("/") if "/" in key else (key, "", "")
        if profile not in profiles and not key.startswith(("forms",)) and "::" not in key:
            unplaced.append(f"dtype list under {key!r}: {', '.join(values)}")
            continue
        names = [_dtype_name(v, targets) for v in values]
        if any(n is None for n in names):
            unplaced.append(f"unknown element types in {key}: {', '.join(values)}")
            names = [n for n in names if n is not None]
        rule: dict[str, Any] = {"kind": "dtype"}
        if profile in profiles:
            rule["profiles"] = [profile]
        when = cond or (key if "::" in key else "")
        if when:
            rule["when"] = {"param": "PrecisionType", "equals": when}
        if (
            profile not in profiles
            and "::" in key
            and any("/" in k and k.endswith(key) for k in facts.dtypes)
        ):
            continue  # the per-profile copies carry this list
        rule["operands"] = data
        rule["dtypes"] = names
        note = _dtype_note(text, values)
        if note:
            rule["note"] = note
        dtype_rules.append(rule)
    # Every rule kind looks for itself on the page (rules.py, `from_page`).
    page = PageContext(
        [PageLine(group, line) for group, line in _groups(text)], profiles, data, distinct_types, dtype_rules
    )
    rules: list[dict[str, Any]] = []
    for cls in RULE_KINDS:
        for rule in cls.from_page(page):
            key = repr(sorted(rule.items()))
            if key not in seen:
                seen.add(key)
                rules.append(rule)
    for line in facts.constraints:
        low = line.lower()
        if low.startswith(("!!!", "the op uses", "the op iterates", "slope scalar", *page_prefixes())):
            continue
        if "must be one of" in low or "must use the same element type" in low or "accepts" in low:
            continue
        prose.append(line)
    kinds = [kind_name(cls) for cls in RULE_KINDS]
    rules.sort(key=lambda r: (kinds.index(r["kind"]), r.get("profiles", [""]), str(r.get("when", ""))))
    return rules, prose


def _dtype_name(spelling: str, targets: Targets) -> str | None:
    spelling = spelling.strip()
    if targets.has_dtype(spelling):
        return spelling
    for d in targets.dtypes:
        if d.asm == spelling:
            return d.name
    return None


def _dtype_note(text: str, values: list[str]) -> str | None:
    for raw in text.splitlines():
        line = raw.replace("`", "").replace("*", "")
        if "must be one of" in line and all(v in line for v in values):
            m = _DTYPE_LINE.search(line.strip(" -"))
            if m and m.group("note"):
                return m.group("note").strip()
    return None


# ----------------------------------------------------------------------------- operands


def _table(rows: list[str]) -> list[dict[str, str]]:
    out = []
    for row in rows:
        cells = [c.strip().strip("`") for c in row.strip().strip("|").split("|")]
        if len(cells) < 2 or cells[0] in ("Operand", "Result") or set(cells[0]) <= set("-: "):
            continue
        out.append(
            dict(
                zip(
                    ["name", "role", "type", "description"]
                    if len(cells) >= 4
                    else ["name", "type", "description"],
                    cells,
                    strict=False,
                )
            )
        )
    return out


def _operands(
    facts: PageFacts, params: list[dict[str, Any]], vector: bool, unplaced: list[str]
) -> list[dict[str, Any]]:
    rows = {_snake(r["name"].lstrip("%")): r for r in _table(facts.inputs) + _table(facts.outputs)}
    operands: list[dict[str, Any]] = []
    if vector:
        ssa = next(iter(facts.syntax.get("ssa", [])), "")
        m = re.match(r"%(\w+)(?:, %\w+)* = pto\.\w+ (.*?) : (.*?) -> (.*)$", ssa)
        if m is None:
            raise ImportProblem("a vector page needs an AS Level 1 (SSA) line to name its operands")
        outs = re.findall(r"%(\w+)", ssa.split("=", 1)[0])
        ins = re.findall(r"%(\w+)", m.group(2))
        in_types = _split(m.group(3))
        for name in outs:
            operands.append(
                _operand(name, "dst", "!pto.vreg<NxT>" if name == outs[0] else "!pto.mask<G>", rows)
            )
        for name, typ in zip(ins, in_types, strict=False):
            role = "mask" if name == "mask" else ("scalar" if "!pto" not in typ else "src")
            operands.append(_operand(name, role, typ, rows))
        return operands
    for p in params:
        if p.get("events"):
            continue
        name = p["operand"]
        if "dtype_of" in p or "value_type" in p:
            operands.append(_operand(name, "scalar", "dtype", rows))
        elif "attr" in p:
            unplaced.append(
                f"attribute parameter {name} ({p['attr']}): give it an enum and semantics by hand"
            )
            operands.append(_operand(name, "attr", "attr", rows) | {"enum": p["attr"]})
        else:
            role = "dst" if name == "dst" else ("tmp" if name == "tmp" else "src")
            operands.append(_operand(name, role, "!pto.tile<...>", rows))
    operands.sort(key=lambda o: 0 if o["role"] == "dst" else 1)
    return operands


def _operand(name: str, role: str, typ: str, rows: dict[str, dict[str, str]]) -> dict[str, Any]:
    row = rows.get(name, {})
    typ = row.get("type", typ)
    kind = (
        "tile"
        if "tile" in typ
        else "vreg"
        if "vreg" in typ
        else "mask"
        if "mask" in typ
        else "attr"
        if role == "attr"
        else "scalar"
    )
    default = {
        "dst": "Destination.",
        "src": "Source operand.",
        "scalar": "Scalar operand.",
        "tmp": "Scratch tile.",
        "mask": "Predicate mask.",
        "attr": "Attribute.",
    }[role]
    description = " ".join(row.get("description", default).split()).replace("\\|", "|")
    return {
        "name": name,
        "kind": kind,
        "role": row.get("role", role),
        "asm_type": typ,
        "description": description,
    }


# ----------------------------------------------------------------------------- assembly


# A documentation line longer than this is not prose a spec can hold (the longest line of the
# upstream pages is a few hundred characters); it is dropped and reported, which also keeps
# parsing and YAML writing linear in the page size.
MAX_LINE = 20_000


def _drop_long_lines(text: str) -> tuple[str, list[str]]:
    kept, dropped = [], []
    for number, line in enumerate(text.splitlines(), 1):
        if len(line) > MAX_LINE:
            dropped.append(f"line {number} ({len(line)} characters, over {MAX_LINE}) was skipped")
            kept.append("")
        else:
            kept.append(line)
    return "\n".join(kept) + "\n", dropped


def page_to_spec(text: str, targets: Targets) -> tuple[dict[str, Any], list[str]]:
    text, dropped = _drop_long_lines(text)
    facts = parse_page(text)
    unplaced = dropped + [line for line in facts.unplaced if line.strip()]
    if not facts.mnemonic:
        raise ImportProblem("the page names no mnemonic (expected a `pto.xxx` or `TXXX` title)")
    mnemonic = facts.mnemonic
    iset = _instruction_set(facts, targets, mnemonic)
    vector = iset.kind == "vector"
    spec: dict[str, Any] = {"mnemonic": mnemonic, "instruction_set": iset.id}
    spec["summary"] = " ".join((facts.summary or mnemonic).split())
    mechanism = [p for p in facts.mechanism if not p.startswith("For each")]
    spec["mechanism"] = " ".join(" ".join(mechanism).split()) or spec["summary"]
    params: list[dict[str, Any]] = []
    intrinsic: dict[str, Any] | None = None
    if facts.signature and not vector:
        qual, name, template, params = parse_signature(facts.signature)
        intrinsic = {"name": name}
        if qual != "PTO_INST":
            intrinsic["qualifier"] = qual
        intrinsic["template"] = template
        intrinsic["params"] = params
        if len(facts.signatures) > 1:
            unplaced.append(f"{len(facts.signatures) - 1} further overload(s); the spec covers the first")
    elif not vector:
        raise ImportProblem("a tile op page needs its C++ intrinsic declaration")
    operands = _operands(facts, params, vector, unplaced)
    names = {o["name"] for o in operands if o["kind"] in ("tile", "scalar", "vreg")}
    dst = next(o["name"] for o in operands if o["role"] == "dst")
    expr = None
    if facts.math:
        try:
            expr = latex_to_expr(facts.math, names)
        except (semantics.ExprError, SyntaxError) as exc:
            unplaced.append(f"math not understood ({exc}): {facts.math}")
    if expr is None:
        first = next(o["name"] for o in operands if o["role"] in ("src", "scalar"))
        unplaced.append(
            f"no element semantics on the page: `semantics.expr` set to `{first}`; write the real one"
        )
        expr = first
    kind = "lane" if vector else "elementwise"
    sem: dict[str, Any] = {"kind": kind, "expr": expr, "domain": dst, "tolerance": {"kind": "exact"}}
    if vector:
        sem["inactive_lanes"] = "zero"
    spec["semantics"] = sem
    spec["operands"] = operands
    if intrinsic:
        spec["intrinsic"] = intrinsic
    spec["syntax"] = {k: list(v) for k, v in facts.syntax.items() if v}
    spec["side_effects"] = " ".join((facts.side_effects or "No side effects are documented.").split())
    data = [o["name"] for o in operands if o["kind"] in ("tile", "vreg") and o["role"] not in ("tmp", "mask")]
    types = {p.get("type") for p in params if p.get("operand") in data}
    rules, prose = _rules(facts, text, targets, data, len(types) > 1, vector, unplaced)
    spec["constraints"] = rules
    if prose:
        spec["prose_constraints"] = [{"text": p} for p in prose]
    spec["exceptions"] = [e for e in facts.exceptions if not e.startswith("!!!")] or [
        "The page documents no exceptions."
    ]
    notes = [n for n in facts.notes if not n.startswith("!!!")]
    if notes:
        spec["notes"] = notes
    examples = []
    for code in facts.examples:
        if code.lstrip().startswith("# Auto mode") or code.lstrip().startswith("# Manual mode"):
            continue
        if "#include <pto/pto-inst.hpp>" in code:
            examples.append({"lang": "cpp", "compiles": True, "code": code})
        elif not code.startswith("%dst") and not code.lstrip().startswith("%") or vector:
            examples.append({"lang": "c" if "for (" in code else "text", "code": code})
    spec["examples"] = examples
    return spec, unplaced


def _instruction_set(facts: PageFacts, targets: Targets, mnemonic: str) -> Any:
    def key(title: str) -> str:
        return re.sub(r"[^a-z]", "", title.lower().replace("instructions", ""))

    if facts.instruction_set:
        for s in targets.instruction_sets:
            if key(s.title) == key(facts.instruction_set):
                return s
    for s in targets.instruction_sets:
        if mnemonic in s.order:
            return s
    if facts.instruction_set:  # propose the page's own set
        proposed = re.sub(
            r"[^a-z0-9]+", "_", facts.instruction_set.lower().replace("instructions", "")
        ).strip("_")
        raise ImportProblem(
            f"{mnemonic} belongs to no instruction set of specs/targets.yaml; the page names "
            f"{facts.instruction_set!r}: add an instruction set `{proposed}` there, "
            f"with {mnemonic} in its `order:`"
        )
    known = ", ".join(s.id for s in targets.instruction_sets)
    raise ImportProblem(
        f"{mnemonic} belongs to no instruction set of specs/targets.yaml: add it to the `order:` of one "
        f"({known}) or add a new set there"
    )


def validate(spec: dict[str, Any], targets: Targets) -> list[str]:
    try:
        model = OpSpec.model_validate(spec)
    except ValidationError as exc:
        return [f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()]
    return [f"{'.'.join(str(p) for p in path)}: {msg}" for path, msg in check_op(model, targets)]


def dump(spec: dict[str, Any], path: Path) -> None:
    yaml = YAML()
    yaml.width = 100
    yaml.indent(mapping=2, sequence=4, offset=2)
    # A list shared by two rules would be written once with an anchor; specs refuse anchors.
    yaml.representer.ignore_aliases = lambda *_args: True
    for ex in spec.get("examples", []):
        ex["code"] = LiteralScalarString(ex["code"].rstrip("\n") + "\n")
    path.parent.mkdir(parents=True, exist_ok=True)
    # Written beside the target and renamed over it, so a kill never leaves a partial spec.
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with tmp.open("w", encoding="utf-8") as fh:
            yaml.dump(spec, fh)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def read_page(path: Path) -> tuple[str, str | None]:
    """A page's text and, when it is not UTF-8, a note saying how it was read. A file that is
    not text at all (NUL bytes, mostly unprintable) is an ImportProblem."""
    raw = path.read_bytes()
    if b"\0" in raw[:65536]:
        raise ImportProblem("not a text page (it holds NUL bytes); give the Markdown or HTML source")
    try:
        return raw.decode("utf-8").lstrip("\ufeff"), None  # some pages carry the BOM twice
    except UnicodeDecodeError as exc:
        first_bad = exc.start
    text = raw.decode("cp1252", errors="replace")
    printable = sum(ch.isprintable() or ch in "\n\r\t" for ch in text)
    if printable < 0.95 * max(len(text), 1):
        raise ImportProblem("not a text page (mostly unprintable bytes); give the Markdown or HTML source")
    line = raw.count(b"\n", 0, first_bad) + 1
    return text, f"not UTF-8 (first at line {line}); read as Windows-1252/Latin-1"


def run_import(layout: Layout, args: Any) -> int:
    targets = load_specs(layout.specs, layout.root).targets
    into: Path = args.into or layout.specs / "ops"
    failed = 0
    for page in args.pages:
        try:
            text, note = read_page(Path(page))
            if note:
                print(f"note: {page}: {note}", file=sys.stderr)
            spec, unplaced = page_to_spec(text, targets)
        except OSError as exc:
            print(f"error: {page}: cannot read: {(exc.strerror or str(exc)).lower()}", file=sys.stderr)
            failed += 1
            continue
        except ImportProblem as exc:
            print(f"error: {page}: {exc}", file=sys.stderr)
            failed += 1
            continue
        except (ValueError, KeyError, IndexError, AttributeError, TypeError) as exc:
            # A page shape the importer does not know yet: one line, and the other pages go on.
            print(
                f"error: {page}: cannot read this page's layout ({type(exc).__name__}: {exc})",
                file=sys.stderr,
            )
            failed += 1
            continue
        problems = validate(spec, targets)
        if problems:
            for p in problems:
                print(f"error: {page}: {p}", file=sys.stderr)
            failed += 1
            continue
        target = into / spec["instruction_set"] / f"{spec['mnemonic'].split('.', 1)[1]}.yaml"
        if target.exists() and not getattr(args, "force", False):
            print(f"error: {page}: {target} exists (use --force to overwrite)", file=sys.stderr)
            failed += 1
            continue
        dump(spec, target)
        print(f"imported {page} -> {target}")
        for fact in unplaced:
            print(f"  could not place: {fact}")
    return 2 if failed else 0
