"""Benchmark: prints figures, asserts nothing. Run `python -m ptogen.bench [--quick] [--cxx g++]`.

1. `ptogen gen` / `ptogen check` over the real specs, and over a synthetic tree of 1,000 specs;
2. the test-kernel suite cold (empty cache) and warm;
3. per elementwise op, simulator throughput on a 64x64 f32 tile next to a plain C++ loop;
4. TMATMUL f32 128x128x128: GFLOPS of the simulator, of the plain loop generated from its index
   notation and (with `--upstream DIR`) of upstream's CPU simulator, whether their output bits are
   identical, and the compile time of a kernel with one TMATMUL against either include tree
   (`--matmul` runs only this part).
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .cli import cflags, main
from .opkinds import kind as kind_of
from .paths import Layout, find_root
from .spec import expr as semantics
from .spec.load import load_specs, resolve_file
from .spec.yamlout import dump_text

TARGETS = {
    "check_ratio": 3.0,
    "check_1000": 2.0,
    "warm_suite": 5.0,
    "sim_ratio": 1.1,
    "cold_invocations": 400,
    "matmul_compile_ratio": 1.5,
}
UNITS = {"sim_ratio": "x", "check_ratio": "x", "cold_invocations": ""}


def _time(fn: Callable[[], object], repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def _quiet(argv: list[str]) -> int:
    """Run the CLI in-process with its output discarded."""
    import contextlib
    import io

    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main(argv)
    if code not in (0, None):  # a failing command would time its error path, not the work
        raise SystemExit(f"benchmark: `ptogen {' '.join(argv)}` failed: {err.getvalue().strip()}")
    return code or 0


def _copy_project(src: Path, dst: Path, with_generated: bool = True) -> None:
    for name in ("specs", "templates") + (("generated",) if with_generated else ()):
        shutil.copytree(src / name, dst / name)
    shutil.copy(src / ".clang-format", dst / ".clang-format")


def read_and_hash(proj: Path) -> int:
    """Read and sha256 every input (specs, templates, style, ptogen sources) and output (generated/):
    the least a no-change `check` must do. Returns the number of files."""
    from .paths import PACKAGE_DIR

    count = 0
    for top in (proj / "specs", proj / "templates", PACKAGE_DIR, proj / "generated"):
        for dirpath, _dirs, names in os.walk(top):
            if "__pycache__" in dirpath:
                continue
            for name in names:
                if top is PACKAGE_DIR and not (name.endswith(".py") or "runtime" in dirpath):
                    continue
                with open(os.path.join(dirpath, name), "rb") as fh:
                    hashlib.sha256(fh.read()).digest()
                count += 1
    hashlib.sha256((proj / ".clang-format").read_bytes()).digest()
    return count


def bench_generation(root: Path, repeat: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="ptogen-bench-") as tmp:
        proj = Path(tmp)
        _copy_project(root, proj)
        gen_cold = _time(lambda: _quiet(["--root", str(proj), "gen"]), 1)
        gen = _time(lambda: _quiet(["--root", str(proj), "gen"]), repeat)
        check = _time(lambda: _quiet(["--root", str(proj), "check"]), repeat)
        baseline = _time(lambda: read_and_hash(proj), repeat)
        spec = sorted((proj / "specs/ops").rglob("*.yaml"))[0]
        original = spec.read_text()
        spec.write_text(original + "# edited by the benchmark\n")  # new bytes, same outputs
        one_spec = _time(lambda: _quiet(["--root", str(proj), "check"]), 1)
        spec.write_text(original)
    return {
        "gen_real_cold": gen_cold,
        "gen_real": gen,
        "check_real": check,
        "baseline_real": baseline,
        "check_one_spec": one_spec,
    }


def synthetic_tree(root: Path, dst: Path, count: int) -> None:
    """`count` valid specs cloned from the real tile-scalar specs, in a synthetic instruction set."""
    _copy_project(root, dst, with_generated=False)
    shutil.rmtree(dst / "specs/ops")
    sources = sorted((root / "specs/ops/tile_scalar_and_immediate").glob("*.yaml"))
    # Written out whole (class and sets filled in), so each clone can take a name of its own.
    resolved = [resolve_file(p, root / "specs", root)[0] for p in sources]
    # enum attributes keep their own names
    resolved = [d for d in resolved if not any(o["kind"] == "attr" for o in d["operands"])]
    names = []
    for i in range(count):
        data = copy.deepcopy(resolved[i % len(resolved)])
        new = f"{data['mnemonic'].split('.', 1)[1]}x{i:04d}"
        data["mnemonic"] = f"pto.{new}"
        data["instruction_set"] = "synthetic"
        data["intrinsic"]["name"] = f"{data['intrinsic']['name']}X{i:04d}"
        (dst / "specs/ops/synthetic").mkdir(parents=True, exist_ok=True)
        (dst / f"specs/ops/synthetic/{new}.yaml").write_text(dump_text(data))
        names.append(f"pto.{new}")
    targets = (dst / "specs/targets.yaml").read_text()
    block = (
        "  - id: synthetic\n    title: Synthetic\n    kind: tile\n    doc_dir: tile/ops/synthetic\n"
        "    index_page: tile/synthetic.md\n    summary: Specs made by the benchmark.\n"
        f"    order: [{', '.join(names)}]\n"
    )
    anchor = "\ninstruction_sets:\n"
    (dst / "specs/targets.yaml").write_text(targets.replace(anchor, anchor + block, 1))
    # The site's catalogue lists every specified op under its instruction set.
    catalog = dst / "templates/site/isa_catalog.yaml"
    entry = f"  - group: tile\n    id: synthetic\n    title: Synthetic\n    ops: [{', '.join(names)}]\n"
    catalog.write_text(catalog.read_text().replace("instruction_sets:\n", "instruction_sets:\n" + entry, 1))


def copy_originals(root: Path) -> dict[str, dict[str, Any]]:
    """The resolved specs `scaled_tree` copies, by short name, in the order it copies them: every op
    of the op kinds that have three or more, except those with enum attributes (which keep their
    own names)."""
    from collections import Counter

    ops = load_specs(root / "specs", root).ops
    sizes = Counter(op.spec.semantics.kind for op in ops)
    resolved = {}
    for op in ops:
        data = resolve_file(root / op.path, root / "specs", root)[0]
        if sizes[op.spec.semantics.kind] >= 3 and not any(o["kind"] == "attr" for o in data["operands"]):
            resolved[op.spec.stem] = data
    return resolved


def scaled_tree(root: Path, dst: Path, total: int) -> list[str]:
    """A project of at least `total` ops: the real specs, and copies of them under new mnemonics and
    intrinsic names (each in its original's instruction set), made from every real op in turn of
    the op kinds that have three or more (a kind of one or two ops may know its ops by name). An
    op whose copy the specs refuse (its name means something, as a register group's does) is left
    out. Returns the copies' short names."""
    from .errors import SpecError, SpecErrors

    _copy_project(root, dst, with_generated=False)
    resolved = copy_originals(root)
    real = len(load_specs(root / "specs", root).ops)
    targets = (dst / "specs/targets.yaml").read_text()
    catalog = (dst / "templates/site/isa_catalog.yaml").read_text()
    while True:
        names: list[tuple[str, str]] = []  # (instruction set, mnemonic) of each copy
        shutil.rmtree(dst / "specs/ops/copies", ignore_errors=True)
        (dst / "specs/ops/copies").mkdir(parents=True)
        originals = list(resolved.values())
        for i in range(max(total - real, 0)):
            data = copy.deepcopy(originals[i % len(originals)])
            new = f"{data['mnemonic'].split('.', 1)[1]}x{i:04d}"
            data["mnemonic"] = f"pto.{new}"
            if data.get("intrinsic"):
                data["intrinsic"]["name"] = f"{data['intrinsic']['name']}X{i:04d}"
            _rename_dispatch(data, f"X{i:04d}")
            (dst / f"specs/ops/copies/{new}.yaml").write_text(dump_text(data))
            names.append((data["instruction_set"], data["mnemonic"]))
        text, listed = targets, catalog
        for iset in dict.fromkeys(i for i, _ in names):
            # each copy's page right before the set's first page, and in the site's catalogue
            copies = "".join(f"{n}, " for i, n in names if i == iset)
            start = text.index(f"  - id: {iset}\n")
            at = text.index("order: [", start) + len("order: [")
            text = text[:at] + copies + text[at:]
            doc_dir = re.search(r"doc_dir: (\S+)", text[start:])
            assert doc_dir is not None
            at = listed.index("ops: [", listed.index(f"    id: {doc_dir.group(1).rsplit('/', 1)[-1]}\n"))
            listed = listed[: at + len("ops: [")] + copies + listed[at + len("ops: [") :]
        (dst / "specs/targets.yaml").write_text(text)
        (dst / "templates/site/isa_catalog.yaml").write_text(listed)
        try:
            load_specs(dst / "specs", dst)
        except (SpecError, SpecErrors) as exc:
            refused = set(re.findall(r"specs/ops/copies/([A-Za-z0-9_]+)x\d{4}\.yaml:", str(exc)))
            if not refused & set(resolved):
                raise
            for name in refused:
                resolved.pop(name, None)
            continue
        return [n.removeprefix("pto.") for _, n in names]


def _rename_dispatch(data: object, suffix: str) -> None:
    """A copied spec's backend entry points (`dispatch: {impl: NAME}`) named anew, like its intrinsic:
    two ops must not define one `NAME_IMPL`."""
    if isinstance(data, dict):
        dispatch = data.get("dispatch")
        impl = dispatch.get("impl") if isinstance(dispatch, dict) else None
        # a helper the runtime defines keeps its name
        if isinstance(dispatch, dict) and isinstance(impl, str) and dispatch.get("call") != "helper":
            dispatch["impl"] = impl + suffix
        for value in data.values():
            _rename_dispatch(value, suffix)
    elif isinstance(data, list):
        for item in data:
            _rename_dispatch(item, suffix)


def bench_synthetic(root: Path, count: int, repeat: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="ptogen-bench-") as tmp:
        proj = Path(tmp)
        synthetic_tree(root, proj, count)
        gen = _time(lambda: _quiet(["--root", str(proj), "gen"]), 1)
        files = sum(1 for p in (proj / "generated").rglob("*") if p.is_file())
        check = _time(lambda: _quiet(["--root", str(proj), "check"]), repeat)
        baseline = _time(lambda: read_and_hash(proj), repeat)
        shutil.rmtree(proj / ".ptogen-cache", ignore_errors=True)
        cold = _time(lambda: _quiet(["--root", str(proj), "check"]), 1)
    return {
        "gen_1000": gen,
        "check_1000": check,
        "check_1000_cold": cold,
        "baseline_1000": baseline,
        "files_1000": float(files),
    }


def bench_suite(root: Path, cxx: str, cold: bool) -> dict[str, float]:
    """`ptogen test --cxx CXX` over every op, cold (empty cache) and warm, in-process so that the
    compiler processes it starts can be counted."""
    from collections import Counter

    from .testing import runner

    out: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="ptogen-cache-") as cache:
        # No compiler launcher: a ccache hit would time the cache, not the compiler.
        settings = runner.Settings(
            layout=Layout.make(root=root), compilers=[cxx], cache=Path(cache), launcher=[]
        )
        counts: Counter[str] = Counter()
        if cold:
            out["cold_suite"] = _time(lambda: runner.run(settings, invocations=counts), 1)
            out["cold_invocations"] = float(sum(counts.values()))
            for purpose, n in counts.items():
                out[f"cold_invocations_{purpose}"] = float(n)
        else:
            runner.run(settings)  # fill the cache
        out["warm_suite"] = _time(lambda: runner.run(settings), 1)
    return out


def bench_suite_scale(
    root: Path,
    cxx: str,
    total: int,
    tier: str,
    bundle: int,
    real: bool = True,
    only: list[str] | None = None,
) -> dict[str, float]:
    """The kernel suite cold (empty cache), as the README's test command runs it (`tier`, every op,
    `bundle` ops a program), over the real tree and over a copy of it scaled to `total` ops
    (`scaled_tree`, generated with `ptogen gen`): seconds, compiler processes and ops of each.
    `only`: just these real ops and their copies."""
    from collections import Counter

    from .testing import runner

    chosen: list[str] = []

    def cold(project: Path) -> dict[str, float]:
        with tempfile.TemporaryDirectory(prefix="ptogen-cache-") as cache:
            # No compiler launcher: a ccache hit would time the cache, not the compiler.
            settings = runner.Settings(
                layout=Layout.make(root=project),
                compilers=[cxx],
                cache=Path(cache),
                launcher=[],
                tier=tier,
                bundle=bundle,
                ops=chosen or None,
            )
            counts: Counter[str] = Counter()
            outcomes: list[runner.Outcome] = []
            seconds = _time(lambda: outcomes.extend(runner.run(settings, invocations=counts)), 1)
        failed = [o for o in outcomes if o.status == "fail"]
        if failed:
            first = failed[0]
            raise SystemExit(f"benchmark: the kernel suite of {project} failed: {first.name}: {first.detail}")
        ops = len(chosen) if chosen else len(runner.load_manifest(Layout.make(root=project)).ops)
        passed = float(sum(o.status == "pass" for o in outcomes))
        processes = float(sum(counts.values()))
        return {"seconds": seconds, "processes": processes, "ops": float(ops), "passed": passed}

    out: dict[str, float] = {}
    chosen[:] = only or []
    if real:
        out.update({f"suite_real_{k}": v for k, v in cold(root).items()})
    with tempfile.TemporaryDirectory(prefix="ptogen-bench-") as tmp:
        proj = Path(tmp)
        copies = scaled_tree(root, proj, total)
        if only:
            chosen[:] = [*only, *(c for c in copies if c.rsplit("x", 1)[0] in only)]
        # The real ops' formatted outputs, content-addressed: the copies' are formatted anew.
        if (root / ".ptogen-cache/format").is_dir():
            shutil.copytree(root / ".ptogen-cache/format", proj / ".ptogen-cache/format")
        _quiet(["--root", str(proj), "gen"])
        out.update({f"suite_scaled_{k}": v for k, v in cold(proj).items()})
    return out


def print_suite_scale(
    root: Path, cxx: str, total: int, tier: str, bundle: int, real: bool = True, only: list[str] | None = None
) -> None:
    print(f"== kernel suite, cold ({cxx}, {tier} tier, {bundle} ops a program; load {_load()})")
    figures = bench_suite_scale(root, cxx, total, tier, bundle, real, only)
    for name in ("real", "scaled"):
        if f"suite_{name}_ops" in figures:
            ops, seconds = figures[f"suite_{name}_ops"], figures[f"suite_{name}_seconds"]
            processes = int(figures[f"suite_{name}_processes"])
            passed = int(figures[f"suite_{name}_passed"])
            print(
                f"  {name:6} tree, {int(ops):4} ops: {seconds:7.1f} s, {processes} compiler processes"
                f" ({seconds / ops:.2f} s an op; {passed} checks passed)"
            )
    print(f"  load after: {_load()}")


def _load() -> str:
    """The machine's load averages (1, 5, 15 minutes), next to timings taken on a shared machine."""
    try:
        return " ".join(f"{x:.1f}" for x in os.getloadavg()) + f" on {os.cpu_count()} cores"
    except OSError:
        return "unknown"


SIM_PROGRAM = """#include <pto/pto-inst.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
using namespace pto;
using T = Tile<TileType::Vec, float, {edge}, {edge}>;
static void fill(T& t, float base) {{
    for (int i = 0; i < {n}; ++i) t.data()[i] = base + float(i % 97) / 32.0f;
}}
int main() {{
    T {tiles};
{fills}
    float a[{n}];
    double sink = 0;
    const int reps = {reps};
    // Best of five alternating rounds: one slow round (another process, a frequency change) must
    // not decide the ratio.
    double best_sim = 1e30, best_loop = 1e30;
{plain_setup}
    for (int round = 0; round < 5; ++round) {{
        auto t0 = std::chrono::steady_clock::now();
        for (int k = 0; k < reps; ++k) {{
            {call};
            sink += dst.data()[k % {n}];
            asm volatile("" ::: "memory");
        }}
        auto t1 = std::chrono::steady_clock::now();
        for (int k = 0; k < reps; ++k) {{
            for (int i = 0; i < {n}; ++i) a[i] = {plain};
            sink += a[k % {n}];
            asm volatile("" ::: "memory");
        }}
        auto t2 = std::chrono::steady_clock::now();
        best_sim = std::min(best_sim, std::chrono::duration<double>(t1 - t0).count());
        best_loop = std::min(best_loop, std::chrono::duration<double>(t2 - t1).count());
    }}
    std::printf("%.6f %.6f %g\\n", best_sim, best_loop, sink);
}}
"""


# The plain loop's float spelling of an expression: C++ operators, and `a > b ? a : b` for max/min
# (what a hand-written loop would use). It must not reuse the simulator's helpers for these, or the
# comparison would time the simulator against itself. Other functions (exp, sqrt, ...) keep the
# simulator's helper, which is a direct <cmath> call for float.
_PLAIN_OPS = {"+", "-", "*", "/"}


def plain_cpp(node: semantics.Node, ref: Callable[[str], str]) -> str:
    def go(n: semantics.Node) -> str:
        if n.op == "name":
            return ref(str(n.value))
        if n.op == "const":
            return f"{float(n.value)!r}f"  # type: ignore[arg-type]
        if n.op == "neg":
            return f"(-{go(n.args[0])})"
        if n.op == "bin" and n.value in _PLAIN_OPS:
            return f"({go(n.args[0])} {n.value} {go(n.args[1])})"
        if n.op == "cmp":
            return f"({go(n.args[0])} {n.value} {go(n.args[1])})"
        if n.op == "call" and n.value == "rounded":
            return go(n.args[0])  # rounding a float to float changes nothing
        if n.op == "call" and n.value in ("max", "min", "select"):
            args = [go(a) for a in n.args]
            if n.value == "select":
                return f"({args[0]} ? {args[1]} : {args[2]})"
            op = ">" if n.value == "max" else "<"
            return f"({args[0]} {op} {args[1]} ? {args[0]} : {args[1]})"
        if n.op == "call":
            return f"{semantics.FUNCTIONS[str(n.value)][1]}<float>({', '.join(go(a) for a in n.args)})"
        return semantics.to_cpp(n, ref, "float")

    return go(node)


def bench_simulator(
    root: Path, cxx: str, reps: int, only: set[str] | None = None, edge: int = 64
) -> list[tuple[str, float, float]]:
    layout = Layout.make(root=root)
    specs = load_specs(layout.specs, root)
    from .testing.runner import load_manifest

    manifest = load_manifest(layout).ops
    rows = []
    with tempfile.TemporaryDirectory(prefix="ptogen-sim-") as tmp:
        for loaded in specs.ops:
            spec = loaded.spec
            if only is not None and spec.stem not in only:
                continue
            entry = manifest[spec.stem]
            if spec.intrinsic is None or any(o.kind == "attr" for o in spec.operands):
                continue
            if not kind_of(spec.semantics.kind).whole_tile_bench or any(o.broadcast for o in spec.operands):
                continue  # the benchmark's program fills whole square tiles
            if not any(all(d == "float" for d in k.dtypes.values()) for k in entry.runtime):
                continue
            tiles = [o.name for o in spec.operands if o.kind == "tile"]
            if spec.semantics.domain != "dst":
                continue
            args = []
            for p in spec.intrinsic.params:
                if p.events:
                    if spec.intrinsic.tmp_in_events:
                        args.append(spec.intrinsic.tmp_in_events)
                elif p.type:
                    args.append(str(p.operand))
                else:
                    args.append("1.5f")
            names = {o.name for o in spec.operands if o.kind in ("tile", "scalar")}
            node = semantics.parse(spec.semantics.expr, names)

            def ref(n: str, spec=spec) -> str:  # type: ignore[no-untyped-def]
                return f"{n}_p[i]" if spec.operand(n).kind == "tile" else "1.5f"

            plain = plain_cpp(node, ref)
            used = semantics.names_used(node)
            plain_setup = "".join(
                f"    const float* {n}_p = {n}.data();\n" for n in tiles if n in used and n != "dst"
            )
            if "dst" in used:
                plain_setup += "    const float* dst_p = a;\n"
            source = SIM_PROGRAM.format(
                tiles=", ".join(tiles),
                fills="".join(f"    fill({n}, {1.0 + i * 0.5});\n" for i, n in enumerate(tiles)),
                n=edge * edge,
                edge=edge,
                reps=reps,
                call=f"{spec.intrinsic.name}({', '.join(args)})",
                plain=plain,
                plain_setup=plain_setup,
            )
            path = Path(tmp) / f"{spec.stem}.cpp"
            path.write_text(source)
            exe = Path(tmp) / spec.stem
            build = subprocess.run(
                [cxx, "-O3", "-std=c++20", *cflags(layout, None), "-Wno-unused", str(path), "-o", str(exe)],
                capture_output=True,
                text=True,
                check=False,
            )
            if build.returncode != 0:
                print(f"  skipped {spec.stem}: benchmark program does not build", file=sys.stderr)
                continue
            out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.split()
            sim, loop = float(out[0]), float(out[1])
            rows.append((spec.stem, reps * edge * edge / sim, reps * edge * edge / max(loop, 1e-9)))
    return rows


MATMUL_PROGRAM = r"""
#include <pto/pto-inst.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

using namespace pto;

constexpr int M = 128, K = 128, N = 128;
using TA = TileLeft<float, M, K>;
using TB = TileRight<float, K, N>;
using TC = TileAcc<float, M, N>;

template <typename F>
static double best_seconds(int reps, F run) {
    double best = 1e30;
    for (int round = 0; round < 5; ++round) {
        const auto t0 = std::chrono::steady_clock::now();
        for (int r = 0; r < reps; ++r)
            run();
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / reps;
        best = s < best ? s : best;
    }
    return best;
}

int main(int argc, char** argv) {
    TA a;
    TB b;
    TC c;
    TASSIGN(a, 0x0);
    TASSIGN(b, 0x0);
    TASSIGN(c, 0x0);
    std::uint32_t state = 12345u;  // values whose products and sums round: fused and unfused differ
    auto next = [&state]() {
        state = state * 1664525u + 1013904223u;
        const auto centred = static_cast<std::int32_t>(state >> 8) - (1 << 23);
        return static_cast<float>(centred) / static_cast<float>(1 << 22);
    };
    for (int i = 0; i < M * K; ++i) a.data()[i] = next();
    for (int i = 0; i < K * N; ++i) b.data()[i] = next();
    const int reps = {reps};
    const double flops = 2.0 * M * N * K;
    const double sim = best_seconds(reps, [&] { TMATMUL(c, a, b); });
    std::vector<unsigned char> out(sizeof(float) * M * N);
    std::memcpy(out.data(), &c.data()[0], out.size());
    std::printf("sim %.3f\n", flops / sim / 1e9);
#ifdef PTOGEN_PLAIN
    TC p;
    const double plain = best_seconds(reps, [&] { cpu::TMATMUL_plain(p, a, b); });
    std::printf("plain %.3f\n", flops / plain / 1e9);
    std::printf("plain_same %d\n", std::memcmp(out.data(), p.data(), out.size()) == 0 ? 1 : 0);
#endif
    std::FILE* f = std::fopen(argv[1], "wb");
    std::fwrite(out.data(), 1, out.size(), f);
    std::fclose(f);
    return argc > 1 ? 0 : 1;
}
"""

MATMUL_COMPILE = r"""
#include <pto/pto-inst.hpp>
using namespace pto;
void kernel() {
    TileLeft<half, 16, 32> a;
    TileRight<half, 32, 16> b;
    TileAcc<float, 16, 16> c;
    TMATMUL(c, a, b);
}
"""


def _upstream_flags(upstream: Path) -> list[str]:
    """How upstream's CPU simulator is built here: its include tree, one thread (the figures are
    single-threaded), the fixed-width integers its headers assume."""
    return ["-D__CPU_SIM", f"-I{upstream / 'include'}", "-include", "cstdint", "-DPTO_CPU_MAX_THREADS=1"]


def bench_matmul(root: Path, cxx: str, upstream: Path | None, reps: int = 20) -> dict[str, float]:
    """TMATMUL f32 128x128x128 at -O2 without -m flags: GFLOPS of ptogen's simulator, of the plain
    loop of its index notation and of upstream's simulator, whether the output bits agree, and the
    compile time (-O0, median of 3) of a kernel with one TMATMUL against each include tree."""
    layout = Layout.make(root=root)
    builds = {"ptogen": ["-DPTOGEN_PLAIN", *cflags(layout, None)]}
    if upstream is not None:
        builds["upstream"] = _upstream_flags(upstream)
    figures: dict[str, float] = {}
    outputs: dict[str, bytes] = {}
    with tempfile.TemporaryDirectory(prefix="ptogen-matmul-") as tmp:
        src = Path(tmp) / "matmul.cpp"
        src.write_text(MATMUL_PROGRAM.replace("{reps}", str(reps)))
        small = Path(tmp) / "one_tmatmul.cpp"
        small.write_text(MATMUL_COMPILE)
        for name, flags in builds.items():
            exe = Path(tmp) / name
            cmd = [cxx, "-std=c++20", "-O2", *flags, str(src), "-o", str(exe)]
            built = subprocess.run(cmd, capture_output=True, text=True, check=False)
            if built.returncode != 0:
                print(f"  {name}: the benchmark program does not build: {built.stderr.strip()[:400]}")
                continue
            out = Path(tmp) / f"{name}.bin"
            run = subprocess.run([str(exe), str(out)], capture_output=True, text=True, check=True).stdout
            for line in run.splitlines():
                key, value = line.split()
                figures[f"{name}_{key}"] = float(value)
            outputs[name] = out.read_bytes()
            obj = Path(tmp) / f"{name}.o"
            compile_cmd = [cxx, "-std=c++20", "-O0", *flags, "-c", str(small), "-o", str(obj)]

            def compile_once(c: list[str] = compile_cmd) -> None:
                subprocess.run(c, check=True, capture_output=True)

            figures[f"{name}_compile"] = _time(compile_once, 3)
    if "ptogen" in outputs and "upstream" in outputs:
        figures["upstream_same"] = float(outputs["ptogen"] == outputs["upstream"])
    return figures


def print_matmul(root: Path, cxx: str, upstream: Path | None) -> dict[str, float]:
    print(f"== TMATMUL f32 128x128x128, GFLOPS ({cxx} -O2, no -m flags, one thread, best of 5 rounds)")
    f = bench_matmul(root, cxx, upstream)
    if "ptogen_sim" in f:
        print(f"  ptogen simulator:    {f['ptogen_sim']:8.2f}")
        print(
            f"  plain exact loop:    {f['ptogen_plain']:8.2f}"
            f"  (bits identical: {bool(f['ptogen_plain_same'])})"
        )
    if "upstream_sim" in f:
        print(
            f"  upstream simulator:  {f['upstream_sim']:8.2f}"
            f"  (bits identical: {bool(f.get('upstream_same'))})"
        )
        if "ptogen_sim" in f:
            f["matmul_speedup"] = f["ptogen_sim"] / max(f["upstream_sim"], 1e-9)
            print(f"  speed-up over upstream: {f['matmul_speedup']:.1f}x")
    if "ptogen_compile" in f:
        line = f"  compile, one TMATMUL (-O0): ptogen {f['ptogen_compile']:.2f} s"
        if "upstream_compile" in f:
            f["matmul_compile_ratio"] = f["ptogen_compile"] / max(f["upstream_compile"], 1e-9)
            line += f", upstream {f['upstream_compile']:.2f} s ({f['matmul_compile_ratio']:.2f}x)"
        print(line)
    return f


def bench_fuzz(root: Path, cases: int, seed: int) -> int:
    """Fuzz `cases` mutated specs (ptogen/fuzzing.py); print the figures and every problem.
    Returns the number of problem cases (crashes, hangs, unlocated errors, injections)."""
    import random

    from .fuzzing import PAYLOADS, Harness, mutate, seed_specs

    rng = random.Random(seed)
    seeds = seed_specs(root)
    alphabet = "abc xyz_019|`<>*/\\\"'{}[]:#&!?-\n\t\0\x1b\u202e\u2066\u2028\u00e9\u4e2d"
    codes: dict[int, int] = {}
    slowest, total, bad = 0.0, 0.0, 0
    with tempfile.TemporaryDirectory(prefix="ptogen-fuzz-") as work:
        harness = Harness(root, Path(work))
        for _ in range(cases):
            rel = rng.choice(sorted(seeds))
            if rng.random() < 0.5:
                payload = rng.choice(PAYLOADS)
            else:
                payload = "".join(rng.choice(alphabet) for _ in range(rng.randrange(80)))
            outcome = harness.run(
                rel, mutate(seeds[rel], rng.randrange(1 << 16), rng.randrange(1 << 16), payload)
            )
            codes[outcome.code] = codes.get(outcome.code, 0) + 1
            slowest, total = max(slowest, outcome.seconds), total + outcome.seconds
            problems = outcome.problems()
            if problems:
                bad += 1
                print(f"  PROBLEM in {rel} with {payload[:60]!r}: {problems[0][:300]}")
    print(f"  {cases} cases (seed {seed}): exit 0: {codes.get(0, 0)}, exit 2: {codes.get(2, 0)}")
    print(f"  crashes: {codes.get(-1, 0)}, hangs: {codes.get(-2, 0)}, cases with any problem: {bad}")
    print(f"  time per case: mean {total / max(cases, 1) * 1000:.0f} ms, slowest {slowest:.2f} s")
    return bad


def print_simulator(root: Path, cxx: str, reps: int, only: set[str] | None) -> float:
    """Print the simulator-throughput table; returns the worst simulator/plain-loop ratio."""
    print(f"== simulator throughput, 64x64 f32, elements/s ({cxx} -O3, best of 5 rounds)")
    rows = bench_simulator(root, cxx, reps, only)
    print(f"  {'op':10} {'simulator':>12} {'plain loop':>12} {'ratio':>7}")
    worst = 0.0
    for name, sim, loop in rows:
        ratio = loop / sim
        worst = max(worst, ratio)
        print(f"  {name:10} {sim:12.3e} {loop:12.3e} {ratio:7.2f}")
    # Tile-tile against tile-scalar max/min: the same exact maximum, one varying operand more.
    speed = {name: sim for name, sim, _loop in rows}
    pairs = [(p, q) for p, q in (("tmax", "tmaxs"), ("tmin", "tmins")) if p in speed and q in speed]
    for pair, single in pairs:
        a, b = 1e9 / speed[pair], 1e9 / speed[single]
        print(f"  {pair.upper()} vs {single.upper()}: {a:.3f} vs {b:.3f} ns per element ({a / b:.2f}x)")
    # Three 64x64 f32 tiles (48 KiB) do not fit a 32 KiB L1 data cache where a tile-scalar op's two
    # do: the same pairs on 32x32 tiles (12 KiB) compare the computation itself.
    if pairs:
        small = {
            n: sim for n, sim, _ in bench_simulator(root, cxx, reps * 4, {x for p in pairs for x in p}, 32)
        }
        for pair, single in pairs:
            if pair in small and single in small:
                a, b = 1e9 / small[pair], 1e9 / small[single]
                what = f"{pair.upper()} vs {single.upper()}, 32x32 tiles (in L1)"
                print(f"  {what}: {a:.3f} vs {b:.3f} ns per element ({a / b:.2f}x)")
    return worst


def main_bench(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m ptogen.bench", description=__doc__)
    ap.add_argument("--quick", action="store_true", help="skip the cold kernel-suite run (minutes)")
    ap.add_argument("--cxx", default="g++")
    ap.add_argument("--specs", type=int, default=1000, help="size of the synthetic spec tree")
    ap.add_argument("--reps", type=int, default=2000, help="simulator repetitions per op")
    ap.add_argument("--fuzz", type=int, metavar="N", help="only fuzz N mutated specs and print the figures")
    ap.add_argument("--seed", type=int, default=12, help="random seed of --fuzz")
    ap.add_argument(
        "--upstream", type=Path, metavar="DIR", help="an upstream pto-isa checkout to compare TMATMUL with"
    )
    ap.add_argument("--matmul", action="store_true", help="only the TMATMUL figures")
    ap.add_argument(
        "--sim", metavar="OPS", help="only the simulator throughput, of these ops (comma-separated, or `all`)"
    )
    ap.add_argument(
        "--suite-scale",
        type=int,
        metavar="N",
        help="only the kernel suite's cold time and compiler processes, on the real tree and on one of N ops",
    )
    ap.add_argument("--tier", default="quick", choices=["quick", "full"], help="tier of --suite-scale")
    ap.add_argument(
        "--bundle", type=int, default=None, metavar="K", help="ops a test program holds (--suite-scale)"
    )
    ap.add_argument("--no-real", action="store_true", help="--suite-scale: leave out the real tree")
    ap.add_argument(
        "--suite-ops", metavar="OPS", help="--suite-scale: only these ops (comma-separated) and their copies"
    )
    args = ap.parse_args(argv)
    root = find_root()
    if args.suite_scale is not None:
        from .testing.runner import BUNDLE_OPS

        bundle = args.bundle if args.bundle is not None else BUNDLE_OPS
        only = args.suite_ops.split(",") if args.suite_ops else None
        print_suite_scale(root, args.cxx, args.suite_scale, args.tier, bundle, not args.no_real, only)
        return 0
    if args.fuzz is not None:
        print(f"== fuzzing {args.fuzz} mutated specs")
        return 1 if bench_fuzz(root, args.fuzz, args.seed) else 0
    figures: dict[str, float] = {}
    if args.matmul:
        print_matmul(root, args.cxx, args.upstream)
        return 0
    if args.sim is not None:
        only = None if args.sim == "all" else set(args.sim.split(","))
        figures["sim_ratio"] = print_simulator(root, args.cxx, args.reps, only)
        return 0
    print("== generation (median of 3)")
    figures.update(bench_generation(root, 3))
    count = len(list((root / "specs/ops").rglob("*.yaml")))
    print(f"  ptogen gen   over {count} specs: {figures['gen_real']:.2f} s")
    print(f"  ptogen gen   cold (no cache):  {figures['gen_real_cold']:.2f} s")
    print(f"  ptogen check over the same:   {figures['check_real']:.2f} s")
    ratio = figures["check_real"] / max(figures["baseline_real"], 1e-9)
    figures["check_ratio"] = ratio
    print(f"  read+hash baseline:           {figures['baseline_real']:.3f} s (check/baseline {ratio:.1f}x)")
    print(f"  check after editing one spec: {figures['check_one_spec']:.2f} s")
    print(f"== synthetic tree of {args.specs} specs")
    figures.update(bench_synthetic(root, args.specs, 1))
    print(f"  gen:   {figures['gen_1000']:.1f} s ({int(figures['files_1000'])} files)")
    print(f"  check: {figures['check_1000']:.2f} s warm, {figures['check_1000_cold']:.1f} s cold (no cache)")
    ratio_1000 = figures["check_1000"] / max(figures["baseline_1000"], 1e-9)
    print(f"  read+hash baseline: {figures['baseline_1000']:.3f} s (check/baseline {ratio_1000:.1f}x)")
    print(f"== kernel suite ({args.cxx})")
    figures.update(bench_suite(root, args.cxx, cold=not args.quick))
    if "cold_suite" in figures:
        print(f"  cold (empty cache): {figures['cold_suite']:.1f} s")
        parts = ", ".join(
            f"{int(v)} {k.removeprefix('cold_invocations_')}"
            for k, v in sorted(figures.items())
            if k.startswith("cold_invocations_")
        )
        print(f"  compiler invocations, cold: {int(figures['cold_invocations'])} ({parts})")
    print(f"  warm (cached):      {figures['warm_suite']:.1f} s")
    figures["sim_ratio"] = print_simulator(root, args.cxx, args.reps, None)
    figures.update(print_matmul(root, args.cxx, args.upstream))
    print("== targets")
    for key, limit in TARGETS.items():
        value = figures.get(key)
        if value is not None:
            unit = UNITS.get(key, " s")
            verdict = "ok" if value <= limit else "over"
            print(f"  {key:16} {value:8.2f}{unit} (target <= {limit}{unit.strip() or ''}): {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main_bench())
