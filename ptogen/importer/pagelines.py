"""A page as lines and sections: code fences and callouts tracked, the title taken, the body split
at its headings (Markdown ones, or in a flattened capture the known section names), and the text
helpers the section readers share."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .facts import HEADING_ALIASES, KNOWN_HEADINGS, OP_SECTIONS, REF_SECTIONS, PageFacts

_CANONICAL = {name.casefold(): name for name in KNOWN_HEADINGS} | {
    alias.casefold(): target for alias, target in HEADING_ALIASES.items()
}


# --- line scanning -------------------------------------------------------------------------------


@dataclass
class Line:
    text: str
    fenced: bool = False  # inside a ``` block, or the fence marker itself
    fence_marker: bool = False
    callout: str | None = None  # title of the MkDocs callout this line belongs to
    placed: bool = False
    number: int = 0  # 1-based line number in the page


@dataclass
class Section:
    heading: str
    lines: list[Line] = field(default_factory=list)


@dataclass
class Ctx:
    facts: PageFacts
    flattened: bool
    weak_keys: set[str] = field(default_factory=set)  # dtype keys filled from a profile-scoped list
    keep_markdown: bool = False

    def prose(self, text: str) -> str:
        return " ".join(text.split()) if self.keep_markdown else plain_text(text)


MD_HEADING = re.compile(r"^#{2,6}\s+\S")
_CALLOUT = re.compile(r'^(?:!!!|\?\?\?\+?)\s+(?P<kind>\w+)(?:\s+"(?P<title>[^"]*)")?\s*$')


def scan_lines(text: str) -> list[Line]:
    """Split into lines, tracking code fences and dedenting MkDocs callout bodies (4 spaces)."""
    out: list[Line] = []
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
            out.append(Line(line, placed=True, number=number))
            continue
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
            out.append(Line(line, True, True, callout, True, number))
            continue
        out.append(Line(line, fenced=in_fence, callout=callout, number=number))
    return out


def take_title(lines: list[Line], facts: PageFacts) -> int:
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
        facts.title = plain_text(title)
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


def _heading_of(ln: Line, markdown: bool) -> str | None:
    if ln.fenced or ln.callout is not None:
        return None
    text = ln.text.strip()
    if markdown:
        # A single '#' is the title (already taken) or, in captures, a code comment.
        if not MD_HEADING.match(text):
            return None
    elif not text.endswith("¶"):
        return _canonical_heading(text)  # bare line: only the known vocabulary
    name = _strip_heading_marks(text)
    # Explicitly marked headings count even when unknown, so a new section is not silently merged.
    return _canonical_heading(name) or name


def split_sections(lines: list[Line], markdown: bool) -> tuple[list[Line], list[Section]]:
    preamble: list[Line] = []
    sections: list[Section] = []
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
        sections.append(Section(heading))
        level = depth
    return preamble, sections


def detect_layout(headings: list[str]) -> str:
    op = len(set(headings) & (set(OP_SECTIONS) - set(REF_SECTIONS)))
    ref = len(set(headings) & (set(REF_SECTIONS) - set(OP_SECTIONS)))
    if op == ref:
        return "unknown"
    return "op" if op > ref else "ref"


# --- text helpers --------------------------------------------------------------------------------

LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")


def plain_text(text: str) -> str:
    """Drop inline Markdown (links, code ticks, emphasis) and collapse whitespace."""
    text = LINK.sub(r"\1", text).replace("`", "").replace("**", "")
    text = " ".join(text.split())
    return text.replace("( ", "(").replace(" )", ")")


def content_lines(lines: list[Line]) -> list[Line]:
    return [ln for ln in lines if ln.text.strip() and not ln.fence_marker]


def take_prose(lines: list[Line], ctx: Ctx) -> list[str]:
    out = []
    for ln in content_lines(lines):
        ln.placed = True
        out.append(ctx.prose(ln.text))
    return out
