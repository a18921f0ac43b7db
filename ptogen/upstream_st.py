"""`ptogen upstream-st`: build and run the upstream PTO project's CPU ST cases against ptogen's headers.

Each covered op with a directory `tests/cpu/st/testcase/<op>/` in an upstream checkout (or in the
separate tree of communication tests, `tests/cpu/comm/st/testcase/<op>/`, shown as `comm/<op>`) is built
unmodified, as upstream's CMake builds it: `main.cpp` and `<op>_kernel.cpp` with `-D__CPU_SIM` and
`tests/common` on the include path, linked with gtest. Only the include directories differ: ptogen's
(`ptogen cflags`), or upstream's own `include/` with `--reference`. Upstream's run script copies the
case's `gen_data.py` into the build directory and runs it there, with `tests/cpu/st` (for `utils`)
and the checkout's root (for `tests.cpu.st.utils`) on PYTHONPATH; it writes one `<Suite>.<Case>/`
directory of inputs and goldens per case, and the test binary runs from `bin/` and reads them as
`../<Suite>.<Case>/`. Every gtest case runs in its own process, so a case that stops the simulator
(a violated rule aborts) costs only itself.

Not part of CI: it needs an upstream checkout, gtest and numpy.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from .paths import RUNTIME_INCLUDE, Layout

EXIT_FAILURES = 1
EXIT_USAGE = 2

TESTCASE_DIR = Path("tests/cpu/st/testcase")
# Upstream keeps its communication tests in a tree of their own, built with the same flags; their
# directories are shown as `comm/<dir>`, since some share a tile op's name (the comm TGATHER, TSCATTER).
COMM_TESTCASE_DIR = Path("tests/cpu/comm/st/testcase")
TREES = ((TESTCASE_DIR, ""), (COMM_TESTCASE_DIR, "comm/"))
COMPILE_TIMEOUT_S = 900
GEN_TIMEOUT_S = 300
CASE_TIMEOUT_S = 120
COMPILER_PREFERENCE = ("clang++", "g++")
GTEST_LIBS = ["-lgtest_main", "-lgtest", "-pthread"]


@dataclass(frozen=True)
class CaseDir:
    """One upstream test directory: the op it tests and its sources."""

    op: str
    path: Path
    tree: str = ""  # "comm/" for a directory of the communication tree

    @property
    def name(self) -> str:
        """How results name it: the tree's prefix and the directory."""
        return self.tree + self.op

    @property
    def sources(self) -> list[Path]:
        kernel = self.path / f"{self.op}_kernel.cpp"
        return [self.path / "main.cpp", *([kernel] if kernel.is_file() else [])]


@dataclass
class CaseResult:
    name: str
    passed: bool
    detail: str = ""


@dataclass
class DirResult:
    op: str
    error: str = ""  # build or data-generation failure: no case ran
    cases: list[CaseResult] = field(default_factory=list)

    @property
    def passed(self) -> int:
        return sum(c.passed for c in self.cases)

    @property
    def ok(self) -> bool:
        return not self.error and bool(self.cases) and self.passed == len(self.cases)


# ---- pure helpers (unit-tested without upstream) ---------------------------------------------


def discover(upstream: Path, ops: Iterable[str]) -> tuple[list[CaseDir], list[str]]:
    """The test directories of `ops` (lower-case C++ names) in an upstream checkout, in either tree,
    and the ops that have none."""
    found, missing = [], []
    for op in ops:
        mine = [
            CaseDir(op, base / op, tree)
            for base, tree in _roots(upstream)
            if (base / op / "main.cpp").is_file()
        ]
        found += mine
        if not mine:
            missing.append(op)
    return found, missing


def _roots(upstream: Path) -> list[tuple[Path, str]]:
    return [(upstream / base, tree) for base, tree in TREES]


def tree_dirs(upstream: Path) -> list[CaseDir]:
    """Every test directory of both trees, each tree's in name order."""
    return [
        CaseDir(d.name, d, tree)
        for base, tree in _roots(upstream)
        if base.is_dir()
        for d in sorted(base.iterdir())
        if (d / "main.cpp").is_file()
    ]


# Upper-case calls that are not tile intrinsics: gtest's macros.
RUNTIME_CALLS = frozenset({"TEST", "TEST_F", "TEST_P", "TYPED_TEST"})
# Calls nearly every directory makes to place tiles and move data: a directory tests them only when
# it is named after them.
INCIDENTAL = frozenset({"TASSIGN", "TLOAD", "TSTORE"})
_CALL = re.compile(r"\b(T[A-Z][A-Z0-9_]*)\s*(?:<[^;()]*>)?\s*\(")


def called_ops(case: CaseDir) -> set[str]:
    """Upper-case names a directory's sources call like functions (T + capitals): the tile
    intrinsics it needs (an unknown one makes it unrunnable), and RUNTIME_CALLS. A backend call
    `TFOO_IMPL(...)` counts as TFOO: the headers define it only for a covered op."""
    calls = {m.group(1) for src in case.sources for m in _CALL.finditer(src.read_text(errors="replace"))}
    return {c.removesuffix("_IMPL") for c in calls if c.isupper()}


# Tile types a directory may name (`TileLeft<...>`, `ConvTile<...>`): it builds only when the headers
# it is built against name them too.
_TILE_TYPE = re.compile(r"\b((?:Conv)?Tile[A-Z][A-Za-z0-9]*|ConvTile)\s*<")
_DEFINES = re.compile(r"\b(?:struct|class|using)\s+((?:Conv)?Tile[A-Z]?[A-Za-z0-9]*)\b")


def tile_types(case: CaseDir) -> set[str]:
    """Tile type templates a directory's sources instantiate and do not define themselves."""
    texts = [src.read_text(errors="replace") for src in case.sources]
    used = {m.group(1) for t in texts for m in _TILE_TYPE.finditer(t)}
    return used - {m.group(1) for t in texts for m in _DEFINES.finditer(t)}


def known_tile_types(include_dirs: Iterable[Path]) -> set[str]:
    """Every `Tile...`/`ConvTile` name the headers of `include_dirs` mention."""
    word = re.compile(r"\b((?:Conv)?Tile[A-Z][A-Za-z0-9]*|ConvTile)\b")
    return {
        m.group(1)
        for d in include_dirs
        for h in sorted(d.rglob("*.hpp"))
        for m in word.finditer(h.read_text(errors="replace"))
    }


def mixed_dirs(
    upstream: Path,
    ops: Iterable[str],
    covered: Iterable[str],
    taken: set[str],
    types: set[str] | None = None,
) -> list[CaseDir]:
    """Directories named after no single op whose sources call only covered intrinsics (and name
    only tile types in `types`, when given), so that they can build against the generated headers,
    and that test one of `ops`:
    - they call one of `ops` beside moving data (upstream tests some families together, e.g.
      `trowexpandop`, `trowreduceidx`);
    - or their name is an op's followed by `_` (a family directory of that op's forms:
      `tstore_acc2gm`, `mgather_gm2l1`);
    - or they call nothing but the data moves (TASSIGN, TLOAD, TSTORE), one of those moves is in
      `ops`, and they are named after no covered op (they test the move together with the tile's
      own methods, e.g. `setgetval`; `mscatter` tests MSCATTER)."""
    wanted = {o.upper() for o in ops}
    known = {o.upper() for o in covered} | RUNTIME_CALLS
    found = []
    for case in tree_dirs(upstream):
        d = case.path
        if case.name in taken:
            continue
        ops_called = called_ops(case)
        if not ops_called <= known or (types is not None and not tile_types(case) <= types):
            continue
        family = d.name.split("_", 1)[0].upper() in wanted and "_" in d.name
        # Moving data in and out is not what a directory tests unless that is all it does.
        # (A directory named after a covered op tests that op, whatever else it calls.)
        moves_only = ops_called - RUNTIME_CALLS <= INCIDENTAL and d.name.upper() not in known
        if ops_called & wanted - INCIDENTAL or family or (moves_only and ops_called & wanted - {"TASSIGN"}):
            found.append(case)
    return found


def skipped_family_dirs(
    upstream: Path, ops: Iterable[str], covered: Iterable[str], types: set[str], taken: set[str]
) -> list[tuple[str, list[str]]]:
    """Family directories of `ops` (`<op>_...`) not selected, with what they need that the headers
    lack: uncovered intrinsics and unknown tile types."""
    wanted = {o.upper() for o in ops}
    known = {o.upper() for o in covered} | RUNTIME_CALLS
    out = []
    for case in tree_dirs(upstream):
        if case.name in taken or "_" not in case.op or case.op.split("_", 1)[0].upper() not in wanted:
            continue
        lacking = sorted(called_ops(case) - known) + sorted(tile_types(case) - types)
        if lacking:
            out.append((case.name, lacking))
    return out


def parse_test_list(text: str) -> list[str]:
    """Full names (`Suite.Case`) from `--gtest_list_tests` output. Suite lines end with '.', case
    lines are indented; parameterised ones carry a `# GetParam() = ...` comment."""
    names: list[str] = []
    suite = ""
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].rstrip()
        if not line.strip():
            continue
        if not raw.startswith(" ") and line.endswith("."):
            suite = line
        elif raw.startswith(" ") and suite:
            names.append(suite + line.strip())
    return names


_GTEST_OK = re.compile(r"^\[\s+PASSED\s+\] 1 test\.", re.M)
_INTERESTING = re.compile(r"PTO runtime error|Failure|\[ERROR\]|error:|Expected|terminate called", re.I)


def judge_case(name: str, returncode: int, output: str) -> CaseResult:
    """One gtest case run alone: it passed when the binary exited 0 having run exactly it."""
    if returncode == 0 and _GTEST_OK.search(output):
        return CaseResult(name, True)
    if returncode < 0:
        why = f"killed by signal {-returncode}"
    elif returncode == 0:
        why = "did not run (filtered out)"
    else:
        why = f"exit {returncode}"
    hint = next((ln.strip() for ln in output.splitlines() if _INTERESTING.search(ln)), "")
    return CaseResult(name, False, f"{why}: {_strip_ansi(hint)}" if hint else why)


def first_error(compiler_output: str) -> str:
    """The first diagnostic line that is an error, without its path prefix (and, for a failed
    static_assert, without clang's restatement of the condition: the message says it)."""
    for line in compiler_output.splitlines():
        if "error:" in line or "undefined reference" in line:
            line = re.sub(
                r"^.*?/(tests/cpu/(?:comm/)?st/testcase|generated/include|runtime/include)/", "", line.strip()
            )
            return re.sub(
                r"static_assert failed due to requirement '.*?' \"", 'static_assert failed: "', line
            )[:300]
    lines = [ln for ln in compiler_output.splitlines() if ln.strip()]
    return lines[-1][:300] if lines else "failed without output"


def _strip_ansi(s: str) -> str:
    return re.sub(r"\033\[[0-9;]*m", "", s)


def format_table(results: list[DirResult], markdown: bool) -> str:
    """Per op `passed/total`, and failures with their first cause."""
    lines = []
    if markdown:
        lines += ["| op | passed/total | cause of the first failure |", "|---|---|---|"]
    width = max((len(r.op) for r in results), default=2)
    for r in results:
        score = "compile/gen error" if r.error else f"{r.passed}/{len(r.cases)}"
        failed = [c for c in r.cases if not c.passed]
        cause = r.error or (f"{failed[0].name}: {failed[0].detail}" if failed else "")
        if markdown:
            lines.append(f"| {r.op} | {score} | {cause.replace('|', '/')} |")
        else:
            lines.append(f"{r.op.ljust(width)}  {score}" + (f"\n{' ' * (width + 2)}{cause}" if cause else ""))
            lines += [f"{' ' * (width + 2)}FAIL {c.name}: {c.detail}" for c in failed[1:]]
    return "\n".join(lines)


def summary(results: list[DirResult]) -> str:
    cases = sum(len(r.cases) for r in results)
    passed = sum(r.passed for r in results)
    full = sum(r.ok for r in results)
    broken = sum(bool(r.error) for r in results)
    return (
        f"{len(results)} directories: {full} pass fully, {len(results) - full - broken} partly, "
        f"{broken} do not build or generate data; {passed}/{cases} gtest cases pass"
    )


# ---- building and running --------------------------------------------------------------------


@dataclass(frozen=True)
class Setup:
    upstream: Path
    cxx: str
    flags: list[str]
    work: Path
    python: str


def _cxx(cxx: str) -> list[str]:
    """The compiler behind PTOGEN_CXX_LAUNCHER (ccache, say) when that is set, as in `ptogen test`."""
    from .testing.runner import default_launcher

    return [*default_launcher(), cxx]


def _run(argv: list[str], cwd: Path, timeout: int, env: dict[str, str] | None = None) -> tuple[int, str]:
    try:
        p = subprocess.run(
            argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, errors="replace"
        )
    except subprocess.TimeoutExpired:
        return 124, f"timed out after {timeout} s"
    return p.returncode, p.stdout + p.stderr


def build_flags(layout: Layout, upstream: Path, reference: bool, swapped: Path | None = None) -> list[str]:
    """The flags upstream's CMake gives every CPU ST target, with the include tree swapped: ptogen's
    headers; upstream's own (`reference`); or upstream's with the generated intrinsics (`swapped`,
    ptogen's directories after it for the check headers only ptogen has)."""
    # NDEBUG: upstream's run script builds Release, whose CMake flags turn its simulator's asserts off
    # (ptogen's run-time rules do not depend on it).
    common = ["-std=c++20", "-D__CPU_SIM", "-DNDEBUG", f"-I{upstream / 'tests/common'}"]
    if reference or swapped is not None:
        inc = swapped or upstream / "include"
        flags = [*common, f"-I{inc}", f"-I{inc / 'common'}", "-include", "stdint.h", "-include", "stddef.h"]
        return flags + ([f"-I{layout.generated_include}", f"-I{RUNTIME_INCLUDE}"] if swapped else [])
    return [*common, f"-I{layout.generated_include}", f"-I{RUNTIME_INCLUDE}", "-ffp-contract=off"]


def run_dir(setup: Setup, case_dir: CaseDir) -> DirResult:
    result = DirResult(case_dir.name)
    work = setup.work / case_dir.name
    shutil.rmtree(work, ignore_errors=True)
    (work / "bin").mkdir(parents=True)
    binary = work / "bin" / case_dir.op
    flags = setup.flags
    if any("kInstructionTraceEnabled" in s.read_text(errors="replace") for s in case_dir.sources):
        # Its cases skip unless tracing is built in: build it as upstream's runner's trace option does.
        flags = [*flags, "-DPTO_CPU_SIM_TRACE_MODE=1"]
    argv = [*_cxx(setup.cxx), *flags, *map(str, case_dir.sources), "-o", str(binary), *GTEST_LIBS]
    rc, out = _run(argv, work, COMPILE_TIMEOUT_S)
    if rc != 0:
        result.error = "compile: " + first_error(out)
        return result
    gen = case_dir.path / "gen_data.py"
    if gen.is_file():
        shutil.copyfile(gen, work / "gen_data.py")
        env = dict(os.environ)
        # Scripts import `utils` or `tests.cpu.st.utils`: both roots go on the path, as upstream's do.
        roots = [str(setup.upstream / "tests/cpu/st"), str(setup.upstream), env.get("PYTHONPATH")]
        env["PYTHONPATH"] = os.pathsep.join(filter(None, roots))
        rc, out = _run([setup.python, "gen_data.py"], work, GEN_TIMEOUT_S, env)
        if rc != 0:
            result.error = "gen_data.py: " + (out.strip().splitlines() or ["failed"])[-1][:300]
            return result
    rc, out = _run([str(binary), "--gtest_list_tests"], binary.parent, CASE_TIMEOUT_S)
    names = parse_test_list(out) if rc == 0 else []
    if not names:
        result.error = f"listing the gtest cases failed (exit {rc})"
        return result
    for name in names:
        rc, out = _run([str(binary), f"--gtest_filter={name}"], binary.parent, CASE_TIMEOUT_S)
        result.cases.append(judge_case(name, rc, out))
    return result


def _usage(problem: str) -> int:
    print(f"ptogen upstream-st: {problem}", file=sys.stderr)
    return EXIT_USAGE


def _gtest_problem(cxx: str, work: Path) -> str:
    probe = work / "gtest_probe.cpp"
    probe.write_text(
        "#include <gtest/gtest.h>\nTEST(Probe, Links) { EXPECT_TRUE(true); }\n", encoding="utf-8"
    )
    rc, out = _run(
        [*_cxx(cxx), "-std=c++20", str(probe), "-o", str(work / "gtest_probe"), *GTEST_LIBS], work, 300
    )
    if rc == 0:
        return ""
    return (
        f"gtest is not usable with {cxx} (install it, e.g. `apt-get install libgtest-dev`): "
        + first_error(out)
    )


def covered_ops(layout: Layout) -> list[str]:
    """Lower-case C++ names of every op the specs define (what `ptogen list` prints)."""
    return list(dict.fromkeys(_mnemonics(layout).values()))  # the tile and comm TGATHER: one name


def _mnemonics(layout: Layout) -> dict[str, str]:
    """Each op's key (its mnemonic without `pto.`) -> its lower-case C++ name (`subview` -> `tsubview`)."""
    from .lower.views import ProjectView
    from .spec.load import load_specs

    return {op.spec.key: op.name.lower() for op in ProjectView(load_specs(layout.specs, layout.root)).ops}


def select_ops(
    covered: list[str], wanted: list[str], aliases: dict[str, str] | None = None
) -> tuple[list[str], list[str]]:
    """`wanted` (any of `tadd`, `TADD`, `pto.tadd`, or a mnemonic that differs from the C++ name,
    `pto.subview`) resolved against `covered`; also the unknown."""
    if not wanted:
        return covered, []
    names = [w.lower().removeprefix("pto.") for w in wanted]
    names = [(aliases or {}).get(n, n) for n in names]
    return [n for n in names if n in covered], [
        w for w, n in zip(wanted, names, strict=True) if n not in covered
    ]


def run_cli(layout: Layout, args: argparse.Namespace) -> int:
    upstream: Path = args.upstream.resolve()
    if not (upstream / TESTCASE_DIR).is_dir() or not (upstream / "tests/common").is_dir():
        return _usage(f"{upstream} is not an upstream checkout (no {TESTCASE_DIR} and tests/common)")
    aliases = _mnemonics(layout)
    ops, unknown = select_ops(list(dict.fromkeys(aliases.values())), args.ops, aliases)
    # A name that is no op may name an upstream test directory (`setgetval`): run it as it is.
    named = [
        CaseDir(u, base / u, tree)
        for u in unknown
        for base, tree in _roots(upstream)
        if (base / u / "main.cpp").is_file()
    ]
    unknown = [u for u in unknown if u not in {d.op for d in named}]
    if unknown:
        return _usage(
            f"unknown op(s): {', '.join(unknown)} (see `ptogen list`; or name an upstream test directory)"
        )
    cxx = args.cxx or next((c for c in COMPILER_PREFERENCE if shutil.which(c)), "")
    if not cxx or not shutil.which(cxx):
        return _usage(f"compiler {cxx or 'clang++/g++'} not found")
    rc, _ = _run([sys.executable, "-c", "import numpy"], Path.cwd(), 120)
    if rc != 0:
        return _usage(f"{sys.executable} cannot import numpy, which the cases' gen_data.py needs")
    variant = "reference" if args.reference else "swap" if args.swap else "ptogen"
    work = (args.build_dir or Path(tempfile.gettempdir()) / "ptogen-upstream-st").resolve() / variant
    work.mkdir(parents=True, exist_ok=True)
    problem = _gtest_problem(cxx, work)
    if problem:
        return _usage(problem)
    dirs, missing = discover(upstream, ops)
    covered = covered_ops(layout)
    types = known_tile_types([layout.generated_include, RUNTIME_INCLUDE])
    taken = {d.name for d in dirs} | {d.name for d in named}
    mixed = mixed_dirs(upstream, ops, covered, taken, types) if ops else []
    for name, lacking in skipped_family_dirs(upstream, ops, covered, types, taken | {d.name for d in mixed}):
        print(f"ptogen upstream-st: {name} not selected: needs {', '.join(lacking)}", file=sys.stderr)
    dirs += named + mixed
    tested = set().union(*(called_ops(d) for d in mixed)) if mixed else set()
    missing = [m for m in missing if m.upper() not in tested]
    if not dirs:
        return _usage("none of the selected ops has an upstream CPU ST directory")
    swapped = None
    if args.swap:
        from .swap import swapped_tree

        swapped = work / "include"
        try:
            header = layout.generated_include / "pto/common/pto_instr.hpp"
            names, kept = swapped_tree(upstream, header, swapped)
        except (OSError, ValueError) as exc:
            return _usage(f"cannot build the swapped tree: {exc}")
        print(f"ptogen upstream-st: swapped {len(names)} intrinsics into {swapped}", file=sys.stderr)
        if kept:
            print(
                f"ptogen upstream-st: kept upstream's target-conditional {', '.join(kept)}", file=sys.stderr
            )
    setup = Setup(upstream, cxx, build_flags(layout, upstream, args.reference, swapped), work, sys.executable)
    tree = (
        "upstream include/"
        if args.reference
        else "upstream include/ with the generated intrinsics"
        if args.swap
        else "ptogen headers"
    )
    print(
        f"ptogen upstream-st: {len(dirs)} directories against {tree} with {cxx}; build in {work}",
        file=sys.stderr,
        flush=True,
    )
    jobs = args.jobs or os.cpu_count() or 1
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        results = []
        for r in pool.map(lambda d: run_dir(setup, d), dirs):
            results.append(r)
            if not args.markdown:
                print(format_table([r], markdown=False), flush=True)
    if args.markdown:
        print(format_table(results, markdown=True))
    if missing and not args.ops:
        print(f"no upstream directory: {' '.join(missing)}")
    print(summary(results))
    return 0 if all(r.ok for r in results) else EXIT_FAILURES


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "upstream-st",
        help="build and run an upstream checkout's CPU ST cases against the generated headers",
    )
    p.add_argument(
        "upstream", type=Path, metavar="UPSTREAM_PATH", help="root of an upstream pto-isa checkout"
    )
    p.add_argument("ops", nargs="*", help="ops to run (default: every covered op with a test directory)")
    p.add_argument("--cxx", help="compiler (default: the first of clang++ and g++)")
    p.add_argument(
        "-j", "--jobs", type=int, default=0, help="directories built in parallel (default: CPU count)"
    )
    p.add_argument(
        "--reference",
        action="store_true",
        help="build against the checkout's own include/ instead (comparison)",
    )
    p.add_argument(
        "--swap",
        action="store_true",
        help="build against the checkout's include/ with its covered intrinsics replaced by the generated "
        "ones, over upstream's own CPU backend",
    )
    p.add_argument("--build-dir", type=Path, help="where to build (default: $TMPDIR/ptogen-upstream-st)")
    p.add_argument("--markdown", action="store_true", help="print the results as one Markdown table")
    return p
