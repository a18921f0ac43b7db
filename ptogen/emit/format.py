"""Format generated C++ with clang-format (the pinned PyPI wheel), so output is stable everywhere.

Sources go to clang-format on stdin (`--assume-filename`), so nothing is written to disk. Starting
clang-format and reading the style costs more than formatting one generated file, so sources are
joined into batches with a separator block between them and each batch is formatted by one process
(batches run in parallel). The separator is a `// clang-format off` region holding a marker line:
every generated file is a complete translation unit (balanced braces, `#if`s and comments), so
clang-format ends the previous file's last line and starts the next file's first line exactly as
it would for the files alone. This was verified byte for byte on the whole generated tree. A source
that could carry state across the boundary (leading whitespace, trailing blank lines, its own
`clang-format` comments, CR line ends) is formatted on its own, and so is every source of a batch
whose output does not split back into as many parts.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ..errors import GenerationError

MARKER = "// @@ptogen-format-split 3b9d0c7e-5a41-4f62-9d8e-2c6f1a7b4e10@@"
SEPARATOR = f"\n// clang-format off\n{MARKER}\n// clang-format on\n"
JOIN_SUFFIXES = (".hpp", ".cpp")  # `.h` may be guessed as Objective-C from its content: never joined
MAX_BATCH = 128
# clang-format's time grows faster than the size of its input: a batch of about 200 kB formats the
# whole tree in a third of the time that 128 joined files took (measured: 13 s against 36 s of CPU).
MAX_BATCH_BYTES = 200_000


def _wheel_binary() -> Path | None:
    try:
        import clang_format  # type: ignore[import-not-found]
    except ImportError:
        return None
    wheel = Path(clang_format.__file__).parent / "data" / "bin" / "clang-format"
    return wheel if wheel.is_file() else None


def clang_format_binary() -> str:
    # Prefer the wheel installed next to this interpreter: a system clang-format of another
    # version would format differently and make `ptogen check` machine-dependent. The wheel's
    # console script is a Python wrapper around data/bin/clang-format; run the binary itself.
    wheel = _wheel_binary()
    if wheel is not None:
        return str(wheel)
    local = Path(sys.executable).parent / "clang-format"
    if local.exists():
        return str(local)
    found = shutil.which("clang-format")
    if found is None:
        raise GenerationError("clang-format not found: pip install clang-format (see pyproject.toml)")
    return found


def binary_identity(binary: str) -> bytes:
    """Cheap identity of the formatter: path, size, mtime and the first 64 KiB."""
    st = os.stat(binary)
    with open(binary, "rb") as fh:
        head = fh.read(1 << 16)
    return (
        f"{os.path.realpath(binary)}|{st.st_size}|{st.st_mtime_ns}|".encode() + hashlib.sha256(head).digest()
    )


def _joinable(name: str, text: str) -> bool:
    return (
        name.endswith(JOIN_SUFFIXES)
        and text.endswith("\n")
        and not text.endswith("\n\n")
        and text[:1] not in ("", " ", "\t", "\n")
        and "\r" not in text
        and "clang-format" not in text
        and MARKER not in text
    )


def format_one(binary: str, style_file: Path, assume: str, text: str) -> str:
    """One text formatted alone by clang-format, as the file `assume` (its name picks the language)."""
    proc = subprocess.run(
        [binary, f"--style=file:{style_file}", f"--assume-filename={assume}"],
        input=text.encode("utf-8"),
        capture_output=True,
        check=False,
    )
    if proc.returncode != 0:
        raise GenerationError(f"clang-format failed: {proc.stderr.decode('utf-8', 'replace').strip()}")
    return proc.stdout.decode("utf-8")


def _read_entry(path: Path) -> str | None:
    """A cache entry is '<sha256 of text>\\n<text>'; anything else is a miss."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    digest, sep, body = data.partition(b"\n")
    if not sep or hashlib.sha256(body).hexdigest().encode() != digest:
        return None
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        return None


def write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.{id(data)}.tmp")
    try:
        partial.write_bytes(data)
        os.replace(partial, path)
    finally:
        if partial.exists():
            partial.unlink()


def format_cpp_many(
    sources: dict[str, str], style_file: Path, chunk: int = MAX_BATCH, cache: Path | None = None
) -> dict[str, str]:
    """Format every source with the repo's .clang-format.

    Results are cached by a hash of (formatter, style, source), so an unchanged file is not
    formatted again; the rest go through clang-format in batches (see the module docstring).
    """
    if not sources:
        return {}
    binary = clang_format_binary()
    salt = hashlib.sha256(binary_identity(binary) + style_file.read_bytes()).hexdigest()
    keys = {name: hashlib.sha256((salt + text).encode()).hexdigest() for name, text in sources.items()}
    out: dict[str, str] = {}
    if cache is not None:
        for name, key in keys.items():
            hit = _read_entry(cache / key[:2] / key)
            if hit is not None:
                out[name] = hit
    names = sorted(n for n in sources if n not in out)
    if not names:
        return out
    joinable = [n for n in names if _joinable(n, sources[n])]
    single = [n for n in names if n not in set(joinable)]
    workers = os.cpu_count() or 1
    size = max(1, min(chunk, -(-len(joinable) // workers)))
    batches: list[list[str]] = []
    current: list[str] = []
    current_bytes = 0
    for name in joinable:
        if current and (len(current) >= size or current_bytes + len(sources[name]) > MAX_BATCH_BYTES):
            batches.append(current)
            current, current_bytes = [], 0
        current.append(name)
        current_bytes += len(sources[name])
    if current:
        batches.append(current)
    batches += [[n] for n in single]
    # The longest first, so the workers finish together.
    batches.sort(key=lambda b: -sum(len(sources[n]) for n in b))

    def run(batch: list[str]) -> dict[str, str]:
        if len(batch) == 1:
            return {batch[0]: format_one(binary, style_file, batch[0], sources[batch[0]])}
        text = format_one(binary, style_file, batch[0], SEPARATOR.join(sources[n] for n in batch))
        parts = text.split(SEPARATOR)
        if len(parts) != len(batch):
            return {n: format_one(binary, style_file, n, sources[n]) for n in batch}
        return dict(zip(batch, parts, strict=True))

    with ThreadPoolExecutor(max_workers=workers) as pool:
        for result in pool.map(run, batches):
            out.update(result)
    if cache is not None:
        for name in names:
            body = out[name].encode("utf-8")
            entry = cache / keys[name][:2] / keys[name]
            with contextlib.suppress(OSError):  # the cache only saves time
                write_atomic(entry, hashlib.sha256(body).hexdigest().encode() + b"\n" + body)
    return out
