"""Extract the machine-checkable facts of one PTO ISA page.

The same parser reads three forms of a page: proper Markdown (what ptogen generates, and some seed
pages), and text captured from the rendered web pages, where headings end in ``¶`` or are bare lines,
code fences are gone, inline code is glued to neighbouring words and bullets may have lost their
markers. Facts are normalised so that the forms can be compared with each other; every non-empty line
the parser cannot attribute to a fact is kept in ``PageFacts.unplaced``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from .facts import (
    HEADING_ALIASES,
    KNOWN_HEADINGS,
    OP_SECTIONS,
    REF_SECTIONS,
    SYNTAX_FORMS,
    PageFacts,
)
from .naming import ADDRESS_SPACE, CPP_TYPE_NAME
from .pagelines import (
    LINK,
    MD_HEADING,
    Ctx,
    Line,
    Section,
    content_lines,
    detect_layout,
    plain_text,
    scan_lines,
    split_sections,
    take_prose,
    take_title,
)
from .pagelists import BULLET, list_section, profile_of

__all__ = [
    "HEADING_ALIASES",
    "KNOWN_HEADINGS",
    "OP_SECTIONS",
    "REF_SECTIONS",
    "SYNTAX_FORMS",
    "PageFacts",
    "normalise_signature",
    "parse_file",
    "parse_page",
    "profile_of",
]


def parse_file(path: str | Path) -> PageFacts:
    return parse_page(Path(path).read_text(encoding="utf-8"))


def parse_page(text: str, keep_markdown: bool = False) -> PageFacts:
    """`keep_markdown`: prose facts (summary, mechanism, side effects, list items, table rows) keep
    their inline Markdown (code spans, emphasis, links) instead of being reduced to plain text, so
    an importer can carry them into a spec unchanged."""
    text = text.lstrip("\ufeff")  # some pages carry the byte-order mark, some twice
    lines = scan_lines(text)
    markdown = any(not ln.fenced and MD_HEADING.match(ln.text) for ln in lines)
    facts = PageFacts()
    start = take_title(lines, facts)
    preamble, sections = split_sections(lines[start:], markdown)
    ctx = Ctx(facts=facts, flattened=not markdown, keep_markdown=keep_markdown)
    _read_preamble(preamble, ctx)
    for section in sections:
        _HANDLERS.get(section.heading, _ignore)(section, ctx)
    facts.headings = [section.heading for section in sections]
    facts.layout = detect_layout(facts.headings)
    facts.signature = facts.signatures[0] if facts.signatures else None
    facts.unplaced = [ln.text.strip() for ln in lines if not ln.placed and ln.text.strip()]
    return facts


def normalise_signature(text: str) -> str:
    """One spelling per declaration: single spaces, none around punctuation, so that
    ``DstTile &dst`` and ``DstTile& dst`` (and line-wrapped declarations) compare equal."""
    return _SIG_PUNCT.sub(r"\1", " ".join(text.split()))


_SIG_PUNCT = re.compile(r"\s*(\.\.\.|[&*<>(),=])\s*")


# --- preamble, summary, mechanism, diagram, inputs, related --------------------------------------

_PART_OF = re.compile(r"is part of the (?P<set>.+?) instruction set")


def _read_preamble(lines: list[Line], ctx: Ctx) -> None:
    for ln in content_lines(lines):
        m = _PART_OF.search(plain_text(ln.text))
        if m:
            ctx.facts.instruction_set = m.group("set")
            ctx.facts.where.setdefault("instruction_set", ln.number)
            ln.placed = True


def _read_summary(section: Section, ctx: Ctx) -> None:
    ctx.facts.summary = " ".join([ctx.facts.summary, *take_prose(section.lines, ctx)]).strip()


_MATH_OPEN = ("$$", "\\[")
_MATH_CLOSE = ("$$", "\\]")


def _read_mechanism(section: Section, ctx: Ctx) -> None:
    math: list[str] | None = None
    for ln in content_lines(section.lines):
        text = ln.text.strip()
        if math is None and text.startswith(_MATH_OPEN):
            math, text = [], text[2:]
            ctx.facts.where.setdefault("math", ln.number)
        if math is None:
            ln.placed = True
            ctx.facts.mechanism.append(ctx.prose(text))
            continue
        ln.placed = True
        closed = text.endswith(_MATH_CLOSE)
        math.append(text[:-2] if closed else text)
        if closed:
            formula = " ".join(" ".join(math).split())
            if ctx.facts.math is None:
                ctx.facts.math = formula
                ctx.facts.math_at = len(ctx.facts.mechanism)
            else:
                ctx.facts.more_math.append((ctx.facts.mechanism[-1] if ctx.facts.mechanism else "", formula))
            math = None


def _read_diagram(section: Section, ctx: Ctx) -> None:
    for ln in content_lines(section.lines):
        ln.placed = True
        m = LINK.search(ln.text)
        ctx.facts.diagram = m.group(1) if m else ln.text.strip()


_TABLE_RULE = re.compile(r"^\|?\s*:?-{3,}")


def _read_rows(target: Callable[[PageFacts], list[str]]) -> Callable[[Section, Ctx], None]:
    """Operand tables (or, in captures, their flattened lines), minus the |---| rule."""

    def read(section: Section, ctx: Ctx) -> None:
        for ln in content_lines(section.lines):
            ln.placed = True
            if not _TABLE_RULE.match(ln.text.strip()):
                cell = next((c for c in ln.text.split("|") if c.strip()), "")
                ctx.facts.where.setdefault(f"row:{cell.strip(' `*%')}", ln.number)
                target(ctx.facts).append(ln.text.strip() if ctx.keep_markdown else plain_text(ln.text))

    return read


def _read_side_effects(section: Section, ctx: Ctx) -> None:
    ctx.facts.side_effects = " ".join([ctx.facts.side_effects, *take_prose(section.lines, ctx)]).strip()


_RELATED = re.compile(
    r"^(?P<kind>Previous op|Next op|Instruction set overview)[^:]*:\s*(?P<value>.+)$", re.IGNORECASE
)


def _read_related(section: Section, ctx: Ctx) -> None:
    for ln in content_lines(section.lines):
        m = _RELATED.match(plain_text(BULLET.sub("", ln.text)))
        if not m:
            continue
        ln.placed = True
        kind = m.group("kind").split()[0].lower()
        ctx.facts.related["overview" if kind == "instruction" else kind] = m.group("value").strip()


# --- syntax --------------------------------------------------------------------------------------

_SYNTAX_BUCKET = {"PTO Assembly Form": "pto_asm", "AS Level 1 (SSA)": "ssa", "AS Level 2 (DPS)": "dps"}
# The scalar pages' assembly lines name their attributes in brackets or quotes (`set_flag["SRC_PIPE", ...]`,
# `pipe_barrier "PIPE_*"`).
_SYNTAX_LINE = re.compile(r'^(?:%|pto\.\w|[a-z][\w.]*\s+(?:%|ins\(|#pto\.)|[a-z]\w*(?:\[|\s+"))')
_SYNC_LABEL = re.compile(r"^Synchronous form\s*:?$", re.IGNORECASE)
# An SSA line that stops before its ` : types` (they follow on the next line, which opens with `:`);
# a store's line has no result (`pto.vmrgsort4 %dest, %src0, ...`).
_SPLIT_SSA = re.compile(r"^(?:%[\w, %]*=\s*)?pto\.\w+\b(?!.* : )")
_SYNTAX_BOILERPLATE = re.compile(r"^(?:Textual spelling\b|PTO-AS form\s*:)", re.IGNORECASE)


def _syntax_form_of(comment_or_line: str) -> str | None:
    """The form a code comment announces (``# AS Level 2 (DPS)``), if any."""
    text = comment_or_line.lstrip("# ").casefold()
    if "level 1" in text or "(ssa)" in text:
        return "ssa"
    if "level 2" in text or "(dps)" in text:
        return "dps"
    if "assembly form" in text:
        return "pto_asm"
    return None


def _shape_form(line: str) -> str:
    if re.search(r"\bins\(", line):
        return "dps"
    return "ssa" if re.match(r"^%[\w, %]*=\s*pto\.", line) else "pto_asm"


def _add_syntax(text: str, number: int, form: str | None, ctx: Ctx) -> None:
    bucket = ctx.facts.syntax[form or _shape_form(text)]
    ctx.facts.where.setdefault(f"syntax.{form or _shape_form(text)}", number)
    if text not in bucket:  # the ASM examples repeat lines already given under Syntax
        bucket.append(text)


def _read_syntax(section: Section, ctx: Ctx) -> None:
    form = _SYNTAX_BUCKET.get(section.heading)
    pending: tuple[str, int] | None = None  # an SSA line whose types follow on the next line
    for ln in content_lines(section.lines):
        text = " ".join(ln.text.split())
        dps = ctx.facts.syntax["dps"]
        if text.startswith("outs(") and dps and "outs(" not in dps[-1]:
            # a DPS line the page wraps before its results: one line, as specs write it
            dps[-1] += " " + text
            ln.placed = True
            continue
        if pending is not None:
            if text.startswith(": "):
                _add_syntax(f"{pending[0]} {text}", pending[1], form, ctx)
                pending = None
                ln.placed = True
                continue
            _add_syntax(*pending, form, ctx)
            pending = None
        if text.startswith("#"):  # a code comment may switch the form, and is never a syntax line
            form = _syntax_form_of(text) or form
        elif _SYNC_LABEL.match(text):
            form = "pto_asm"
        elif _SPLIT_SSA.match(text):
            pending = (text, ln.number)
        elif _SYNTAX_LINE.match(text):
            _add_syntax(text, ln.number, form, ctx)
        elif not _SYNTAX_BOILERPLATE.match(text):
            continue
        ln.placed = True
    if pending is not None:
        _add_syntax(*pending, form, ctx)


# --- C++ intrinsic -------------------------------------------------------------------------------

_DECLARED_IN = re.compile(r"^Declared in\s+(?P<path>.+?):?$")
# A declaration opens with a template head or "<specifiers> NAME(", never with a sentence.
_DECL_START = re.compile(r"^(?:template\b|(?:[\w:<>*&]+\s+)+[\w:]+\s*\()(?!.*\w\.\s)(?!.*\w[.:]$)")


# "Declaration 2. " before an overload's summary: the page numbers the declarations it shows.
_DECL_NUMBER = re.compile(r"^Declaration \d+\.\s*")
# `T name = value;`, or `T name{};` and `T name;` (no value: the value read is ""); the type may be
# const, a pointer or a pointer to pointers (`float** lists`), and a UB pointer may carry its `__ubuf__`
# qualifier (`__ubuf__ uint32_t *base;`).
_CALL_VARIABLE = re.compile(
    rf"^{ADDRESS_SPACE}(?!return\b)(?P<type>{CPP_TYPE_NAME})\s*(?<=[\s*&])(?P<name>\w+)\s*"
    r"(?:=\s*(?P<value>[^;=]+)|\{\})?\s*;$"
)
_CALL = re.compile(r"^(?P<fn>[a-z_]\w*)\((?P<args>[^;]*)\);$")
# The first line of a call the page wraps (`copy_gm_to_ubuf_align_v2(` and its arguments below).
_CALL_HEAD = re.compile(r"^[a-z_]\w*\([^;]*$")


def _read_call(ln: Line, ctx: Ctx) -> bool:
    """A builtin's call in a code block: a typed variable it passes, or the call itself."""
    text = ln.text.strip()
    m = _CALL_VARIABLE.match(text)
    if m and ln.fenced:
        typ = " ".join(m["type"].split()).replace(" *", "*")
        ctx.facts.call_variables.append((typ, m["name"], " ".join((m["value"] or "").split())))
    elif (c := _CALL.match(text)) and ln.fenced:
        ctx.facts.calls.append((c["fn"], " ".join(c["args"].split())))
    else:
        return False
    ln.placed = True
    return True


def _read_intrinsic(section: Section, ctx: Ctx) -> None:
    pending: list[Line] = []
    comment: list[Line] = []
    wrapped: list[Line] = []  # a call wrapped over several lines, read once its `);` ends it
    for ln in section.lines:
        if wrapped or (ln.fenced and not pending and _CALL_HEAD.match(ln.text.strip())):
            wrapped.append(ln)
            if ln.text.rstrip().endswith(";") or ln.fence_marker:
                joined = Line(" ".join(x.text.strip() for x in wrapped if not x.fence_marker), fenced=True)
                if _read_call(joined, ctx):
                    for x in wrapped:
                        x.placed = True
                wrapped = []
            continue
        if ln.fence_marker and pending and pending[-1].text.rstrip().endswith(")"):
            ln = Line(";", placed=True)  # a code block ends a declaration that lacks its `;`
        elif not ln.text.strip() or ln.fence_marker:
            continue
        if ln.fenced and not pending and ln.text.strip().startswith("//"):
            comment.append(ln)
            continue
        m = _DECLARED_IN.match(plain_text(ln.text))
        if m and not pending:
            ctx.facts.header = m.group("path")
            ln.placed = True
            continue
        if not pending and _read_call(ln, ctx):
            for x in comment:
                x.placed = True
            comment = []
            continue
        if not pending and not _DECL_START.match(ln.text.strip()):
            comment = []
            continue  # prose around the declaration stays unplaced
        pending.append(ln)
        if ln.text.rstrip().endswith(";"):
            ctx.facts.signatures.append(normalise_signature(" ".join(x.text for x in pending)))
            ctx.facts.where.setdefault("intrinsic", pending[0].number)
            text = " ".join(x.text.strip().removeprefix("//").strip() for x in comment)
            ctx.facts.signature_comments.append(_DECL_NUMBER.sub("", text))
            for x in pending + comment:
                x.placed = True
            pending, comment = [], []
    # An unterminated declaration stays unplaced: it is not a declaration we can vouch for.


# --- examples ------------------------------------------------------------------------------------


def _read_examples(section: Section, ctx: Ctx) -> None:
    if not any(ln.fenced for ln in section.lines):
        # Capture: the fences are gone, so the whole body is one block.
        body = content_lines(section.lines)
        for ln in body:
            ln.placed = True
        if body:
            ctx.facts.examples.append("\n".join(ln.text for ln in body))
        return
    block: list[str] | None = None
    for ln in section.lines:
        if ln.fence_marker:
            if block is not None:
                ctx.facts.examples.append("\n".join(block).strip("\n"))
            block = [] if block is None else None
        elif block is not None:
            ln.placed = True
            block.append(ln.text)


def _ignore(section: Section, ctx: Ctx) -> None:
    """Unknown sections and containers: their lines stay unplaced."""


_HANDLERS: dict[str, Callable[[Section, Ctx], None]] = {
    "Summary": _read_summary,
    "Introduction": _read_summary,
    "Mechanism": _read_mechanism,
    "Math Interpretation": _read_mechanism,
    "Tile Operation Diagram": _read_diagram,
    "Syntax": _read_syntax,
    "Assembly Syntax": _read_syntax,
    "PTO Assembly Form": _read_syntax,
    "AS Level 1 (SSA)": _read_syntax,
    "AS Level 2 (DPS)": _read_syntax,
    "C++ Intrinsic": _read_intrinsic,
    "Inputs": _read_rows(lambda f: f.inputs),
    "Expected Outputs": _read_rows(lambda f: f.outputs),
    "Side Effects": _read_side_effects,
    "Constraints": list_section(lambda f: f.constraints, True, lambda f: f.constraint_groups),
    "Temporary Space": list_section(lambda f: f.constraints, False, lambda f: f.constraint_groups),
    "Exceptions": list_section(lambda f: f.exceptions, with_dtypes=False),
    "Target-Profile Restrictions": list_section(
        lambda f: f.profile_restrictions, True, lambda f: f.restriction_groups
    ),
    "Examples": _read_examples,
    "Auto Mode": _read_examples,
    "Manual Mode": _read_examples,
    "Related Ops / Instruction Set Links": _read_related,
}
