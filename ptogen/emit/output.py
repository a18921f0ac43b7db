"""Write a rendered tree into generated/, or compare it with what is there.

Writing builds the complete new tree beside the old one and swaps directories, so an error
half-way never leaves a mix of old and new files, and files no spec produces disappear.
"""

from __future__ import annotations

import difflib
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path


def _on_disk(out: Path) -> dict[str, Path]:
    if not out.is_dir():
        return {}
    return {p.relative_to(out).as_posix(): p for p in sorted(out.rglob("*")) if p.is_file()}


def write_tree(out: Path, files: dict[str, str]) -> list[str]:
    """Replace `out` with exactly `files`; returns the relative paths that changed."""
    before = _on_disk(out)
    changed = sorted(
        [p for p, text in files.items() if p not in before or before[p].read_text(encoding="utf-8") != text]
        + [p for p in before if p not in files]
    )
    if not changed and out.is_dir():
        return []  # already exactly `files`: leave every file (and its mtime) alone
    changed_set = set(changed)
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}-new-", dir=out.parent))
    try:
        for rel, text in files.items():
            target = staging / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            if rel in before and rel not in changed_set:
                shutil.copy2(before[rel], target)  # unchanged: keep its mtime (compilers' caches use it)
            else:
                target.write_text(text, encoding="utf-8", newline="\n")
        old = None
        if out.exists():
            old = out.parent / f".{out.name}-old"
            shutil.rmtree(old, ignore_errors=True)
            out.rename(old)
        staging.rename(out)
        if old is not None:
            shutil.rmtree(old)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return changed


@dataclass
class Drift:
    changed: list[str]
    missing: list[str]
    orphans: list[str]
    diff: str

    @property
    def clean(self) -> bool:
        return not (self.changed or self.missing or self.orphans)


def compare_tree(out: Path, files: dict[str, str], label: str = "generated") -> Drift:
    disk = _on_disk(out)
    changed: list[str] = []
    missing: list[str] = []
    chunks: list[str] = []
    for rel in sorted(files):
        want = files[rel]
        if rel not in disk:
            missing.append(rel)
            have = ""
        else:
            have = disk[rel].read_text(encoding="utf-8", errors="replace")
            if have == want:
                continue
            changed.append(rel)
        chunks.extend(
            difflib.unified_diff(
                have.splitlines(keepends=True),
                want.splitlines(keepends=True),
                fromfile=f"{label}/{rel}" if rel in disk else "/dev/null",
                tofile=f"{label}/{rel} (from specs)",
            )
        )
    orphans = sorted(p for p in disk if p not in files)
    for rel in orphans:
        chunks.append(f"--- {label}/{rel}\n+++ /dev/null\n@@ orphan: no spec produces this file @@\n")
    return Drift(changed, missing, orphans, "".join(c if c.endswith("\n") else c + "\n" for c in chunks))
