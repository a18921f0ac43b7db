"""`python -m ptogen.importer.survey UPSTREAM`: import every English page of the covered
instruction sets of an upstream checkout (op pages and their reference pages) and print, per
page, `ok` with the number of unplaced facts, or `refused` with the one-line reason.

Nothing is written. Exit status: 0 when every page of an op listed in an `order:` of
specs/targets.yaml imports (pages of other ops of the set may be refused, with their reason), 1
otherwise, 2 on bad usage.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from ..spec.load import load_specs
from ..spec.model import Targets
from .build import ImportProblem, import_page


@dataclass
class PageResult:
    page: Path
    unplaced: int | None  # None: refused
    reason: str = ""


def covered_pages(isa: Path, targets: Targets) -> list[Path]:
    """Op pages under each covered set's doc_dir, each followed by its reference page if any."""
    pages: list[Path] = []
    for iset in targets.instruction_sets:
        for page in sorted((isa / iset.doc_dir).glob("*.md")):
            if page.stem.endswith("_zh"):
                continue
            pages.append(page)
            ref = isa / f"{page.stem.upper().replace('-', '_')}.md"
            if ref.is_file():
                pages.append(ref)
    return pages


def survey(upstream: Path, targets: Targets) -> list[PageResult]:
    isa = upstream / "docs/isa" if (upstream / "docs/isa").is_dir() else upstream
    results = []
    for page in covered_pages(isa, targets):
        try:
            got = import_page(page, targets)
        except ImportProblem as exc:
            results.append(PageResult(page, None, f"line {exc.line}: {exc}" if exc.line else str(exc)))
        except OSError as exc:
            results.append(PageResult(page, None, str(exc)))
        else:
            results.append(PageResult(page, len(got.unplaced)))
    return results


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or not Path(args[0]).is_dir():
        print("usage: python -m ptogen.importer.survey UPSTREAM_CHECKOUT", file=sys.stderr)
        return 2
    root = Path(__file__).resolve().parents[2]
    targets = load_specs(root / "specs", root).targets
    upstream = Path(args[0])
    results = survey(upstream, targets)
    for r in results:
        where = r.page.relative_to(upstream) if r.page.is_relative_to(upstream) else r.page
        status = f"ok  {r.unplaced:3d} unplaced" if r.unplaced is not None else f"refused: {r.reason}"
        print(f"{where}: {status}")
    ok = [r for r in results if r.unplaced is not None]
    print(
        f"{len(ok)} of {len(results)} pages import, {sum(r.unplaced or 0 for r in ok)} unplaced facts in all"
    )
    # Pages of ops outside every `order:` (not yet specified) may be refused; the others may not.
    ordered = {m for s in targets.instruction_sets for m in s.order}
    return 0 if all(r.unplaced is not None or op_of(r.page) not in ordered for r in results) else 1


def op_of(page: Path) -> str:
    return "pto." + page.stem.lower().replace("-", "_")


if __name__ == "__main__":
    sys.exit(main())
