"""Where a project's specs, templates and generated tree are, and where the C++ core ships."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
RUNTIME_INCLUDE = PACKAGE_DIR / "runtime" / "include"


def _is_root(path: Path) -> bool:
    return (path / "specs" / "targets.yaml").is_file() and (path / "templates").is_dir()


def find_root(start: Path | None = None) -> Path:
    """The project root: $PTOGEN_ROOT, else the nearest ancestor of cwd with specs/ and templates/,
    else the checkout this package was installed from (editable install)."""
    env = os.environ.get("PTOGEN_ROOT")
    if env:
        return Path(env).resolve()
    here = (start or Path.cwd()).resolve()
    for candidate in (here, *here.parents):
        if _is_root(candidate):
            return candidate
    return PACKAGE_DIR.parent


@dataclass(frozen=True)
class Layout:
    root: Path
    specs: Path
    out: Path
    templates: Path

    @property
    def style(self) -> Path:
        return self.root / ".clang-format"

    @property
    def generated_include(self) -> Path:
        return self.out / "include"

    @staticmethod
    def make(
        root: Path | None = None,
        specs: Path | None = None,
        out: Path | None = None,
        templates: Path | None = None,
    ) -> Layout:
        base = (root or find_root()).resolve()
        return Layout(
            root=base,
            specs=(specs or base / "specs").resolve(),
            out=(out or base / "generated").resolve(),
            templates=(templates or base / "templates").resolve(),
        )
