"""Compile and run the generated test kernels (`ptogen test`), and judge them.

Consumes only what `ptogen gen` wrote: generated/tests/manifest.json, the kernels, and the
per-op Python references. Each job is one kernel on one profile with one compiler:
- runtime kernels: inputs are made here, the kernel runs, results are checked against the
  reference within the spec's tolerance and outside the valid region for being untouched;
- compile kernels: must fail with their `// expected-error:` message, or (legal twins) compile;
- runtime-fail kernels: must stop with their `// expected-runtime-error:` message.
Binaries and compile outcomes are cached by a hash of everything that goes into them.
"""

from __future__ import annotations

import concurrent.futures as cf
import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from ..paths import RUNTIME_INCLUDE, Layout
from . import golden

DEFAULT_COMPILERS = ("g++", "clang++")
# -O0: kernels are tiny and run once; compile time dominates the suite.
BASE_FLAGS = ["-std=c++20", "-O0", "-ffp-contract=off", "-Wall", "-Wextra"]
RUN_TIMEOUT = 120
# What the precompiled header holds: the kernel entry point and the C++ headers kernels use.
PCH_HEADERS = ["cstddef", "cstdio", "cstdlib", "string", "pto/pto-inst.hpp"]


@dataclass
class Outcome:
    """One line of the report: a case, a compile expectation, or a skipped job."""

    status: str  # "pass", "fail", "skip"
    name: str
    detail: str = ""


@dataclass
class Job:
    kind: str  # runtime, vector, compile, runtime_fail
    op: str
    entry: dict[str, Any]
    profile: str
    compiler: str

    @property
    def label(self) -> str:
        kernel = Path(self.entry["kernel"]).stem
        return f"{self.op}/{kernel} [{self.profile}, {Path(self.compiler).name}]"


@dataclass
class Settings:
    layout: Layout
    compilers: list[str]
    profiles: list[str] | None = None
    ops: list[str] | None = None
    include: list[Path] = field(default_factory=list)
    compile_fail: bool = True
    cache: Path | None = None
    jobs: int = 0


def load_manifest(layout: Layout) -> dict[str, Any]:
    path = layout.out / "tests" / "manifest.json"
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: run `ptogen gen` first")
    return json.loads(path.read_text(encoding="utf-8"))["manifest"]


# ----------------------------------------------------------------------------- compilers


@dataclass(frozen=True)
class Compiler:
    name: str
    path: str | None
    version: str

    @property
    def available(self) -> bool:
        return self.path is not None


def find_compiler(name: str) -> Compiler:
    path = shutil.which(name)
    if path is None:
        return Compiler(name, None, "")
    proc = subprocess.run([path, "--version"], capture_output=True, text=True, check=False)
    return Compiler(name, path, proc.stdout.splitlines()[0] if proc.stdout else "")


# ----------------------------------------------------------------------------- build cache


class Builder:
    def __init__(self, settings: Settings):
        self.settings = settings
        self.cache = settings.cache or settings.layout.root / ".ptogen-cache"
        self.cache.mkdir(parents=True, exist_ok=True)
        dirs = settings.include or [settings.layout.generated_include, RUNTIME_INCLUDE]
        self._pch_lock = threading.Lock()
        self.include_flags = [f"-I{d}" for d in dirs]
        self._headers = _tree_hash(dirs)

    def flags(self, profile: str) -> list[str]:
        return [*BASE_FLAGS, *self.include_flags, f"-DPTO_TARGET_PROFILE=PTO_PROFILE_{profile}"]

    def pch_flags(self, compiler: Compiler, profile: str) -> list[str]:
        """Flags that use a precompiled <pto/pto-inst.hpp> (plus the C++ headers kernels include).

        Parsing the standard headers is most of a kernel's compile time, and each kernel is
        compiled once per profile, so one PCH per (compiler, profile) pays for itself quickly.
        Kernels of another simulator (--include) are compiled without one.
        """
        if self.settings.include:
            return []
        flags = self.flags(profile)
        clang = "clang" in Path(compiler.path or compiler.name).name
        # clang checks a PCH against its headers' mtimes; a checkout or `ptogen gen` may touch them
        # without a change, and the key below hashes their content, so validate by content instead.
        validate = ["-fpch-validate-input-files-content"] if clang else []
        key = hashlib.sha256(
            "\0".join([compiler.path or "", compiler.version, *validate, *flags, self._headers]).encode()
        )
        root = self.cache / "pch" / key.hexdigest()[:24]
        target = root / ("pto-inst.pch" if clang else "pto/pto-inst.hpp.gch")
        with self._pch_lock:
            if not target.is_file():
                target.parent.mkdir(parents=True, exist_ok=True)
                wrapper = root / "pch_source.hpp"
                wrapper.write_text("".join(f"#include <{h}>\n" for h in PCH_HEADERS))
                tmp = target.with_name(target.name + f".tmp{os.getpid()}")
                proc = subprocess.run(
                    [str(compiler.path), *validate, *flags, "-x", "c++-header", str(wrapper), "-o", str(tmp)],
                    capture_output=True,
                    text=True,
                    check=False,
                )
                if proc.returncode != 0:
                    return []  # no PCH: compile from source (the kernel's own errors will show)
                os.replace(tmp, target)
        return [*validate, "-include-pch", str(target)] if clang else [f"-I{root}"]

    def _key(self, compiler: Compiler, flags: list[str], source: Path, mode: str) -> str:
        h = hashlib.sha256()
        for part in (compiler.path or "", compiler.version, mode, *flags, self._headers):
            h.update(part.encode())
            h.update(b"\0")
        h.update(source.read_bytes())
        return h.hexdigest()[:32]

    def check(self, compiler: Compiler, source: Path, profile: str) -> tuple[int, str]:
        """-fsyntax-only compile; (exit code, diagnostics), cached."""
        # The key covers the whole command, PCH included, so an outcome is never reused across PCHs.
        flags = [*self.pch_flags(compiler, profile), *self.flags(profile)]
        entry = self.cache / f"{self._key(compiler, flags, source, 'syntax')}.json"
        if entry.is_file():
            data = json.loads(entry.read_text())
            return int(data["rc"]), str(data["stderr"])
        assert compiler.path is not None
        proc = subprocess.run(
            [compiler.path, *flags, "-fsyntax-only", str(source)],
            capture_output=True,
            text=True,
            check=False,
        )
        _atomic_write(entry, json.dumps({"rc": proc.returncode, "stderr": proc.stderr}))
        return proc.returncode, proc.stderr

    def build(self, compiler: Compiler, source: Path, profile: str) -> tuple[Path | None, str]:
        """Compile and link; (binary or None, diagnostics). Only successful builds are cached."""
        flags = self.flags(profile)
        binary = self.cache / f"{self._key(compiler, flags, source, 'exe')}.bin"
        if binary.is_file():
            return binary, ""
        assert compiler.path is not None
        tmp = binary.with_suffix(f".tmp{os.getpid()}_{id(source)}")
        proc = subprocess.run(
            [compiler.path, *self.pch_flags(compiler, profile), *flags, str(source), "-o", str(tmp)],
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode != 0:
            tmp.unlink(missing_ok=True)
            return None, proc.stderr
        os.replace(tmp, binary)
        return binary, proc.stderr


def _tree_hash(dirs: list[Path]) -> str:
    h = hashlib.sha256()
    for d in dirs:
        for p in sorted(Path(d).rglob("*")):
            if p.is_file():
                h.update(p.relative_to(d).as_posix().encode())
                h.update(p.read_bytes())
    return h.hexdigest()


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    tmp.write_text(text)
    os.replace(tmp, path)


def expectation(source: Path, marker: str) -> str:
    """The message after `// <marker>:` in a generated kernel (LLVM -verify style)."""
    for line in source.read_text(encoding="utf-8").splitlines()[:6]:
        if line.startswith(f"// {marker}:"):
            return line.split(":", 1)[1].strip()
    raise ValueError(f"{source}: no `// {marker}:` line")


# ----------------------------------------------------------------------------- job execution


class Runner:
    def __init__(self, settings: Settings):
        self.settings = settings
        self.layout = settings.layout
        self.manifest = load_manifest(settings.layout)
        self.builder = Builder(settings)
        self._refs: dict[str, ModuleType] = {}

    def reference(self, op: str) -> ModuleType:
        if op not in self._refs:
            path = self.layout.out / self.manifest["ops"][op]["reference"]
            spec = importlib.util.spec_from_file_location(f"ptogen_ref_{op}", path)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            self._refs[op] = module
        return self._refs[op]

    def select_ops(self) -> list[str]:
        names = list(self.manifest["ops"])
        if not self.settings.ops:
            return names
        chosen = []
        for want in self.settings.ops:
            key = want.lower().removeprefix("pto.")
            if key not in names:
                raise KeyError(f"unknown op {want!r} (known: {', '.join(names)})")
            chosen.append(key)
        return chosen

    def jobs(self, compilers: list[Compiler]) -> Iterator[Job]:
        profiles = self.settings.profiles
        for op in self.select_ops():
            entry = self.manifest["ops"][op]
            for c in compilers:
                if not c.available:
                    continue
                for kind in ("runtime", "vector"):
                    for k in entry[kind]:
                        chosen = [p for p in k["profiles"] if profiles is None or p in profiles]
                        # The simulation is the same under every profile: run it once, and prove the
                        # kernel is legal under the other profiles with a syntax-only compile.
                        for i, p in enumerate(chosen):
                            if i == 0:
                                yield Job(kind, op, k, p, c.name)
                            else:
                                yield Job("compile", op, {**k, "must_fail": False}, p, c.name)
                if self.settings.include:
                    continue  # diagnostics of another simulator are not ours to pin
                for kind in ("compile", "runtime_fail"):
                    if kind == "compile" and not self.settings.compile_fail:
                        continue
                    for k in entry[kind]:
                        if profiles is None or k["profile"] in profiles:
                            yield Job(kind, op, k, k["profile"], c.name)

    def run_job(self, job: Job, compiler: Compiler) -> list[Outcome]:
        source = self.layout.out / job.entry["kernel"]
        if job.kind == "compile":
            return [self._compile_case(job, compiler, source)]
        binary, diag = self.builder.build(compiler, source, job.profile)
        if binary is None:
            return [Outcome("fail", job.label, f"does not compile:\n{_first_lines(diag)}")]
        if job.kind == "runtime_fail":
            return [self._runtime_fail_case(job, binary, source)]
        with tempfile.TemporaryDirectory(prefix="ptogen-run-") as tmp:
            data = Path(tmp)
            if job.kind == "runtime":
                checks = golden.prepare_tile_cases(self, job, data)
            else:
                checks = golden.prepare_vector_cases(self, job, data)
            proc = subprocess.run(
                [str(binary), str(data)], capture_output=True, text=True, timeout=RUN_TIMEOUT, check=False
            )
            if proc.returncode != 0:
                return [Outcome("fail", job.label, f"kernel exited {proc.returncode}: {proc.stderr.strip()}")]
            return [check(data) for check in checks]

    def _compile_case(self, job: Job, compiler: Compiler, source: Path) -> Outcome:
        rc, diag = self.builder.check(compiler, source, job.profile)
        if not job.entry["must_fail"]:
            if rc == 0:
                return Outcome("pass", f"{job.label} compiles")
            return Outcome(
                "fail", f"{job.label} compiles", f"legal kernel was rejected:\n{_first_lines(diag)}"
            )
        want = expectation(source, "expected-error")
        name = f"{job.label} rejects: {want}"
        if rc == 0:
            return Outcome("fail", name, "compiled, but must fail")
        if want not in diag:
            return Outcome("fail", name, f"failed without the expected message:\n{_first_lines(diag)}")
        return Outcome("pass", name)

    def _runtime_fail_case(self, job: Job, binary: Path, source: Path) -> Outcome:
        want = expectation(source, "expected-runtime-error")
        name = f"{job.label} stops: {want}"
        proc = subprocess.run([str(binary)], capture_output=True, text=True, timeout=RUN_TIMEOUT, check=False)
        if proc.returncode == 0:
            return Outcome("fail", name, "ran to completion, but must stop")
        if want not in proc.stderr:
            return Outcome("fail", name, f"stopped without the expected message: {proc.stderr.strip()[:300]}")
        return Outcome("pass", name)


def _first_lines(text: str, n: int = 12) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return "\n".join(lines[:n])


def run(
    settings: Settings,
    report: Callable[[Outcome], None] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[Outcome]:
    """Run every selected job; returns all outcomes (skips included)."""
    runner = Runner(settings)
    compilers = [find_compiler(c) for c in settings.compilers]
    outcomes: list[Outcome] = []

    def emit(o: Outcome) -> None:
        outcomes.append(o)
        if report:
            report(o)

    for c in compilers:
        if not c.available:
            emit(Outcome("skip", f"compiler {c.name}", f"{c.name} not found on PATH"))
    if settings.include and settings.compile_fail:
        emit(
            Outcome(
                "skip",
                "compile-fail and runtime-fail tests",
                "they pin ptogen's own diagnostics, not those of the simulator given with --include",
            )
        )
    by_name = {c.name: c for c in compilers}
    jobs = list(runner.jobs(compilers))
    workers = settings.jobs or os.cpu_count() or 1
    done = 0
    with cf.ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {pool.submit(runner.run_job, j, by_name[j.compiler]): j for j in jobs}
        for fut in cf.as_completed(futures):
            job = futures[fut]
            try:
                results = fut.result()
            except Exception as exc:  # a broken job is a failure, never a silent pass
                results = [Outcome("fail", job.label, f"{type(exc).__name__}: {exc}")]
            for o in results:
                emit(o)
            done += 1
            if progress:
                progress(done, len(jobs))
    return outcomes


def summary(outcomes: list[Outcome]) -> str:
    passed = sum(o.status == "pass" for o in outcomes)
    failed = sum(o.status == "fail" for o in outcomes)
    skipped = sum(o.status == "skip" for o in outcomes)
    return f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else "")


def run_cli(layout: Layout, args: Any) -> int:
    settings = Settings(
        layout=layout,
        compilers=args.cxx or list(DEFAULT_COMPILERS),
        profiles=args.profile,
        ops=args.ops or None,
        include=[p.resolve() for p in args.include],
        compile_fail=not args.no_compile_fail,
        cache=args.cache,
        jobs=args.jobs,
    )
    tty = sys.stderr.isatty()
    started = time.monotonic()

    def report(o: Outcome) -> None:
        if args.quiet and o.status == "pass":
            return
        if tty:
            sys.stderr.write("\r\033[K")
        print(
            f"{o.status.upper():4} {o.name}"
            + (f"\n     {o.detail.replace(chr(10), chr(10) + '     ')}" if o.detail else ""),
            flush=True,
        )

    last = [0.0]

    def progress(done: int, total: int) -> None:
        now = time.monotonic()
        if tty:
            sys.stderr.write(f"\r[{done}/{total}] {now - started:.0f}s")
            sys.stderr.flush()
        elif now - last[0] > 10 or done == total:
            last[0] = now
            print(f"progress: {done}/{total} jobs, {now - started:.0f}s", file=sys.stderr, flush=True)

    try:
        outcomes = run(settings, report, progress)
    except (FileNotFoundError, KeyError) as exc:
        print(f"ptogen test: {exc}", file=sys.stderr)
        return 2
    if tty:
        sys.stderr.write("\r\033[K")
    print(f"ptogen test: {time.monotonic() - started:.1f}s")
    print(summary(outcomes))
    return 1 if any(o.status == "fail" for o in outcomes) else 0
