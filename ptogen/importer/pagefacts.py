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
from dataclasses import dataclass, field
from pathlib import Path

from ..rules.page import split_forms

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

# Section names of the instruction-set op page layout, in page order.
OP_SECTIONS: tuple[str, ...] = (
    "Summary",
    "Mechanism",
    "Syntax",
    "C++ Intrinsic",
    "Inputs",
    "Expected Outputs",
    "Side Effects",
    "Constraints",
    "Exceptions",
    "Target-Profile Restrictions",
    "Examples",
    "Related Ops / Instruction Set Links",
)

# Section names of the per-instruction reference layout, in page order.
REF_SECTIONS: tuple[str, ...] = (
    "Introduction",
    "Math Interpretation",
    "Assembly Syntax",
    "C++ Intrinsic",
    "Constraints",
    "Examples",
    "ASM Form Examples",
)

# Bare lines of a flattened capture count as headings only when they are one of these, so that body
# text is not mistaken for structure.
KNOWN_HEADINGS: frozenset[str] = frozenset(
    {
        *OP_SECTIONS,
        *REF_SECTIONS,
        "Tile Operation Diagram",
        "PTO Assembly Form",
        "AS Level 1 (SSA)",
        "AS Level 2 (DPS)",
        "Auto Mode",
        "Manual Mode",
        "Temporary Space",
    }
)

# Older pages say "IR Level"; the generated pages and newer docs say "AS Level".
HEADING_ALIASES: dict[str, str] = {
    "C++ Intrinsics": "C++ Intrinsic",
    "IR Level 1 (SSA)": "AS Level 1 (SSA)",
    "IR Level 2 (DPS)": "AS Level 2 (DPS)",
}

SYNTAX_FORMS: tuple[str, ...] = ("pto_asm", "ssa", "dps")

_CANONICAL = {name.casefold(): name for name in KNOWN_HEADINGS} | {
    alias.casefold(): target for alias, target in HEADING_ALIASES.items()
}


@dataclass
class PageFacts:
    """What one page states, in a form that compares across page renderings."""

    layout: str = "unknown"  # "op", "ref", or "unknown" when the headings fit neither layout
    title: str = ""
    mnemonic: str = ""
    instruction_set: str | None = None
    headings: list[str] = field(default_factory=list)
    signature: str | None = None  # first C++ declaration, normalised (see normalise_signature)
    signatures: list[str] = field(default_factory=list)
    signature_comments: list[str] = field(default_factory=list)  # `// ...` line above each one
    header: str | None = None  # the "Declared in ..." path
    summary: str = ""
    mechanism: list[str] = field(default_factory=list)
    math: str | None = None
    math_at: int | None = None  # how many mechanism lines come before the formula
    more_math: list[tuple[str, str]] = field(default_factory=list)  # (line before, formula) of later ones
    dtypes: dict[str, list[str]] = field(default_factory=dict)
    dtype_notes: dict[str, str] = field(default_factory=dict)  # "(remark)" after a list, by key
    # Lists of some operands ("The element type of `dst` must be one of: ..."): (key as in
    # `dtypes`, operands, names, remark).
    operand_dtypes: list[tuple[str, list[str], list[str], str | None, list[int] | None]] = field(
        default_factory=list
    )  # (key, operands, types, note, the declarations a limited rule checks)
    syntax: dict[str, list[str]] = field(default_factory=lambda: {form: [] for form in SYNTAX_FORMS})
    inputs: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    side_effects: str = ""
    constraints: list[str] = field(default_factory=list)
    constraint_groups: list[str | None] = field(default_factory=list)  # label each item sits under
    exceptions: list[str] = field(default_factory=list)
    profile_restrictions: list[str] = field(default_factory=list)
    restriction_groups: list[str | None] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # bodies of other callouts, e.g. "Source notes"
    examples: list[str] = field(default_factory=list)
    diagram: str | None = None
    related: dict[str, str] = field(default_factory=dict)  # "previous" / "next" / "overview"
    conflicts: list[str] = field(default_factory=list)  # one fact stated twice, differently
    # Line (1-based) where a fact is stated: "title", "instruction_set", "math", "syntax.<form>",
    # "intrinsic" (first declaration), "row:<operand>" (operand table rows).
    where: dict[str, int] = field(default_factory=dict)
    unplaced: list[str] = field(default_factory=list)


def parse_file(path: str | Path) -> PageFacts:
    return parse_page(Path(path).read_text(encoding="utf-8"))


def parse_page(text: str, keep_markdown: bool = False) -> PageFacts:
    """`keep_markdown`: prose facts (summary, mechanism, side effects, list items, table rows) keep
    their inline Markdown (code spans, emphasis, links) instead of being reduced to plain text, so
    an importer can carry them into a spec unchanged."""
    text = text.lstrip("\ufeff")  # some pages carry the byte-order mark, some twice
    lines = _scan_lines(text)
    markdown = any(not ln.fenced and _MD_HEADING.match(ln.text) for ln in lines)
    facts = PageFacts()
    start = _take_title(lines, facts)
    preamble, sections = _split_sections(lines[start:], markdown)
    ctx = _Ctx(facts=facts, flattened=not markdown, keep_markdown=keep_markdown)
    _read_preamble(preamble, ctx)
    for section in sections:
        _HANDLERS.get(section.heading, _ignore)(section, ctx)
    facts.headings = [section.heading for section in sections]
    facts.layout = _detect_layout(facts.headings)
    facts.signature = facts.signatures[0] if facts.signatures else None
    facts.unplaced = [ln.text.strip() for ln in lines if not ln.placed and ln.text.strip()]
    return facts


def normalise_signature(text: str) -> str:
    """One spelling per declaration: single spaces, none around punctuation, so that
    ``DstTile &dst`` and ``DstTile& dst`` (and line-wrapped declarations) compare equal."""
    return _SIG_PUNCT.sub(r"\1", " ".join(text.split()))


# --- line scanning -------------------------------------------------------------------------------


@dataclass
class _Line:
    text: str
    fenced: bool = False  # inside a ``` block, or the fence marker itself
    fence_marker: bool = False
    callout: str | None = None  # title of the MkDocs callout this line belongs to
    placed: bool = False
    number: int = 0  # 1-based line number in the page


@dataclass
class _Section:
    heading: str
    lines: list[_Line] = field(default_factory=list)


@dataclass
class _Ctx:
    facts: PageFacts
    flattened: bool
    weak_keys: set[str] = field(default_factory=set)  # dtype keys filled from a profile-scoped list
    keep_markdown: bool = False

    def prose(self, text: str) -> str:
        return " ".join(text.split()) if self.keep_markdown else _plain(text)


_MD_HEADING = re.compile(r"^#{2,6}\s+\S")
_CALLOUT = re.compile(r'^(?:!!!|\?\?\?\+?)\s+(?P<kind>\w+)(?:\s+"(?P<title>[^"]*)")?\s*$')


def _scan_lines(text: str) -> list[_Line]:
    """Split into lines, tracking code fences and dedenting MkDocs callout bodies (4 spaces)."""
    out: list[_Line] = []
    in_fence = False
    callout: str | None = None
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip()
        if callout is not None:
            if line.startswith("    "):
                line = line[4:]
            elif line.strip():
                callout = None
        if not in_fence and callout is None and (m := _CALLOUT.match(line)):
            callout = m.group("title") or m.group("kind").capitalize()
            out.append(_Line(line, placed=True, number=number))
            continue
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
            out.append(_Line(line, True, True, callout, True, number))
            continue
        out.append(_Line(line, fenced=in_fence, callout=callout, number=number))
    return out


def _take_title(lines: list[_Line], facts: PageFacts) -> int:
    """Consume the page title (first content line); return the index where the body starts."""
    for i, ln in enumerate(lines):
        text = ln.text.strip()
        if not text:
            continue
        if text.startswith("<!--"):  # ptogen's provenance comment
            ln.placed = True
            continue
        title = _strip_heading_marks(text)
        if _canonical_heading(title) is not None:
            return i  # no title line: the page starts with a section
        ln.placed = True
        facts.where["title"] = ln.number
        facts.title = _plain(title)
        facts.mnemonic = _mnemonic(facts.title)
        return i + 1
    return len(lines)


def _mnemonic(title: str) -> str:
    name = title.strip().lower()
    if not re.fullmatch(r"[a-z_][\w.]*", name):  # e.g. an instruction-set index page
        return ""
    return name if name.startswith("pto.") else f"pto.{name}"


def _strip_heading_marks(text: str) -> str:
    return text.strip().lstrip("#").rstrip("#").replace("¶", "").strip()


def _canonical_heading(text: str) -> str | None:
    return _CANONICAL.get(" ".join(text.split()).casefold())


def _heading_of(ln: _Line, markdown: bool) -> str | None:
    if ln.fenced or ln.callout is not None:
        return None
    text = ln.text.strip()
    if markdown:
        # A single '#' is the title (already taken) or, in captures, a code comment.
        if not _MD_HEADING.match(text):
            return None
    elif not text.endswith("¶"):
        return _canonical_heading(text)  # bare line: only the known vocabulary
    name = _strip_heading_marks(text)
    # Explicitly marked headings count even when unknown, so a new section is not silently merged.
    return _canonical_heading(name) or name


def _split_sections(lines: list[_Line], markdown: bool) -> tuple[list[_Line], list[_Section]]:
    preamble: list[_Line] = []
    sections: list[_Section] = []
    level = 0  # Markdown level of the last section heading
    for ln in lines:
        heading = _heading_of(ln, markdown)
        depth = len(ln.text) - len(ln.text.lstrip("#")) if markdown and heading is not None else 0
        if heading is not None and sections and depth > level and _canonical_heading(heading) is None:
            heading = None  # an unknown sub-heading ("### Variant 2") belongs to its section
        if heading is None:
            (sections[-1].lines if sections else preamble).append(ln)
            continue
        ln.placed = True
        last = sections[-1] if sections else None
        if last and last.heading == heading and not any(x.text.strip() for x in last.lines):
            continue  # a callout title repeating its heading in a capture
        sections.append(_Section(heading))
        level = depth
    return preamble, sections


def _detect_layout(headings: list[str]) -> str:
    op = len(set(headings) & (set(OP_SECTIONS) - set(REF_SECTIONS)))
    ref = len(set(headings) & (set(REF_SECTIONS) - set(OP_SECTIONS)))
    if op == ref:
        return "unknown"
    return "op" if op > ref else "ref"


# --- text helpers --------------------------------------------------------------------------------

_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_SIG_PUNCT = re.compile(r"\s*(\.\.\.|[&*<>(),=])\s*")


def _plain(text: str) -> str:
    """Drop inline Markdown (links, code ticks, emphasis) and collapse whitespace."""
    text = _LINK.sub(r"\1", text).replace("`", "").replace("**", "")
    text = " ".join(text.split())
    return text.replace("( ", "(").replace(" )", ")")


def _content(lines: list[_Line]) -> list[_Line]:
    return [ln for ln in lines if ln.text.strip() and not ln.fence_marker]


def _take_prose(lines: list[_Line], ctx: _Ctx) -> list[str]:
    out = []
    for ln in _content(lines):
        ln.placed = True
        out.append(ctx.prose(ln.text))
    return out


# --- preamble, summary, mechanism, diagram, inputs, related --------------------------------------

_PART_OF = re.compile(r"is part of the (?P<set>.+?) instruction set")


def _read_preamble(lines: list[_Line], ctx: _Ctx) -> None:
    for ln in _content(lines):
        m = _PART_OF.search(_plain(ln.text))
        if m:
            ctx.facts.instruction_set = m.group("set")
            ctx.facts.where.setdefault("instruction_set", ln.number)
            ln.placed = True


def _read_summary(section: _Section, ctx: _Ctx) -> None:
    ctx.facts.summary = " ".join([ctx.facts.summary, *_take_prose(section.lines, ctx)]).strip()


_MATH_OPEN = ("$$", "\\[")
_MATH_CLOSE = ("$$", "\\]")


def _read_mechanism(section: _Section, ctx: _Ctx) -> None:
    math: list[str] | None = None
    for ln in _content(section.lines):
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


def _read_diagram(section: _Section, ctx: _Ctx) -> None:
    for ln in _content(section.lines):
        ln.placed = True
        m = _LINK.search(ln.text)
        ctx.facts.diagram = m.group(1) if m else ln.text.strip()


_TABLE_RULE = re.compile(r"^\|?\s*:?-{3,}")


def _read_rows(target: Callable[[PageFacts], list[str]]) -> Callable[[_Section, _Ctx], None]:
    """Operand tables (or, in captures, their flattened lines), minus the |---| rule."""

    def read(section: _Section, ctx: _Ctx) -> None:
        for ln in _content(section.lines):
            ln.placed = True
            if not _TABLE_RULE.match(ln.text.strip()):
                cell = next((c for c in ln.text.split("|") if c.strip()), "")
                ctx.facts.where.setdefault(f"row:{cell.strip(' `*%')}", ln.number)
                target(ctx.facts).append(ln.text.strip() if ctx.keep_markdown else _plain(ln.text))

    return read


def _read_side_effects(section: _Section, ctx: _Ctx) -> None:
    ctx.facts.side_effects = " ".join([ctx.facts.side_effects, *_take_prose(section.lines, ctx)]).strip()


_RELATED = re.compile(
    r"^(?P<kind>Previous op|Next op|Instruction set overview)[^:]*:\s*(?P<value>.+)$", re.IGNORECASE
)


def _read_related(section: _Section, ctx: _Ctx) -> None:
    for ln in _content(section.lines):
        m = _RELATED.match(_plain(_BULLET.sub("", ln.text)))
        if not m:
            continue
        ln.placed = True
        kind = m.group("kind").split()[0].lower()
        ctx.facts.related["overview" if kind == "instruction" else kind] = m.group("value").strip()


# --- syntax --------------------------------------------------------------------------------------

_SYNTAX_BUCKET = {"PTO Assembly Form": "pto_asm", "AS Level 1 (SSA)": "ssa", "AS Level 2 (DPS)": "dps"}
_SYNTAX_LINE = re.compile(r"^(?:%|pto\.\w|[a-z][\w.]*\s+(?:%|ins\(|#pto\.))")
_SYNC_LABEL = re.compile(r"^Synchronous form\s*:?$", re.IGNORECASE)
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


def _read_syntax(section: _Section, ctx: _Ctx) -> None:
    form = _SYNTAX_BUCKET.get(section.heading)
    for ln in _content(section.lines):
        text = " ".join(ln.text.split())
        if text.startswith("#"):  # a code comment may switch the form, and is never a syntax line
            form = _syntax_form_of(text) or form
        elif _SYNC_LABEL.match(text):
            form = "pto_asm"
        elif _SYNTAX_LINE.match(text):
            bucket = ctx.facts.syntax[form or _shape_form(text)]
            ctx.facts.where.setdefault(f"syntax.{form or _shape_form(text)}", ln.number)
            if text not in bucket:  # the ASM examples repeat lines already given under Syntax
                bucket.append(text)
        elif not _SYNTAX_BOILERPLATE.match(text):
            continue
        ln.placed = True


# --- C++ intrinsic -------------------------------------------------------------------------------

_DECLARED_IN = re.compile(r"^Declared in\s+(?P<path>.+?):?$")
# A declaration opens with a template head or "<specifiers> NAME(", never with a sentence.
_DECL_START = re.compile(r"^(?:template\b|(?:[\w:<>*&]+\s+)+[\w:]+\s*\()(?!.*\w\.\s)(?!.*\w[.:]$)")


def _read_intrinsic(section: _Section, ctx: _Ctx) -> None:
    pending: list[_Line] = []
    comment: list[_Line] = []
    for ln in section.lines:
        if ln.fence_marker and pending and pending[-1].text.rstrip().endswith(")"):
            ln = _Line(";", placed=True)  # a code block ends a declaration that lacks its `;`
        elif not ln.text.strip() or ln.fence_marker:
            continue
        if ln.fenced and not pending and ln.text.strip().startswith("//"):
            comment.append(ln)
            continue
        m = _DECLARED_IN.match(_plain(ln.text))
        if m and not pending:
            ctx.facts.header = m.group("path")
            ln.placed = True
            continue
        if not pending and not _DECL_START.match(ln.text.strip()):
            comment = []
            continue  # prose around the declaration stays unplaced
        pending.append(ln)
        if ln.text.rstrip().endswith(";"):
            ctx.facts.signatures.append(normalise_signature(" ".join(x.text for x in pending)))
            ctx.facts.where.setdefault("intrinsic", pending[0].number)
            text = " ".join(x.text.strip().removeprefix("//").strip() for x in comment)
            ctx.facts.signature_comments.append(text)
            for x in pending + comment:
                x.placed = True
            pending, comment = [], []
    # An unterminated declaration stays unplaced: it is not a declaration we can vouch for.


# --- constraints, exceptions, target-profile restrictions ----------------------------------------

_BULLET = re.compile(r"^\s*(?:[-*+•]|\d+[.)])(?=\s|$)\s*")
# In captures a bullet marker may survive glued after the previous sentence: "row/col. - Slope".
_EMBEDDED_BULLET = re.compile(r"(?<=[.:;])\s*-\s+(?=\S)")
_GROUP = re.compile(
    r"^(?P<label>Implementation checks \((?P<profile>[^)]+)\)|Common constraints|Valid region)"
    r"\s*:\s*(?P<rest>.*)$",
    re.IGNORECASE,
)
_BARE_LABEL = re.compile(r"^(?P<label>[^:.]{1,60}):$")


@dataclass
class _Item:
    group: str | None
    text: str  # plain text, for matching
    markdown: str = ""  # the same item with its inline Markdown (only in a Markdown page)


def _raw_items(lines: list[_Line]) -> list[tuple[int, str]]:
    """Bullets start an item, following lines continue it, a blank line ends it. Each item comes
    with the indentation of its first line."""
    items: list[tuple[int, list[str]]] = []
    open_item = False
    for ln in lines:
        if ln.fenced:
            continue
        if not ln.text.strip():
            open_item = False
            continue
        ln.placed = True
        bullet = _BULLET.match(ln.text)
        text = ln.text[bullet.end() :] if bullet else ln.text
        if bullet or not open_item:
            items.append((len(ln.text) - len(ln.text.lstrip()), []))
            open_item = True
        items[-1][1].append(text.strip())
    return [(indent, " ".join(parts)) for indent, parts in items]


def _items(lines: list[_Line], flattened: bool) -> list[_Item]:
    out: list[_Item] = []
    group: str | None = None
    label_indent, nested = 0, False  # indentation of the group label; items seen below it
    for indent, raw in _raw_items(lines):
        text = _plain(raw)
        pieces = _EMBEDDED_BULLET.split(text) if flattened else [text]
        if not flattened and group is not None:
            if indent > label_indent:
                nested = True
            elif nested:  # back at the label's level: the group's nested list has ended
                group, nested = None, False
        for piece in pieces:
            piece = piece.strip()
            markdown = "" if flattened else " ".join(raw.split())
            m = _GROUP.match(piece) or _BARE_LABEL.match(piece)
            if m:
                group = m.group("label")
                label_indent, nested = indent, False
                piece = m.groupdict().get("rest") or ""
                # the Markdown form keeps what follows the label's colon (and its closing `**`)
                markdown = markdown.partition(":")[2].removeprefix("**").strip()
            if piece and not (flattened and _is_stub(piece, group, out)):
                out.append(_Item(group, piece, markdown or piece))
    return out


def _is_stub(piece: str, group: str | None, seen: list[_Item]) -> bool:
    """Captures repeat the first words of a nested list item ("- The op uses") after the item."""
    return any(prev.group == group and prev.text.startswith(piece) for prev in seen)


def _streams(section: _Section) -> tuple[list[_Line], list[_Line]]:
    """Lines of the section proper, and lines of other callouts inside it (e.g. "Source notes")."""
    main = [ln for ln in section.lines if ln.callout in (None, section.heading)]
    other = [ln for ln in section.lines if ln.callout not in (None, section.heading)]
    return main, other


def _list_section(
    target: Callable[[PageFacts], list[str]],
    with_dtypes: bool,
    groups: Callable[[PageFacts], list[str | None]] | None = None,
) -> Callable[[_Section, _Ctx], None]:
    def read(section: _Section, ctx: _Ctx) -> None:
        main, other = _streams(section)
        for item in _items(main, ctx.flattened):
            target(ctx.facts).append(item.markdown if ctx.keep_markdown else item.text)
            if groups is not None:
                groups(ctx.facts).append(item.group)
            if with_dtypes:
                _record_dtypes(ctx, item)
        keep = ctx.keep_markdown
        ctx.facts.notes.extend(i.markdown if keep else i.text for i in _items(other, ctx.flattened))

    return read


# --- dtype lists ---------------------------------------------------------------------------------

_WITH_CONDITION = re.compile(r"^With\s+\w+\s*==\s*(?P<cond>[\w:]+)\s*,\s*(?P<rest>.*)$")
_ONE_OF = re.compile(r"^(?P<subject>.*?)\s*must be one of\s*:\s*(?P<list>.*)$")
_ACCEPTS = re.compile(r"^(?P<cond>\w+::\w+)\s+accepts\s+(?P<list>.*)$")
_FORMS = re.compile(r"^Documented\s+[\w-]+\s+forms\s*:\s*(?P<list>.*)$")
_TYPE_NAME = re.compile(r"^[A-Za-z_][\w:]*$")


def _type_list(text: str) -> list[str]:
    """``half,float16_t, float and uint8_t (remark).`` -> names; stops at the first non-name."""
    text = text.split("(")[0].strip().rstrip(".").strip()
    names = []
    for part in re.split(r",|\s+and\s+|\s+or\s+", text):
        name = re.sub(r"^(?:and|or)\s+", "", part.strip())
        if not name:  # ", and" leaves an empty piece
            continue
        if not _TYPE_NAME.match(name):
            break
        names.append(name)
    return names


def profile_of(group: str | None) -> str:
    """The profile an "Implementation checks (P)" label names; "common" for any other label."""
    return _profile_of(group)


def _profile_of(group: str | None) -> str:
    m = _GROUP.match(f"{group}:") if group else None
    return m.group("profile") if m and m.group("profile") else "common"


def _record_dtypes(ctx: _Ctx, item: _Item) -> None:
    text, forms = split_forms(item.text)
    profile = _profile_of(item.group)
    cond_match = _WITH_CONDITION.match(text)
    cond = cond_match.group("cond") if cond_match else None
    body = cond_match.group("rest") if cond_match else text
    note: str | None = None
    if m := _ACCEPTS.match(body):
        cond, names = m.group("cond"), _type_list(m.group("list"))
        note = _list_note(m.group("list"))
    elif m := _FORMS.match(body):
        _put_dtypes(ctx, "forms", _type_list(m.group("list")))
        return
    elif m := _ONE_OF.match(body):
        names = _type_list(m.group("list"))
        note = _list_note(m.group("list"))
        if of := _ELEMENT_TYPE_OF.match(m.group("subject")):
            operands = re.split(r",\s*|\s+and\s+", of.group("names"))
            key = profile if cond is None else (cond if profile == "common" else f"{profile}/{cond}")
            if names:
                ctx.facts.operand_dtypes.append((key, operands, names, note, forms))
            return
        if "element type" in m.group("subject").casefold():  # vector pages: element type T
            _put_dtypes(ctx, "forms", names, note=note)
            return
    else:
        return
    if cond is None:
        _put_dtypes(ctx, profile, names, note=note)
    elif profile == "common":
        _put_dtypes(ctx, cond, names, note=note)
    else:
        # A condition inside a profile group: keep it per profile, and let the first one stand for
        # the bare condition unless the page also states it unscoped.
        _put_dtypes(ctx, f"{profile}/{cond}", names, note=note)
        _put_dtypes(ctx, cond, names, weak=True, note=note)


_ELEMENT_TYPE_OF = re.compile(r"^The element type of (?P<names>\w+(?:(?:,\s*|,?\s+and\s+)\w+)*)$")
_LIST_NOTE = re.compile(r"\((?P<note>[^()]*)\)\.?\s*$")


def _list_note(text: str) -> str | None:
    """The remark after a type list: ``half, float (union of the A2A3 and A5 lists).``"""
    m = _LIST_NOTE.search(text.strip())
    return m.group("note").strip() if m and m.group("note").strip() else None


def _put_dtypes(ctx: _Ctx, key: str, names: list[str], weak: bool = False, note: str | None = None) -> None:
    if not names:
        return
    dtypes = ctx.facts.dtypes
    old = dtypes.get(key)
    if old is None or (key in ctx.weak_keys and not weak):
        dtypes[key] = names
        ctx.facts.dtype_notes.pop(key, None)
        if note:
            ctx.facts.dtype_notes[key] = note
        if weak:
            ctx.weak_keys.add(key)
        else:
            ctx.weak_keys.discard(key)
    elif old != names and not weak and key not in ctx.weak_keys:
        ctx.facts.conflicts.append(f"dtypes[{key}]: {old} vs {names}")


# --- examples ------------------------------------------------------------------------------------


def _read_examples(section: _Section, ctx: _Ctx) -> None:
    if not any(ln.fenced for ln in section.lines):
        # Capture: the fences are gone, so the whole body is one block.
        body = _content(section.lines)
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


def _ignore(section: _Section, ctx: _Ctx) -> None:
    """Unknown sections and containers: their lines stay unplaced."""


_HANDLERS: dict[str, Callable[[_Section, _Ctx], None]] = {
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
    "Constraints": _list_section(lambda f: f.constraints, True, lambda f: f.constraint_groups),
    "Temporary Space": _list_section(lambda f: f.constraints, False, lambda f: f.constraint_groups),
    "Exceptions": _list_section(lambda f: f.exceptions, with_dtypes=False),
    "Target-Profile Restrictions": _list_section(
        lambda f: f.profile_restrictions, True, lambda f: f.restriction_groups
    ),
    "Examples": _read_examples,
    "Auto Mode": _read_examples,
    "Manual Mode": _read_examples,
    "Related Ops / Instruction Set Links": _read_related,
}
