"""The intrinsics finder: one row per op with what its filters test (instruction set, element
types and tile locations per profile), computed from the same rules as the profile checks.

The page is static HTML that a small script filters in the browser, so it works offline and over
file:// (no index to fetch).
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

from ..lower.glance import Glance
from ..lower.views import OpView, ProjectView

FINDER_PAGE = "docs/finder.md"
# The tile locations a filter offers (upstream's TileType values that a kernel declares tiles in).
LOCATIONS = ("Vec", "Mat", "Left", "Right", "Acc", "Bias", "Scaling")


@dataclass(frozen=True)
class FinderRow:
    op: OpView
    href: str  # the built op page, relative to the finder page
    dtypes: dict[str, list[str]]  # profile -> element types admitted (empty: not offered)
    locations: dict[str, list[str]]  # profile -> tile locations; ["any"] when no rule fixes one

    @property
    def profiles(self) -> list[str]:
        """The profiles that offer the op (TSYNC has no element types but is offered)."""
        return [p for p in self.dtypes if self.op.available(p)]


def _html(page: str) -> str:
    return posixpath.splitext(page)[0] + ".html"  # the site builds with use_directory_urls: false


def finder_rows(project: ProjectView) -> list[FinderRow]:
    rows = []
    for op in project.ops:
        glance = Glance(op)
        dtypes = {p.name: _union(glance, op, p.name) for p in project.profiles}
        locations = {}
        for p in project.profiles:
            found = glance.locations(p.name)
            locations[p.name] = ["any"] if found is None else found
        href = posixpath.relpath(_html(op.doc_path), posixpath.dirname(FINDER_PAGE))
        rows.append(FinderRow(op, href, dtypes, locations))
    return rows


def _union(glance: Glance, op: OpView, profile: str) -> list[str]:
    """Element types the op takes on the profile in any operand (what "has a float form" means)."""
    found = {d for t in op.tiles for d in glance.types(profile, t)}
    return [d.name for d in op.targets.dtypes if d.name in found]
