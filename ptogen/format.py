"""Format generated C++ with clang-format (the pinned PyPI wheel), so output is stable everywhere."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from .errors import GenerationError


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


def format_cpp_many(sources: dict[str, str], style_file: Path) -> dict[str, str]:
    """Format each source with the repo's .clang-format; keys are only used for error messages."""
    binary = clang_format_binary()
    out = {}
    for name, text in sources.items():
        proc = subprocess.run(
            [binary, f"--style=file:{style_file}", f"--assume-filename={name}"],
            input=text,
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode != 0:
            raise GenerationError(f"clang-format failed on {name}: {proc.stderr.strip()}")
        out[name] = proc.stdout
    return out
