"""Writing an imported spec as the hand-written ones are."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..spec.factor import factor
from ..spec.resolve import Context
from ..spec.yamlout import dump_text


def dump(spec: dict[str, Any], path: Path, context: Context | None = None) -> None:
    """Write a spec as the hand-written ones are: over the op class that fits it best (with
    `context`), with named dtype sets, flow style for short entries."""
    for ex in spec.get("examples", []):
        ex["code"] = ex["code"].rstrip("\n") + "\n"
    text = dump_text(factor(spec, context, lenient=True) if context is not None else spec)
    path.parent.mkdir(parents=True, exist_ok=True)
    # Written beside the target and renamed over it, so a kill never leaves a partial spec.
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
