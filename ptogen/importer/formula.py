"""A page's formula (LaTeX) read back into the spec's expression language, in one spelling
(`canonical`), so that importing a page ptogen wrote gives back the expression it came from."""

from __future__ import annotations

import ast
import re
from typing import Any

from ..spec import expr as semantics
from .cpp import split_top_level

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
        parts = split_top_level(inner, "([", ")]")
        joined = (", " if any(" " in x for x in parts) else ",").join(parts)  # as specs spell them
        out += f"{text[i : m.start()]}{m.group(1)}[{joined}]"
        i = j
    return out + text[i:]


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


def attr_arity(math: str, attrs: set[str]) -> dict[str, int]:
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


def reduces_over(math: str) -> str | None:
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


# Names the formula uses for functions, not operands (`rem` is written `\\mathrm{remainder}`).
MATH_FUNCTIONS = frozenset(
    {*semantics.FUNCTIONS, *semantics.REDUCERS}
    | {m.group(1) for f in semantics.FUNCTIONS.values() if (m := re.match(r"\\mathrm\{(\w+)\}", f[3]))}
)
