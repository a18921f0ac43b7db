"""The pages' compiled examples, checked when `gen` runs: all of them in one translation unit, each in
a namespace of its own behind a `#line` that names its spec file and line, compiled for syntax by one
compiler process against the headers about to be written. A broken example fails `gen` with the
compiler's first error at the spec's line, and nothing is written. A set of examples and headers that
compiled once is remembered by its content (the cache's `examples/`), so an unchanged tree costs
nothing."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import GenerationError
from ..rules.parts import not_offered

if TYPE_CHECKING:
    from ..lower.views import OpView, ProjectView

# Skips the check (the test suite sets it: its own test compiles and runs every example).
SKIP_ENV = "PTOGEN_SKIP_EXAMPLE_CHECK"

_ERROR = re.compile(r"^(?P<where>[^:\n]+:\d+(?::\d+)?): (?:fatal )?error: (?P<what>.*)$", re.M)


def _offered_by_default(op: OpView) -> bool:
    """Whether the default profile offers the op, so that its example can compile there."""
    default = op.targets.default_profile
    return not any(
        not_offered(r) and (r.profiles is None or default in r.profiles) for r in op.spec.constraints
    )


def examples_source(project: ProjectView) -> str:
    """Every compiled example of the pages in one translation unit; a diagnostic's file and line are
    the spec's (the class's, for an example a class states)."""
    kernel = project.specs.targets.example_kernel
    before = kernel.before if kernel is not None else None
    includes: list[str] = []
    blocks: list[str] = []
    for op in project.ops:
        if not _offered_by_default(op):
            continue
        for i, ex in enumerate(op.spec.examples):
            if not ex.compiles:
                continue
            file, line = op.loaded.source.where(("examples", i, "code"))
            lines = ex.code.splitlines()
            includes += [x for x in lines if x.startswith("#include") and x not in includes]
            # The code's first line: the body of a block scalar starts below its key; a `kernel:`
            # body below the standard file's opening lines.
            first = (line or 1) + 1
            if before is not None and ex.code.startswith(before):
                first -= len(before.splitlines())
            # Includes stay blank lines, so that the lines keep their numbers.
            body = "\n".join("" if x.startswith("#include") else x for x in lines)
            space = f"example_{op.spec.stem}_{i}"
            blocks.append(f'namespace {space} {{\n#line {max(first, 1)} "{file}"\n{body}\n}}\n')
    return "\n".join(includes) + "\n" + "".join(blocks)


def _compiler() -> str | None:
    from ..testing.runner import default_compilers

    return next((c for c in default_compilers() if shutil.which(c)), None)


def _key(cxx: str, source: str, headers: dict[str, str], runtime: Path) -> str:
    h = hashlib.sha256()
    for part in (cxx, source):
        h.update(part.encode() + b"\0")
    for path in sorted(headers):
        h.update(path.encode() + b"\0" + headers[path].encode() + b"\0")
    for f in sorted(runtime.rglob("*")):
        if f.is_file():
            h.update(str(f.relative_to(runtime)).encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()


def check_examples(project: ProjectView, files: dict[str, str], runtime: Path, cache: Path) -> None:
    """Raise a located GenerationError when a compiled example does not compile against the headers
    in `files` (the output tree's, by path) and the runtime under `runtime`."""
    if os.environ.get(SKIP_ENV) == "1":
        return
    cxx = _compiler()
    if cxx is None:
        print("ptogen: examples not compiled: no C++ compiler on PATH (clang++ or g++)", file=sys.stderr)
        return
    source = examples_source(project)
    headers = {p: t for p, t in files.items() if p.startswith("include/")}
    key = _key(cxx, source, headers, runtime)
    done = cache / "examples" / key
    if done.exists():
        return
    with tempfile.TemporaryDirectory(prefix="ptogen-examples-") as tmp:
        top = Path(tmp)
        for path, text in headers.items():
            (top / path).parent.mkdir(parents=True, exist_ok=True)
            (top / path).write_text(text, encoding="utf-8")
        (top / "examples.cpp").write_text(source, encoding="utf-8")
        argv = [cxx, "-std=c++20", "-D__CPU_SIM", "-fsyntax-only", f"-I{top / 'include'}", f"-I{runtime}"]
        proc = subprocess.run([*argv, str(top / "examples.cpp")], capture_output=True, text=True)
    if proc.returncode != 0:
        found = _ERROR.search(proc.stderr)
        if found is None:
            raise GenerationError(f"the pages' examples do not compile ({cxx}): {proc.stderr.strip()[:600]}")
        raise GenerationError(
            f"{found['where']}: the example does not compile ({cxx}): {found['what']}", located=True
        )
    done.parent.mkdir(parents=True, exist_ok=True)
    done.write_text("compiled\n", encoding="utf-8")
