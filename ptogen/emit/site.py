"""The documentation site's source: mkdocs.yml, home page, guide, source notes and coverage.

The op pages already exist (one per layout); this module adds what makes them a browsable site.
Navigation follows targets.yaml (instruction sets, then each set's `order:`) and lists each op once,
by its instruction-set page; the reference-layout pages are reachable from it but stay out of the
menu. The coverage page compares the specs with the ISA's full op list, which is recorded once in
templates/site/isa_catalog.yaml (a fact taken from the upstream manual's tree).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..errors import SpecError
from ..lower.views import OpView, ProjectView
from ..spec.loader import load_yaml
from ..spec.model import UpstreamBug

CATALOG = "site/isa_catalog.yaml"
DOCS = "docs/"  # the site's docs_dir inside the output tree

# Site pages rendered from templates/site/ (output path, template); mkdocs.yml comes from
# `nav()` below, the guide's prose and samples from templates/site/guide.md.j2.
PAGES = [
    ("mkdocs.yml", "site/mkdocs.yml.j2"),
    ("mkdocs_hooks.py", "site/mkdocs_hooks.py.j2"),
    ("docs/index.md", "site/index.md.j2"),
    ("docs/getting-started.md", "site/getting_started.md.j2"),
    ("docs/user-guide.md", "site/user_guide.md.j2"),
    ("docs/guide.md", "site/guide.md.j2"),
    ("docs/gemm.md", "site/gemm.md.j2"),
    ("docs/vector-guide.md", "site/vector_guide.md.j2"),
    ("docs/figures/box-layouts.svg", "site/box_layouts.svg.j2"),
    ("docs/source-notes.md", "site/source_notes.md.j2"),
    ("docs/coverage.md", "site/coverage.md.j2"),
    ("docs/contributing.md", "site/contributing.md.j2"),
    ("docs/design-notes.md", "site/design_notes.md.j2"),
    ("docs/finder.md", "site/finder.md.j2"),
    ("search_terms.json", "site/search_terms.json.j2"),
    ("docs/javascripts/search-worker.js", "site/search_worker.js.j2"),
    ("docs/javascripts/finder.js", "site/finder.js.j2"),
    ("docs/javascripts/finder-more.js", "site/finder_more.js.j2"),
    ("docs/javascripts/mathjax-config.js", "site/mathjax-config.js.j2"),
    ("docs/stylesheets/extra.css", "site/extra.css.j2"),
]


def site_jobs() -> list[tuple[str, str, dict[str, object]]]:
    return [(path, template, {}) for path, template in PAGES]


def in_docs(path: str) -> str:
    """A generated path (docs/...) as mkdocs names it, relative to docs_dir."""
    if not path.startswith(DOCS):
        raise ValueError(f"{path} is not under {DOCS}")
    return path[len(DOCS) :]


def link(from_page: str, to_page: str) -> str:
    """Relative Markdown link between two generated paths."""
    return posixpath.relpath(to_page, posixpath.dirname(from_page))


# --------------------------------------------------------------------------- navigation
@dataclass(frozen=True)
class NavSet:
    title: str
    index: str  # relative to docs_dir
    ops: list[tuple[str, str]]  # (mnemonic, page relative to docs_dir), in the set's order


def nav(project: ProjectView) -> list[NavSet]:
    return [
        NavSet(
            title=iset.title,
            index=f"isa/{iset.index_page}",
            ops=[(o.spec.mnemonic, in_docs(o.doc_path)) for o in project.ops_in(iset.id)],
        )
        for iset in project.targets.instruction_sets
    ]


# --------------------------------------------------------------------------- source notes
# A note is prose; its kind is read from the words it uses, first match wins. The order puts the
# narrow kinds first (a signature note often mentions types too).
NOTE_KINDS: list[tuple[str, str, re.Pattern[str]]] = [
    (
        "upstream_bugs",
        "Argued upstream bugs (accepted by `ptogen a5-check`)",
        re.compile("^" + re.escape(UpstreamBug.LEAD)),
    ),
    (
        "signature",
        "Signatures, overloads and declarations",
        re.compile(
            r"overload|signature|declar|PTO_INST|PTO_INTERNAL|template parameter|three-operand|\bform\b", re.I
        ),
    ),
    (
        "numerics",
        "Numeric behaviour",
        re.compile(
            r"NaN|\bties?\b|\bround|accumulat|saturat|\bwrap|shift|\bsign\b|signed|tolerance|\bfold|remainder|\bfloor|ulp",
            re.I,
        ),
    ),
    (
        "dtypes",
        "Element types per profile",
        re.compile(
            r"type (list|set)|element type|types|dtype|`(half|float|int\d+_t|uint\d+_t|bfloat16_t)`", re.I
        ),
    ),
    (
        "layout",
        "Layout, location and valid region",
        re.compile(r"layout|row-major|column-major|location|valid|overlap|per-row|per-column", re.I),
    ),
]
OTHER_KIND = ("other", "Other modelling choices")


@dataclass(frozen=True)
class Note:
    op: OpView
    text: str
    page: str  # the op's page, relative to docs_dir


def note_kind(text: str) -> str:
    for key, _title, pattern in NOTE_KINDS:
        if pattern.search(text):
            return key
    return OTHER_KIND[0]


def notes_by_kind(project: ProjectView) -> list[tuple[str, str, list[Note]]]:
    """(kind id, title, notes) for every kind that has notes, in NOTE_KINDS order."""
    groups: dict[str, list[Note]] = {}
    for op in project.ops:
        for text in op.doc.notes:
            groups.setdefault(note_kind(text), []).append(
                Note(op, " ".join(text.split()), in_docs(op.doc_path))
            )
    kinds = [(k, t) for k, t, _p in NOTE_KINDS] + [OTHER_KIND]
    return [(k, t, groups[k]) for k, t in kinds if k in groups]


# --------------------------------------------------------------------------- coverage
@dataclass(frozen=True)
class CatalogSet:
    group: str
    id: str
    title: str
    ops: list[str]
    pages: dict[str, str]  # mnemonic -> its upstream page, where the usual name does not hold
    line: int | None = None  # of the set's `ops:` in the catalog, for errors that name the list

    def upstream_page(self, mnemonic: str) -> str:
        """Where the upstream manual documents the op, relative to its docs/isa/: the set's directory
        and the mnemonic with hyphens (`pto.tgemv_acc` -> tile/ops/matrix-and-matrix-vector/tgemv-acc.md)."""
        default = f"{self.group}/ops/{self.id}/{mnemonic.removeprefix('pto.').replace('_', '-')}.md"
        return self.pages.get(mnemonic, default)


@dataclass(frozen=True)
class CoverageRow:
    mnemonic: str
    op: OpView | None  # None: not specified here
    page: str | None  # relative to docs_dir
    dtypes: dict[str, list[str]]  # profile -> allowed element types (empty: not offered)


@dataclass(frozen=True)
class CoverageSet:
    entry: CatalogSet
    rows: list[CoverageRow]

    @property
    def specified(self) -> int:
        return sum(1 for r in self.rows if r.op is not None)


def load_catalog(templates_dir: Path) -> list[CatalogSet]:
    """The ISA's instruction sets and ops; a malformed entry is reported as file:line: field."""
    path = templates_dir / CATALOG
    display = f"templates/{CATALOG}"
    doc = load_yaml(path, display)
    sets = doc.data.get("instruction_sets") if isinstance(doc.data, dict) else None
    if not isinstance(sets, list) or not sets:
        raise SpecError(
            display, doc.source.line_of(("instruction_sets",)), "instruction_sets", "a list is required"
        )
    out: list[CatalogSet] = []
    for i, entry in enumerate(sets):
        for key in ("group", "id", "title", "ops"):
            value = entry.get(key) if isinstance(entry, dict) else None
            wanted = list if key == "ops" else str
            if not isinstance(value, wanted) or not value:
                where = doc.source.line_of(("instruction_sets", i, key))
                kind = "list of mnemonics" if key == "ops" else "string"
                raise SpecError(
                    display, where, f"instruction_sets[{i}].{key}", f"a non-empty {kind} is required"
                )
        pages = entry.get("pages", {})
        if not isinstance(pages, dict) or not set(pages) <= set(entry["ops"]):
            where = doc.source.line_of(("instruction_sets", i, "pages"))
            raise SpecError(
                display, where, f"instruction_sets[{i}].pages", "a map from the set's ops to pages"
            )
        ops = [str(m) for m in entry["ops"]]
        out.append(
            CatalogSet(
                entry["group"],
                entry["id"],
                entry["title"],
                ops,
                {str(k): str(v) for k, v in pages.items()},
                doc.source.line_of(("instruction_sets", i, "ops")),
            )
        )
    return out


def upstream_docs(templates_dir: Path) -> str:
    """The base address of the upstream manual's docs/isa/ (the catalog's `upstream_docs`)."""
    doc = load_yaml(templates_dir / CATALOG, f"templates/{CATALOG}")
    base = doc.data.get("upstream_docs") if isinstance(doc.data, dict) else None
    if not isinstance(base, str) or not base.endswith("/"):
        line = doc.source.line_of(("upstream_docs",))
        raise SpecError(f"templates/{CATALOG}", line, "upstream_docs", "an address ending in / is required")
    return base


def _catalog_set_of(op: OpView, catalog: list[CatalogSet]) -> CatalogSet | None:
    return next((c for c in catalog if f"{c.group}/ops/{c.id}" == op.iset.doc_dir), None)


def check_catalog(project: ProjectView, catalog: list[CatalogSet]) -> None:
    """A specified op the catalog does not list is an error, since the coverage page would silently
    leave it out (checked before anything is rendered)."""
    for op in project.ops:
        entry = _catalog_set_of(op, catalog)
        if entry is None or op.spec.mnemonic not in entry.ops:
            # The set's list the op belongs in, else the first set's (where a new set goes).
            at = catalog.index(entry) if entry is not None else 0
            raise SpecError(
                f"templates/{CATALOG}",
                (entry or catalog[0]).line if catalog else None,
                f"instruction_sets[{at}].ops" if entry is not None else "instruction_sets",
                f"{op.spec.mnemonic} ({op.path}) is specified but not listed under its instruction set "
                f"{op.iset.doc_dir}",
            )


def coverage(project: ProjectView, catalog: list[CatalogSet]) -> list[CoverageSet]:
    """Every catalogued set with its ops."""
    check_catalog(project, catalog)
    by_mnemonic = {o.spec.mnemonic: o for o in project.ops}
    vocabulary = [d.name for d in project.targets.dtypes]
    result: list[CoverageSet] = []
    for entry in catalog:
        rows = []
        for mnemonic in entry.ops:
            found = by_mnemonic.get(mnemonic)
            # The same mnemonic may name an op of another set (the tile and comm TGATHER).
            spec_op = found if found is not None and _catalog_set_of(found, catalog) is entry else None
            dtypes = {}
            if spec_op is not None:
                for p in project.profiles:
                    allowed = {d for v in spec_op.value_variants for d in spec_op.allowed_dtypes(p.name, v)}
                    dtypes[p.name] = [d for d in vocabulary if d in allowed]
            page = in_docs(spec_op.doc_path) if spec_op is not None else None
            rows.append(CoverageRow(mnemonic, spec_op, page, dtypes))
        result.append(CoverageSet(entry, rows))
    return result


def upstream_address(templates_dir: Path) -> Callable[[str, str], str | None]:
    """A function (doc_dir, mnemonic) -> the address of the upstream manual's page of that op (None if
    the catalog does not list the op under that set). The catalogue is read at the first call, once."""
    found: dict[str, object] = {}

    def address(doc_dir: str, mnemonic: str) -> str | None:
        if not found:
            found["base"] = upstream_docs(templates_dir)
            found["sets"] = {f"{c.group}/ops/{c.id}": c for c in load_catalog(templates_dir)}
        entry = found["sets"].get(doc_dir)  # type: ignore[attr-defined]
        if entry is None or mnemonic not in entry.ops:
            return None
        return str(found["base"]) + entry.upstream_page(mnemonic)

    return address
