"""The intrinsics finder: one row per op with what its filters test (instruction set, level,
category, unit, element types and tile locations per profile), computed from the same rules as the
profile checks, and what its row shows when opened (formula, constraints, forms).

The page is static HTML that a small script filters, sorts and opens in the browser, so it works
offline and over file://; what an opened row shows is a script of its own, loaded on the first open.
"""

from __future__ import annotations

import html
import posixpath
import re
from dataclasses import dataclass
from typing import cast

from ..errors import GenerationError
from ..lower.glance import Glance
from ..lower.views import OpView, ProjectView, RuleView

FINDER_PAGE = "docs/finder.md"
# The tile locations a filter offers (upstream's TileType values that a kernel declares tiles in).
LOCATIONS = ("Vec", "Mat", "Left", "Right", "Acc", "Bias", "Scaling")


@dataclass(frozen=True)
class FinderRule:
    label: str  # the group: "Common", or the profile's title
    items: list[str]  # each rule as HTML


@dataclass(frozen=True)
class FinderRow:
    op: OpView
    href: str  # the built op page, relative to the finder page
    ref_href: str | None  # its reference-layout page, if it has one
    dtypes: dict[str, list[str]]  # profile -> element types admitted (empty: not offered)
    locations: dict[str, list[str]]  # profile -> tile locations; ["any"] when no rule fixes one
    short_types: dict[str, list[tuple[str, str]]]  # profile -> (short spelling, C++ name)
    rules: list[FinderRule]

    @property
    def profiles(self) -> list[str]:
        """The profiles that offer the op (TSYNC has no element types but is offered)."""
        return [p for p in self.dtypes if self.op.available(p)]


def _html(page: str) -> str:
    return posixpath.splitext(page)[0] + ".html"  # the site builds with use_directory_urls: false


def _relative(page: str) -> str:
    return posixpath.relpath(_html(page), posixpath.dirname(FINDER_PAGE))


def inline_html(markdown: str) -> str:
    """A Markdown phrase as HTML: code spans and emphasis; a link keeps its text (its target is
    relative to the op's page, not this one)."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", markdown)
    out = []
    for i, part in enumerate(re.split(r"`([^`]*)`", text)):
        if i % 2:
            out.append(f"<code>{html.escape(part)}</code>")
        else:
            out.append(re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", html.escape(part)))
    return "".join(out)


def _rules(op: OpView, project: ProjectView) -> list[FinderRule]:
    titles = {p.name: p.title for p in project.profiles}
    groups = []
    for key, rules in op.doc.rule_groups():
        items = [inline_html(cast(RuleView, rv).doc) for rv in rules]
        items += [inline_html(t) for t in op.doc.prose_for(key)]
        groups.append(FinderRule("Common" if key is None else titles.get(key, key), items))
    if not any(key is None for key, _ in op.doc.rule_groups()) and op.doc.prose_for(None):
        groups.insert(0, FinderRule("Common", [inline_html(t) for t in op.doc.prose_for(None)]))
    return groups


def finder_rows(project: ProjectView) -> list[FinderRow]:
    rows = []
    for op in project.ops:
        glance = Glance(op)
        dtypes = {p.name: _union(glance, op, p.name) for p in project.profiles}
        locations = {}
        for p in project.profiles:
            found = glance.locations(p.name)
            locations[p.name] = ["any"] if found is None else found
        short = {
            p.name: [(project.targets.dtype(d).asm, d) for d in dtypes[p.name]]
            for p in project.profiles
            if op.available(p.name)
        }
        has_ref = op.ref_doc_path in {job[0] for job in op.kind.outputs(op)}
        ref_href = _relative(op.ref_doc_path) if has_ref else None
        rows.append(
            FinderRow(op, _relative(op.doc_path), ref_href, dtypes, locations, short, _rules(op, project))
        )
    return rows


def finder_type_names(project: ProjectView) -> dict[str, str]:
    """Each element type's short spelling (what a row shows) to its C++ name (the row's tooltip), stated
    once for the page rather than on every row."""
    names: dict[str, str] = {}
    for d in project.targets.dtypes:
        if d.asm in names:
            raise GenerationError(
                f"{project.specs.targets_path}: element types {names[d.asm]} and {d.name} share the short "
                f"spelling {d.asm}; the finder could not tell them apart"
            )
        names[d.asm] = d.name
    return names


@dataclass(frozen=True)
class FinderFilter:
    name: str  # the select's id is finder-<name>, and the page's address names it so
    label: str
    choices: list[tuple[str, str]]  # (value, label), in the specs' order


def finder_filters(project: ProjectView) -> list[FinderFilter]:
    """The finder's filters, in the order the page shows them."""
    choices = _finder_choices(project)
    labels = {
        "level": "Level",
        "category": "Category",
        "unit": "Unit",
        "set": "Instruction set",
        "dtype": "Element type",
        "profile": "Profile",
        "location": "Tile location",
    }
    return [FinderFilter(name, label, choices[name]) for name, label in labels.items()]


def _finder_choices(project: ProjectView) -> dict[str, list[tuple[str, str]]]:
    """The values each filter offers, as (value, label), in the specs' order."""
    kinds = {op.spec.semantics.kind for op in project.ops}
    levels = []
    for s in project.targets.instruction_sets:
        if s.kind not in levels:
            levels.append(s.kind)
    return {
        "set": [(s.id, s.title) for s in project.targets.instruction_sets],
        "level": [(k, k) for k in levels],
        "category": [(g.id, g.title) for g in project.targets.categories if kinds & set(g.kinds)],
        "unit": [(g.id, g.title) for g in project.targets.units if kinds & set(g.kinds)],
        "dtype": [(d.name, d.name) for d in project.targets.dtypes],
        "profile": [(p.name, p.title) for p in project.profiles],
        "location": [(loc, loc) for loc in LOCATIONS],
    }


def _union(glance: Glance, op: OpView, profile: str) -> list[str]:
    """Element types the op takes on the profile in any operand (what "has a float form" means)."""
    found = {d for t in op.tiles for d in glance.types(profile, t)}
    return [d.name for d in op.targets.dtypes if d.name in found]
