"""`ptogen import`: turn existing ISA pages (either layout, flattened captures too) into specs.

The page parser (pagefacts) finds the facts; `assemble` maps them onto the spec model, one reader
per concern (sections, operands, forms and overloads, semantics, constraints); `repair` gives up
what the model refuses. This module reads the page files, reports per page what could not be
placed, and writes the specs.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import one_line
from ..paths import Layout
from ..spec.load import load_specs, spec_context
from ..spec.model import Targets
from .assemble import read_spec
from .naming import snake
from .problem import ImportProblem
from .repair import order_advice, repair
from .write import dump

__all__ = ["ImportProblem", "Imported", "import_page", "read_page", "run_import"]


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
        spec, unplaced, where = read_spec(text, targets, str(path))
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
        rows = {snake(k.removeprefix("row:")): v for k, v in where.items() if k.startswith("row:")}
        return rows.get(name) or where.get("intrinsic")
    if head == "syntax" and len(parts) > 1:
        return where.get(f"syntax.{parts[1]}")
    keys = {"semantics": "math", "intrinsic": "intrinsic", "mnemonic": "title", "instruction_set": "title"}
    return where.get(keys.get(head, ""))


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
