"""Format generated C++ with clang-format (the pinned PyPI wheel), so output is stable everywhere."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ..errors import GenerationError


def clang_format_binary() -> str:
    # Prefer the wheel installed next to this interpreter: a system clang-format of another
    # version would format differently and make `ptogen check` machine-dependent.
    local = Path(sys.executable).parent / "clang-format"
    if local.exists():
        return str(local)
    try:
        import clang_format  # type: ignore[import-not-found]

        wheel = Path(clang_format.__file__).parent / "data" / "bin" / "clang-format"
        if wheel.exists():
            return str(wheel)
    except ImportError:
        pass
    found = shutil.which("clang-format")
    if found is None:
        raise GenerationError("clang-format not found: pip install clang-format (see pyproject.toml)")
    return found


def format_cpp_many(
    sources: dict[str, str], style_file: Path, chunk: int = 256, cache: Path | None = None
) -> dict[str, str]:
    """Format every source with the repo's .clang-format.

    Results are cached by a hash of (formatter, style, source), so an unchanged file is not
    formatted again; the rest go through one clang-format process per chunk of files (starting a
    process per file would cost more than the formatting itself).
    """
    binary = clang_format_binary()
    salt = hashlib.sha256(Path(binary).read_bytes()[: 1 << 16] + style_file.read_bytes()).hexdigest()
    keys = {name: hashlib.sha256((salt + text).encode()).hexdigest() for name, text in sources.items()}
    out: dict[str, str] = {}
    if cache is not None:
        for name, key in keys.items():
            hit = cache / key[:2] / key
            if hit.is_file():
                out[name] = hit.read_text(encoding="utf-8")
    names = sorted(n for n in sources if n not in out)
    if not names:
        return out
    with tempfile.TemporaryDirectory(prefix="ptogen-fmt-") as tmp:
        root = Path(tmp)
        for name in names:
            path = root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(sources[name], encoding="utf-8")
        batches = [names[i : i + chunk] for i in range(0, len(names), chunk)]

        def run(batch: list[str]) -> None:
            proc = subprocess.run(
                [binary, f"--style=file:{style_file}", "-i", *batch],
                cwd=root,
                capture_output=True,
                text=True,
                check=False,
            )
            if proc.returncode != 0:
                raise GenerationError(f"clang-format failed: {proc.stderr.strip()}")

        with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
            list(pool.map(run, batches))
        for name in names:
            out[name] = (root / name).read_text(encoding="utf-8")
    if cache is not None:
        for name in names:
            entry = cache / keys[name][:2] / keys[name]
            entry.parent.mkdir(parents=True, exist_ok=True)
            partial = entry.with_suffix(f".{os.getpid()}")
            partial.write_text(out[name], encoding="utf-8")
            os.replace(partial, entry)
    return out
