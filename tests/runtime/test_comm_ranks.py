"""A communication kernel's ranks under both launchers of pto/comm/ranks.hpp, from one source: as
threads of one process (the default) and as MPI processes sharing memory windows (PTO_COMM_MPI,
`ptogen cflags --mpi`, mpirun). A ring of TPUT/TNOTIFY/TWAIT with atomic adds into one rank (float
and half), and TREDUCE, TGATHER and TBROADCAST from the root, give the same results under both, with 2
and 4 ranks. The difference the process launcher exists for: a plain load through a peer's address
reads the peer's memory on threads, and stops the rank with the call site on processes, as the device
refuses it. A TWAIT that never holds keeps its message (signal, value, comparison, call site) there.

The thread runs are in the quick tier (the program shares the precompiled header of the other comm
tests). The process runs need a second build against MPI and four mpirun jobs (about 8 s of a
worker): they run in the full tier, as in CI, which installs Open MPI."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from ptogen.buildsys import MpiMissing, mpi_flags
from ptogen.testing.tiers import TIER_ENV, default_tier

from ..compilers import COMPILERS, build_shared_program, require

PROGRAM = r"""
#include <pto/pto-inst.hpp>
#include <pto/comm/ranks.hpp>
#include <cstdio>
#include <string>

using namespace pto;
using namespace pto::comm;

constexpr int N = 8;
using Row = GlobalTensor<float, Shape<1, 1, 1, 1, N>, Stride<N, N, N, N, 1>>;
using Rows = GlobalTensor<float, Shape<1, 1, 1, 4, N>, Stride<4 * N, 4 * N, 4 * N, N, 1>>;
using Staging = Tile<TileType::Vec, float, 1, N>;
using HalfRow = GlobalTensor<half, Shape<1, 1, 1, 1, N>, Stride<N, N, N, N, 1>>;
using HalfStaging = Tile<TileType::Vec, half, 1, 16>;

// One line per call (ranks print at once; a process's line is written whole).
template <typename T>
static void print(int rank, const char* what, const T* v, int n) {
    char line[1024];
    int len = std::snprintf(line, sizeof line, "rank %d %s:", rank, what);
    for (int i = 0; i < n; ++i)
        len += std::snprintf(line + len, sizeof line - len, " %g", double(float(v[i])));
    std::printf("%s\n", line);
    std::fflush(stdout);
}

// A ring: every rank puts its row into the next rank's window and notifies it, then waits for its
// own row from the previous rank; every rank also adds its row into rank 0's sums (AtomicAdd: float,
// which MPI adds, and half, which it does not).
static void ring(RankContext& ctx) {
    const int me = ctx.Id(), n = ctx.Size(), next = (me + 1) % n;
    float* inbox = ctx.Alloc<float>(N);
    float* sum = ctx.Alloc<float>(N);
    half* halves = ctx.Alloc<half>(N);
    int32_t* arrived = ctx.Alloc<int32_t>(1);
    float mine[N], got[N];
    half small[N];
    for (int i = 0; i < N; ++i)
        mine[i] = float(100 * me + i), small[i] = half(float(me + 1) + 0.25f * float(i));
    Staging staging;
    TASSIGN(staging, 0x0);
    Row src(mine), to(ctx.Peer(inbox, next)), total(ctx.Peer(sum, 0));
    comm::TPUT(to, src, staging);
    comm::TPUT<AtomicType::AtomicAdd>(total, src, staging);
    HalfRow hsrc(small), htotal(ctx.Peer(halves, 0));
    HalfStaging hstaging;
    TASSIGN(hstaging, 0x200);
    comm::TPUT(htotal, hsrc, hstaging, AtomicType::AtomicAdd);
    Signal theirs(ctx.Peer(arrived, next)), own(arrived);
    comm::TNOTIFY(theirs, 1, NotifyOp::AtomicAdd);
    comm::TWAIT(own, 1, WaitCmp::EQ);
    Staging tile;
    TASSIGN(tile, 0x100);
    Row in(inbox), out(got);
    TLOAD(tile, in);
    TSTORE(out, tile);
    print(me, "inbox", got, N);
    ctx.Barrier();
    if (me == 0) {
        const bool one = comm::TTEST(own, 1, WaitCmp::EQ), two = comm::TTEST(own, 2, WaitCmp::GE);
        std::printf("rank 0 test: %d %d\n", int(one), int(two));
        print(me, "sum", sum, N);
        print(me, "half sum", halves, N);
    }
}

// Collectives from rank 0: the sum of every rank's row, every rank's row gathered, and rank 0's
// row broadcast into every rank's window.
static void collectives(RankContext& ctx) {
    const int me = ctx.Id(), n = ctx.Size();
    float* part = ctx.Alloc<float>(N);
    float* copy = ctx.Alloc<float>(N);
    for (int i = 0; i < N; ++i)
        part[i] = float((me + 1) * (i + 1) * (me % 2 == 0 ? 1 : -1));
    ctx.Barrier();
    if (me == 0) {
        Row parts[4] = {Row(part), Row(part), Row(part), Row(part)};
        Row copies[4] = {Row(copy), Row(copy), Row(copy), Row(copy)};
        for (int r = 0; r < n; ++r)
            parts[r] = Row(ctx.Peer(part, r)), copies[r] = Row(ctx.Peer(copy, r));
        ParallelGroup<Row> group(parts, n, 0), targets(copies, n, 0);
        float reduced[N], gathered[4 * N] = {};
        Row result(reduced);
        Rows all(gathered);
        Staging acc, recv;
        TASSIGN(acc, 0x0);
        TASSIGN(recv, 0x100);
        comm::TREDUCE(group, result, acc, recv, ReduceOp::Sum);
        print(me, "reduce", reduced, N);
        comm::TGATHER(group, all, acc);
        print(me, "gather", gathered, n * N);
        Row from(part);
        comm::TBROADCAST(targets, from, acc);
    }
    ctx.Barrier();
    print(me, "broadcast", copy, N);
}

// Reads the next rank's window with a plain load, no comm op.
static void peek(RankContext& ctx) {
    const int me = ctx.Id();
    float* mine = ctx.Alloc<float>(N);
    for (int i = 0; i < N; ++i)
        mine[i] = float(10 * me + i);
    ctx.Barrier();
    Staging tile;
    TASSIGN(tile, 0x0);
    float seen[N];
    Row peer(ctx.Peer(mine, (me + 1) % ctx.Size())), out(seen);
    TLOAD(tile, peer);  // PLAIN_PEER_LOAD
    TSTORE(out, tile);
    print(me, "peeked", seen, N);
    ctx.Barrier();
}

static void deadlock(RankContext& ctx) {
    int32_t* never = ctx.Alloc<int32_t>(1);
    Signal s(ctx.Peer(never, (ctx.Id() + 1) % ctx.Size()));
    comm::TWAIT(s, 1, WaitCmp::EQ);  // WAITS_FOR_EVER
}

int main(int argc, char** argv) {
    const std::string what = argc > 1 ? argv[1] : "";
    RankLaunchOptions options;
    options.window_bytes = 4096;
    if (what == "all")
        return LaunchRanks(options, [](RankContext& ctx) { ring(ctx); ctx.Barrier(); collectives(ctx); });
    if (what == "peek")
        return LaunchRanks(options, peek);
    if (what == "deadlock")
        return LaunchRanks(options, deadlock);
    return 2;
}
"""

FLAGS = ["-g", "-DPTO_SIM_CALL_SITE"]  # the other comm tests' flags: one precompiled header


def expected(n: int) -> set[str]:
    """Every line the "all" run prints with n ranks, from the kernels' stated semantics."""
    row = range(8)
    parts = [[(r + 1) * (i + 1) * (1 if r % 2 == 0 else -1) for i in row] for r in range(n)]

    def line(rank: int, what: str, values: list[float]) -> str:
        return f"rank {rank} {what}: " + " ".join(f"{v:g}" for v in values)

    lines = {line(r, "inbox", [100 * ((r - 1) % n) + i for i in row]) for r in range(n)}
    lines |= {line(r, "broadcast", parts[0]) for r in range(n)}
    lines |= {
        "rank 0 test: 1 0",
        line(0, "sum", [sum(100 * r + i for r in range(n)) for i in row]),
        line(0, "half sum", [sum(r + 1 + 0.25 * i for r in range(n)) for i in row]),
        line(0, "reduce", [sum(p[i] for p in parts) for i in row]),
        line(0, "gather", [v for p in parts for v in p]),
    }
    return lines


def line_of(marker: str) -> int:
    return next(i for i, t in enumerate(PROGRAM.splitlines(), 1) if marker in t)


@pytest.fixture(scope="module")
def threads(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_shared_program(require(COMPILERS[0]), PROGRAM, tmp_path_factory, "ranks", FLAGS)


@pytest.fixture(scope="module")
def processes(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """The same program built with `ptogen cflags --mpi`'s flags, and how mpirun starts it."""
    if default_tier() != "full":
        pytest.skip(f"MPI ranks: a second build and mpirun jobs, run with {TIER_ENV}=full, as in CI")
    try:
        compile_flags, link_flags = mpi_flags()
        mpirun = shutil.which("mpirun")
        if mpirun is None:
            raise MpiMissing("no mpirun on PATH: install MPI (Debian: apt-get install openmpi-bin)")
    except MpiMissing as e:
        if os.environ.get("CI"):
            pytest.fail(f"{e} (CI is set: .ci/run installs Open MPI)")
        pytest.skip(str(e))
    exe = build_shared_program(
        require(COMPILERS[0]), PROGRAM, tmp_path_factory, "ranks_mpi", [*FLAGS, *compile_flags], link_flags
    )
    # Four ranks on two cores; as root, mpirun wants to be told.
    launch = [mpirun, "--oversubscribe", *(["--allow-run-as-root"] if os.geteuid() == 0 else [])]
    return exe, launch


def run_threads(exe: Path, what: str, ranks: int) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PTO_COMM_RANKS": str(ranks)}
    return subprocess.run([str(exe), what], capture_output=True, text=True, timeout=60, env=env)


def run_processes(
    processes: tuple[Path, list[str]], what: str, ranks: int, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    exe, launch = processes
    return subprocess.run(
        [*launch, "-n", str(ranks), str(exe), what],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **(env or {})},
    )


@pytest.mark.parametrize("ranks", [2, 4])
def test_threads_run_the_ring_and_the_collectives(threads: Path, ranks: int) -> None:
    out = run_threads(threads, "all", ranks)
    assert out.returncode == 0, out.stderr
    assert set(out.stdout.splitlines()) == expected(ranks)


@pytest.mark.parametrize("ranks", [2, 4])
def test_processes_run_the_ring_and_the_collectives(processes: tuple[Path, list[str]], ranks: int) -> None:
    out = run_processes(processes, "all", ranks)
    assert out.returncode == 0, out.stderr
    assert set(out.stdout.splitlines()) == expected(ranks)


def test_threads_let_a_plain_load_read_a_peers_window(threads: Path) -> None:
    out = run_threads(threads, "peek", 2)
    assert out.returncode == 0, out.stderr
    assert set(out.stdout.splitlines()) == {
        "rank 0 peeked: " + " ".join(str(10 + i) for i in range(8)),
        "rank 1 peeked: " + " ".join(str(i) for i in range(8)),
    }


def test_processes_stop_a_plain_load_of_a_peers_window_at_its_call_site(
    processes: tuple[Path, list[str]],
) -> None:
    out = run_processes(processes, "peek", 2)
    assert out.returncode != 0 and "peeked" not in out.stdout
    errors = [line for line in out.stderr.splitlines() if line.startswith("PTO runtime error")]
    assert errors, out.stderr
    assert re.fullmatch(
        r"PTO runtime error: rank ([01]) touched byte 0 of rank (?!\1)[01]'s window with a plain load or "
        r"store; ranks are separate processes \(PTO_COMM_MPI\), so a peer's memory is reached only through "
        r"the comm ops \(TGET, TPUT, TNOTIFY, \.\.\.\), as on the device",
        errors[0],
    ), errors[0]
    if shutil.which("addr2line"):
        assert f"ranks_mpi.cpp:{line_of('PLAIN_PEER_LOAD')}" in out.stderr, out.stderr


def test_processes_end_a_twait_that_never_holds_with_its_message(processes: tuple[Path, list[str]]) -> None:
    start = time.monotonic()
    out = run_processes(processes, "deadlock", 2, {"PTO_CPU_SIM_TWAIT_MAX_SPINS": "300"})
    assert time.monotonic() - start < 30
    assert out.returncode != 0
    first = next(line for line in out.stderr.splitlines() if line.startswith("PTO runtime error"))
    assert re.match(
        r"PTO runtime error: TWAIT: the signal at 0x[0-9a-f]+ \(byte 0 of rank ([01])'s window, polled by "
        r"rank (?!\1)[01]\) holds 0 and never satisfied `signal == 1` in 300 polls",
        first,
    ), first
    if shutil.which("addr2line"):
        assert f"ranks_mpi.cpp:{line_of('WAITS_FOR_EVER')}" in out.stderr, out.stderr


def test_user_guides_ring_is_the_program_these_tests_build() -> None:
    from ..helpers import ROOT

    guide = (ROOT / "generated/docs/user-guide.md").read_text(encoding="utf-8")
    section = guide.split("## Communication kernels as ranks", 1)[1]
    shown = re.search(r"```cpp\n(.*?)```", section, re.S)
    assert shown and "comm::TPUT(" in shown.group(1) and shown.group(1) in PROGRAM
