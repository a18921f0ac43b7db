"""Precompiled headers for programs that include the generated headers first.

Parsing `<pto/pto-inst.hpp>` is most of a small program's compile time, so `ptogen test` and the
suite's hand-written programs build one precompiled header per compiler and flag set, in a cache
keyed by everything that makes it, and reuse it. Processes and threads take turns on a file lock.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path

Compile = Callable[[list[str]], "subprocess.CompletedProcess[str]"]


def is_clang(compiler: str) -> bool:
    return "clang" in Path(compiler).name


def precompiled_header_flags(
    compiler: str,
    flags: Sequence[str],
    headers: Sequence[str],
    digest: str,
    cache: Path,
    compile: Compile,
    key_extra: Sequence[str] = (),
) -> list[str]:
    """The flags that use `headers` precompiled under `flags` ([] when they do not precompile: the
    program's own compile then reports why). `digest` stands for the content of the headers, which
    the key covers; `key_extra` for anything else that changes the result (the compiler's version).
    `compile(argv)` runs the compiler, so a caller can count or launch it its own way."""
    clang = is_clang(compiler)
    # clang checks a PCH against its headers' mtimes; a checkout or `ptogen gen` may touch them
    # without a change, and the key hashes their content, so validate by content instead.
    validate = ["-fpch-validate-input-files-content"] if clang else []
    # clang can instantiate the headers' templates once in the PCH instead of in every program.
    instantiate = ["-fpch-instantiate-templates"] if clang else []
    key = hashlib.sha256(
        "\0".join([compiler, *key_extra, *validate, *instantiate, *flags, *headers, digest]).encode()
    ).hexdigest()[:24]
    root = cache / key
    target = root / ("pto-inst.pch" if clang else "pto/pto-inst.hpp.gch")
    failed = root / "failed.txt"
    root.mkdir(parents=True, exist_ok=True)
    with open(root / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not target.is_file() and not failed.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            wrapper = root / "pch_source.hpp"
            wrapper.write_text("".join(f"#include <{h}>\n" for h in headers), encoding="utf-8")
            tmp = target.with_name(f"{target.name}.tmp{os.getpid()}")
            made = compile(
                [compiler, *validate, *instantiate, *flags, "-x", "c++-header", str(wrapper), "-o", str(tmp)]
            )
            if made.returncode == 0:
                os.replace(tmp, target)
            else:
                failed.write_text(made.stderr, encoding="utf-8")
    if not target.is_file():
        return []
    return [*validate, "-include-pch", str(target)] if clang else [f"-I{root}"]
