"""`ptogen a5-check UPSTREAM_DIR`: upstream's A5 backend as a client of the builtin simulation.

With `--compile-only` it counts the A5 headers (`include/pto/npu/a5/**.hpp`) that compile on their
own under `ptogen cflags --builtins`. Without it, each op whose `<NAME>_IMPL` an A5 header defines
runs its generated test cases (tests/<op>/cases.cpp, the inputs `ptogen test` writes) twice: over the
CPU simulator and over the A5 implementation, and the results must be the same bits (any NaN matches
any NaN). The A5 build swaps the kernel's `<pto/pto-inst.hpp>` for a small header that includes the
op's A5 header, upstream's tile type and TASSIGN over a simulated unified buffer, and sends the A5
profile's calls of the op to `<NAME>_IMPL`; the other profiles' calls are never run. When the A5 build
stops, its cases run one by one, and a case that stops (named by its message, else its signal) is a
difference of that case. One line per op and element types, then the totals. A difference the op's
spec argues as an upstream bug (`upstream_bugs`: the cases and types it concerns, and whether only
elements outside the result's valid region) counts as argued; the exit status is 1 when any other
result differs. A build that fails is `not built` with its cause in a few words, or `out of scope`
when it needs a builtin of the parts of the backend the builtin simulation leaves out (cube, MTE,
SIMT) or one no ISA page defines; neither sets the exit status.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import dataclasses
import os
import re
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import jinja2
import numpy as np

from .buildsys import builtin_cflags
from .emit.render import environment
from .lower.views import OpView, ProjectView
from .paths import Layout
from .spec.model import UpstreamBug
from .testing.manifest import CaseEntry, RuntimeGroup, TileShape

A5_DIR = "include/pto/npu/a5"
UMBRELLA = "include/pto/common/pto_instr_impl.hpp"  # includes the backend's headers of every op
PROFILE = "A5"
UB_BYTES = 256 * 1024  # A5's unified buffer; the kernels' tile addresses lie within it
# An A5 code path may read a little past a tile (a full register at its last row): room after the UB.
UB_SLACK = 4096
_UNDECLARED = re.compile(r"use of undeclared identifier '(\w+)'")
_NO_MEMBER = re.compile(r"no (?:template|type) named '(\w+)'|unknown type name '(\w+)'")
_UNDEFINED = re.compile(r"undefined reference to `([^']+)'")


def a5_headers(upstream: Path) -> list[str]:
    root = upstream / "include"
    return sorted(p.relative_to(root).as_posix() for p in (upstream / A5_DIR).rglob("*.hpp"))


def compile_flags(layout: Layout, upstream: Path) -> list[str]:
    return [*builtin_cflags(layout), "-Wno-switch", f"-I{upstream / 'include'}"]


def first_blocker(diag: str) -> str:
    """The reason a build failed, in one phrase: the first builtin or type it lacks, else the first
    error line."""
    lines = diag.splitlines()
    for n, line in enumerate(lines):
        if "error:" not in line and "undefined reference" not in line:
            continue
        if m := _DTYPE_RULE.search(line):
            # The builtin's own type rule (the CPU profile's check): the instantiation below names the type.
            found = (_INSTANTIATED.search(x) for x in lines[n + 1 : n + 4])
            used = next((f.group(2) or f.group(3) for f in found if f and f.group(1) == m.group(1)), "a type")
            return f"type rule: {m.group(1)} on {_SPELLED.get(used, used)}"
        if m := _UNDECLARED.search(line):
            return f"missing builtin {m.group(1)}"
        if m := _NO_MEMBER.search(line):
            return f"missing type {m.group(1) or m.group(2)}"
        if m := _UNDEFINED.search(line):
            return f"undefined {m.group(1)[:80]}"
        text = line.split("error:", 1)[-1].strip()
        if text.startswith("static assertion failed due to requirement '") and "': " in text:
            text = "static assertion failed: " + text.rsplit("': ", 1)[1]  # its message, not its condition
        if text.startswith("static assertion failed") and "/pto/vsim/" in line.split("error:", 1)[0]:
            return "builtin check: " + text.split(":", 1)[1].strip()[:100]  # the simulation's own check
        return text[:100]
    return diag.strip().splitlines()[-1][:100] if diag.strip() else "no diagnostic"


# Builtins of the parts of the A5 backend this check leaves out (the cube unit, the MTE and fixpipe
# transfers and their loop registers, SIMT code) and the ones that have no ISA page; a build that needs
# one of them is out of scope, not a gap of the vector simulation. Each entry: a pattern, the phrase.
OUT_OF_SCOPE = [
    (re.compile(r"^(vmadd|vmod|chistv2|sprclr)$"), "{} has no ISA page"),
    (re.compile(r"^Bin_N\d+$"), "chistv2's operand {} (chistv2 has no ISA page)"),
    (re.compile(r"^pto_vexpdif$"), "{} has no ISA page (vexpdif's page has no part operand)"),
    (re.compile(r"^Spr$"), "sprclr's register type Spr (sprclr has no ISA page)"),
    (re.compile(r"^set_channel_para$"), "fixpipe builtin {}"),
    (re.compile(r"^(mad\w*|load_cbuf_to_\w+|load_gm_to_cb\w*|copy_matrix_cc_to_\w+|set_fmatrix\w*|img2col\w*"
                r"|set_l3d_\w+|set_padding|set_fpc|set_quant_\w+|pto_create_cbuf_matrix|\w*cbuf\w*)$"),
     "cube builtin {}"),
    (re.compile(r"^(copy_gm_to_\w+|copy_ubuf_to_gm\w*|set_loop\w*|SetLoop\w*|set_nd_para|set_mov_pad_val"
                r"|set_mte\w*)$"), "MTE builtin {}"),
    (re.compile(r"^(__cce_simd|__simt\w*|asc_\w+|SYNCALL_SOFT\w*|atomicAdd)$"), "SIMT builtin {}"),
]  # fmt: skip
_DTYPE_RULE = re.compile(r"(\w+) \[CPU\]: \w+ must be one of: ")
_INSTANTIATED = re.compile(r"vsim::ops::(\w+)<(?:pto::RegTensor<([\w ]+)>|(vector_\w+)[,>])")


def cause(blocker: str) -> tuple[str, str]:
    """(status, phrase) of a build that failed on `blocker` (first_blocker's phrase): `out of scope`
    when it needs a cube, MTE or SIMT builtin or one with no page, else `not built` with the cause
    named in a few words."""
    if m := re.fullmatch(r"missing builtin (\w+)|no member named '(\w+)' in the global namespace", blocker):
        name = m.group(1) or m.group(2)
        for pattern, phrase in OUT_OF_SCOPE:
            if pattern.match(name):
                return "out of scope", phrase.format(name)
        return "not built", f"undeclared {name} (a builtin or helper the host build lacks)"
    if blocker.startswith("missing type "):
        return "not built", f"undeclared type {blocker.removeprefix('missing type ')}"
    if blocker.startswith("undefined "):
        return "not built", f"A5 helper not linked: {blocker.removeprefix('undefined ')}"
    if m := re.fullmatch(r"type rule: (\w+) on ([\w ]+)", blocker):
        return "not built", f"A5 calls {m.group(1)} on {m.group(2)}, which its page does not admit"
    if blocker.startswith("builtin check: "):
        return (
            "not built",
            f"a builtin call of a form the simulation does not take: {blocker.split(': ', 1)[1]}",
        )
    if blocker.startswith("static assertion failed"):
        return "not built", f"upstream's static assertion: {blocker.split(':', 1)[-1].strip()}"
    return "not built", f"compile error: {blocker}"


def _compile(cxx: str, flags: list[str], source: Path, out: Path | None) -> tuple[bool, str]:
    argv = [cxx, *flags, str(source), *(["-o", str(out)] if out else ["-fsyntax-only"])]
    proc = subprocess.run(argv, capture_output=True, text=True, check=False)
    return proc.returncode == 0, proc.stderr


def compile_headers(layout: Layout, upstream: Path, cxx: str, jobs: int) -> list[tuple[str, str | None]]:
    """Each A5 header, compiled alone: (header, None) when it compiles, else (header, the blocker). A
    header that lacks a struct upstream's `pto_instr.hpp` declares (TMrgSort.hpp's
    `MrgSortExecutedNumList`) is compiled again after that declaration, as a device build sees it."""
    from .spec.load import load_specs

    flags = compile_flags(layout, upstream)
    structs = {s.name: s for s in load_specs(layout.specs, layout.root).targets.structs if s.fields}
    template = environment(layout.templates).get_template("a5check/structs.hpp.j2")
    with tempfile.TemporaryDirectory(prefix="ptogen-a5-") as tmp:

        def one(header: str) -> tuple[str, str | None]:
            src = Path(tmp) / (header.replace("/", "_") + ".cpp")
            src.write_text(f"#include <{header}>\n", encoding="utf-8")
            ok, diag = _compile(cxx, flags, src, None)
            lacking = first_blocker(diag).removeprefix("missing type ") if not ok else ""
            if lacking in structs:
                prelude = template.render(structs=[structs[lacking]])
                src.write_text(f"#include <cstdint>\n{prelude}\n#include <{header}>\n", encoding="utf-8")
                ok, diag = _compile(cxx, flags, src, None)
            if not ok and "__simt_vf__" in (upstream / "include" / header).read_text(errors="replace"):
                return header, "missing builtin __simt_vf__"  # SIMT kernels: qualifiers no host build has
            return header, None if ok else first_blocker(diag)

        with cf.ThreadPoolExecutor(max_workers=jobs) as pool:
            return list(pool.map(one, a5_headers(upstream)))


# ----------------------------------------------------------------------------- the run


# How the x86-64 demangler spells the element types in a function's template arguments.
DEMANGLED = {
    "int8_t": "signed char", "uint8_t": "unsigned char", "int16_t": "short", "uint16_t": "unsigned short",
    "int32_t": "int", "uint32_t": "unsigned int", "int64_t": "long", "uint64_t": "unsigned long",
    "half": "_Float16", "bfloat16_t": "__bf16", "float": "float",
}  # fmt: skip
_SPELLED = {v: k for k, v in DEMANGLED.items()} | {"half": "half", "bfloat16_t": "bfloat16_t"}


def unlinked_groups(groups: list[RuntimeGroup], diag: str) -> dict[str, str]:
    """Group id -> the missing function that names one of its element types, for a link failure."""
    out: dict[str, str] = {}
    for symbol in _UNDEFINED.findall(diag):
        # Its template arguments only (a parameter list names index types too).
        template = symbol[symbol.find("<") + 1 : symbol.rfind(">(")] if ">(" in symbol else ""
        args = {a.strip() for a in re.split(r"[<>,]", template)}
        for g in groups:
            if g.group not in out and any(DEMANGLED.get(d) in args for d in g.dtypes.values()):
                out[g.group] = f"undefined {symbol[:80]}"
    return out


def impl_header(upstream: Path, name: str, headers: list[str]) -> str | None:
    """The A5 header that defines `<name>_IMPL`: of several, one that upstream's umbrella header
    includes, as a device build does (TCOLARGMAX_IMPL is also in TColArgMax.hpp, which it does not),
    and a top-level header before one in a subdirectory."""
    return defining_header(upstream, f"{name}_IMPL", headers, umbrella_includes(upstream))


def umbrella_includes(upstream: Path) -> set[str]:
    """The A5 headers upstream's umbrella header of the backends includes."""
    path = upstream / UMBRELLA
    text = path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""
    return set(re.findall(r'^\s*#include\s+[<"](pto/npu/a5/[\w/]+\.hpp)[>"]', text, re.M))


def defining_header(
    upstream: Path, function: str, headers: list[str], preferred: set[str] | None = None
) -> str | None:
    """The A5 header that defines the function `function` (one of `preferred` first, then a top-level
    header), whatever it returns (`GetDistVst` of utils.hpp returns a `DistVST`); a call such as
    `return f(...)` is none."""
    pattern = re.compile(rf"^[\w \t:<>]*\b(?!return\b)\w+\s+{function}\s*\(", re.M)
    first = preferred or set()
    for header in sorted(headers, key=lambda h: (h not in first, h.count("/"), h)):
        if pattern.search((upstream / "include" / header).read_text(encoding="utf-8", errors="replace")):
            return header
    return None


def shim_header(env: jinja2.Environment, op: OpView, headers: list[str]) -> str:
    """The `<pto/pto-inst.hpp>` an A5 build of one op's cases includes instead of the simulator's: each
    of the op's declarations, with its template parameters, sends the A5 profile's calls to the
    `_IMPL` call upstream's header makes (template arguments too, as TCI's and TSCATTER's). `headers`:
    the op's A5 header last, after the ones that define what it calls without including them. The
    structs its declarations take (TMRGSORT's `MrgSortExecutedNumList`) are declared as upstream's
    `pto_instr.hpp` declares them, which the backend's headers use without including."""
    named = {str(p.type) for f in op.forms for p in f.params if p.type}
    structs = [s for s in op.targets.structs if s.fields and s.name in named]
    return env.get_template("a5check/shim.hpp.j2").render(
        op=op, headers=headers, structs=structs, ub_bytes=UB_BYTES + UB_SLACK
    )


class Difference(NamedTuple):
    """A case whose results differ: its label, what differs, and whether every element that differs
    lies outside the result tile's valid region."""

    label: str
    detail: str
    outside_valid: bool = False
    not_built: bool = False  # the A5 code does not compile the case
    operand: str = ""  # the result that differs


@dataclass
class OpResult:
    op: str
    lines: list[tuple[str, str, str]] = field(default_factory=list)  # (dtypes, status, detail)


def stop_message(proc: subprocess.CompletedProcess[str]) -> str:
    """Why a run stopped: what it printed, else the signal that ended it (a host trap, such as an
    integer division by zero, prints nothing)."""
    if text := proc.stderr.strip():
        return text[:200]
    if proc.returncode < 0:
        sig = signal.Signals(-proc.returncode)
        return f"killed by {sig.name} ({signal.strsignal(sig) or 'no description'}), with no message"
    return f"exit status {proc.returncode}, with no message"


def outside_valid(diff: np.ndarray, tile: TileShape | None) -> bool:
    """Whether every element `diff` marks (over a tile's storage) lies outside its valid region; over
    bytes that each hold two elements (a 4-bit type's), a byte marks both."""
    from .testing.golden import logical

    if tile is not None and 2 * diff.size == tile.rows * tile.cols:
        diff = np.repeat(diff, 2)
    if tile is None or diff.size != tile.rows * tile.cols:
        return False
    view = logical(diff, tile.rows, tile.cols, tile.layout)
    return not view[: tile.valid_rows, : tile.valid_cols].any()


def differences(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Where two results differ: in their bits, except that any NaN matches any NaN."""
    from .testing.golden import is_float

    width = got.dtype.itemsize
    bits = (got.view(np.uint8).reshape(-1, width) != want.view(np.uint8).reshape(-1, width)).any(axis=1)
    if is_float(got.dtype):
        bits &= ~(np.isnan(got.astype(np.float64)) & np.isnan(want.astype(np.float64)))
    return bits


class Checker:
    def __init__(self, layout: Layout, upstream: Path, cxx: str, cache: Path):
        from .testing import runner as r

        self.layout, self.upstream, self.cxx, self.cache = layout, upstream, cxx, cache
        # The simulator's kernels share `ptogen test`'s build cache.
        self.settings = r.Settings(layout=layout, compilers=[cxx])
        self.runner = r.Runner(self.settings)
        self.compiler = r.find_compiler(cxx)
        self.headers = a5_headers(upstream)
        from .spec.load import load_specs

        self.specs = load_specs(layout.specs, layout.root)
        self.views = {v.spec.stem: v for v in ProjectView(self.specs).ops}
        self.env = environment(layout.templates)
        units = self.specs.targets.units
        # The vector unit's op kinds: cube, MTE and scalar ops are not the vector backend's.
        self.vector_kinds = {k for u in units if u.id == "vector" for k in u.kinds}

    def ops(self, wanted: list[str]) -> list[str]:
        names = self.runner.select_ops() if not wanted else [w.lower().removeprefix("pto.") for w in wanted]
        return [
            n
            for n in names
            if self.runner.manifest.ops[n].executable
            and self.runner.manifest.ops[n].kind in self.vector_kinds
            and self._a5_groups(n)
            and impl_header(self.upstream, n.upper(), self.headers)
        ]

    def _a5_groups(self, op: str) -> list[RuntimeGroup]:
        return [
            g
            for g in self.runner.manifest.ops[op].runtime
            if isinstance(g, RuntimeGroup) and PROFILE in g.profiles
        ]

    def _a5_build(self, op: str, headers: list[str], source: Path) -> tuple[Path | None, str]:
        work = self.cache / "a5" / op
        (work / "pto").mkdir(parents=True, exist_ok=True)
        shim = shim_header(self.env, self.views[op], headers)
        (work / "pto" / "pto-inst.hpp").write_text(shim, encoding="utf-8")
        flags = [*compile_flags(self.layout, self.upstream), "-O1", f"-I{self.layout.out / 'tests/common'}"]
        flags.append("-DPTO_TEST_MAIN_FORMS_ONLY")  # upstream's tiles own no storage for an overload's
        # The kernel's <pto/pto-inst.hpp> is the one above, not the upstream tree's.
        flags.insert(flags.index(f"-I{self.upstream / 'include'}"), f"-I{work}")
        exe = work / f"{source.stem}.a5"
        ok, diag = _compile(self.cxx, flags, source, exe)
        return (exe if ok else None), diag

    def _sliced(self, op: str, keep: set[int], tag: str) -> Path:
        """The op's cases source with only the cases `keep` (and no runtime-fail case: this build runs
        none, and its calls may take a type the A5 code does not compile)."""
        from .testing import tiers

        entry = self.runner.manifest.ops[op].to_json()
        source = self.layout.out / str(self.runner.manifest.ops[op].executable)
        runtime = {int(c["index"]) for g in entry["runtime"] for c in g["cases"]}
        vector = {k for g in entry["vector"] for k in tiers.vector_case_ids(g)}
        whole = source.read_text(encoding="utf-8")
        text = tiers.slice_cases_source(whole, keep, runtime, vector, source.name, runtime_fail=False)
        path = self.cache / "a5" / op / ("cases_" + re.sub(r"[^\w.-]", "_", tag) + ".cpp")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    def check(self, op: str) -> OpResult:
        res = OpResult(op)
        entry = self.runner.manifest.ops[op]
        name = op.upper()
        header = impl_header(self.upstream, name, self.headers)
        groups = self._a5_groups(op)
        label = lambda g: ", ".join(sorted(set(g.dtypes.values())))  # noqa: E731
        if header is None:
            res.lines.append(("", "no A5 code", f"no A5 header defines {name}_IMPL"))
            return res
        source = self.layout.out / str(entry.executable)
        cpu, diag = self.runner.builder.build(self.compiler, source)
        if cpu is None:
            res.lines.append(("", "fail", f"the simulator's cases do not build: {first_blocker(diag)}"))
            return res
        a5_cases = {c.index for g in groups for c in g.cases}
        whole, diag = self._a5_build(op, [header], self._sliced(op, a5_cases, "a5"))
        includes = [header]
        # An A5 header may call a function of another it does not include (on the device the umbrella
        # header includes them all): that header is included first, and the program built again.
        while whole is None and (m := re.fullmatch(r"missing builtin (\w+)", first_blocker(diag))):
            other = defining_header(self.upstream, m.group(1), self.headers)
            if other is None or other in includes:
                break
            includes.insert(0, other)
            whole, diag = self._a5_build(op, includes, self._sliced(op, a5_cases, "a5"))
        unlinked: dict[str, str] = {}
        if whole is None and "undefined reference" in diag:
            # An element type whose A5 code is not compiled in: the program is built again without
            # the groups of the types its missing functions name.
            unlinked = unlinked_groups(groups, diag)
            rest = {c.index for g in groups if g.group not in unlinked for c in g.cases}
            if unlinked and rest:
                whole, diag = self._a5_build(op, includes, self._sliced(op, rest, "linked"))
        # A builtin or type missing is missing for every group; anything else (a static assertion of
        # one instantiation, a link failure) may be one group's: then each group is built on its own,
        # as when a builtin left out of scope is missing, which some element types' code may not call
        # (TREM's integer path calls vmod, its float path does not).
        blocker = first_blocker(diag)
        each = whole is None and (not blocker.startswith("missing ") or cause(blocker)[0] == "out of scope")
        for g in groups:
            exe, why = whole, unlinked.get(g.group) or first_blocker(diag)
            if each and g.group not in unlinked:
                cases = {c.index for c in g.cases}
                exe, group_diag = self._a5_build(op, includes, self._sliced(op, cases, g.group))
                why = first_blocker(group_diag)
            argued: list[Difference] = []
            if exe is None and g.group not in unlinked:
                exe, argued, why = self._without_unbuilt(op, includes, g, why)
                if len(argued) == len(g.cases):  # no case left to run
                    bugs = self.specs.op(op).spec.upstream_bugs
                    res.lines.append((label(g), *judged(bugs, g.dtypes, argued, 0)))
                    continue
            if exe is None or g.group in unlinked:
                status, phrase = cause(why)
                if len(includes) > 1:  # the blocker may be in a header the op's header calls into
                    phrase += f" (with {', '.join(Path(h).name for h in includes[:-1])}, which it calls into)"
                res.lines.append((label(g), status, phrase))
                continue
            res.lines.append((label(g), *self._run_group(op, g, cpu, exe, argued)))
        return res

    def _without_unbuilt(
        self, op: str, includes: list[str], g: RuntimeGroup, why: str
    ) -> tuple[Path | None, list[Difference], str]:
        """A group whose build failed, built again without the cases the spec argues A5 does not build
        (`not_built`): the program, those cases as differences, and the blocker when it still fails.
        A build failure counts as argued only through such an entry."""
        bugs = [b for b in self.specs.op(op).spec.upstream_bugs if b.not_built]
        unbuilt = [c for c in g.cases if any(b.covers(c.label, g.dtypes, not_built=True) for b in bugs)]
        if not unbuilt:
            return None, [], why
        detail = f"the A5 code does not build it: {cause(why)[1]}"
        argued = [
            Difference(c.label, f"case {c.index} ({c.label}): {detail}", not_built=True) for c in unbuilt
        ]
        rest = {c.index for c in g.cases} - {c.index for c in unbuilt}
        if not rest:
            return None, argued, why
        exe, diag = self._a5_build(op, includes, self._sliced(op, rest, g.group + "_built"))
        return exe, argued, first_blocker(diag)

    def _run_group(
        self, op: str, g: RuntimeGroup, cpu: Path, a5: Path, argued: list[Difference] | None = None
    ) -> tuple[str, str]:
        """Run one group's cases on both builds from the same inputs, but for the cases `argued` the A5
        code does not build; (status, detail)."""
        from .opkinds import KINDS
        from .testing.golden import GoldenContext

        entry = self.runner.manifest.ops[op]
        unbuilt = {d.label for d in argued or []}
        g = dataclasses.replace(g, cases=[c for c in g.cases if c.label not in unbuilt])
        with tempfile.TemporaryDirectory(prefix="ptogen-a5-run-") as tmp:
            sim_dir, a5_dir = Path(tmp) / "sim", Path(tmp) / "a5"
            sim_dir.mkdir()
            gx = GoldenContext(op, entry, self.runner.manifest.dtypes, g, self.runner.reference(op), op)
            KINDS[entry.kind].prepare_cases(gx, sim_dir)
            shutil.copytree(sim_dir, a5_dir)
            ids = [f"c{c.index}@{PROFILE}" for c in g.cases]

            def run(exe: Path, data: Path, ids: list[str]) -> subprocess.CompletedProcess[str]:
                return subprocess.run(
                    [str(exe), str(data), *ids],
                    capture_output=True, text=True, check=False, timeout=self.settings.timeout,
                )  # fmt: skip

            sim = run(cpu, sim_dir, ids)
            if sim.returncode != 0:
                return "fail", f"the simulator stopped: {stop_message(sim)}"
            stopped: dict[int, str] = {}
            if (a5_run := run(a5, a5_dir, ids)).returncode != 0:
                # Each case on its own: the ones that stop are differences of their own (a spec may
                # argue them), the others are compared.
                for c in g.cases:
                    if (one := run(a5, a5_dir, [f"c{c.index}@{PROFILE}"])).returncode != 0:
                        stopped[c.index] = stop_message(one)
                if not stopped:
                    return "fail", f"the A5 code stopped: {stop_message(a5_run)}"
            bad = [
                Difference(c.label, f"case {c.index} ({c.label}): the A5 code stopped: {stopped[c.index]}")
                for c in g.cases
                if c.index in stopped
            ]
            bad += [
                d for c in g.cases if c.index not in stopped for d in self._compare(g, c, sim_dir, a5_dir)
            ]
        return judged(self.specs.op(op).spec.upstream_bugs, g.dtypes, [*(argued or []), *bad], len(g.cases))

    def _compare(self, g: RuntimeGroup, case: CaseEntry, sim: Path, a5: Path) -> list[Difference]:
        from .testing.golden import np_dtype

        index, label = case.index, case.label
        out = []
        for want_file in sorted(sim.glob(f"c{index}_*.out")):
            operand = want_file.stem.split("_", 1)[1]
            if "." in operand:  # an overload's result (`dst.f1`): the A5 build runs the main forms only
                continue
            dtype = g.dtypes.get(operand)
            dt = np_dtype(self.runner.manifest.dtypes[dtype].numpy) if dtype else np.dtype(np.uint8)
            want = np.fromfile(want_file, dtype=dt)
            got = np.fromfile(a5 / want_file.name, dtype=dt)
            if want.shape != got.shape:
                detail = f"case {index} {operand}: {got.size} elements, not {want.size}"
                out.append(Difference(label, detail, operand=operand))
                continue
            diff = differences(got, want)
            if diff.any():
                i = int(np.flatnonzero(diff)[0])
                detail = (
                    f"case {index} ({label}) {operand}: {int(diff.sum())} of {diff.size} differ, "
                    f"first [{i}] A5 {got[i]!r}, simulator {want[i]!r}"
                )
                outside = outside_valid(diff, case.tiles.get(operand))
                out.append(Difference(label, detail, outside, operand=operand))
        return out


def judged(
    bugs: list[UpstreamBug], types: Mapping[str, str], bad: list[Difference], cases: int
) -> tuple[str, str]:
    """(status, detail) of a group whose operands have the element types `types` (operand -> type) and
    whose cases gave the differences `bad`: `argued` when the spec's argued upstream bugs cover every
    one of them, else `differs`."""
    if not bad:
        return "match", f"{cases} cases"
    covering = [
        next((b for b in bugs if b.covers(d.label, types, d.outside_valid, d.not_built, d.operand)), None)
        for d in bad
    ]
    unargued = [d.detail for d, b in zip(bad, covering, strict=True) if b is None]
    if unargued:
        return "differs", "; ".join(unargued[:2])
    reason = " ".join(next(b for b in covering if b is not None).reason.split())
    first = reason.split(". ")[0].rstrip(".")
    return "argued", f"differs (argued upstream bug: {first}): {bad[0].detail}"


def run_cli(layout: Layout, args: argparse.Namespace) -> int:
    upstream: Path = args.upstream.resolve()
    if not (upstream / A5_DIR).is_dir():
        print(f"ptogen a5-check: {upstream} has no {A5_DIR} (give the root of an upstream pto-isa tree)")
        return 2
    cxx = args.cxx or "clang++-19"
    if shutil.which(cxx) is None:
        print(f"ptogen a5-check: compiler {cxx} not found (--cxx; clang++ 17 or later)")
        return 2
    jobs = args.jobs or os.cpu_count() or 1
    if args.compile_only:
        results = compile_headers(layout, upstream, cxx, jobs)
        outside = 0
        for header, blocker in results:
            if blocker is None:
                print(f"{header:55} compiles")
                continue
            status, phrase = cause(blocker)
            outside += status == "out of scope"
            print(f"{header:55} {'out-of-scope' if status == 'out of scope' else 'fails'}: {phrase}")
        ok = sum(1 for _, b in results if b is None)
        print(f"{ok} of {len(results)} A5 headers compile; {outside} need builtins out of scope")
        return 0
    cache = args.build_dir or Path(tempfile.gettempdir()) / "ptogen-a5-check"
    checker = Checker(layout, upstream, cxx, cache)
    try:
        ops = checker.ops(args.ops)
    except KeyError as exc:
        print(f"ptogen a5-check: {exc.args[0]}")
        return 2
    counts: dict[str, int] = {}
    with cf.ThreadPoolExecutor(max_workers=jobs) as pool:
        for res in pool.map(checker.check, ops):
            for dtypes, status, detail in res.lines:
                counts[status] = counts.get(status, 0) + 1
                print(f"{res.op:14} {dtypes:28} {status:12} {detail}", flush=True)
    print("total: " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())) + f" ({len(ops)} ops)")
    return 1 if counts.get("differs", 0) or counts.get("fail", 0) else 0


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "a5-check",
        help="run upstream's A5 backend on the builtin simulation against the CPU simulator",
    )
    p.add_argument("upstream", type=Path, metavar="UPSTREAM_DIR", help="root of an upstream pto-isa tree")
    p.add_argument("ops", nargs="*", help="ops to check (default: every op an A5 header implements)")
    p.add_argument(
        "--compile-only",
        action="store_true",
        help="only count the A5 headers that compile on their own, naming each one's blocker",
    )
    p.add_argument("--cxx", help="compiler (default: clang++-19)")
    p.add_argument("-j", "--jobs", type=int, default=0, help="builds in parallel (default: CPU count)")
    p.add_argument("--build-dir", type=Path, help="where to build (default: $TMPDIR/ptogen-a5-check)")
    return p
