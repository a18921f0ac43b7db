"""`ptogen import`: turn existing ISA pages (either layout, flattened captures too) into specs.

`pagefacts` finds the facts of a page; this module places them on the spec model and lists, per
page, what it could not place. The mapping is canonical (operand and constraint order, expression
spelling, defaults), so importing a page that ptogen generated from an imported spec gives that
spec back.
"""

from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.scalarstring import FoldedScalarString, LiteralScalarString

from . import semantics
from .loader import load_yaml
from .model import InstructionSetDef, OpSpec, Targets
from .pagefacts import ListItem, PageFacts, dtype_facts, parse_file
from .paths import Layout
from .specs import TARGETS_FILE, _parse_model, check_op

# Canonical rule order: the common rules a page lists first, then the per-profile ones.
RULE_ORDER = (
    "location",
    "valid_bounds",
    "same_valid_shape",
    "same_dtype",
    "dtype",
    "row_major",
    "unavailable",
    "tmp_required",
    "no_overlap",
)
HEADER = "include/pto/common/pto_instr.hpp"  # the only header the generated pages name
NO_SIDE_EFFECTS = "No side effects are documented."
NO_EXCEPTIONS = "No exceptions are documented."
_ROLES = ("dst", "src", "scalar", "tmp", "mask", "attr")
_DEFAULT_DESCRIPTION = {
    "dst": "Destination.",
    "src": "Source operand.",
    "scalar": "Scalar operand.",
    "tmp": "Scratch tile.",
    "mask": "Predicate mask.",
    "attr": "Attribute.",
}
PLACEHOLDER = "PLACEHOLDER semantics.expr"  # how the unplaced list flags a stand-in expression
_CONSTRAINT_SECTIONS = ("Constraints", "Temporary Space", "Target-Profile Restrictions")


class ImportProblem(Exception):
    """The page cannot become a spec (no mnemonic, no readable declaration, ...)."""


# ----------------------------------------------------------------------------- C++ declaration


def parse_signature(sig: str) -> tuple[str, str, list[dict[str, Any]], list[dict[str, Any]]]:
    """(qualifier, name, template params, params) of a declaration normalised by pagefacts,
    e.g. ``template<typename T,typename...E>PTO_INST RecordEvent TX(T&dst,E&...events);``."""
    m = re.match(
        r"^template<(?P<targs>.*)>(?P<qual>\w+) (?P<ret>\w+) (?P<name>\w+)\((?P<params>.*)\);?$", sig
    )
    if m is None:
        raise ImportProblem(f"cannot read the C++ declaration {sig!r} (expected a function template)")
    if m["qual"] not in ("PTO_INST", "PTO_INTERNAL") or m["ret"] != "RecordEvent":
        raise ImportProblem(
            f"the C++ declaration must be `PTO_INST|PTO_INTERNAL RecordEvent NAME(...)`: {sig!r}"
        )
    template: list[dict[str, Any]] = []
    for t in _split_top(m["targs"]):
        if tm := re.fullmatch(r"(?:typename|class)\.\.\.(\w+)", t):
            template.append({"name": tm[1], "kind": "pack"})
        elif tm := re.fullmatch(r"(?:typename|class) (\w+)", t):
            template.append({"name": tm[1], "kind": "typename"})
        elif tm := re.fullmatch(r"([\w:]+) (\w+)(?:=([\w:]+))?", t):
            entry: dict[str, Any] = {"name": tm[2], "kind": "value", "type": tm[1]}
            if tm[3]:
                entry["default"] = tm[3]
            template.append(entry)
        else:
            raise ImportProblem(f"cannot read template parameter {t!r} of {m['name']}")
    typenames = {t["name"] for t in template if t["kind"] == "typename"}
    params: list[dict[str, Any]] = []
    for p in _split_top(m["params"]):
        if pm := re.fullmatch(r"(\w+)&\.\.\.(\w+)", p):
            params.append({"name": pm[2], "type": pm[1], "events": True})
        elif pm := re.fullmatch(r"typename (\w+)::DType (\w+)", p):
            params.append({"name": pm[2], "dtype_of": pm[1]})
        elif pm := re.fullmatch(r"(\w+)&(\w+)", p):
            params.append({"name": pm[2], "type": pm[1]})
        elif pm := re.fullmatch(r"(\w+) (\w+)", p):
            # A scalar typed by a template parameter, or an enum attribute such as CmpMode.
            key = "value_type" if pm[1] in typenames else "attr"
            params.append({"name": pm[2], key: pm[1]})
        else:
            raise ImportProblem(f"cannot read parameter {p!r} of {m['name']}")
    return m["qual"], m["name"], template, params


def _split_top(text: str) -> list[str]:
    """Split at commas outside <>, () and []."""
    parts: list[str] = []
    depth, cur = 0, ""
    for ch in text:
        if ch in "<([":
            depth += 1
        elif ch in ">)]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return [p for p in (*parts, cur.strip()) if p]


# ----------------------------------------------------------------------------- element math

# LaTeX spelling -> expression-language function, read from semantics.py so the two stay in step.
_LATEX_FUNCS = sorted(
    ((tex, fn) for fn, (_, _, _, tex) in semantics.FUNCTIONS.items() if tex and fn != "sqrt"),
    key=lambda pair: -len(pair[0]),
)
_LATEX_SYMBOLS = [
    (r"\left(", "("),
    (r"\right)", ")"),
    (r"\mathbin{\&}", "&"),
    (r"\mathbin{|}", "|"),
    (r"\cdot", "*"),
    (r"\times", "*"),
    (r"\oplus", "^"),
    (r"\lnot", "~"),
    (r"\neg", "~"),
    (r"\geq", ">="),
    (r"\leq", "<="),
    (r"\neq", "!="),
    (r"\ge", ">="),
    (r"\le", "<="),
    (r"\ne", "!="),
    (r"\ll", "<<"),
    (r"\gg", ">>"),
]


class MathError(ValueError):
    pass


def latex_to_expr(math: str, names: set[str], attrs: dict[str, int], aliases: dict[str, str]) -> str:
    """The expression of a page's element math, in the forms `semantics.to_latex` writes:
    ``\\mathrm{dst}_{i,j} = (\\mathrm{src}_{i,j} > 0) ? \\mathrm{src}_{i,j} : (...)``."""
    lhs, eq, rhs = math.partition("=")
    text = rhs if eq and re.fullmatch(r"\s*\\mathrm\{[\w\\]+\}(?:_\{[^{}]*\})?\s*", lhs) else math
    text = re.sub(r"\\[,;!: ]", " ", text)
    text = re.sub(r"\\mathrm\{([\w\\]+)\}_\{[^{}]*\}", lambda m: m[1].replace("\\_", "_"), text)
    for tex, fn in _LATEX_FUNCS:
        text = text.replace(tex + "(", fn + "(")
    text = re.sub(r"\\(?:mathrm|operatorname|text)\{([\w\\]+)\}", lambda m: m[1].replace("\\_", "_"), text)
    text = _unbrace(text, r"\frac", 2, lambda a: f"(({a[0]}) / ({a[1]}))")
    text = _unbrace(text, r"\sqrt", 1, lambda a: f"sqrt({a[0]})")
    for tex, py in _LATEX_SYMBOLS:
        text = re.sub(re.escape(tex) + r"(?![A-Za-z])", py, text)
    for tex, fn in ((r"\max", "max"), (r"\min", "min"), (r"\exp", "exp"), (r"\ln", "log")):
        text = re.sub(re.escape(tex) + r"(?![A-Za-z])", fn, text)
    if "\\" in text or "{" in text:
        raise MathError("LaTeX outside the forms ptogen writes")
    text = re.sub(r"(?<![<>!=])=(?!=)", "==", text)  # to_latex spells == as =
    return to_expr(_ternary(" ".join(text.split())), names, attrs, aliases)


def _unbrace(text: str, command: str, arity: int, build: Any) -> str:
    """Replace ``\\command{a}{b}`` (balanced braces) by build([a, b]), innermost last."""
    while (start := text.find(command + "{")) >= 0:
        pos, args = start + len(command), []
        for _ in range(arity):
            if pos >= len(text) or text[pos] != "{":
                raise MathError(f"{command} without its arguments")
            depth, end = 0, pos
            for end in range(pos, len(text)):
                depth += {"{": 1, "}": -1}.get(text[end], 0)
                if depth == 0:
                    break
            args.append(_unbrace(text[pos + 1 : end], command, arity, build))
            pos = end + 1
        text = text[:start] + build(args) + text[pos:]
    return text


def _ternary(text: str) -> str:
    """``c ? a : b`` -> ``select(c, a, b)``, right-associative, at the top level of each paren."""
    depth = 0
    for i, ch in enumerate(text):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == "?" and depth == 0:
            rest, depth2 = text[i + 1 :], 0
            for j, ch2 in enumerate(rest):
                depth2 += {"(": 1, ")": -1}.get(ch2, 0)
                if ch2 == ":" and depth2 == 0:
                    cond, yes, no = text[:i].strip(), rest[:j].strip(), rest[j + 1 :].strip()
                    return f"select({_ternary(cond)}, {_ternary(yes)}, {_ternary(no)})"
    # No top-level ternary: look inside parentheses.
    out, depth, start = "", 0, 0
    for i, ch in enumerate(text):
        if ch == "(":
            if depth == 0:
                out += text[start : i + 1]
                start = i + 1
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                out += _ternary(text[start:i]) + ")"
                start = i + 1
    return out + text[start:]


def to_expr(text: str, names: set[str], attrs: dict[str, int], aliases: dict[str, str]) -> str:
    """Check a Python-spelled expression against the operands (after renaming page-only names)
    and return its canonical spelling."""
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        raise MathError(f"cannot parse {text!r}: {exc.msg}") from None
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in aliases and node.id not in names | set(attrs):
            node.id = aliases[node.id]
    try:
        return canonical(semantics.parse(ast.unparse(tree), names, attrs))
    except semantics.ExprError as exc:
        raise MathError(str(exc)) from None


def canonical(node: semantics.Node) -> str:
    """One spelling per expression tree (Python's), so re-imports compare equal."""
    bins: dict[str, type[ast.operator]] = {
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
    cmps: dict[str, type[ast.cmpop]] = {
        ">": ast.Gt,
        ">=": ast.GtE,
        "<": ast.Lt,
        "<=": ast.LtE,
        "==": ast.Eq,
        "!=": ast.NotEq,
    }

    def go(n: semantics.Node) -> ast.expr:
        if n.op == "name":
            return ast.Name(str(n.value))
        if n.op == "const":
            return ast.Constant(n.value)
        if n.op in ("neg", "not"):
            return ast.UnaryOp(ast.USub() if n.op == "neg" else ast.Invert(), go(n.args[0]))
        if n.op == "bin":
            return ast.BinOp(go(n.args[0]), bins[str(n.value)](), go(n.args[1]))
        if n.op == "cmp":
            return ast.Compare(go(n.args[0]), [cmps[str(n.value)]()], [go(n.args[1])])
        return ast.Call(ast.Name(str(n.value)), [go(a) for a in n.args], [])  # call or apply

    return ast.unparse(go(node))


# A formula in prose, e.g. "dst[i] = (src[i] >= 0) ? src[i] : scalar * src[i]."
_PROSE_FORMULA = re.compile(r"\b(?P<lhs>\w+)\[i\](?:\[j\])?\s*=\s*(?P<rhs>.+?)(?:\.(?:\s|$)|;|$)")


def prose_formula(text: str) -> str | None:
    m = _PROSE_FORMULA.search(text)
    return re.sub(r"\b(\w+)\[[ij]\](?:\[j\])?", r"\1", m["rhs"]).strip() if m else None


# ----------------------------------------------------------------------------- operands


@dataclass
class Described:
    """What the Inputs / Expected Outputs sections say about one operand."""

    name: str
    role: str | None = None
    asm_type: str | None = None
    description: str | None = None
    output: bool = False


_ROLE_WORDS = [
    (r"dst|destination|result|output", "dst"),
    (r"src|source|input", "src"),
    (r"scalar|immediate", "scalar"),
    (r"tmp|temporary|scratch", "tmp"),
    (r"mask|predicate", "mask"),
    (r"attr|attribute", "attr"),
]
_VERBS = r"is|are|names|carries|contains|holds|receives|gives|supplies|provides"
_DOMAIN = re.compile(r"(?:uses|iterates over)\s+(?P<name>\w+)(?:\.GetValidRow\(\)|'s valid region)")


def _role_of(text: str) -> str | None:
    low = text.strip().lower()
    for pattern, role in _ROLE_WORDS:
        if re.match(rf"(?:{pattern})\b", low):
            return role
    return None


def _cells(row: str) -> list[str]:
    """Cells of a Markdown table row; ``\\|`` is a pipe inside a cell."""
    cells = re.split(r"(?<!\\)\|", row.strip().removeprefix("|").removesuffix("|"))
    return [" ".join(c.replace("\\|", "|").split()) for c in cells]


def _sentence(text: str) -> str:
    text = " ".join(text.split()).strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


def read_operand_sections(
    lines: list[str], output: bool, candidates: set[str], unplaced: list[str]
) -> tuple[list[Described], list[str]]:
    """Operands described by one Inputs / Expected Outputs section (Markdown table, flattened
    table or sentences), and the operands its sentences name as the iteration domain."""
    lines = [ln for ln in lines if ln.strip()]
    if not lines:
        return [], []
    if lines[0].lstrip().startswith("|"):
        return _markdown_table(lines, output), []
    header = lines[0].split()
    if (
        header
        and header[0] in ("Operand", "Result")
        and set(header)
        <= {
            "Operand",
            "Result",
            "Role",
            "Type",
            "Description",
        }
    ):
        return _flat_table(header, lines[1:], output, unplaced), []
    return _sentences(" ".join(lines), output, candidates, unplaced)


def _markdown_table(lines: list[str], output: bool) -> list[Described]:
    header = [c.lower() for c in _cells(lines[0])]
    out: list[Described] = []
    pending = ""
    for line in lines[1:]:
        # Captures split a row over lines: join fragments until the row has every cell.
        pending = f"{pending} {line.strip()}" if pending else line.strip()
        if len(_cells(pending)) < len(header):
            continue
        row = dict(zip(header, _cells(pending), strict=False))
        pending = ""
        name = row.get("operand", row.get("result", "")).lstrip("%")
        if not name:
            continue
        out.append(
            Described(
                name,
                role=_role_of(row.get("role", "")),
                asm_type=row.get("type") or None,
                description=_sentence(row["description"]) if row.get("description") else None,
                output=output,
            )
        )
    return out


def _flat_table(header: list[str], rows: list[str], output: bool, unplaced: list[str]) -> list[Described]:
    """A table whose cells lost their separators: ``base Source tile Base tile``."""
    out: list[Described] = []
    for row in rows:
        name, _, rest = row.strip().partition(" ")
        role = asm_type = None
        if "Role" in header:
            m = re.match(
                r"(?i)((?:destination|source|scalar|temporary|scratch|predicate|mask|attribute|"
                r"dst|src|tmp|attr)(?:\s+(?:tile|vector|register|operand|mask))?)\s*",
                rest,
            )
            if m is None:
                unplaced.append(f"operand row not understood: {row}")
                continue
            role, rest = _role_of(m[1]), rest[m.end() :]
        if "Type" in header:
            asm_type, _, rest = rest.partition(" ")
        out.append(Described(name.lstrip("%"), role, asm_type, _sentence(rest) if rest else None, output))
    return out


def _sentences(
    text: str, output: bool, candidates: set[str], unplaced: list[str]
) -> tuple[list[Described], list[str]]:
    """``src is the source tile. dst names the destination tile.`` (captures glue them:
    ``srcis the source tile.slopeis ...``)."""
    names = "|".join(sorted((re.escape(c) for c in candidates), key=len, reverse=True)) or "(?!)"
    lead = rf"(?:-\s*)?%?(?P<name>{names})\s*(?:{_VERBS})\s+"
    parts = re.split(rf"\.(?:\s*-\s+|\s+|(?=(?:{names})\s*(?:{_VERBS})\s))", text.strip().rstrip("."))
    out: list[Described] = []
    domains: list[str] = []
    for part in parts:
        part = part.strip().lstrip("-").strip()
        if not part:
            continue
        if m := _DOMAIN.search(part):
            domains.append(m["name"])
        elif m := re.match(lead, part):
            out.append(Described(m["name"], description=_sentence(part[m.end() :]), output=output))
        else:
            unplaced.append(f"operand text not understood: {part}")
    return out, domains


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def _syntax_names(line: str) -> tuple[list[str], list[str], list[str], list[str]]:
    """(outputs, inputs, output types, input types) of one syntax line."""
    types_in: list[str] = []
    types_out: list[str] = []
    if m := re.match(
        r"^(?P<outs>%[\w, %]*?)\s*=\s*(?:pto\.)?\w+\s+(?P<ins>[^:]*)(?::\s*(?P<types>.*))?$", line
    ):
        outs, ins = re.findall(r"%(\w+)", m["outs"]), re.findall(r"%(\w+)", m["ins"])
        types = m["types"] or ""
        lhs, arrow, rhs = types.partition("->")
        types_in = _split_top(lhs.strip().removeprefix("(").removesuffix(")")) if lhs.strip() else []
        types_out = _split_top(rhs) if arrow else []
        return outs, ins, types_out, types_in
    if m := re.match(r"^\S+\s+ins\((?P<ins>[^:)]*)(?::(?P<it>[^)]*))?\)\s*outs\((?P<outs>[^:)]*)", line):
        return re.findall(r"%(\w+)", m["outs"]), re.findall(r"%(\w+)", m["ins"]), [], []
    return [], re.findall(r"%(\w+)", line), [], []


# ----------------------------------------------------------------------------- constraints


def _names_in(text: str, candidates: list[str]) -> list[str]:
    """Operand names a sentence mentions, in order; tolerates captures' glued code
    (``dstandsrcmust``)."""
    found = []
    for name in candidates:
        m = re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", text) or re.search(
            rf"(?:(?<![A-Za-z0-9_])|(?<=and)|(?<=,)){re.escape(name)}(?=and|must|,|$)", text
        )
        if m:
            found.append((m.start(), name))
    return [n for _, n in sorted(found)]


_NOTE = re.compile(r"\((?P<note>[^()]*)\)\s*\.?\s*$")


@dataclass
class _Page:
    """Working state of one import."""

    facts: PageFacts
    targets: Targets
    iset: InstructionSetDef
    unplaced: list[str] = field(default_factory=list)
    operands: list[dict[str, Any]] = field(default_factory=list)
    intrinsic: dict[str, Any] | None = None
    aliases: dict[str, str] = field(default_factory=dict)

    @property
    def vector(self) -> bool:
        return self.iset.kind == "vector"

    def names(self, *kinds: str) -> list[str]:
        return [o["name"] for o in self.operands if o["kind"] in kinds]

    @property
    def data(self) -> list[str]:
        """The operands a `TileData` rule covers: tiles (vector registers) but scratch and mask."""
        return [
            o["name"]
            for o in self.operands
            if o["kind"] in ("tile", "vreg") and o["role"] not in ("tmp", "mask")
        ]

    @property
    def dst(self) -> str:
        return next(o["name"] for o in self.operands if o["role"] == "dst")

    def template_of(self, operand: str) -> str | None:
        for p in (self.intrinsic or {}).get("params", []):
            if p.get("operand") == operand:
                return str(p.get("type") or p.get("dtype_of") or p.get("value_type"))
        return None


def _profile(page: _Page, item: ListItem) -> tuple[bool, list[str] | None]:
    """(known, profiles) of the group an item sits in."""
    if item.profile is None:
        return True, None
    for p in page.targets.profiles:
        if item.profile in (p.name, p.title):
            return True, [p.name]
    return False, None


def _dtype_rules(page: _Page, item: ListItem, scope: list[str] | None) -> list[dict[str, Any]] | None:
    """Rules of a dtype statement; None when the item states no dtype list."""
    facts = [(key, names) for key, names, weak in dtype_facts(item.group, item.text) if not weak]
    if not facts:
        return None
    rules = []
    subject = item.text.split("must be one of")[0] if "must be one of" in item.text else ""
    named = _names_in(subject, page.names("tile", "vreg", "mask")) if "element type of" in subject else []
    for key, spellings in facts:
        names = []
        for spelling in spellings:
            name = _dtype_name(spelling, page.targets)
            if name is None:
                page.unplaced.append(f"unknown element type {spelling!r} in: {item.text}")
            else:
                names.append(name)
        if not names:
            continue
        rule: dict[str, Any] = {"kind": "dtype"}
        if scope:
            rule["profiles"] = scope
        rule["operands"] = named or page.data
        cond = key.split("/", 1)[-1] if "::" in key else None
        if cond:
            param = _when_param(page, item.text, cond)
            if param is None:
                page.unplaced.append(f"no template parameter takes {cond}: {item.text}")
                continue
            rule["when"] = {"param": param, "equals": cond}
        rule["dtypes"] = names
        if "must be one of" in item.text and (m := _NOTE.search(item.text)):
            rule["note"] = m["note"].strip()
        rules.append(rule)
    return rules


def _dtype_name(spelling: str, targets: Targets) -> str | None:
    """A C++ spelling as written (aliases kept), or the C++ name of an assembly spelling (f16)."""
    if targets.has_dtype(spelling):
        return spelling
    return next((d.name for d in targets.dtypes if d.asm == spelling), None)


def _when_param(page: _Page, text: str, cond: str) -> str | None:
    values = [t for t in (page.intrinsic or {}).get("template", []) if t["kind"] == "value"]
    if m := re.match(r"With\s+(\w+)\s*==", text):
        return m[1] if any(t["name"] == m[1] for t in values) else None
    enum = cond.rsplit("::", 1)[0]
    matching = [t for t in values if str(t.get("default", "")).startswith(enum + "::") or t["type"] == enum]
    if len(matching) == 1:
        return str(matching[0]["name"])
    return str(values[0]["name"]) if len(values) == 1 else None


def _other_rules(page: _Page, text: str, scope: list[str] | None) -> list[dict[str, Any]]:
    """Typed rules a (non-dtype) constraint sentence states; empty when it is not recognised."""
    low = text.lower()
    base: dict[str, Any] = {"profiles": scope} if scope else {}
    data = page.data
    tiles = page.names("tile", "vreg")
    rules: list[dict[str, Any]] = []
    if re.search(r"\blocation must be\b", low) or re.search(r"must be [\w\s-]*tiletype::\w+", low):
        m = re.search(r"TileType::(\w+)", text)
        loc = m[1] if m else ("Vec" if "must be vector" in low else None)
        if loc in ("Vec", "Mat", "Left", "Right", "Acc"):
            rules.append({"kind": "location", **base, "operands": data, "location": loc})
    if low.startswith("static valid bounds"):
        rules.append({"kind": "valid_bounds", **base, "operands": data})
    if "same valid row/col" in low or "matching valid-row and valid-column" in low:
        named = _names_in(text, tiles)
        rules.append({"kind": "same_valid_shape", **base, "operands": named if len(named) > 1 else data})
    if "must occupy different memory ranges" in low and len(named := _names_in(text, tiles)) > 1:
        rules.append({"kind": "no_overlap", **base, "operands": named})
    if "must use the same element type" in low:
        named = _names_in(text.split("must use")[0], page.names("tile", "vreg", "scalar"))
        rules.append({"kind": "same_dtype", **base, "operands": named if len(named) > 1 else data})
    elif re.search(r"scalar type must match the tile data type", low):
        rules.append({"kind": "same_dtype", **base, "operands": data})
    if "must be row-major" in low:
        rules.append({"kind": "row_major", **base, "operands": data})
    if low.startswith("not offered") and scope:
        rules.append({"kind": "unavailable", **base})
    if (m := re.match(r"an? (\w+) tile must be passed", low)) and scope:
        rules.append({"kind": "tmp_required", **base, "_tmp": m[1]})
    # same_dtype over operands of one template parameter can never fail: the declaration says it.
    if any(r["kind"] == "same_dtype" and not _distinct_types(page, r["operands"]) for r in rules):
        return []
    return rules


def _distinct_types(page: _Page, operands: list[str]) -> bool:
    if page.intrinsic is None:
        return False
    return len({page.template_of(o) for o in operands}) > 1


def _merge(rules: list[dict[str, Any]], profile_order: list[str]) -> list[dict[str, Any]]:
    """One rule per fact: drop repeats and join rules that differ only in their profiles."""
    out: list[dict[str, Any]] = []
    for rule in rules:
        rest = {k: v for k, v in rule.items() if k != "profiles"}
        twin = next(
            (
                r
                for r in out
                if {k: v for k, v in r.items() if k != "profiles"} == rest
                and ("profiles" in r) == ("profiles" in rule)
            ),
            None,
        )
        if twin is None:
            out.append(rule)
        elif "profiles" in rule:
            joined = set(twin["profiles"]) | set(rule["profiles"])
            twin["profiles"] = [p for p in profile_order if p in joined]
    return out


def _rule_key(rule: dict[str, Any], profile_order: list[str]) -> tuple[int, tuple[int, ...]]:
    return RULE_ORDER.index(rule["kind"]), tuple(profile_order.index(p) for p in rule.get("profiles", []))


# ----------------------------------------------------------------------------- the mapping


def page_to_spec(facts: PageFacts, targets: Targets) -> tuple[dict[str, Any], list[str]]:
    """A spec (plain data in canonical key order) for one page, and the facts it could not place."""
    if not facts.mnemonic:
        raise ImportProblem("the page names no mnemonic (expected a `pto.xxx` or `TXXX` title)")
    page = _Page(facts, targets, _instruction_set(facts, targets))
    page.unplaced.extend(facts.unplaced)
    page.unplaced.extend(f"the page states one fact twice, differently: {c}" for c in facts.conflicts)
    if facts.header and facts.header != HEADER:
        page.unplaced.append(f"declared in {facts.header} (generated pages name {HEADER})")

    _read_intrinsic(page)
    domains = _read_operands(page)
    spec: dict[str, Any] = {"mnemonic": facts.mnemonic, "instruction_set": page.iset.id}
    spec["summary"] = _prose(facts.summary) or facts.mnemonic
    if not facts.summary:
        page.unplaced.append("the page has no summary: `summary` set to the mnemonic")
    mechanism = [p for p in facts.mechanism if not re.fullmatch(r"For each [^.]*:", p)]
    spec["mechanism"] = _prose(" ".join(mechanism)) or spec["summary"]

    rules, prose, profile_notes, domains2 = _read_constraints(page)
    spec["semantics"] = _semantics(page, domains + domains2)
    spec["operands"] = page.operands
    if page.intrinsic is not None:
        spec["intrinsic"] = page.intrinsic
    spec["syntax"] = {form: list(lines) for form, lines in facts.syntax.items() if lines}
    spec["side_effects"] = _prose(facts.side_effects) or NO_SIDE_EFFECTS
    spec["constraints"] = rules
    if prose:
        spec["prose_constraints"] = prose
    spec["exceptions"] = [_prose(e) for e in facts.exceptions] or [NO_EXCEPTIONS]
    if profile_notes:
        spec["profile_notes"] = profile_notes
    if facts.notes:
        spec["notes"] = [_prose(n) for n in facts.notes]
    spec["examples"] = _examples(page)
    return spec, page.unplaced


def _instruction_set(facts: PageFacts, targets: Targets) -> InstructionSetDef:
    def key(title: str) -> str:
        return re.sub(r"[^a-z0-9]", "", title.lower())

    if facts.instruction_set:
        for s in targets.instruction_sets:
            if key(s.title) in (key(facts.instruction_set), key(facts.instruction_set + " instructions")):
                return s
        raise ImportProblem(f"the page's instruction set {facts.instruction_set!r} is not in targets.yaml")
    for s in targets.instruction_sets:
        if facts.mnemonic in s.order:
            return s
    raise ImportProblem(f"{facts.mnemonic} is in the order of no instruction set of targets.yaml")


def _read_intrinsic(page: _Page) -> None:
    facts = page.facts
    if page.vector:
        if facts.signature:
            page.unplaced.append(f"vector ops have no C++ intrinsic; ignored: {facts.signature}")
        return
    if not facts.signature:
        raise ImportProblem("a tile op page needs its C++ intrinsic declaration")
    qual, name, template, params = parse_signature(facts.signature)
    page.intrinsic = {"name": name}
    if qual != "PTO_INST":
        page.intrinsic["qualifier"] = qual
    page.intrinsic["template"] = template
    page.intrinsic["params"] = params
    for extra in facts.signatures[1:]:
        page.unplaced.append(f"further overload (a spec documents one declaration): {extra}")


def _read_operands(page: _Page) -> list[str]:
    """Fill page.operands (and bind intrinsic params); returns the domains the sections name."""
    facts = page.facts
    syntax = [_syntax_names(line) for form in ("ssa", "dps", "pto_asm") for line in facts.syntax[form]]
    params = (page.intrinsic or {}).get("params", [])
    candidates = {n for outs, ins, _, _ in syntax for n in outs + ins} | {p["name"] for p in params}
    described: list[Described] = []
    domains: list[str] = []
    for lines, output in ((facts.inputs, False), (facts.outputs, True)):
        rows, named = read_operand_sections(lines, output, candidates, page.unplaced)
        domains += named
        for row in rows:
            old = next((d for d in described if d.name == row.name), None)
            if old is None:
                described.append(row)
            else:  # the other section described it too: fill gaps only
                old.role = old.role or row.role
                old.asm_type = old.asm_type or row.asm_type
                old.description = old.description or row.description
                old.output = old.output or row.output
    # Assembly types by name, the SSA form's (first in `syntax`) before the other forms'.
    types: list[dict[str, str]] = [{}, {}]
    for i, (outs, ins, tout, tin) in enumerate(syntax):
        for name, typ in (*zip(outs, tout, strict=False), *zip(ins, tin, strict=False)):
            types[0 if i < len(facts.syntax["ssa"]) else 1].setdefault(name, typ)
    if page.vector:
        _vector_operands(page, described, syntax, types)
    else:
        _tile_operands(page, described, types)
    _aliases(page, syntax)
    return domains


def _type_of(types: list[dict[str, str]], *names: str) -> str | None:
    return next((t[n] for t in types for n in names if n in t), None)


def _operand(
    name: str, kind: str, role: str, asm_type: str, row: Described | None, enum: str | None = None
) -> dict[str, Any]:
    description = row.description if row and row.description else _DEFAULT_DESCRIPTION[role]
    out = {
        "name": name,
        "kind": kind,
        "role": role,
        "asm_type": asm_type,
        "description": _prose(description),
    }
    if enum:
        out["enum"] = enum
    return out


def _tile_operands(page: _Page, described: list[Described], types: list[dict[str, str]]) -> None:
    assert page.intrinsic is not None
    params = [p for p in page.intrinsic["params"] if not p.get("events")]
    by_name = {d.name: d for d in described}
    bound: dict[str, Described | None] = {p["name"]: by_name.get(p["name"]) for p in params}
    used = {d.name for d in bound.values() if d is not None}
    loose = [d for d in described if d.name not in used and d.role != "tmp" and not d.name.startswith("tmp")]
    free = [p for p in params if bound[p["name"]] is None]
    if len(loose) == 1 and len(free) == 1:
        # The page names the operand differently from the C++ parameter (TLRELU: slope / scalar).
        bound[free[0]["name"]] = loose[0]
        used.add(loose[0].name)
    outputs = {d.name for d in described if d.output or d.role == "dst"}
    tile_params = [p for p in params if "type" in p]
    has_dst = any(
        (row.name if row else p["name"]) in outputs or p["name"] == "dst"
        for p in tile_params
        for row in [bound[p["name"]]]
    )
    operands = []
    for i, p in enumerate(params):
        row = bound[p["name"]]
        name = _snake(row.name if row else p["name"])
        p["operand"] = name
        if "dtype_of" in p or "value_type" in p:
            kind, role, default_type = "scalar", "scalar", "dtype"
        elif "attr" in p:
            kind, role, default_type = "attr", "attr", p["attr"]
        else:
            kind, default_type = "tile", "!pto.tile<...>"
            if row and row.role in ("dst", "src", "tmp"):
                role = row.role
            elif name in outputs or name == "dst" or (not has_dst and i == 0):
                role = "dst"
            else:
                role = "tmp" if name.startswith("tmp") else "src"
        asm_type = (row.asm_type if row else None) or _type_of(types, name, p["name"]) or default_type
        operands.append(_operand(name, kind, role, asm_type, row, p["attr"] if kind == "attr" else None))
    for p in page.intrinsic["params"]:
        _order_keys(p, ("name", "type", "dtype_of", "attr", "value_type", "operand", "events"))
    # A tmp the page describes but the declaration does not carry travels in the events pack.
    tmps = [d for d in described if d.name not in used and (d.role == "tmp" or d.name.startswith("tmp"))]
    for d in tmps[:1]:
        operands.append(_operand(_snake(d.name), "tile", "tmp", d.asm_type or "!pto.tile<...>", d))
        page.intrinsic["tmp_in_events"] = _snake(d.name)
        used.add(d.name)
    for d in described:
        if d.name not in used:
            page.unplaced.append(f"operand {d.name} is described but not a parameter of the C++ intrinsic")
    operands.sort(key=lambda o: o["role"] != "dst")  # the destination first, as the pages list it
    page.operands = operands


def _vector_operands(
    page: _Page,
    described: list[Described],
    syntax: list[tuple[list[str], list[str], list[str], list[str]]],
    types: list[dict[str, str]],
) -> None:
    outs = [d.name for d in described if d.output]
    ins = [d.name for d in described if not d.output]
    if not outs:
        ssa = next(((o, i) for o, i, _, _ in syntax if o), None)
        if ssa is None:
            raise ImportProblem("a vector op page needs an AS Level 1 (SSA) line or operand tables")
        outs, ins = ssa
    by_name = {d.name: d for d in described}
    masks = [n for n in ins if "mask" in (by_name.get(n, Described(n)).asm_type or _type_of(types, n) or "")]
    operands = []
    for name in outs + ins:
        row = by_name.get(name)
        asm_type = (
            (row.asm_type if row else None)
            or _type_of(types, name)
            or ("!pto.vreg<NxT>" if name in outs else "T")
        )
        kind = "vreg" if "vreg" in asm_type else "mask" if "mask" in asm_type else "scalar"
        if name in outs:
            role = "dst"
        elif row and row.role in _ROLES and row.role != "dst":
            role = row.role
        elif kind != "mask":
            role = "src" if kind == "vreg" else "scalar"
        else:  # the last mask input is the predicate; others (a carry-in) are values
            role = "mask" if masks and name == masks[-1] else "src"
        operands.append(_operand(_snake(name), kind, role, asm_type, row))
    page.operands = operands


def _aliases(page: _Page, syntax: list[tuple[list[str], list[str], list[str], list[str]]]) -> None:
    """Names other syntax forms give the operands, by position (``%slope`` for ``scalar``), so
    math written with them still reads."""
    order = [o["name"] for o in page.operands if o["role"] == "dst"] + [
        o["name"] for o in page.operands if o["role"] not in ("dst", "tmp", "attr")
    ]
    own = {o["name"] for o in page.operands}
    if page.intrinsic:
        for p in page.intrinsic["params"]:
            if p.get("operand") and p["name"] != p["operand"]:
                page.aliases.setdefault(p["name"], p["operand"])
    for outs, ins, _, _ in syntax:
        names = outs + ins if outs else ins
        if len(names) != len(order):
            continue
        for name, target in zip(names, order, strict=True):
            if name not in own:
                page.aliases.setdefault(name, target)
    for line in page.facts.syntax["pto_asm"]:  # ``vlrelu %dst, %src, %slope, %mask``: outputs first
        names = re.findall(r"%(\w+)", line.split(":")[0])
        if "=" not in line and len(names) == len(order):
            for name, target in zip(names, order, strict=True):
                if name not in own:
                    page.aliases.setdefault(name, target)


def _semantics(page: _Page, domains: list[str]) -> dict[str, Any]:
    facts = page.facts
    dst = page.dst
    for name in domains:
        if page.aliases.get(name, name) != dst:
            page.unplaced.append(f"the page iterates over {name}, not the destination {dst}")
    names = {o["name"] for o in page.operands if o["kind"] in ("tile", "scalar", "vreg")}
    names |= {o["name"] for o in page.operands if o["kind"] == "mask" and o["role"] != "mask"}
    enums = {e.name: e for e in page.targets.enums}
    attrs = {
        o["name"]: len(enums[o["enum"]].apply.params)  # type: ignore[union-attr]
        for o in page.operands
        if o["kind"] == "attr" and o.get("enum") in enums and enums[o["enum"]].apply is not None
    }
    expr: str | None = None
    if facts.math:
        try:
            expr = latex_to_expr(facts.math, names, attrs, page.aliases)
        except MathError as exc:
            page.unplaced.append(f"math not understood ({exc}): {facts.math}")
    if expr is None:
        for paragraph in facts.mechanism:
            if (formula := prose_formula(paragraph)) is not None:
                try:
                    expr = to_expr(_ternary(formula), names, attrs, page.aliases)
                except MathError:
                    continue
                if set(re.findall(r"\w+", formula)) - names:
                    page.unplaced.append(
                        f"element math read from the prose formula `{formula}` as `{expr}`, renaming "
                        "operands by their position in the syntax forms; check it"
                    )
                break
    if expr is None:
        first = next(
            (o["name"] for o in page.operands if o["role"] in ("src", "scalar") and o["name"] in names), dst
        )
        expr = first
        page.unplaced.append(
            f"{PLACEHOLDER} `{first}`: the page gives no element math ptogen can read; "
            "write the real expression"
        )
    sem: dict[str, Any] = {"expr": expr, "domain": dst, "tolerance": {"kind": "exact"}}
    if page.vector:
        text = " ".join(facts.mechanism).lower()
        keep = re.search(r"inactive lanes[^.]*\b(?:preserve|keep|retain|unchanged)", text)
        sem["inactive_lanes"] = "preserve" if keep else "zero"
        extra = [o["name"] for o in page.operands if o["role"] == "dst" and o["name"] != dst]
        if extra:
            sem["extra_outputs"] = {name: expr for name in extra}
            page.unplaced.append(
                f"PLACEHOLDER semantics.extra_outputs for {', '.join(extra)}: the pages show the "
                "first result's math only; write theirs"
            )
    return sem


def _read_constraints(
    page: _Page,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]], list[str]]:
    """(rules, prose constraints, profile notes, domains named) of the list sections."""
    order = page.targets.profile_names()
    rules: list[dict[str, Any]] = []
    prose: list[dict[str, Any]] = []
    notes: list[dict[str, Any]] = []
    domains: list[str] = []
    for item in page.facts.items:
        if item.section not in _CONSTRAINT_SECTIONS:
            continue
        known, scope = _profile(page, item)
        if not known:
            page.unplaced.append(f"constraint for a profile targets.yaml does not declare: {item.text}")
            continue
        if m := _DOMAIN.search(item.text):
            domains.append(m["name"])
            continue
        found = _dtype_rules(page, item, scope)
        if found is None:
            found = _other_rules(page, item.text, scope)
        if found:
            rules.extend(found)
            continue
        if item.section == "Target-Profile Restrictions" and item.group is None:
            m = re.match(r"^(\w+):\s+(.*)$", item.text)
            if m and m[1] in order:
                notes.append({"profile": m[1], "text": _prose(m[2])})
            else:
                notes.append({"text": _prose(item.text)})
            page.unplaced.append(f"kept as a profile note, not checked: {item.text}")
            continue
        prose.append({"text": _prose(item.text), **({"profiles": scope} if scope else {})})
        page.unplaced.append(f"kept as a prose constraint, not checked: {item.text}")
    for rule in rules:
        if "_tmp" in rule:
            _require_tmp(page, rule.pop("_tmp"))
    rules = _merge(rules, order)
    rules.sort(key=lambda r: _rule_key(r, order))
    for r in rules:
        _order_keys(r, ("kind", "profiles", "operands", "when", "dtypes", "location", "note"))
    return rules, prose, notes, domains


def _order_keys(mapping: dict[str, Any], keys: tuple[str, ...]) -> None:
    """Reorder in place to the key order the specs are written in."""
    items = sorted(mapping.items(), key=lambda kv: keys.index(kv[0]))
    mapping.clear()
    mapping.update(items)


def _require_tmp(page: _Page, name: str) -> None:
    """`tmp_required` needs the tmp operand passed at the head of the events pack."""
    assert page.intrinsic is not None
    if page.intrinsic.get("tmp_in_events") is None:
        page.operands.append(_operand(name, "tile", "tmp", "!pto.tile<...>", None))
        page.intrinsic["tmp_in_events"] = name


def _examples(page: _Page) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    langs = page.facts.example_langs + [None] * (len(page.facts.examples) - len(page.facts.example_langs))
    for code, lang in zip(page.facts.examples, langs, strict=True):
        first = code.lstrip().split("\n", 1)[0].lower()
        if not page.vector and first.startswith(("# auto mode", "# manual mode")):
            continue  # generated from the SSA form on every tile op page
        if "#include <pto/pto-inst.hpp>" in code:
            out.append({"lang": "cpp", "compiles": True, "code": code})
        else:
            out.append({"lang": lang if lang in ("cpp", "c", "text") else "text", "code": code})
    return out


_HTMLISH = re.compile(r"\S*<\s*[A-Za-z!/?]\S*")


def _prose(text: str) -> str:
    """One-line prose safe for the spec's Markdown fields: text that looks like an HTML tag
    (``!pto.vreg<NxT>``) becomes code, as the page's lost backticks had it."""
    text = " ".join(text.split())
    return _HTMLISH.sub(lambda m: f"`{m[0]}`", text)


# ----------------------------------------------------------------------------- validate, write


def validate(spec: dict[str, Any], targets: Targets) -> list[str]:
    """Problems of a spec as `field: message`; empty when it is valid."""
    try:
        model = OpSpec.model_validate(spec)
    except ValidationError as exc:
        return [f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()]
    return [f"{'.'.join(str(p) for p in path)}: {msg}" for path, msg in check_op(model, targets)]


_FLOW_LISTS = {"profiles", "operands", "dtypes"}
_FLOW_MAPS = {"tolerance", "when"}
_WIDTH = 100
_FOLDED = {"summary", "mechanism", "side_effects", "description", "text", "note", "exceptions", "notes"}


def to_yaml_tree(value: Any, key: str | None = None, col: int = 0, placeholder: bool = False) -> Any:
    """ruamel nodes: block style, short scalar lists and tiny maps in flow style (as the specs in
    this repository are written), long prose folded, example code as a literal block. `col` is
    the column of a mapping's keys, or of a list's items."""
    if isinstance(value, dict):
        node = CommentedMap()
        for k, v in value.items():
            if isinstance(v, (dict, list)):
                node[k] = to_yaml_tree(v, k, col + (2 if isinstance(v, dict) else 4), placeholder)
            else:
                node[k] = _scalar(v, k, col + len(k) + 2, col + 2)
        if placeholder and key == "semantics":
            node.yaml_add_eol_comment("PLACEHOLDER: the page's element math was not readable", "expr")
        if key in _FLOW_MAPS:
            node.fa.set_flow_style()
        return node
    if isinstance(value, list):
        seq = CommentedSeq(
            to_yaml_tree(v, key, col, placeholder)
            if isinstance(v, (dict, list))
            else _scalar(v, key, col, col)
            for v in value
        )
        if key in _FLOW_LISTS and all(isinstance(v, str) for v in value):
            seq.fa.set_flow_style()
        return seq
    return value


def _scalar(value: Any, key: str | None, used: int, block: int) -> Any:
    """`used`: columns taken on the line before the value; `block`: indent of a block scalar."""
    if not isinstance(value, str):
        return value
    if key == "code":
        return LiteralScalarString(value.rstrip("\n") + "\n")
    if key in _FOLDED and used + len(value) > _WIDTH and "\n" not in value and "  " not in value:
        return _folded(value.strip(), _WIDTH - block)
    return value


def _folded(text: str, limit: int) -> Any:
    """A folded scalar broken at single spaces into lines of at most `limit` characters."""
    folded = FoldedScalarString(text)
    positions, start = [], 0
    while len(text) - start > limit:
        cut = text.rfind(" ", start, start + limit + 1)
        if cut <= start:  # one word longer than the line: break after it
            cut = text.find(" ", start + limit)
            if cut < 0:
                break
        positions.append(cut)
        start = cut + 1
    folded.fold_pos = positions  # type: ignore[attr-defined]
    return folded


def dump(spec: dict[str, Any], path: Path, placeholder: bool = False) -> None:
    yaml = YAML()
    yaml.width = 4096  # folding is decided above; ruamel must not re-wrap plain scalars
    yaml.indent(mapping=2, sequence=4, offset=2)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as fh:
        yaml.dump(to_yaml_tree(spec, placeholder=placeholder), fh)


def _load_targets(layout: Layout) -> Targets:
    path = layout.specs / TARGETS_FILE
    targets: Targets = _parse_model(Targets, load_yaml(path, str(path)))
    return targets


def run_import(layout: Layout, args: Any) -> int:
    """`ptogen import PAGE... [--out DIR] [--force]`: 0 when every page became a spec, else 2."""
    targets = _load_targets(layout)
    into = Path(args.into) if args.into else layout.specs / "ops"
    failed = 0
    for page in args.pages:
        try:
            spec, unplaced = page_to_spec(parse_file(page), targets)
        except (OSError, UnicodeDecodeError) as exc:
            print(f"error: {page}: cannot read the page: {exc}", file=sys.stderr)
            failed += 1
            continue
        except ImportProblem as exc:
            print(f"error: {page}: {exc}", file=sys.stderr)
            failed += 1
            continue
        problems = validate(spec, targets)
        if problems:
            for problem in problems:
                print(f"error: {page}: the imported spec is not valid: {problem}", file=sys.stderr)
            failed += 1
            continue
        target = into / spec["instruction_set"] / f"{spec['mnemonic'].split('.', 1)[1]}.yaml"
        if target.exists() and not getattr(args, "force", False):
            print(f"error: {page}: {target} exists (use --force to overwrite)", file=sys.stderr)
            failed += 1
            continue
        placeholder = any(fact.startswith(PLACEHOLDER) for fact in unplaced)
        dump(spec, target, placeholder)
        print(f"imported {page} -> {target}")
        for fact in unplaced:
            print(f"  could not place: {fact}")
        if placeholder:
            print(
                f"warning: {page}: {target} has a PLACEHOLDER semantics.expr "
                f"(`{spec['semantics']['expr']}`); write the op's element math before generating",
                file=sys.stderr,
            )
    return 2 if failed else 0
