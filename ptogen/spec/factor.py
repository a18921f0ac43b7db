"""The inverse of `resolve`: write a whole spec as the difference from the op class that fits
it best, with named dtype sets and the `dtypes:` shorthand where they fit.

`ptogen import` writes what this returns, so an imported page uses the classes and sets a
hand-written spec would. Every candidate is checked by resolving it again: a class is used only
when the result is exactly the spec it came from.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from .loader import LoadedDoc, SourceMap
from .resolve import (
    KINDS_WITH_OPERANDS,
    NAMED_LISTS,
    PLACEHOLDER,
    SHORTHAND,
    Context,
    annotate,
    expand_box_layouts,
    kernel_code,
    merge,
    op_names,
    operand_lists,
    plain,
    resolve,
    shared_texts,
    substitute,
)

_SAME = object()


def _names(items: Any) -> list[str] | None:
    if isinstance(items, list) and all(isinstance(i, dict) and isinstance(i.get("name"), str) for i in items):
        return [i["name"] for i in items]
    return None


def diff(base: Any, full: Any, key: str | None = None) -> Any:
    """What a spec writes over `base` to get `full` (`_SAME` when nothing)."""
    if isinstance(base, dict) and isinstance(full, dict):
        out: dict[str, Any] = {}
        for k, v in full.items():
            if k in base:
                d = diff(base[k], v, k)
                if d is not _SAME:
                    out[k] = d
            else:
                out[k] = v
        for k in base:
            if k not in full:
                out[k] = None
        return out if out else _SAME
    if key in NAMED_LISTS and _names(base) is not None and _names(full) is not None:
        bn, fn = _names(base), _names(full)
        assert bn is not None and fn is not None
        if fn[: len(bn)] == bn:
            items: list[Any] = []
            for b, f in zip(base, full, strict=False):
                d = diff(b, f)
                if d is not _SAME:
                    items.append({"name": f["name"], **d})
            items.extend(full[len(bn) :])
            return items if items else _SAME
    return _SAME if base == full else full


def class_body(ctx: Context, name: str, mnemonic: str) -> dict[str, Any]:
    """A class's facts for one op (its chain merged, placeholders filled)."""
    names = op_names(mnemonic, ctx.name_words)
    node = None
    for cls in ctx.chain(name):
        body = cls.doc.data.get("spec") or {}
        part = substitute(annotate(body, SourceMap(cls.path), f"class {cls.name}"), names)
        node = part if node is None else merge(node, part)
    if node is not None:
        expand_box_layouts(node.value.get("constraints"), ctx)  # as the spec's rules are resolved
    return plain(shared_texts(node, ctx, "", names)) if node is not None else {}


def _slot(rule: Any) -> str | None:
    return str(rule["slot"]) if isinstance(rule, dict) and set(rule) == {"slot"} else None


def _shorthand(rule: Any, operands: list[str]) -> bool:
    return isinstance(rule, dict) and SHORTHAND.to_shorthand(rule, operands) is not None


def _key(rule: dict[str, Any]) -> str:
    return " ".join(rule["profiles"]) if rule.get("profiles") else "*"


def _split_rules(
    template: list[Any], full: list[Any], operands: list[str]
) -> tuple[list[Any], list[Any]] | None:
    """(dtype rules, own rules) that fill the class's slots to give `full`, dtype rules as many
    as fit; None when the class's own rules are not in `full` as the slots need."""
    template = list(template)
    if "dtypes" not in [_slot(t) for t in template]:
        template.insert(0, {"slot": "dtypes"})
    if "own" not in [_slot(t) for t in template]:
        template.append({"slot": "own"})
    best: tuple[list[Any], list[Any]] | None = None

    def walk(t: int, f: int, dtypes: list[Any], own: list[Any]) -> None:
        nonlocal best
        if t == len(template):
            if f == len(full) and (best is None or len(dtypes) > len(best[0])):
                best = (dtypes, own)
            return
        slot = _slot(template[t])
        if slot is None:
            if f < len(full) and full[f] == template[t]:
                walk(t + 1, f + 1, dtypes, own)
            return
        for end in range(len(full), f - 1, -1):
            part = full[f:end]
            if slot == "dtypes":
                keys = [_key(r) for r in part]
                if not all(_shorthand(r, operands) for r in part) or len(set(keys)) != len(keys):
                    continue
                walk(t + 1, end, part, own)
            else:
                walk(t + 1, end, dtypes, part)

    walk(0, 0, [], [])
    return best


def _set_name(dtypes: Any, ctx: Context) -> Any:
    for name, members in ctx.sets.items():
        if members == dtypes:
            return name
    return dtypes


def _with_sets(rules: list[Any], ctx: Context, operands: list[str]) -> list[Any]:
    """Own rules with named sets, and without the operands the class gives a rule by default."""
    out = []
    for r in rules:
        if isinstance(r, dict) and isinstance(r.get("dtypes"), list):
            r = {**r, "dtypes": _set_name(r["dtypes"], ctx)}
        if (
            isinstance(r, dict)
            and operands
            and r.get("operands") == operands
            and r.get("kind") in KINDS_WITH_OPERANDS
        ):
            r = {k: v for k, v in r.items() if k != "operands"}
        out.append(r)
    return out


def _insert_after(data: dict[str, Any], after: tuple[str, ...], key: str, value: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    placed = False
    keys = list(data)
    last = max((keys.index(a) for a in after if a in data), default=-1)
    for i, (k, v) in enumerate(data.items()):
        if i == last + 1 and not placed:
            out[key] = value
            placed = True
        out[k] = v
    if not placed:
        out[key] = value
    return out


def _implied_away(full: dict[str, Any], ctx: Context) -> dict[str, Any]:
    """`full` without what resolution derives by itself: an operand's assembly type its kind implies."""
    out = copy.deepcopy(full)
    for ops in operand_lists(out):
        for o in ops:
            implied = ctx.asm_types.get(str(o.get("kind"))) if isinstance(o, dict) else None
            if implied is not None and o.get("asm_type") == implied:
                del o["asm_type"]
    return out


def _covers(resolved: Any, full: Any) -> bool:
    """Every fact of `full` is in `resolved` (which may know more)."""
    if isinstance(full, dict):
        return isinstance(resolved, dict) and all(
            k in resolved and _covers(resolved[k], v) for k, v in full.items()
        )
    if isinstance(full, list):
        return (
            isinstance(resolved, list)
            and len(resolved) == len(full)
            and all(_covers(r, f) for r, f in zip(resolved, full, strict=True))
        )
    return bool(resolved == full)


# Facts no page states (an imported spec lacks them as unknown, not as absent): a class's value stands.
NOT_ON_PAGES: tuple[tuple[str, ...], ...] = (
    ("semantics", "compute"),
    ("semantics", "tolerance"),
    ("intrinsic", "dispatch"),
    ("intrinsic", "backend_headers"),
    ("test_values",),
)


def _fill_unknown(full: dict[str, Any], base: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(full)
    for path in NOT_ON_PAGES:
        have: Any = out
        known: Any = base
        for part in path[:-1]:
            have = have.get(part) if isinstance(have, dict) else None
            known = known.get(part) if isinstance(known, dict) else None
        last = path[-1]
        if isinstance(have, dict) and isinstance(known, dict) and last not in have and last in known:
            have[last] = copy.deepcopy(known[last])
    return out


def factor_with(
    full: dict[str, Any], ctx: Context, name: str | None, lenient: bool = False
) -> dict[str, Any] | None:
    """`full` written over class `name` (None: no class, sets and derived facts only), or None
    when the class does not fit."""
    mnemonic = str(full.get("mnemonic", ""))
    base = class_body(ctx, name, mnemonic) if name else {}
    operands: list[str] = []
    for cls in ctx.chain(name) if name else []:
        operands = cls.rule_operands or operands
    if lenient:
        full = _fill_unknown(full, base)
    written = _implied_away(full, ctx)
    out: dict[str, Any] = {}
    for k, v in written.items():
        if k == "constraints":
            continue
        d = diff(base[k], v, k) if k in base else v
        if d is not _SAME:
            out[k] = d
    for k in base:
        if k not in full and k != "constraints":
            out[k] = None
    intr = out.get("intrinsic")
    if isinstance(intr, dict) and "backend_headers" in intr and ctx.default_headers:
        names = op_names(mnemonic, ctx.name_words)
        derived = {
            p: pat.replace("${Camel}", names["Camel"]).replace("${SHORT}", names["SHORT"])
            for p, pat in ctx.default_headers.items()
        }
        inherited = (base.get("intrinsic") or {}).get("backend_headers")
        if inherited is None and intr["backend_headers"] == derived:
            intr = {k: v for k, v in intr.items() if k != "backend_headers"}
            if intr:
                out["intrinsic"] = intr
            else:
                del out["intrinsic"]
    rules = full.get("constraints")
    template = [
        {**r, "operands": operands}
        if isinstance(r, dict) and "operands" not in r and r.get("kind") in KINDS_WITH_OPERANDS and operands
        else r
        for r in base.get("constraints") or []
    ]
    if rules is not None or "constraints" in base:
        split = _split_rules(template, rules or [], operands if name else [])
        if split is None:
            return None
        dtypes, own = split
        if dtypes:
            out["dtypes"] = {_key(r): _set_name(SHORTHAND.to_shorthand(r, operands), ctx) for r in dtypes}
        if own or (rules is not None and not dtypes and "constraints" not in base):
            out["constraints"] = _with_sets(own, ctx, operands if name else [])
    if name:
        out = _insert_after(out, ("mnemonic", "instruction_set"), "class", name)
    if "dtypes" in out:  # the shorthand sits where the rules would
        shorthand = out.pop("dtypes")
        after = tuple(
            k
            for k in out
            if k
            not in (
                "exceptions",
                "profile_notes",
                "examples",
                "notes",
                "upstream_bugs",
                "test_values",
                "constraints",
                "prose_constraints",
            )
        )
        out = _insert_after(out, after, "dtypes", shorthand)
    if (
        not lenient
        and "intrinsic" in full
        and "backend_headers" not in full["intrinsic"]
        and ctx.default_headers
        and "backend_headers" not in (base.get("intrinsic") or {})
    ):
        out.setdefault("intrinsic", {})["backend_headers"] = {}  # states that no header is derived
    if "examples" in out:
        out["examples"] = _as_kernels(out["examples"], ctx)
    named = op_names(mnemonic, ctx.name_words)
    texts = {n: PLACEHOLDER.sub(lambda m: named[m.group(1)], t) for n, t in ctx.texts.items()}
    out = _share(out, sorted(((t, n) for n, t in texts.items()), key=lambda tn: -len(tn[0])))
    again, _ = resolve(LoadedDoc(out, SourceMap("<factor>")), ctx)
    if lenient:  # the derived backend headers may add what the page does not state
        return out if _canonical(again.data) is not None and _covers(again.data, full) else None
    if _canonical(again.data) != _canonical(full):
        return None
    return out


def _share(node: Any, texts: list[tuple[str, str]]) -> Any:
    """Named texts of targets.yaml (longest first) -> `${text:name}` wherever they occur."""
    if isinstance(node, dict):
        return {k: _share(v, texts) for k, v in node.items()}
    if isinstance(node, list):
        return [_share(v, texts) for v in node]
    if isinstance(node, str) and len(node) >= MIN_SHARED:
        for text, name in texts:
            if text in node:
                node = node.replace(text, f"${{text:{name}}}")
    return node


# Texts shorter than this are not worth a name.
MIN_SHARED = 30


def _as_kernels(examples: Any, ctx: Context) -> Any:
    """Compiled C++ examples of the standard file -> `{kernel: body}`."""
    if ctx.kernel is None or not isinstance(examples, list):
        return examples
    before, after, indent = ctx.kernel
    out = []
    for ex in examples:
        code = ex.get("code") if isinstance(ex, dict) else None
        if (
            isinstance(code, str)
            and set(ex) == {"lang", "compiles", "code"}
            and ex["lang"] == "cpp"
            and ex["compiles"] is True
            and code.startswith(before)
            and code.endswith(after)
        ):
            inner = code[len(before) : len(code) - len(after)]
            pad = " " * indent
            lines = inner.splitlines(keepends=True)
            if all(not line.strip() or line.startswith(pad) for line in lines):
                body = "".join(line[indent:] if line.strip() else line for line in lines)
                if kernel_code(body, ctx.kernel) == code:
                    out.append({"kernel": body})
                    continue
        out.append(ex)
    return out


def _canonical(data: Any) -> str | None:
    """The validated spec as JSON, dict order kept (it can show in generated text)."""
    from .model import OpSpec

    try:
        return json.dumps(OpSpec.model_validate(data).model_dump(mode="json"))
    except Exception:  # noqa: BLE001 - an invalid candidate never fits
        return None


def size(data: dict[str, Any]) -> int:
    return len(json.dumps(data))


# The order of a written spec's fields: its page's sections, the shorthand beside the rules.
FIELD_ORDER = (
    "mnemonic", "instruction_set", "class", "summary", "mechanism", "semantics", "operands", "intrinsic",
    "syntax", "side_effects", "dtypes", "constraints", "prose_constraints", "exceptions", "profile_notes",
    "examples", "notes", "upstream_bugs", "test_values",
)  # fmt: skip


def factor(
    full: dict[str, Any], ctx: Context, prefer: str | None = None, lenient: bool = False
) -> dict[str, Any]:
    """The shortest exact writing of `full` over any class (or none), fields in page order.
    `lenient` (an imported page): facts `full` lacks may come from the class."""
    best = _factor(full, ctx, prefer, lenient)
    rank = {k: i for i, k in enumerate(FIELD_ORDER)}
    return {k: best[k] for k in sorted(best, key=lambda k: rank.get(k, len(rank)))}


def _factor(full: dict[str, Any], ctx: Context, prefer: str | None, lenient: bool) -> dict[str, Any]:
    candidates = [None, *ctx.classes]
    best = factor_with(full, ctx, None, lenient) or full
    if prefer is not None:
        chosen = factor_with(full, ctx, prefer, lenient)
        if chosen is not None:
            return chosen
    for name in candidates[1:]:
        got = factor_with(full, ctx, name, lenient)
        if got is not None and size(got) < size(best):
            best = got
    return best
