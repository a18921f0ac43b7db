"""Compile and run the generated test executables (`ptogen test`), and judge them.

Consumes only what `ptogen gen` wrote: generated/tests/manifest.json, each op's manifest, its
cases and verify sources and its Python reference, and the kernels' shared header
(tests/common/kernel_io.hpp). Per op and compiler there are two jobs (test sources name the profile
of each call, `profiled::OP<profile_a5>(...)`, so one source covers all):
- the cases executable: built once (which proves every case legal under each profile it is
  instantiated for), it runs
  the runtime cases selected by id, whose results are checked against the reference within the
  spec's tolerance and outside the valid region for being untouched, and each runtime-fail case,
  which must stop with its rule's message. The cases jobs of up to BUNDLE_OPS ops are built as one
  program (`bundle_source`), which names each case OP:ID; a program that does not build, or a run
  that fails, is taken apart, so each failure is reported against its own op;
- the verify translation unit: every compile-fail case and the legal twins in one compile, checked
  with clang's `-verify` (each expected diagnostic, raised from its call's line, and nothing else),
  or, with another compiler, by matching the static_assert messages one for one.
Binaries and compile outcomes are cached by a hash of everything that goes into them.
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import hashlib
import importlib.util
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from ..errors import did_you_mean
from ..opkinds import KINDS
from ..paths import RUNTIME_INCLUDE, Layout
from . import tiers
from .golden import Check, GoldenContext
from .manifest import (
    TEST_SUPPORT,
    Manifest,
    OpManifest,
    ProjectManifest,
    RuntimeFailEntry,
    RuntimeGroup,
    VectorGroup,
)
from .pch import precompiled_header_flags
from .results import Outcome

# One compiler for local runs (the first found); CI sets PTOGEN_TEST_COMPILERS="g++ clang++".
COMPILER_PREFERENCE = ("clang++", "g++")
# -O0: kernels are tiny and run once; compile time dominates the suite. The simulator throws
# nothing (a broken rule ends the process), so -fno-exceptions only drops the unwinding code that
# every case's tile destructors would otherwise need.
BASE_FLAGS = ["-std=c++20", "-O0", "-ffp-contract=off", "-fno-exceptions", "-Wall", "-Wextra"]
RUN_TIMEOUT = float(os.environ.get("PTOGEN_TEST_TIMEOUT", "120"))  # seconds per executable (per op)
# How many ops' cases one test program holds, neighbours in op kind order: one compiler process
# then parses, instantiates and emits what they share (tile types, the simulator's loops, the kernel
# helpers) once, and links and starts once, which took the cases' build time to about half.
BUNDLE_OPS = 8
# What the precompiled header holds: the kernel entry point and the C++ headers kernels use.
PCH_HEADERS = ["cstddef", "cstdio", "cstdlib", "cstring", "string", "vector", "pto/pto-inst.hpp"]


# A command every compile is run through, as CMake's CXX_COMPILER_LAUNCHER (ccache, sccache):
# `PTOGEN_CXX_LAUNCHER=ccache` or `ptogen test --launcher ccache`. Run outcomes stay in .ptogen-cache.
LAUNCHER_ENV = "PTOGEN_CXX_LAUNCHER"


def default_launcher() -> list[str]:
    """PTOGEN_CXX_LAUNCHER split like a shell word list (`ccache`, `sccache`, `env X=1 ccache`)."""
    return shlex.split(os.environ.get(LAUNCHER_ENV, ""))


def default_compilers() -> list[str]:
    """PTOGEN_TEST_COMPILERS if set, else the first available of clang++ and g++."""
    chosen = os.environ.get("PTOGEN_TEST_COMPILERS", "").split()
    if chosen:
        return chosen
    return [next((c for c in COMPILER_PREFERENCE if shutil.which(c)), COMPILER_PREFERENCE[0])]


@dataclass
class Job:
    kind: str  # "cases" or "verify"
    op: str
    profile: str  # the selected profiles, comma-separated
    compiler: str
    source: str  # relative to the output directory
    run_profile: dict[str, str] = field(default_factory=dict)  # group id -> profile that runs it
    cases: dict[str, list[int]] | None = None  # group id -> case ids run (None: all; see tiers.py)

    @property
    def label(self) -> str:
        return f"{self.op}/{Path(self.source).stem} [{self.profile}, {Path(self.compiler).name}]"


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
    timeout: float = RUN_TIMEOUT
    tier: str = "full"  # "quick": a reduced dtype x shape matrix (tiers.py)
    launcher: list[str] | None = None  # prefixed to every compile; None: $PTOGEN_CXX_LAUNCHER
    bundle: int = BUNDLE_OPS  # ops whose cases are built as one program (1: a program per op)


def load_manifest(layout: Layout) -> Manifest:
    """The project manifest with every op's own manifest in place of its path."""
    path = layout.out / "tests" / "manifest.json"
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: run `ptogen gen` first")
    project = ProjectManifest.from_json(json.loads(path.read_text(encoding="utf-8"))["manifest"])
    ops = {}
    for name, rel in project.ops.items():
        ops[name] = OpManifest.from_json(
            json.loads((layout.out / rel).read_text(encoding="utf-8"))["manifest"]
        )
    return Manifest(project.profiles, project.dtypes, ops)


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
        self.include_flags = [f"-I{d}" for d in dirs]
        # The test kernels' own header (kernel_io.hpp), generated with them, whatever simulator they use.
        support = settings.layout.out / TEST_SUPPORT
        self.kernel_flags = [f"-I{support}"]
        self._headers = _tree_hash([*dirs, support])
        self._count_lock = threading.Lock()
        self.invocations: Counter[str] = Counter()  # compiler processes started, by purpose
        self.launcher = default_launcher() if settings.launcher is None else list(settings.launcher)

    def _compiler(self, purpose: str, argv: list[str]) -> subprocess.CompletedProcess[str]:
        """Run one compile, through the launcher if there is one (outcome caching keys leave the
        launcher out: it must not change what a compile produces)."""
        with self._count_lock:
            self.invocations[purpose] += 1
        return subprocess.run([*self.launcher, *argv], capture_output=True, text=True, check=False)

    def flags(self) -> list[str]:
        # No profile macro: test sources name the profile of each call (profiled::OP<profile_*>).
        return [*BASE_FLAGS, *self.include_flags]

    def kernel_build_flags(self) -> list[str]:
        return [*self.flags(), *self.kernel_flags]

    def pch_flags(self, compiler: Compiler) -> list[str]:
        """Flags that use a precompiled <pto/pto-inst.hpp> (plus the C++ headers kernels include),
        one per compiler. Kernels of another simulator (--include) are compiled without one."""
        if self.settings.include:
            return []
        return precompiled_header_flags(
            str(compiler.path or compiler.name),
            self.flags(),
            PCH_HEADERS,
            self._headers,
            self.cache / "pch",
            lambda argv: self._compiler("pch", argv),
            key_extra=[compiler.version],
        )

    def _key(
        self, compiler: Compiler, flags: list[str], source: Path, mode: str, parts: tuple[Path, ...] = ()
    ) -> str:
        h = hashlib.sha256()
        for part in (compiler.path or "", compiler.version, mode, *flags, self._headers):
            h.update(part.encode())
            h.update(b"\0")
        for path in (source, *parts):
            h.update(path.read_bytes())
            h.update(b"\0")
        return h.hexdigest()[:32]

    def check(self, compiler: Compiler, source: Path, extra: list[str] | None = None) -> tuple[int, str]:
        """-fsyntax-only compile (plus `extra`, e.g. clang's -verify); (exit code, diagnostics), cached."""
        # The key covers the whole command, PCH included, so an outcome is never reused across PCHs.
        flags = [*self.pch_flags(compiler), *self.flags(), *(extra or [])]
        entry = self.cache / f"{self._key(compiler, flags, source, 'syntax')}.json"
        if entry.is_file():
            try:
                data = json.loads(entry.read_text())
                return int(data["rc"]), str(data["stderr"])
            except (ValueError, KeyError):
                pass  # a damaged entry: compile again
        assert compiler.path is not None
        proc = self._compiler("syntax", [compiler.path, *flags, "-fsyntax-only", str(source)])
        _atomic_write(entry, json.dumps({"rc": proc.returncode, "stderr": proc.stderr}))
        return proc.returncode, proc.stderr

    def build(
        self, compiler: Compiler, source: Path, parts: tuple[Path, ...] = ()
    ) -> tuple[Path | None, str]:
        """Compile and link; (binary or None, diagnostics). Only successful builds are cached.
        `parts`: the sources `source` includes (a bundle's ops), whose content the cache key holds."""
        flags = self.kernel_build_flags()
        binary = self.cache / f"{self._key(compiler, flags, source, 'exe', parts)}.bin"
        if binary.is_file():
            return binary, ""
        assert compiler.path is not None
        tmp = binary.with_suffix(f".tmp{os.getpid()}_{id(source)}")
        compile_argv = [compiler.path, *self.pch_flags(compiler), *flags, str(source)]
        if not self.launcher:
            proc = self._compiler("build", [*compile_argv, "-o", str(tmp)])
        else:
            # ccache and sccache cache compiles to an object, never a compile that also links: with
            # a launcher, compile (through it), then link (no compile, so not through it).
            obj = tmp.with_name(tmp.name + ".o")
            proc = self._compiler("build", [*compile_argv, "-c", "-o", str(obj)])
            if proc.returncode == 0:
                with self._count_lock:
                    self.invocations["link"] += 1
                link = subprocess.run(
                    [compiler.path, str(obj), "-o", str(tmp)], capture_output=True, text=True, check=False
                )
                proc = subprocess.CompletedProcess(link.args, link.returncode, "", proc.stderr + link.stderr)
            obj.unlink(missing_ok=True)
        if proc.returncode != 0:
            tmp.unlink(missing_ok=True)
            return None, proc.stderr
        os.replace(tmp, binary)
        return binary, proc.stderr


def bundle_source(cache: Path, sources: list[Path]) -> Path:
    """A program of the cases of several ops (each source an op's cases.cpp, maybe sliced), under the
    cache directory, named by its content: it includes them by path, and main() runs their cases by
    OP:ID (kernel_io.hpp)."""
    lines = [
        "// ptogen test: the cases of several ops as one program (tests/common/kernel_io.hpp)",
        "#include <pto/pto-inst.hpp>",  # first, as in every kernel: a precompiled header stands for it
        "#define PTO_TEST_BUNDLE 1",
        *(f'#include "{s}"' for s in sources),
        "",
        "int main(int argc, char** argv) {",
        "    return pto_test::run(argc, argv);",
        "}",
        "",
    ]
    text = "\n".join(lines)
    path = cache / "bundle" / f"{hashlib.sha256(text.encode()).hexdigest()[:24]}.cpp"
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.tmp{os.getpid()}_{threading.get_ident()}")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    return path


# A clang -verify directive (`// expected-error@*:* {{...}}`), not prose that names one.
_VERIFY_DIRECTIVE = re.compile(r"//.*\bexpected-(?:error|warning|note|remark)(?:@\S+)?\s*\{\{")


def verify_bundle_source(cache: Path, sources: list[tuple[str, Path]]) -> Path:
    """The verify files of several ops (op, its verify.cpp) as one translation unit under the cache
    directory, named by its content: the headers they include first, then each op's cases in a
    namespace of its own (they reuse function names). clang -verify reads their expected diagnostics
    in place: `@+1` is relative to its own line and `@*:*` to none. A file that expects none says
    so, which clang refuses beside other files' expectations, so that line is dropped; the unit says
    it once if no op expects a diagnostic."""
    includes: list[str] = []
    bodies: list[str] = []
    expects = False
    for op, source in sources:
        lines = source.read_text(encoding="utf-8").splitlines()
        includes += [ln for ln in lines if ln.startswith("#include") and ln not in includes]
        body = [ln for ln in lines if not ln.startswith("#include") and "expected-no-diagnostics" not in ln]
        expects = expects or any(_VERIFY_DIRECTIVE.search(ln) for ln in body)
        bodies += [f"namespace verify_{op} {{", *body, f"}} // namespace verify_{op}", ""]
    lines = [
        "// ptogen test: the verify files of several ops as one translation unit",
        *includes,
        *([] if expects else ["// expected-no-diagnostics"]),
        "",
        *bodies,
    ]
    text = "\n".join(lines)
    path = cache / "bundle" / f"{hashlib.sha256(text.encode()).hexdigest()[:24]}.verify.cpp"
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.tmp{os.getpid()}_{threading.get_ident()}")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    return path


def group_ops(ops: list[str], kinds: dict[str, str], size: int = BUNDLE_OPS) -> list[list[str]]:
    """`ops` in groups of at most `size`, in op kind order (`kinds`: op -> its kind), so the ops of
    a group mostly share a kind."""
    ordered = sorted(ops, key=lambda op: (kinds[op], op))
    step = max(size, 1)
    return [ordered[i : i + step] for i in range(0, len(ordered), step)]


def bundles(jobs: list[Job], kinds: dict[str, str], size: int) -> list[list[Job]]:
    """Jobs of one kind (cases or verify), per compiler, in groups (`group_ops`) each run as one unit."""
    groups: list[list[Job]] = []
    for compiler in dict.fromkeys(j.compiler for j in jobs):
        by_op = {j.op: j for j in jobs if j.compiler == compiler}
        groups += [[by_op[op] for op in ops] for ops in group_ops(list(by_op), kinds, size)]
    return groups


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


# ----------------------------------------------------------------------------- job execution


def is_clang(compiler: Compiler) -> bool:
    return "clang" in Path(compiler.path or compiler.name).name


# clang checks every expected diagnostic of the verify file, and that nothing else is an error.
CLANG_VERIFY = ["-Xclang", "-verify", "-Xclang", "-verify-ignore-unexpected=note", "-ferror-limit=0"]


class Runner:
    def __init__(self, settings: Settings):
        self.settings = settings
        self.layout = settings.layout
        self.manifest = load_manifest(settings.layout)
        self.builder = Builder(settings)
        self._refs: dict[str, ModuleType] = {}
        self._ref_lock = threading.Lock()

    def reference(self, op: str) -> ModuleType:
        with self._ref_lock:
            if op not in self._refs:
                path = self.layout.out / self.manifest.ops[op].reference
                spec = importlib.util.spec_from_file_location(f"ptogen_ref_{op}", path)
                assert spec is not None and spec.loader is not None
                module = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(module)
                self._refs[op] = module
            return self._refs[op]

    def select_ops(self) -> list[str]:
        names = list(self.manifest.ops)
        if not self.settings.ops:
            return names
        chosen = []
        for want in self.settings.ops:
            key = want.lower().removeprefix("pto.").replace(".", "_")  # a qualified key: its file stem
            if key not in names:
                # A near miss names the op meant; the list of every op is `ptogen list`'s job.
                hint = did_you_mean(key, names) or f" ({len(names)} ops; `ptogen list` names them)"
                raise KeyError(f"unknown op {want}{hint}")
            chosen.append(key)
        return chosen

    def jobs(self, compilers: list[Compiler]) -> Iterator[Job]:
        wanted = self.settings.profiles
        for op in self.select_ops():
            entry = self.manifest.ops[op]
            profiles = [p for p in self.manifest.profiles if wanted is None or p in wanted]
            # A runtime group runs under the first selected profile that allows it; building the
            # executable instantiates it under the others too, which proves it legal there.
            plain = entry.to_json()  # the tier is chosen from the manifest's data (tiers.py)
            runs = tiers.run_profiles(plain, profiles)
            # The quick tier runs (and builds) fewer groups and cases; the full tier all of them.
            dtypes = {name: d.to_json() for name, d in self.manifest.dtypes.items()}
            chosen = tiers.select(plain, dtypes, profiles, self.settings.tier)
            runs = {g: p for g, p in runs.items() if g in chosen}
            cases = chosen if self.settings.tier != "full" else None
            for c in compilers:
                if not c.available:
                    continue
                if entry.executable:
                    yield Job("cases", op, ",".join(profiles), c.name, entry.executable, runs, cases)
                if entry.verify and self.settings.compile_fail and not self.settings.include:
                    yield Job("verify", op, ",".join(profiles), c.name, entry.verify)

    def tasks(self, jobs: list[Job]) -> list[list[Job]]:
        """What runs as one unit: the cases jobs in bundles (`bundles`), each built as one program,
        and the verify jobs in bundles of the same ops, each checked as one translation unit."""
        kinds = {j.op: self.manifest.ops[j.op].kind for j in jobs}
        cases = [j for j in jobs if j.kind == "cases"]
        verify = [j for j in jobs if j.kind == "verify"]
        return bundles(verify, kinds, self.settings.bundle) + bundles(cases, kinds, self.settings.bundle)

    def run_jobs(self, jobs: list[Job], compilers: list[Compiler]) -> Iterator[list[Outcome]]:
        """Run jobs side by side (settings.jobs at once, default one per core), the cases jobs in
        bundles; each task's outcomes as it finishes."""
        by_name = {c.name: c for c in compilers}
        workers = self.settings.jobs or os.cpu_count() or 1
        with cf.ThreadPoolExecutor(max_workers=workers) as pool:
            # The bundles first: they take longest, so the verify jobs fill the gaps at the end.
            tasks = sorted(self.tasks(jobs), key=lambda t: t[0].kind != "cases")
            futures = {pool.submit(self.run_task, t, by_name[t[0].compiler]): t for t in tasks}
            for fut in cf.as_completed(futures):
                try:
                    yield fut.result()
                except Exception as exc:  # a broken job is a failure, never a silent pass
                    yield [Outcome("fail", j.label, f"{type(exc).__name__}: {exc}") for j in futures[fut]]

    def run_task(self, task: list[Job], compiler: Compiler) -> list[Outcome]:
        if len(task) == 1:
            return self.run_job(task[0], compiler)
        if task[0].kind == "verify":
            return self._verify_bundle(task, compiler)
        return self._run_bundle(task, compiler)

    def run_job(self, job: Job, compiler: Compiler) -> list[Outcome]:
        source = self.layout.out / job.source
        if job.kind == "verify":
            return self._verify(job, compiler, source)
        try:
            source = self._cases_source(job)
        except tiers.SliceError as exc:
            return [Outcome("fail", job.label, f"{exc} (the full tier builds it whole)")]
        binary, diag = self.builder.build(compiler, source)
        if binary is None:
            return [Outcome("fail", job.label, f"does not compile:\n{_first_lines(diag)}")]
        return self._judge(job, binary, qualified=False)

    def _run_bundle(self, jobs: list[Job], compiler: Compiler) -> list[Outcome]:
        """Several ops' cases jobs as one program. If it does not build, each job is built alone; if
        a run of it fails, each op's cases run alone: a failure is reported against its own op."""
        sources: list[Path] = []
        for job in jobs:
            try:
                sources.append(self._cases_source(job))
            except tiers.SliceError:
                return [o for job in jobs for o in self.run_job(job, compiler)]
        program = bundle_source(self.builder.cache, sources)
        binary, _diag = self.builder.build(compiler, program, tuple(sources))
        if binary is None:
            return [o for job in jobs for o in self.run_job(job, compiler)]
        ran, outcomes = self._run_cases(jobs, binary, qualified=True)
        if not ran:
            return [o for job in jobs for o in self._judge(job, binary, qualified=True)]
        return outcomes + [o for job in jobs for o in self._runtime_fails(job, binary, qualified=True)]

    def _judge(self, job: Job, binary: Path, qualified: bool) -> list[Outcome]:
        """One run of the job's runtime cases (checked against the reference), then each runtime-fail
        case on its own, unless that run failed."""
        ran, outcomes = self._run_cases([job], binary, qualified)
        return outcomes + self._runtime_fails(job, binary, qualified) if ran else outcomes

    def _runtime_fails(self, job: Job, binary: Path, qualified: bool) -> list[Outcome]:
        if self.settings.include:  # diagnostics of another simulator are not ours to pin
            return []
        return [
            self._runtime_fail(job, case, binary, qualified)
            for case in self.manifest.ops[job.op].runtime_fail
            if case.profile in job.profile.split(",")
        ]

    def _cases_source(self, job: Job) -> Path:
        source = self.layout.out / job.source
        return self._sliced_source(job, source) if job.cases is not None else source

    def _sliced_source(self, job: Job, source: Path) -> Path:
        """The op's cases source with only the job's cases (tiers.py), under the cache directory,
        named by its content (identical selections share one file, and one cached build)."""
        assert job.cases is not None
        entry = self.manifest.ops[job.op].to_json()
        keep = {k for ids in job.cases.values() for k in ids}
        runtime = {int(c["index"]) for g in entry["runtime"] for c in g["cases"]}
        vector = {k for g in entry["vector"] for k in tiers.vector_case_ids(g)}
        try:
            name = source.relative_to(self.layout.root).as_posix()
        except ValueError:
            name = source.as_posix()
        text = tiers.slice_cases_source(source.read_text(encoding="utf-8"), keep, runtime, vector, name)
        digest = hashlib.sha256(text.encode()).hexdigest()[:24]
        path = self.builder.cache / "tier" / f"{job.op}-{digest}.cpp"
        if not path.is_file():
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f"{path.name}.tmp{os.getpid()}_{threading.get_ident()}")
            tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, path)
        return path

    def _groups(self, job: Job) -> list[RuntimeGroup | VectorGroup]:
        entry = self.manifest.ops[job.op]
        every: list[RuntimeGroup | VectorGroup] = [*entry.runtime, *entry.vector]
        groups = [g for g in every if g.group in job.run_profile]
        if job.cases is not None:  # a tier's cases only (a lane group is run whole)
            picked = job.cases
            groups = [
                dataclasses.replace(g, cases=[c for c in g.cases if c.index in picked[g.group]])
                if isinstance(g, RuntimeGroup)
                else g
                for g in groups
            ]
        return groups

    def _run_cases(self, jobs: list[Job], binary: Path, qualified: bool) -> tuple[bool, list[Outcome]]:
        """One run of `binary` with the runtime cases of `jobs` (each op's files in a directory of
        its own when `qualified`, its case ids OP:ID); (whether it ran through, the checks' outcomes,
        or the failure)."""
        with tempfile.TemporaryDirectory(prefix="ptogen-run-", dir=_scratch_dir()) as tmp:
            checks: list[tuple[Check, Path]] = []
            ids: list[str] = []
            for job in jobs:
                groups = self._groups(job)
                entry = self.manifest.ops[job.op]
                kind = KINDS[entry.kind]
                data = Path(tmp) / job.op if qualified else Path(tmp)
                data.mkdir(exist_ok=True)
                prefix = f"{job.op}:" if qualified else ""
                for g in groups:
                    profile = job.run_profile[g.group]
                    label = f"{job.op}/{g.group} [{profile}, {Path(job.compiler).name}]"
                    gx = GoldenContext(job.op, entry, self.manifest.dtypes, g, self.reference(job.op), label)
                    found = kind.prepare_cases(gx, data)
                    checks += [(check, data) for check in found]
                    ids += [f"{prefix}c{k}@{profile}" for k in _case_ids(g, len(found))]
            if not ids:
                return True, []
            timeout = self.settings.timeout * len(jobs)
            label = jobs[0].label if len(jobs) == 1 else f"the cases of {', '.join(j.op for j in jobs)}"
            try:
                proc = subprocess.run(
                    [str(binary), tmp, *ids], capture_output=True, text=True, timeout=timeout, check=False
                )
            except subprocess.TimeoutExpired:
                late = f"cases did not finish within {timeout:g} s (--timeout)"
                return False, [Outcome("fail", label, late)]
            if proc.returncode != 0:
                detail = f"cases exited {exit_status(proc.returncode)}: {proc.stderr.strip()}"
                return False, [Outcome("fail", label, detail)]
            return True, [check(data) for check, data in checks]

    def _runtime_fail(self, job: Job, case: RuntimeFailEntry, binary: Path, qualified: bool) -> Outcome:
        want = case.message
        verb = "stops" if case.stops else "warns"
        name = f"{job.op}/{case.case} [{case.profile}, {Path(job.compiler).name}] {verb}: {want}"
        try:
            proc = subprocess.run(
                [str(binary), "-", f"{job.op}:{case.case}" if qualified else case.case],
                capture_output=True,
                text=True,
                timeout=self.settings.timeout,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return Outcome("fail", name, f"did not stop within {self.settings.timeout:g} s (--timeout)")
        if not case.stops:
            # A rule that warns: the op goes on, after the warning (once: one call site).
            if proc.returncode != 0:
                return Outcome(
                    "fail",
                    name,
                    f"exited {exit_status(proc.returncode)}, but must go on: {proc.stderr.strip()[:300]}",
                )
            if proc.stderr.count(want) != 1:
                return Outcome("fail", name, f"must warn once with the message: {proc.stderr.strip()[:300]}")
            return Outcome("pass", name)
        if proc.returncode == 0:
            return Outcome("fail", name, "ran to completion, but must stop")
        if want not in proc.stderr:
            status = exit_status(proc.returncode)
            detail = f"exited {status} without the expected message: {proc.stderr.strip()[:300]}"
            return Outcome("fail", name, detail)
        return Outcome("pass", name)

    def _verify(self, job: Job, compiler: Compiler, source: Path) -> list[Outcome]:
        return self._verdicts([job], self._check_verify(compiler, source, [job]))

    def _verify_bundle(self, jobs: list[Job], compiler: Compiler) -> list[Outcome]:
        """Several ops' verify files as one translation unit (`verify_bundle_source`); if it does not
        check clean, each op's file is checked alone, so a problem is reported against its own op."""
        sources = [self.layout.out / j.source for j in jobs]
        unit = verify_bundle_source(self.builder.cache, list(zip([j.op for j in jobs], sources, strict=True)))
        if self._check_verify(compiler, unit, jobs) is None:
            return self._verdicts(jobs, None)
        return [o for job in jobs for o in self.run_job(job, compiler)]

    def _check_verify(self, compiler: Compiler, source: Path, jobs: list[Job]) -> str | None:
        """The problem with a verify translation unit of `jobs`' cases, or None: under clang, its
        -verify result; under another compiler, its errors against the expected messages."""
        clang = is_clang(compiler)
        rc, diag = self.builder.check(compiler, source, CLANG_VERIFY if clang else ["-fmax-errors=0"])
        if clang:
            return None if rc == 0 else f"clang -verify:\n{_first_lines(diag, 30)}"
        expected = [m for job in jobs for c in self.manifest.ops[job.op].compile for m in c.messages]
        return _match_messages(expected, diag)

    def _verdicts(self, jobs: list[Job], problem: str | None) -> list[Outcome]:
        outcomes = []
        for job in jobs:
            for c in self.manifest.ops[job.op].compile:
                if c.profile not in job.profile.split(","):
                    continue
                what = f"rejects: {'; '.join(c.messages)}" if c.must_fail else "compiles"
                name = f"{job.op}/{c.case} [{c.profile}, {Path(job.compiler).name}] {what}"
                outcomes.append(Outcome("fail", name, problem) if problem else Outcome("pass", name))
        return outcomes


def _scratch_dir() -> str | None:
    """Where case data goes: a RAM-backed /dev/shm when there is one (a run writes thousands of
    small input files, about 20x faster there than on a disk-backed /tmp), else the default."""
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None


def _case_ids(group: RuntimeGroup | VectorGroup, count: int) -> list[int]:
    if isinstance(group, RuntimeGroup):
        return [c.index for c in group.cases]
    return list(range(group.first, group.first + count))


def _match_messages(expected: list[str], diag: str) -> str | None:
    """Without -verify: every error must be one expected static_assert message, each as often as expected."""
    errors = [line for line in diag.splitlines() if ": error: " in line]
    seen: Counter[str] = Counter()
    for line in errors:
        found = [m for m in set(expected) if m in line]
        if not found:
            return f"unexpected error: {line.strip()}"
        seen[max(found, key=len)] += 1
    want = Counter(expected)
    if seen != want:
        missing = sorted((want - seen).elements())
        extra = sorted((seen - want).elements())
        return f"diagnostics differ; missing: {missing}; unexpected: {extra}"
    return None


def exit_status(code: int) -> str:
    if code < 0:
        import signal

        try:
            return f"on signal {signal.Signals(-code).name}"
        except ValueError:
            return f"on signal {-code}"
    return f"with status {code}"


def _first_lines(text: str, n: int = 12) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return "\n".join(lines[:n])


def run(
    settings: Settings,
    report: Callable[[Outcome], None] | None = None,
    progress: Callable[[int, int], None] | None = None,
    invocations: Counter[str] | None = None,
) -> list[Outcome]:
    """Run every selected job; returns all outcomes (skips included). `invocations` receives the
    number of compiler processes started, by purpose (pch, build, syntax; link: the links that follow
    builds through a compiler launcher)."""
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
                "verify and runtime-fail tests",
                "they pin ptogen's own diagnostics, not those of the simulator given with --include",
            )
        )
    jobs = list(runner.jobs(compilers))
    total = len(runner.tasks(jobs))
    for done, results in enumerate(runner.run_jobs(jobs, compilers), 1):
        for o in results:
            emit(o)
        if progress:
            progress(done, total)
    if invocations is not None:
        invocations.update(runner.builder.invocations)
    return outcomes


def summary(outcomes: list[Outcome]) -> str:
    passed = sum(o.status == "pass" for o in outcomes)
    failed = sum(o.status == "fail" for o in outcomes)
    skipped = sum(o.status == "skip" for o in outcomes)
    return f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else "")


def _usage_problem(settings: Settings) -> str | None:
    """An unknown profile or a compiler that is not installed is a usage error, not 0 tests."""
    try:
        known = load_manifest(settings.layout).profiles
    except FileNotFoundError as exc:
        return str(exc)
    for p in settings.profiles or []:
        if p not in known:
            return f"unknown profile {p} (known: {', '.join(known)}){did_you_mean(p, known)}"
    launcher = default_launcher() if settings.launcher is None else settings.launcher
    if launcher and shutil.which(launcher[0]) is None:
        return f"compiler launcher not found on PATH: {launcher[0]}"
    if settings.timeout <= 0:
        return f"--timeout must be positive, not {settings.timeout:g}"
    missing = [c for c in settings.compilers if shutil.which(c) is None]
    if missing:
        return f"compiler not found on PATH: {', '.join(missing)}"
    return None


def run_cli(layout: Layout, args: Any) -> int:
    settings = Settings(
        layout=layout,
        compilers=args.cxx or default_compilers(),
        profiles=args.profile,
        ops=args.ops or None,
        include=[p.resolve() for p in args.include],
        compile_fail=not args.no_compile_fail,
        cache=args.cache,
        jobs=args.jobs,
        timeout=args.timeout if args.timeout is not None else RUN_TIMEOUT,
        tier=args.tier,
        launcher=shlex.split(args.launcher) if args.launcher is not None else None,
    )
    problem = _usage_problem(settings)
    if problem:
        print(f"ptogen test: {problem}", file=sys.stderr)
        return 2
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
            print(f"progress: {done}/{total} tasks, {now - started:.0f}s", file=sys.stderr, flush=True)

    try:
        outcomes = run(settings, report, progress)
    except (FileNotFoundError, KeyError) as exc:
        print(f"ptogen test: {exc.args[0] if exc.args else exc}", file=sys.stderr)  # no repr quoting
        return 2
    if tty:
        sys.stderr.write("\r\033[K")
    print(f"ptogen test: {time.monotonic() - started:.1f}s")
    print(summary(outcomes))
    return 1 if any(o.status == "fail" for o in outcomes) else 0
