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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import one_line
from ..opkinds import KINDS, PageOp
from ..opkinds import recognise as recognise_kind
from ..paths import Layout
from ..rules import PAGE_KINDS, RULE_KINDS, PageContext, PageLine, TypeList, kind_name, page_prefixes
from ..rules.page import split_forms
from ..spec import expr as semantics
from ..spec.factor import factor
from ..spec.load import load_specs, spec_context
from ..spec.model import Targets
from ..spec.resolve import Context
from ..spec.yamlout import dump_text
from .markup import html_to_markdown, read_table
from .pagefacts import PageFacts, normalise_signature, parse_page, profile_of
from .repair import order_advice, problems, repair

_DTYPE_LINE = re.compile(r"must be one of:?\s*(?P<list>[^()]*?)\s*(\((?P<note>[^)]*)\))?\.?\s*$")


class ImportProblem(Exception):
    """Why a page gives no spec (one line); `line` is where on the page, when one place is to blame."""

    def __init__(self, message: str, line: int | None = None):
        super().__init__(message)
        self.line = line

    def located(self, page: object) -> str:
        """`page:line: reason` (or `page: reason` when no line is to blame), on one line."""
        where = f"{page}:{self.line}" if self.line else f"{page}"
        return f"{where}: {one_line(str(self))}"


# ----------------------------------------------------------------------------- signature


def parse_signature(sig: str) -> tuple[str, str, str, list[dict[str, Any]], list[dict[str, Any]]]:
    """(qualifier, return type, name, template params, params) of a normalised C++ declaration."""
    m = re.match(
        r"template<(.*)>(PTO_INST|PTO_INTERNAL)? ?"
        r"(?:(RecordEvent|comm::AsyncEvent|void) |(std::enable_if_t<.*>))(\w+)\((.*)\);?$",
        sig,
    )
    if m is None:
        raise ImportProblem(f"cannot read the C++ declaration: {sig}")
    targs, qual, returns, returns_if, name, params = m.groups()
    template: list[dict[str, Any]] = []
    # A form that takes some types only as tiles, in an `enable_if_t` return type (TASSIGN<Addr>).
    tile_only = re.findall(r"is_tile_data_v<(\w+)>", returns_if or "")
    returns = returns or "void"
    guard: list[str] = []
    for t in _split(targs):
        if t.startswith(("std::enable_if", "enable_if")):
            # The declaration's guard: the types it takes only as tiles, the pack only as events.
            guard += [a or b for a, b in re.findall(r"is_tile_data_v<(\w+)>|all_events_v<(\w+)\.\.\.>", t)]
            continue
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
    for entry in template:
        if entry["name"] in tile_only:
            entry["tile_only"] = True  # read by _overload
        if entry["name"] in guard:
            entry["guard"] = guard.index(entry["name"])  # read by _guard
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
            ptype, pname = p.split("&", 1)
            out.append({"name": pname, "type": ptype.removeprefix("const "), "operand": pname})
        else:
            p, _, default = (x.strip() for x in p.partition("="))  # `uint16_t indexRow = 0`
            if " " not in p:
                raise ImportProblem(f"cannot read the C++ parameter {p!r} in: {sig}")
            ptype, pname = p.rsplit(" ", 1)
            ptype = ptype.removeprefix("const ")
            builtin = ptype in _BUILTIN_SCALARS
            key = "value_type" if kinds.get(ptype) == "typename" or builtin else "attr"
            out.append(
                {"name": pname, key: ptype, "operand": pname, **({"default": default} if default else {})}
            )
    for entry in out:
        if "operand" in entry:  # spec operand names are snake_case; C++ parameters may be camelCase
            entry["operand"] = _snake(entry["operand"])
    return qual or "PTO_INST", returns, name, template, out


def _guard(template: list[dict[str, Any]]) -> list[str]:
    """The declaration's guard (`parse_signature` marks the template parameters it names), in order."""
    marked = sorted((t.pop("guard"), t["name"]) for t in template if "guard" in t)
    return [name for _, name in marked]


_BUILTIN_SCALARS = frozenset(
    {"bool", "int", "float", "double", "half", "size_t"}
    | {f"{s}int{b}_t" for s in ("", "u") for b in (8, 16, 32, 64)}
)


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


_REDUCER_TEX = re.compile(
    r"^\s*(?P<op>\\sum|\\prod|\\max|\\min|\\operatorname\{arg\\,(?:max|min)\})_\{(?P<index>\w+)\}\s*(?P<term>.*)$"
)


def latex_to_expr(math: str, names: set[str], attrs: dict[str, int] | None = None) -> str:
    r"""Read back the element math of a page (the forms ptogen writes and the seeds use): element
    expressions, one reduction over the whole right-hand side (`\sum_{j} x`), and calls of an
    attribute operand (`\mathrm{mode}(a, b)`)."""
    rhs = math.split("=", 1)[1] if "=" in math else math
    m = _REDUCER_TEX.match(rhs)
    if m:
        op = m.group("op").removeprefix("\\").replace("operatorname{arg\\,", "arg").rstrip("}")
        term = latex_to_expr(m.group("term"), names, attrs)
        return canonical(semantics.parse(f"{op}({term})", names, attrs))
    for fn in ("rounded", "saturated"):  # \mathrm{rnd}_T, \mathrm{sat}_T: not subscripts
        rhs = rhs.replace(semantics.FUNCTIONS[fn][3], fn)
    text = _drop_subscripts(rhs.replace(r"\_", "_"))
    text = re.sub(r"\\(?:mathrm|operatorname)\{(\w+)\}", r"\1", text)
    for tex, py in (
        (r"\left(", "("),  # before \le, which it starts with
        (r"\right)", ")"),
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
        (r"\mathbin{|}", "|"),
        (r"\;\&\;", "&"),
        (r"\exp", "exp"),
        (r"\ln", "log"),
    ):
        text = text.replace(tex, py)
    text = re.sub(r"\\frac\{([^{}]*)\}\{([^{}]*)\}", r"(\1) / (\2)", text)
    text = re.sub(r"\\sqrt\{([^{}]*)\}", r"sqrt(\1)", text)
    text = text.replace("remainder", "rem").replace("\\,", " ").replace("\\!", "")
    expr = _ternary(text.strip())
    node = semantics.parse(expr, names, attrs)
    return canonical(node)


def latex_to_index_notation(math: str, names: set[str], attrs: dict[str, int] | None = None) -> str:
    r"""Read back a page's formula in index notation (what `semantics.to_latex` writes for an op
    kind with `index_notation`): `\mathrm{x}_{i,k}` is `x[i,k]`, `\sum_{k} t` is `sum(k, t)`
    with the term running to the next `+` or `-` outside brackets (a sum binds like `+`)."""
    text = math.replace(r"\_", "_").replace(r"\left(", "(").replace(r"\right)", ")")
    # an index divided rounding down, or its remainder (`semantics.to_latex`'s floor and \bmod)
    text = re.sub(r"\\left\\lfloor (.*?) / (\d+) \\right\\rfloor", r"\1 // \2", text)
    text = text.replace(r" \bmod ", " % ")
    text = _index_subscripts(text)
    text = re.sub(r"\\mathrm\{(\w+)\}", r"\1", text)  # a name outside subscripts: `cols(src0)`
    text = text.replace(r"\cdot", "*")
    lhs, eq, rhs = text.partition("=")
    if eq:  # `(c) ? a : b` -> `select(c, a, b)`, the condition without the page's brackets
        text = f"{lhs}{eq} " + re.sub(
            r"select\(\(([^()]*(?:\([^()]*\))?[^()]*)\),", r"select(\1,", _ternary(rhs.strip())
        )
    while (m := re.search(r"\\sum_\{(\w+)\}\s*", text)) is not None:
        end, depth = m.end(), 0
        while end < len(text):
            ch = text[end]
            if ch in "([":
                depth += 1
            elif ch in ")]":
                if depth == 0:
                    break
                depth -= 1
            elif ch in "+-" and depth == 0:
                break
            end += 1
        text = f"{text[: m.start()]}sum({m.group(1)}, {text[m.end() : end].strip()}) {text[end:]}"
    text = " ".join(text.split()).replace(" )", ")")
    # The right side may use the element language around the indexed operands: scalars, index
    # letters as values, comparisons (`=` is `==` there) and selects (`(c) ? a : b`).
    lhs, sep, rhs = text.partition(" = ")
    if sep:
        rhs = re.sub(r"\\mathrm\{(\w+)\}", r"\1", rhs)
        for tex, py in ((r"\\le\b", "<="), (r"\\ge\b", ">="), (r"\\ne\b", "!=")):
            rhs = re.sub(tex, py, rhs)
        rhs = re.sub(r"(?<![<>=!])=(?!=)", "==", rhs)
        if "?" in rhs:  # a select: its brackets from the page's `(c) ? (a) : (b)` are redundant
            rhs = ast.unparse(ast.parse(_ternary(rhs), mode="eval"))
        text = f"{lhs} = {rhs}"
    semantics.parse(text, names, attrs)  # checks it, with a located error
    return text


def _index_subscripts(text: str) -> str:
    """`\\mathrm{x}_{i + \\mathrm{r0},2 \\cdot j}` -> `x[i + r0,2 * j]`: each operand at its indices,
    affine ones included (the remap kind's `index_text` in LaTeX)."""
    out, i = "", 0
    for m in re.finditer(r"\\mathrm\{(\w+)\}_\{", text):
        if m.start() < i:
            continue
        depth, j = 1, m.end()
        while j < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            j += 1
        inner = re.sub(r"\\mathrm\{(\w+)\}", r"\1", text[m.end() : j - 1]).replace(r"\cdot", "*")
        inner = re.sub(r"\\lfloor\s*(.*?)\s*/\s*(\d+)\s*\\rfloor", r"\1 // \2", inner)  # k's group: k // 32
        parts = [x.strip() for x in _split_top(inner)]
        joined = (", " if any(" " in x for x in parts) else ",").join(parts)  # as specs spell them
        out += f"{text[i : m.start()]}{m.group(1)}[{joined}]"
        i = j
    return out + text[i:]


def _split_top(text: str) -> list[str]:
    """`a, f(b, c)` -> [`a`, ` f(b, c)`]: split at the commas outside brackets."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        depth += ch in "(["
        depth -= ch in ")]"
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    return [*parts, cur]


def _drop_subscripts(text: str) -> str:
    """`\\mathrm{src}_{\\mathrm{indexes}_{i},j}` -> `src`: operand names without their (nested) indices."""
    out, i = "", 0
    for m in re.finditer(r"\\mathrm\{(\w+)\}_\{", text):
        if m.start() < i:
            continue  # inside a subscript already dropped
        depth, j = 1, m.end()
        while j < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            j += 1
        out += text[i : m.start()] + m.group(1)
        i = j
    return out + text[i:]


def _attr_arity(math: str, attrs: set[str]) -> dict[str, int]:
    """Attribute operands the math applies (`\\mathrm{mode}(a, b)`), with their argument counts."""
    out: dict[str, int] = {}
    for name in attrs:
        at = math.find(rf"\mathrm{{{name}}}(")
        if at < 0:
            continue
        depth, count = 0, 1
        for i in range(at + len(name) + 9, len(math)):
            ch = math[i]
            depth += ch in "({"
            depth -= ch in ")}"
            if depth == 0 and ch == ")":
                break
            count += ch == "," and depth == 1
        out[name] = count
    return out


def _name_from_math(
    math: str, operands: list[dict[str, Any]], params: list[dict[str, Any]], unplaced: list[str]
) -> None:
    """A page without an operand table may name an operand in its formula only (`slope`, where the
    declaration and syntax say `scalar`): when the formula names one unknown operand and one
    operand is left unnamed by it, that operand takes the formula's name."""
    used = set(re.findall(r"\\mathrm\{(\w+)\}", math.replace(r"\_", "_")))
    known = {o["name"] for o in operands}
    unknown = [n for n in used - known if _OPERAND_NAME.match(n) and n not in semantics.FUNCTIONS]
    spare = [o for o in operands if o["name"] not in used and o["role"] in ("src", "scalar")]
    if len(unknown) != 1 or len(spare) != 1:
        return
    old, new = spare[0]["name"], unknown[0]
    spare[0]["name"] = new
    for p in params:
        if p.get("operand") == old:
            p["operand"] = new
    unplaced.append(f"operand {old} named {new}, as the formula calls it")


# How the op kinds' domain paragraphs begin (each kind's `domain_starts`).
_DOMAIN_STARTS = tuple(dict.fromkeys(s for k in KINDS.values() for s in k.domain_starts))


def _syntax_mnemonic(facts: PageFacts, mnemonic: str) -> str:
    """The mnemonic the page's syntax lines spell, where the title names the intrinsic instead
    (the reference page TSUBVIEW.md of `pto.subview`); else `mnemonic`."""
    lines = [line for forms in facts.syntax.values() for line in forms]
    # a dotted spelling names the mnemonic with underscores (`pto.tstore.fp` of `pto.tstore_fp`)
    found = (
        m.group(0)
        for line in lines
        for m in re.finditer(r"(?<![!#\w.])pto\.[a-z][a-z0-9_]*(?:\.[a-z]\w*)*", line)
    )
    spelled = {"pto." + s[4:].replace(".", "_") for s in found}
    if mnemonic in spelled or len(spelled) != 1:
        return mnemonic
    return spelled.pop()


def _reduces_over(math: str) -> str | None:
    """The index a reduction at the top of a formula's right side runs over (`\\sum_{j} ...`: `j`)."""
    m = _REDUCER_TEX.match(math.partition("=")[2])
    return None if m is None else m.group("index")


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
                    return f"select({cond.strip()}, {_unwrapped(yes)}, {_unwrapped(no)})"
    return text


def _unwrapped(text: str) -> str:
    """`(a - b)` -> `a - b`: a branch without the brackets the page sets around it."""
    if not (text.startswith("(") and text.endswith(")")):
        return text
    depth = 0
    for i, ch in enumerate(text):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0 and i < len(text) - 1:
            return text  # `(a) + (b)`: the first bracket closes before the end
    return text[1:-1]


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
    in_note = False  # a "Source notes" callout states disagreements, never a rule
    for raw in text.splitlines():
        if in_note and (raw.startswith("    ") or not raw.strip()):
            continue
        in_note = raw.startswith('!!! note "Source notes"')
        if in_note:
            group = None
            continue
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


_GENERATED = "<!-- generated by ptogen"
_APPLIES_TO = re.compile(r"\s*Applies to (?P<names>\w+(?:(?:,\s*|\s+and\s+)\w+)*) only\.$")


def _rules(
    facts: PageFacts,
    text: str,
    targets: Targets,
    data: list[str],
    distinct_types: bool,
    vector: bool,
    unplaced: list[str],
    typed: dict[str, str | None] | None = None,
    form_tiles: dict[int, list[str]] | None = None,
) -> tuple[list[dict[str, Any]], list[tuple[str, str | None]]]:
    """Rules and prose lines of a page. `typed`: every value operand with the C++ type it is
    declared with, so that a line naming operands is read as a rule of those operands. `form_tiles`:
    the data tiles each further declaration passes, so that a line of the data tiles limited to
    some declarations is a rule of the tiles those declarations take."""
    typed = typed or {}
    prose: list[tuple[str, str | None]] = []
    profiles = set(targets.profile_names())
    seen: set[str] = set()
    lists: list[tuple[str, list[str], list[str] | None, str | None, list[int] | None]] = [
        (key, values, None, facts.dtype_notes.get(key), None) for key, values in facts.dtypes.items()
    ]
    lists += [(key, values, ops, note, forms) for key, ops, values, note, forms in facts.operand_dtypes]
    type_lists = [
        TypeList(
            key,
            values,
            [_dtype_name(v, targets) for v in values],
            None if named is None else [_snake(n) for n in named],
            note,
            forms,
        )
        for key, values, named, note, forms in lists
    ]
    # Every rule kind looks for itself on the page (ptogen/rules/, `from_page`).
    lines, scoped = [], []
    for group, line in _groups(text):
        # "... Applies to `tmp` only. Checked on declaration 1 only.": the operands, then the forms.
        bare, forms = split_forms(line)
        limited = line[len(bare) :]
        m = _APPLIES_TO.search(bare)
        mentioned = _mentioned(line, typed)
        if m is None and mentioned:
            # A line that names its operands ("`src0` and `src1` must use the same element type",
            # "Runtime: `tmp`, `dst` and `src` must occupy different memory ranges") is a rule of those.
            distinct = len({typed[n] for n in mentioned}) > 1
            scoped.append(PageContext([PageLine(group, line)], profiles, mentioned, distinct, []))
            continue
        if m is None:
            lines.append(PageLine(group, line))
            continue
        # "... Applies to `dst` only.": a rule of some of the data tiles (the page says TileData).
        named = [n for n in re.split(r",\s*|\s+and\s+", m.group("names")) if n in typed or n in data]
        rest = bare[: m.start()] + limited  # the forms note stays for `from_page`
        scoped.append(PageContext([PageLine(group, rest)], profiles, named, distinct_types, []))
    pages = [PageContext(lines, profiles, data, distinct_types, type_lists, unplaced, form_tiles), *scoped]
    rules: list[dict[str, Any]] = []
    for cls in PAGE_KINDS:
        for rule in [rule for page in pages for rule in cls.from_page(page)]:
            key = repr(sorted(rule.items()))
            if key not in seen:
                seen.add(key)
                rules.append(rule)
    generated = _GENERATED in text
    groups = facts.constraint_groups + [None] * len(facts.constraints)
    items = list(zip(facts.constraints, groups, strict=False))
    items += zip(facts.profile_restrictions, facts.restriction_groups, strict=False)
    for line, group in items:
        low = _plain(line).lower()
        if low.startswith(("!!!", "the op uses", "the op iterates", "slope scalar", *page_prefixes())):
            continue
        if "must be one of" in low or "must use the same element type" in low or "accepts" in low:
            continue
        if _PROFILE_NOTE.match(line):
            continue  # a profile note (`**A5**: text`), read by _profile_notes
        if generated and group and group.lower().startswith("valid region"):
            continue  # ptogen writes the op kind's iteration domain there, not a spec fact
        profile = profile_of(group)
        if profile != "common" and profile not in profiles:
            profile = "common"
        if profile == "common" and line in facts.profile_restrictions and group is None:
            continue  # restriction prose outside any profile group is not a constraint
        prose.append((line, None if profile == "common" else profile))
    kinds = [kind_name(cls) for cls in RULE_KINDS]
    rules.sort(key=lambda r: (kinds.index(r["kind"]), r.get("profiles", [""]), str(r.get("when", ""))))
    return rules, prose


_NAMED_LINE = re.compile(
    r"^(?:Runtime:\s*)?(?P<names>\w+(?:\.\w+\(\))?(?:(?:,\s*|,?\s+and\s+|\s*(?:==|>=|>)\s*)\w+(?:\.\w+\(\))?)*)"
    r"\s*(?:must|(?:\(.*\))?\.?$)"
)


def _mentioned(line: str, typed: dict[str, str | None]) -> list[str]:
    """The operands a constraint line opens with (`a`, `b` and `c` must ...; Runtime: `a.X() == b.X()`)."""
    m = _NAMED_LINE.match(line)
    if m is None:
        return []
    names = [n for n in re.findall(r"\b(\w+)\b(?!\()", m.group("names")) if n in typed]
    return list(dict.fromkeys(names))


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


_ROLES = ("dst", "src", "scalar", "tmp", "mask", "attr")
_OPERAND_NAME = re.compile(r"^[a-z_][a-z0-9_]*$")


def _rows(facts: PageFacts) -> dict[str, dict[str, str]]:
    """Operand table rows by snake_case name (`%src0` -> src0); the events pack row is no operand,
    unless its type says the events are what the op works on (TSYNC's `!pto.event<...>`)."""
    rows: dict[str, dict[str, str]] = {}
    for row in read_table(facts.inputs) + read_table(facts.outputs):
        name = _snake(row["name"].lstrip("%").strip())
        pack = name in ("events", "wait_events") and "!pto.event" not in row.get("type", "")
        if _OPERAND_NAME.match(name) and not pack:
            rows.setdefault(name, row)
    return rows


def _fits(row: dict[str, str], kind: str) -> bool:
    """Whether a table row can describe a parameter of this kind (tile, scalar, attr)."""
    typ, role = row.get("type", ""), row.get("role", "")
    if not typ and role not in _ROLES:
        return True
    if kind == "attr":
        return role == "attr" or typ.startswith("#")
    if kind == "tile":
        return "tile" in typ or "tensor" in typ or role in ("dst", "src", "tmp", "mask")
    return "tile" not in typ and not typ.startswith("#")


# Names the formula uses for functions, not operands (`rem` is written `\\mathrm{remainder}`).
_MATH_FUNCTIONS = frozenset(
    {*semantics.FUNCTIONS, *semantics.REDUCERS}
    | {m.group(1) for f in semantics.FUNCTIONS.values() if (m := re.match(r"\\mathrm\{(\w+)\}", f[3]))}
)


_SSA_LINE = re.compile(
    r"(?P<outs>%[\w, %]*?)\s*=\s*pto\.\w+ (?P<ins>.*?) : \((?P<types>.*)\) -> (?P<res>.*)$"
)


def _syntax_rows(facts: PageFacts) -> dict[str, dict[str, str]]:
    """Operand names of the page's formula, then of its syntax line (results first, with their
    assembly types): the names a page without an operand table gives its operands."""
    rows: dict[str, dict[str, str]] = {}
    # The formula names operands as the spec does (`src0`, where the syntax line may say `src`).
    for name in re.findall(r"\\mathrm\{(\w+)\}", (facts.math or "").replace(r"\_", "_")):
        if name not in _MATH_FUNCTIONS:
            rows.setdefault(name, {})
    for line in facts.syntax.get("ssa", []):
        m = _SSA_LINE.match(line)
        if m is None:
            continue
        outs = re.findall(r"%(\w+)", m.group("outs"))
        ins = re.findall(r"%(\w+)", m.group("ins"))
        types = _split(m.group("types"))
        for k, name in enumerate(outs):
            rows.setdefault(_snake(name), {"role": "dst" if k == 0 else ""})
        for name, typ in zip(ins, types + [""] * len(ins), strict=False):
            rows.setdefault(_snake(name), {"type": typ} if "tile" in typ or typ == "dtype" else {})
        break
    return {n: r for n, r in rows.items() if _OPERAND_NAME.match(n) and not n.startswith("arg")}


def _match_names(params: list[dict[str, Any]], rows: dict[str, dict[str, str]]) -> None:
    """Pages may name an operand differently from its C++ parameter (`%mode` for `cmpMode`): a
    parameter without a row of its own takes the unclaimed row its name begins with in snake case
    (`cInMatrix` the row `c_in`, `aMatrix` the row `a`; the longest such row), else the first
    unclaimed row that fits its kind."""
    claimed = {p["operand"] for p in params if p.get("operand") in rows}
    for p in params:
        if p.get("events") or p["operand"] in rows:
            continue
        snake = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", p["name"]).lower()
        prefixed = [n for n in rows if n not in claimed and snake.startswith(n + "_")]
        if prefixed:
            p["operand"] = max(prefixed, key=len)
            claimed.add(p["operand"])
            continue
        kind = "attr" if "attr" in p else ("scalar" if "dtype_of" in p or "value_type" in p else "tile")
        spare = next((n for n in rows if n not in claimed and _fits(rows[n], kind)), None)
        if spare is not None:
            p["operand"] = spare
            claimed.add(spare)


def _operands(
    facts: PageFacts, params: list[dict[str, Any]], vector: bool, targets: Targets, unplaced: list[str]
) -> list[dict[str, Any]]:
    rows = _rows(facts)
    operands: list[dict[str, Any]] = []
    if vector:
        ssa = next(iter(facts.syntax.get("ssa", [])), "")
        m = re.match(r"%(\w+)(?:, %\w+)* = pto\.\w+ (.*?) : (.*?) -> (.*)$", ssa)
        if m is None:
            raise ImportProblem(
                "a vector page needs an AS Level 1 (SSA) line to name its operands",
                facts.where.get("syntax.ssa"),
            )
        outs = re.findall(r"%(\w+)", ssa.split("=", 1)[0])
        ins = re.findall(r"%(\w+)", m.group(2))
        in_types = _split(m.group(3))
        out_types = _split(m.group(4))
        for k, name in enumerate(outs):
            typ = out_types[k] if k < len(out_types) else ("!pto.vreg<NxT>" if k == 0 else "!pto.mask<G>")
            operands.append(_operand(name, "dst", typ, rows))
        for name, typ in zip(ins, in_types, strict=False):
            role = "mask" if name == "mask" else ("scalar" if "!pto" not in typ else "src")
            operands.append(_operand(name, role, typ, rows))
        return operands
    # A reference page has no operand table: its syntax line names the operands instead.
    _match_names(params, rows or _syntax_rows(facts))
    # A hint (a GlobalTensor and a context, TPREFETCH_ASYNC) writes no operand: it has no dst.
    hint = any("Context" in str(p.get("type", "")) for p in params)
    if hint:
        dst_name = ""
    elif params and not any(p.get("operand") == "dst" for p in params) and not params[0].get("events"):
        unplaced.append(
            f"no operand is called dst: the first parameter, {params[0]['operand']}, is taken as it"
        )
        rows.setdefault(params[0]["operand"], {})
        dst_name = params[0]["operand"]
    else:
        dst_name = "dst"
    enums = {e.name: e for e in targets.enums}
    for p in params:
        if p.get("events"):
            # the events an op waits on as what it does (TSYNC): the page lists them as an operand
            if p.get("operand"):
                operands.append(_operand(p["operand"], "src", "!pto.event<...>", rows))
            continue
        name = p["operand"]
        if "dtype_of" in p or "value_type" in p:
            operands.append(_operand(name, "scalar", "dtype", rows))
        elif "attr" in p:
            enum = enums.get(p["attr"])
            asm = f"{enum.asm}<...>" if enum is not None and enum.asm else "attr"
            operands.append(_operand(name, "attr", asm, rows) | {"enum": p["attr"]})
        else:
            role = "dst" if name == dst_name else (name if name in ("tmp", "mask") else "src")
            typ = (
                "!pto.partition_tensor_view<MxNxdtype>"
                if "Global" in p["type"]
                else "!pto.context"
                if "Context" in p["type"]
                else "!pto.tile<...>"
            )
            operands.append(_operand(name, role, typ, rows, glob="Global" in p["type"]))
    operands.sort(key=lambda o: 0 if o["role"] == "dst" else 1)
    return operands


_TMP_IN_EVENTS = re.compile(
    r"^A (?P<name>\w+) tile must be passed \(as the first argument after the documented"
)


def _tmp_in_events(facts: PageFacts, operands: list[dict[str, Any]], intrinsic: dict[str, Any]) -> None:
    """A scratch tile passed at the head of the events pack is no parameter of the declaration; the
    page's rule line names it ("A `tmp` tile must be passed (as the first argument after ...)")."""
    for line in facts.constraints + facts.profile_restrictions:
        m = _TMP_IN_EVENTS.match(_plain(line))
        if m is None:
            continue
        name = _snake(m.group("name"))
        if name not in {o["name"] for o in operands}:
            operands.append(_operand(name, "tmp", "!pto.tile<...>", _rows(facts)))
        intrinsic["tmp_in_events"] = name
        return


def _operand(
    name: str, role: str, typ: str, rows: dict[str, dict[str, str]], glob: bool = False
) -> dict[str, Any]:
    row = rows.get(name, {})
    typ = row.get("type") or typ
    if row.get("role") in _ROLES and (role == "attr") == (row["role"] == "attr"):
        role = row["role"]
    low = typ.lower()
    kind = (
        "global"
        if glob or "global" in low or "tensor_view" in low
        else "events"
        if "!pto.event" in low
        else "context"
        if "ctx" in low or "context" in low
        else "tile"
        if "tile" in low
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
    description = " ".join((row.get("description") or default).split())
    return {"name": name, "kind": kind, "role": role, "asm_type": typ, "description": description}


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


def _mnemonic_from_name(name: str) -> str:
    """`tprefetch-async.md` or `TPREFETCH_ASYNC.md` -> `pto.tprefetch_async` ('' if not a name)."""
    stem = re.sub(r"[-\s]", "_", Path(name).stem.lower()) if name else ""
    return f"pto.{stem}" if re.fullmatch(r"[a-z][a-z0-9_]*", stem) else ""


def _declarations(
    facts: PageFacts, unplaced: list[str]
) -> list[tuple[str, str, str, str, list[dict[str, Any]], list[dict[str, Any]]]]:
    """The page's declarations that can be read: (comment, qualifier, returns, name, template, params)."""
    out = []
    comments = facts.signature_comments + [""] * len(facts.signatures)
    for sig, comment in zip(facts.signatures, comments, strict=False):
        try:
            out.append((comment, *parse_signature(sig)))
        except ImportProblem as exc:
            unplaced.append(str(exc))
    return out


_ANY_DECL = re.compile(
    r"^template\s*<(?:[^;{}])*?>\s*(?:PTO_INST|PTO_INTERNAL)?\s*(?:RecordEvent|comm::AsyncEvent|void)\s+(\w+)\s*\([^;{}]*\)\s*;",
    re.MULTILINE,
)


def _declarations_anywhere(text: str, mnemonic: str) -> list[str]:
    """Declarations of the op's intrinsic outside a "C++ Intrinsic" section (e.g. "Variants")."""
    want = mnemonic.split(".", 1)[1].upper()
    return [normalise_signature(m.group(0)) for m in _ANY_DECL.finditer(text) if m.group(1) == want]


def _main_first(
    decls: list[tuple[str, str, str, str, list[dict[str, Any]], list[dict[str, Any]]]], unplaced: list[str]
) -> list[tuple[str, str, str, str, list[dict[str, Any]], list[dict[str, Any]]]]:
    """The main declaration first, then the overloads that carry all its operands.

    Overloads only add operands, so the main form is the one whose parameters every other form
    has (the page's first when it qualifies). Declarations of another intrinsic, or that lack a
    main operand, are reported, not kept."""
    if not decls:
        return decls
    names = [{p["name"] for p in d[5] if not p.get("events") or p.get("operand")} for d in decls]
    waits = {p["name"] for d in decls for p in d[5] if p.get("events") and p.get("operand")}
    every = set().union(*names)
    for d, n in zip(decls, names, strict=True):  # a parameter passed as a template value (TASSIGN<Addr>)
        n |= {_carried(t) for t in d[4] if _carried(t) in every - n}
    # A form may drop the events it would wait on (TSYNC<Op>()): the main form is the one whose other
    # parameters every form has, and which has some if any form does.
    cores = [n - waits for n in names]
    main = next((i for i, n in enumerate(names) if all(cores[i] <= m for m in names) and (n or not every)), 0)
    if main and _drops_one_tile(decls[0], decls[main], names[0], names[main]):
        main = 0  # the page's first declaration, which a later one passes all but one tile of (TSCATTER)
    out = [decls[main]]
    for i, d in enumerate(decls):
        if i == main:
            continue
        lacks = names[main] - names[i] - waits
        if d[3] == decls[main][3] and _in_place(decls[main][5], d[5], lacks):
            out.append(d)
            continue
        if d[3] == decls[main][3] and _drops_one_tile(decls[main], d, names[main], names[i]):
            out.append(d)
            continue
        if d[3] == decls[main][3] and _same_destination(decls[main], d):
            out.append(d)  # a form of its own over the same destination (TMRGSORT's lists): it drops
            continue  # what it lacks (`_overload`)
        if d[3] != decls[main][3] or len(lacks) > len(names[i] - names[main]) or len(lacks) > 1:
            unplaced.append(
                f"declaration {d[3]}({', '.join(p['name'] for p in d[5])}) not kept as an overload"
            )
            continue
        out.append(d)
    return out


def _drops_one_tile(
    first: tuple[str, str, str, str, list[dict[str, Any]], list[dict[str, Any]]],
    other: tuple[str, str, str, str, list[dict[str, Any]], list[dict[str, Any]]],
    first_names: set[str],
    other_names: set[str],
) -> bool:
    """Whether `other` (a declaration of the same intrinsic) passes every parameter of the page's
    first declaration but one tile, and nothing else: a form that drops an operand (TSCATTER's mask
    form drops `indexes`), which the first declaration, listed first, is the main form of."""
    lacks = first_names - other_names
    tiles = {p["name"] for p in first[5] if "type" in p and not p.get("events")}
    return first[3] == other[3] and other_names < first_names and len(lacks) == 1 and lacks <= tiles


def _same_destination(
    main: tuple[str, str, str, str, list[dict[str, Any]], list[dict[str, Any]]],
    other: tuple[str, str, str, str, list[dict[str, Any]], list[dict[str, Any]]],
) -> bool:
    """Whether `other` passes the main declaration's first tile parameter (its destination) under
    the same name and type parameter, as a form that drops some main operands does."""
    first = next((p for p in main[5] if "type" in p and not p.get("events")), None)
    return first is not None and any(p["name"] == first["name"] for p in other[5] if "type" in p)


def _in_place(main: list[dict[str, Any]], form: list[dict[str, Any]], lacks: set[str]) -> bool:
    """Whether a declaration passes one tile where the main one passes two of that type, and is
    otherwise the main one's (TMATMUL_ACC(cMatrix, ...) for cOutMatrix and cInMatrix): an in-place
    form, which drops the second."""
    types = {p["name"]: p.get("type") for p in main}
    extra = [p for p in form if p["name"] not in types and not p.get("events")]
    lacking = [p for p in main if p["name"] in lacks]
    return (
        len(lacking) == 2
        and len(extra) == 1
        and "type" in extra[0]
        and lacking[0].get("type") == lacking[1].get("type") == extra[0]["type"]
    )


def _carried_by_template(
    facts: PageFacts,
    intrinsic: dict[str, Any],
    operands: list[dict[str, Any]],
    rows: dict[str, dict[str, str]],
) -> None:
    """A scalar the main declaration takes as a value template parameter (TCI's `descending`): the
    page's formula reads it by the parameter's name in snake case, and no function parameter does."""
    passed = {p.get("operand") for p in intrinsic["params"]}
    for t in intrinsic["template"]:
        name = _carried(t)
        tex = "\\mathrm{" + name.replace("_", "\\_") + "}"
        if name and name not in passed and tex in (facts.math or ""):
            t["operand"] = name
            operands.append(_operand(name, "scalar", str(t.get("type", "")), rows))


def _carried(t: dict[str, Any]) -> str:
    """The parameter name a value template parameter would carry (`Addr` -> `addr`), or ''."""
    return _snake(t["name"]) if t["kind"] == "value" else ""


def _default_declaration(
    name: str, facts: PageFacts, unplaced: list[str]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Some pages give no declaration (or only a "Declared in" line): one tile type per operand of
    the page's syntax line, in its order (destination first), as every documented tile op does."""
    names: list[str] = []
    for line in facts.syntax.get("ssa", []) + facts.syntax.get("dps", []) + facts.syntax.get("pto_asm", []):
        for found in re.findall(r"%(\w+)", line):
            if _OPERAND_NAME.match(_snake(found)) and _snake(found) not in names:
                names.append(_snake(found))
    rows = [n for n in _rows(facts) if _rows(facts)[n].get("type", "tile").lower() != "enum"]
    if rows:  # the operand table is the better source; syntax lines may use placeholder names
        names = [n for n in names if n in rows] + [n for n in rows if n not in names]
    names = [n for n in names if not n.startswith("arg")]
    if "dst" not in names:
        names.insert(0, "dst")
    names.sort(key=lambda n: n != "dst")
    if len(names) < 2:
        names.append("src")
    template = [{"name": f"TileData{n.title().replace('_', '')}", "kind": "typename"} for n in names]
    params: list[dict[str, Any]] = [
        {"name": n, "type": t["name"], "operand": n} for n, t in zip(names, template, strict=True)
    ]
    template.append({"name": "WaitEvents", "kind": "pack"})
    params.append({"name": "events", "type": "WaitEvents", "events": True})
    unplaced.append(
        f"the page gives no C++ declaration of {name}: one was written from its operands "
        f"({', '.join(names)}); check it against include/pto/common/pto_instr.hpp"
    )
    return template, params


def _overload(
    comment: str,
    template: list[dict[str, Any]],
    params: list[dict[str, Any]],
    operands: list[dict[str, Any]],
    rows: dict[str, dict[str, str]],
    targets: Targets,
    unplaced: list[str],
    main: list[dict[str, Any]] | None = None,
    main_template: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """A further declaration: it carries the main operands and may add its own (scratch tiles,
    modes, a further result), described by the page's operand table. A parameter named as one of
    the main declaration's (`main`) passes the same operand."""
    known = {o["name"] for o in operands}
    kinds = {o["name"]: o["kind"] for o in operands}
    passed = {p.get("operand") for p in params}
    tile_only = [t["name"] for t in template if t.pop("tile_only", False)]
    guard = _guard(template)
    enums = {e.name for e in targets.enums}
    main_targs = {t["name"] for t in main_template or []}
    carried_own: list[dict[str, Any]] = []
    # A form that waits on none of the main form's events (TSYNC's barrier) takes its own operand as
    # a template value instead.
    dropped = [n for n in known if kinds[n] == "events" and n not in passed]
    for t in template:  # a scalar of the main form passed as a template value (TASSIGN<Addr>)
        if _carried(t) in known and _carried(t) not in passed and kinds[_carried(t)] == "scalar":
            t["operand"] = _carried(t)
        elif (  # an op class of its own as a template value, without a default (TSYNC<Op>)
            dropped
            and _carried(t)
            and _carried(t) not in known
            and t["name"] not in main_targs
            and "default" not in t
            and t.get("type") in enums
        ):
            t["operand"] = _carried(t)
            found = next(e for e in targets.enums if e.name == t["type"])
            asm = f"{found.asm}<...>" if found.asm else "attr"
            carried_own.append(_operand(_carried(t), "attr", asm, rows) | {"enum": t["type"]})
    by_name = {p["name"]: p["operand"] for p in main or [] if "operand" in p}
    for p in params:
        if p.get("operand") is not None and p["name"] in by_name:
            p["operand"] = by_name[p["name"]]
    # One main tile the overload passes under a name of its own (`dstIdx` for `dst`).
    passed_now = {p.get("operand") for p in params}
    missing = [o["name"] for o in operands if o["kind"] == "tile" and o["name"] not in passed_now]
    structs = {st.name for st in targets.structs}  # a struct parameter passes no main tile
    strays = [
        p
        for p in params
        if "operand" in p
        and "type" in p
        and p["type"] not in structs
        and p["operand"] not in known | rows.keys()
    ]
    if len(strays) > 1:  # the comment names what the form adds (`dstVal`); the rest is a main one
        strays = [p for p in strays if f"`{p['name']}`" not in comment]
    if len(missing) == 1 and len(strays) == 1:
        strays[0]["operand"] = missing[0]
    elif len(missing) == 2 and len(strays) == 1:  # an in-place form (see `_in_place`): the first
        strays[0]["operand"] = missing[0]  # tile is passed, the second (its input) is dropped
        dropped.append(missing[1])
    elif missing and not strays and main is not None:
        # A form without some main operands (TSCATTER's mask form: `indexes`; TMRGSORT's lists:
        # `src` and `blockLen`), which it drops.
        carried = {_carried(t) for t in template}
        dropped += [
            o["name"]
            for o in operands
            if o["kind"] in ("tile", "scalar") and o["name"] not in passed_now and o["name"] not in carried
        ]
    for p in params:
        tile_param = "type" in p and not p.get("events")
        if tile_param and kinds.get(p.get("operand", "")) == "scalar":
            p["from_tile"] = True  # the scalar arrives as a tile (TCMPS's tile form reads its (0, 0))
            continue
        if p.get("operand") in kinds and tile_param != (kinds[p["operand"]] in ("tile", "global")):
            raise ImportProblem(f"it passes {p['operand']} as a {'tile' if tile_param else 'scalar'}")
    _match_names(
        [p for p in params if p.get("operand") not in known],
        {n: r for n, r in rows.items() if n not in known},
    )
    own = _ops_of_params([p for p in params if p.get("operand") not in known], targets, rows) + carried_own
    ov: dict[str, Any] = {
        "summary": comment or "A further documented form.",
        "template": template,
        "params": params,
    }
    if dropped:
        ov["drops"] = dropped
    if tile_only:
        ov["tile_only"] = tile_only
    if guard:
        ov["guard"] = guard
    if not comment:
        unplaced.append("an overload has no summary comment: `A further documented form.` written")
    results = [o["name"] for o in own if o["role"] == "dst"]
    # A form that drops a main operand computes a result of its own (TGATHER's comparison form and
    # its counts), not the picked values of the main one's.
    if len(results) == 1 and not [n for n in dropped if kinds.get(n) == "tile"]:
        ov["value_output"] = results[0]  # a further result: the picked values of an arg-reduction
    if own:
        ov["operands"] = own
    test_args = {}
    for o in own:
        if o in carried_own or o["kind"] == "context":
            continue  # a template argument (tests pass the enum's first value), or a struct they declare
        if o["kind"] == "attr":
            enum = next((e for e in targets.enums if e.name == o["enum"]), None)
            if enum is None:
                raise ImportProblem(
                    f"overload operand {o['name']} takes {o['enum']}, no enum of targets.yaml"
                )
            test_args[o["name"]] = f"{o['enum']}::{enum.values[0]}"
        elif o["kind"] == "global":
            other = next((x["name"] for x in operands if x["kind"] == "global"), None)
            if other is None:
                raise ImportProblem(f"no global operand can stand in for {o['name']} in the tests")
            test_args[o["name"]] = other
        elif o["kind"] != "tile":
            vtype = next(p.get("value_type") for p in params if p.get("operand") == o["name"])
            if vtype == "bool":
                test_args[o["name"]] = "false"
            elif targets.has_dtype(str(vtype)) and targets.dtype(str(vtype)).kind != "float":
                test_args[o["name"]] = "0"  # an integer parameter, e.g. TSTORE's preQuantScalar
            else:
                raise ImportProblem(f"no test value can be written for the {vtype} operand {o['name']}")
        else:
            continue
        unplaced.append(f"test value of the overload operand {o['name']} guessed: {test_args[o['name']]}")
    if test_args:
        ov["test_args"] = test_args
    return ov


def _ops_of_params(
    params: list[dict[str, Any]], targets: Targets, rows: dict[str, dict[str, str]]
) -> list[dict[str, Any]]:
    enums = {e.name: e for e in targets.enums}
    out: list[dict[str, Any]] = []
    for p in params:
        if p.get("events"):
            continue
        name = p["operand"]
        if "dtype_of" in p or "value_type" in p:
            out.append(_operand(name, "scalar", "dtype", rows))
        elif p.get("type") in {st.name for st in targets.structs}:  # a struct the form fills in
            out.append(_operand(name, "dst", "context", rows) | {"kind": "context"})
        elif "attr" in p:
            enum = enums.get(p["attr"])
            asm = f"{enum.asm}<...>" if enum is not None and enum.asm else "attr"
            out.append(_operand(name, "attr", asm, rows) | {"enum": p["attr"]})
        else:
            # a further result (`dst_val`); an index tile beside the result (TCONCAT's `dst_idx`,
            # per-row counts) is not one
            dst = name == "dst" or (name.startswith("dst_") and not name.endswith("_idx"))
            role = "dst" if dst else ("tmp" if name in ("tmp", "dst_idx") else "src")
            glob = "Global" in p["type"]
            typ = "!pto.partition_tensor_view<MxNxdtype>" if glob else "!pto.tile<...>"
            out.append(_operand(name, role, typ, rows, glob=glob))
    return out


def page_to_spec(text: str, targets: Targets, name_hint: str = "") -> tuple[dict[str, Any], list[str]]:
    """The spec a page states, and the facts of the page it could not place. `name_hint` (the
    page's file name) names the op when the page itself does not."""
    spec, unplaced, _where = _page_to_spec(text, targets, name_hint)
    return spec, unplaced


def _cut_variants(text: str) -> tuple[str, list[str]]:
    """The page without its `## Variants` section (blank lines in its place, so that every other
    line keeps its number), and the variants it names. The section's rules are not read back yet:
    what it states is left to the importing user (`unplaced`)."""
    out: list[str] = []
    names: list[str] = []
    inside = False
    for line in text.split("\n"):
        if line.startswith("## "):
            inside = line.strip() == "## Variants"
        if inside:
            m = re.match(r"### `(\w+)`", line)
            if m:
                names.append(m.group(1))
            out.append("")
        else:
            out.append(line)
    return "\n".join(out), names


def _page_to_spec(
    text: str, targets: Targets, name_hint: str = ""
) -> tuple[dict[str, Any], list[str], dict[str, int]]:
    """page_to_spec, with the line of each located fact (`PageFacts.where`)."""
    text, variants = _cut_variants(text)
    text, dropped = _drop_long_lines(text)
    lines_before = text.count("\n")
    text, html_dropped = html_to_markdown(text)
    facts = parse_page(text, keep_markdown=True)
    if text.count("\n") != lines_before:
        facts.where.clear()  # HTML tables were rewritten: line numbers no longer match the file
    unplaced = dropped + html_dropped + [line for line in facts.unplaced if line.strip()]
    unplaced += [
        f"variant {v!r} (the page's Variants section) is not read back: write its `variants:` entry"
        for v in variants
    ]
    mnemonic = facts.mnemonic or _mnemonic_from_name(name_hint)
    if not mnemonic:
        raise ImportProblem("the page names no mnemonic (expected a `pto.xxx` or `TXXX` title)")
    if not facts.mnemonic:
        unplaced.append(f"the page names no mnemonic in its title; {mnemonic} taken from its file name")
    mnemonic = _syntax_mnemonic(facts, mnemonic)
    try:
        iset = _instruction_set(facts, targets, mnemonic, name_hint)
    except ImportProblem as exc:  # the title (or the "is part of" line) names the op and its set
        exc.line = exc.line or facts.where.get("title") or facts.where.get("instruction_set")
        raise
    vector = iset.kind == "vector"
    spec: dict[str, Any] = {"mnemonic": mnemonic, "instruction_set": iset.id}
    spec["summary"] = " ".join((facts.summary or mnemonic).split())
    if _GENERATED in text and facts.math_at:
        # ptogen writes the op kind's iteration domain as the paragraph just before the formula,
        # and the formulas of overloads after it
        mechanism = facts.mechanism[: facts.math_at - 1]
    else:
        mechanism = [p for p in facts.mechanism if not _plain(p).startswith(_DOMAIN_STARTS)]
    spec["mechanism"] = " ".join(" ".join(mechanism).split()) or spec["summary"]
    params: list[dict[str, Any]] = []
    intrinsic: dict[str, Any] | None = None
    if not vector and not facts.signatures:
        facts.signatures = _declarations_anywhere(text, mnemonic)
    found = [] if vector else _declarations(facts, unplaced)
    only_events = bool(found) and all(all(p.get("events") for p in d[5]) for d in found)
    if only_events or any("!pto.event" in line for forms in facts.syntax.values() for line in forms):
        # the page's syntax takes events as operands, or no declaration takes anything else (TSYNC):
        # its events pack carries them
        for *_, decl_params in found:
            for param in decl_params:
                if param.get("events"):
                    param["operand"] = _snake(param["name"])
    declarations = _main_first(found, unplaced) if found else []
    returns = "RecordEvent"
    if declarations:
        _, qual, returns, name, template, params = declarations[0]
        for entry in template:
            entry.pop("tile_only", None)  # only an overload states it (`_overload`)
        guard = _guard(template)
    elif not vector:
        name = mnemonic.split(".", 1)[1].upper()
        qual = "PTO_INST"
        template, params = _default_declaration(name, facts, unplaced)
    if not vector:
        intrinsic = {"name": name}
        if qual != "PTO_INST":
            intrinsic["qualifier"] = qual
        if returns != "RecordEvent":
            intrinsic["returns"] = returns
        if declarations and guard:
            intrinsic["guard"] = guard
        intrinsic["template"] = template
        intrinsic["params"] = params
    operands = _operands(facts, params, vector, targets, unplaced)
    if intrinsic is not None:
        _carried_by_template(facts, intrinsic, operands, _rows(facts))
        _tmp_in_events(facts, operands, intrinsic)
    if intrinsic is not None:
        overloads = []
        for comment, _, _, n, t, p in declarations[1:]:
            try:
                overloads.append(
                    _overload(comment, t, p, operands, _rows(facts), targets, unplaced, params, template)
                )
            except ImportProblem as exc:
                unplaced.append(f"overload {n}({', '.join(x['name'] for x in p)}) not kept: {exc}")
        if overloads:
            intrinsic["overloads"] = overloads
    names = {o["name"] for o in operands if o["kind"] in ("tile", "scalar", "vreg", "global", "mask")}
    dsts = [o["name"] for o in operands if o["role"] == "dst"]
    intro = _plain(facts.mechanism[facts.math_at - 1]) if facts.math_at else ""
    if not facts.math_at:  # a kind without a formula (sync) still writes its domain paragraph
        intro = next((_plain(p) for p in facts.mechanism if _plain(p).startswith(_DOMAIN_STARTS)), "")
    # Every op kind looks for itself in the page (opkinds, `recognise`).
    page_op = PageOp(
        vector, facts.math or "", _reduces_over(facts.math or ""), intro, tuple(o["kind"] for o in operands)
    )
    kind = recognise_kind(page_op)
    if kind is None:
        raise ImportProblem("no op kind recognises this page (its formula, iteration domain and operands)")
    dst = KINDS[kind].import_domain(operands)  # the operand the op iterates
    if dst is None:
        raise ImportProblem("the page names no destination operand (no `dst` and no result)")
    expr = None
    extra: dict[str, str] = {}
    if facts.math and not _rows(facts):
        _name_from_math(facts.math, operands, params, unplaced)
        names = {o["name"] for o in operands if o["kind"] in ("tile", "scalar", "vreg", "global", "mask")}
    attrs: dict[str, int] = {}
    if facts.math:
        attrs = _attr_arity(facts.math, {o["name"] for o in operands if o["kind"] == "attr"})
        read = latex_to_index_notation if KINDS[kind].index_notation else latex_to_expr
        # A kind whose formula states several results, or more than the element math, says which
        # plain formula gives which result (the first: the main one).
        (_, main), *further = KINDS[kind].import_formulas(facts.math)
        try:
            expr = read(main, names, attrs)
            extra = {str(out): read(formula, names, attrs) for out, formula in further}
        except (semantics.ExprError, SyntaxError, ValueError) as exc:
            unplaced.append(f"math not understood ({exc}): {facts.math}")
    if expr is None:
        first = next((o["name"] for o in operands if o["role"] in ("src", "scalar")), dst)
        unplaced.append(
            f"no element semantics on the page: `semantics.expr` set to `{first}`; write the real one"
        )
        expr = first
    for before, formula in facts.more_math:
        m = re.match(r"Overload (\d+)\. ", _plain(before))
        overloads = (intrinsic or {}).get("overloads", [])
        if m is None or not 0 < int(m.group(1)) <= len(overloads):
            continue
        ov = overloads[int(m.group(1)) - 1]
        ov_names = names | {o["name"] for o in ov.get("operands", []) if o["kind"] in ("tile", "scalar")}
        try:
            ov["expr"] = (latex_to_index_notation if KINDS[kind].index_notation else latex_to_expr)(
                formula, ov_names, attrs
            )
        except (semantics.ExprError, SyntaxError, ValueError) as exc:
            unplaced.append(f"math of overload {m.group(1)} not understood ({exc}): {formula}")
    sem: dict[str, Any] = {"kind": kind, "expr": expr, "domain": dst, "tolerance": {"kind": "exact"}}
    if extra:
        sem["extra_outputs"] = extra
    KINDS[kind].complete_import(sem, operands)
    expr = sem["expr"]
    if vector:
        sem["inactive_lanes"] = "zero"
    if len(dsts) > 1 and vector:
        # Further results (a carry mask): the page names them but gives no expression for them.
        sem["extra_outputs"] = {d: expr for d in dsts[1:]}
        unplaced.append(
            f"no semantics for the further result(s) {', '.join(dsts[1:])}: set to `{expr}`; write them"
        )
    spec["semantics"] = sem
    spec["operands"] = operands
    if intrinsic:
        spec["intrinsic"] = intrinsic
    spec["syntax"] = {k: list(v) for k, v in facts.syntax.items() if v}
    spec["side_effects"] = " ".join((facts.side_effects or "No side effects are documented.").split())
    data = [o["name"] for o in operands if o["kind"] in ("tile", "vreg") and o["role"] not in ("tmp", "mask")]
    types = {p.get("type") for p in params if p.get("operand") in data}
    declared = {p.get("operand"): p.get("type") or p.get("value_type") or p.get("dtype_of") for p in params}
    typed = {
        o["name"]: declared.get(o["name"])
        for o in operands
        if o["kind"] in ("tile", "scalar", "vreg", "mask", "global")
    }
    # Operands only further declarations take (TCONCAT's index tiles), which rules limited to those
    # declarations name, under the type their declaration gives them.
    for overload in (intrinsic or {}).get("overloads", []):
        own = {p.get("operand"): p.get("type") or p.get("value_type") for p in overload.get("params", [])}
        for o in overload.get("operands", []):
            if o["kind"] in ("tile", "scalar") and o["name"] not in typed:
                typed[o["name"]] = own.get(o["name"])
    # The data tiles of each further declaration: the main data tiles it passes and its own tiles.
    main_names = {o["name"] for o in operands}
    form_tiles = {
        k: [
            str(p.get("operand"))
            for p in ov.get("params", [])
            if "type" in p
            and not p.get("events")
            and (p.get("operand") in data or p.get("operand") not in main_names)
            and p.get("type") not in {st.name for st in targets.structs}
        ]
        for k, ov in enumerate((intrinsic or {}).get("overloads", []), start=1)
    }
    rules, prose = _rules(facts, text, targets, data, len(types) > 1, vector, unplaced, typed, form_tiles)
    spec["constraints"] = rules
    if prose:
        spec["prose_constraints"] = _prose_constraints(prose)
    profile_notes = _profile_notes(facts, targets)
    if profile_notes:
        spec["profile_notes"] = profile_notes
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
    if examples:
        spec["examples"] = examples
    return spec, unplaced, facts.where


def _prose_constraints(prose: list[tuple[str, str | None]]) -> list[dict[str, Any]]:
    """Prose lines, one entry per text: a text listed under several profile groups once, with them."""
    out: list[dict[str, Any]] = []
    for text, profile in prose:
        same = next((p for p in out if p["text"] == text), None)
        if same is None:
            out.append({"text": text, **({"profiles": [profile]} if profile else {})})
        elif profile and "profiles" in same and profile not in same["profiles"]:
            same["profiles"].append(profile)
    return out


def _plain(text: str) -> str:
    return " ".join(text.replace("`", "").replace("**", "").split())


_PROFILE_NOTE = re.compile(r"^\*\*(?P<profile>\w+)\*\*\s*:\s*(?P<text>.+)$")


def _profile_notes(facts: PageFacts, targets: Targets) -> list[dict[str, Any]]:
    """`**A5**: text` items under Target-Profile Restrictions (the checks are rules, not notes)."""
    profiles = set(targets.profile_names())
    out: list[dict[str, Any]] = []
    groups = facts.restriction_groups + [None] * len(facts.profile_restrictions)
    for item, group in zip(facts.profile_restrictions, groups, strict=False):
        m = _PROFILE_NOTE.match(item)
        if m and m.group("profile") in profiles:
            out.append({"profile": m.group("profile"), "text": m.group("text").strip()})
        elif group is None and not item.startswith(("!!!", "???")):
            out.append({"text": item})  # a note of every profile, outside the check groups
    return out


def facts_text(facts: PageFacts) -> str:
    return " ".join(facts.related.values()) + " " + (facts.instruction_set or "")


def _instruction_set(facts: PageFacts, targets: Targets, mnemonic: str, path: str = "") -> Any:
    def key(title: str) -> str:
        return re.sub(r"[^a-z]", "", title.lower().replace("instructions", ""))

    where = Path(path).parent if path else None
    for s in targets.instruction_sets:  # an op page filed under a set's directory belongs to it
        if where is not None and where.as_posix().endswith(s.doc_dir):
            return s
    for s in targets.instruction_sets:  # a reference page beside the op page's tree, or linking it
        sibling = where / s.doc_dir / f"{mnemonic.split('.', 1)[1].replace('_', '-')}.md" if where else None
        if (sibling is not None and sibling.is_file()) or f"{s.doc_dir}/" in facts_text(facts):
            return s

    if facts.instruction_set:
        for s in targets.instruction_sets:
            if key(s.title) == key(facts.instruction_set):
                return s
    for s in targets.instruction_sets:
        if mnemonic in s.order:
            return s
    proposal = _propose_set(facts, mnemonic, path)
    if proposal:
        raise ImportProblem(
            f"{mnemonic} belongs to no instruction set of specs/targets.yaml; the page is of the set "
            f"{proposal['title']!r}: add it under `instruction_sets:` there, e.g. {_flow(proposal)}, "
            "then import the page again"
        )
    known = ", ".join(s.id for s in targets.instruction_sets)
    raise ImportProblem(
        f"{mnemonic} belongs to no instruction set of specs/targets.yaml: add it to the `order:` of one "
        f"({known}) or add a new set there"
    )


_SET_DIR = re.compile(r"(?:^|/)(?P<kind>tile|vector)/ops/(?P<dir>[a-z0-9_-]+)$")


def _propose_set(facts: PageFacts, mnemonic: str, path: str) -> dict[str, Any] | None:
    """The instruction-set entry a page of an unknown set asks for: named by the page ("is part
    of the X instruction set") or by the directory it is filed in (`vector/ops/<set>/`)."""
    m = _SET_DIR.search(Path(path).parent.as_posix()) if path else None
    if m is None and path:  # a reference page: its op page's directory, in the same tree
        stem = mnemonic.split(".", 1)[1].replace("_", "-")
        sibling = next(iter(sorted(Path(path).parent.glob(f"*/ops/*/{stem}.md"))), None)
        m = _SET_DIR.search(sibling.parent.as_posix()) if sibling else None
    title = facts.instruction_set or (m.group("dir").replace("-", " ").title() if m else "")
    if not title:
        return None
    ident = re.sub(r"[^a-z0-9]+", "_", title.lower().replace("instructions", "")).strip("_")
    kind = m.group("kind") if m else ("vector" if mnemonic.startswith("pto.v") else "tile")
    folder = m.group("dir") if m else ident.replace("_", "-")
    return {
        "id": ident,
        "title": title,
        "kind": kind,
        "doc_dir": f"{kind}/ops/{folder}",
        "index_page": f"{kind}/{folder}.md",
        "summary": "...",
        "order": f"[{mnemonic}]",
    }


def _flow(entry: dict[str, Any]) -> str:
    return "`- {" + ", ".join(f"{k}: {v}" for k, v in entry.items()) + "}`"


def validate(spec: dict[str, Any], targets: Targets) -> list[str]:
    """The spec's problems as `path: message` lines (none when it is valid)."""
    return [f"{'.'.join(str(p) for p in path)}: {msg}" for path, msg in problems(spec, targets)]


@dataclass
class Imported:
    spec: dict[str, Any]
    unplaced: list[str]
    advice: str | None  # the step left before `gen` takes the spec
    note: str | None = None  # how the page was read, when not as UTF-8


def import_page(path: Path, targets: Targets) -> Imported:
    """A page's spec, valid except perhaps for its place in `order:`; ImportProblem (one line)
    when the page cannot give one. Never raises anything else for a readable page."""
    text, note = read_page(path)
    try:
        spec, unplaced, where = _page_to_spec(text, targets, str(path))
        left = repair(spec, targets, unplaced)
    except ImportProblem:
        raise
    except RecursionError as exc:
        raise ImportProblem("the page nests too deeply to read") from exc
    except Exception as exc:  # noqa: BLE001 - a page shape not foreseen: one line, never a traceback
        raise ImportProblem(f"cannot read this page's layout ({type(exc).__name__}: {exc})") from exc
    if left:
        more = f" (and {len(left) - 1} more)" if len(left) > 1 else ""
        raise ImportProblem(
            f"the spec model cannot hold this op as the page states it: {left[0]}{more}",
            _line_of(left[0].split(":", 1)[0], spec, where),
        )
    return Imported(spec, unplaced, order_advice(spec, targets), note)


def _line_of(path: str, spec: dict[str, Any], where: dict[str, int]) -> int | None:
    """The page line a spec field was read from (`semantics.expr` -> the formula), if known."""
    parts = path.split(".")
    head = parts[0]
    if head == "operands" and len(parts) > 1 and parts[1].isdigit():
        operands = spec.get("operands") or []
        name = operands[int(parts[1])]["name"] if int(parts[1]) < len(operands) else ""
        rows = {_snake(k.removeprefix("row:")): v for k, v in where.items() if k.startswith("row:")}
        return rows.get(name) or where.get("intrinsic")
    if head == "syntax" and len(parts) > 1:
        return where.get(f"syntax.{parts[1]}")
    keys = {"semantics": "math", "intrinsic": "intrinsic", "mnemonic": "title", "instruction_set": "title"}
    return where.get(keys.get(head, ""))


def dump(spec: dict[str, Any], path: Path, context: Context | None = None) -> None:
    """Write a spec as the hand-written ones are: over the op class that fits it best (with
    `context`), with named dtype sets, flow style for short entries."""
    for ex in spec.get("examples", []):
        ex["code"] = ex["code"].rstrip("\n") + "\n"
    text = dump_text(factor(spec, context, lenient=True) if context is not None else spec)
    path.parent.mkdir(parents=True, exist_ok=True)
    # Written beside the target and renamed over it, so a kill never leaves a partial spec.
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
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
    context = spec_context(layout.specs, layout.root)[1]  # classes and sets the written spec uses
    into: Path = args.into or layout.specs / "ops"
    failed = 0
    for page in args.pages:
        try:
            got = import_page(Path(page), targets)
        except OSError as exc:
            print(f"error: {page}: cannot read: {(exc.strerror or str(exc)).lower()}", file=sys.stderr)
            failed += 1
            continue
        except ImportProblem as exc:
            print(f"error: {exc.located(page)}", file=sys.stderr)
            failed += 1
            continue
        if got.note:
            print(f"note: {page}: {got.note}", file=sys.stderr)
        spec = got.spec
        target = into / spec["instruction_set"] / f"{spec['mnemonic'].split('.', 1)[1]}.yaml"
        if target.exists() and not getattr(args, "force", False):
            print(f"error: {page}: {target} exists (use --force to overwrite)", file=sys.stderr)
            failed += 1
            continue
        try:
            dump(spec, target, context)
        except OSError as exc:
            print(f"error: {target}: cannot write: {(exc.strerror or str(exc)).lower()}", file=sys.stderr)
            failed += 1
            continue
        print(f"imported {page} -> {target}")
        for fact in got.unplaced:
            print(f"  could not place: {one_line(fact)}")
        if got.advice:
            print(f"  next: {got.advice}")
    return 2 if failed else 0
