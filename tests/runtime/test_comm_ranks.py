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

// A ring: every rank puts its row into the next rank's inbox and notifies it, then waits until the
// previous rank has notified it and reads its own inbox.
static void ring(RankContext& ctx) {
    const int me = ctx.Id(), next = (me + 1) % ctx.Size();
    float* inbox = ctx.Alloc<float>(N);  // at the same offset of every rank's window
    int32_t* arrived = ctx.Alloc<int32_t>(1);
    float mine[N], got[N];
    for (int i = 0; i < N; ++i)
        mine[i] = float(100 * me + i);
    Staging staging;
    TASSIGN(staging, 0x0);
    Row src(mine), to(ctx.Peer(inbox, next));
    comm::TPUT(to, src, staging);
    Signal theirs(ctx.Peer(arrived, next)), own(arrived);
    comm::TNOTIFY(theirs, 1, NotifyOp::AtomicAdd);
    comm::TWAIT(own, 1, WaitCmp::EQ);
    Row in(inbox), out(got);
    TLOAD(staging, in);  // this rank's own window: a plain load
    TSTORE(out, staging);
    print(me, "inbox", got, N);
}

// Every rank adds its row into rank 0's sums (float, which MPI adds, and half, which it does not),
// fetches the next rank's row (TGET), puts its row into the next rank's echo asynchronously
// (TPUT_ASYNC) and sets the next rank's flag, which TTEST then reads.
static void atomics(RankContext& ctx) {
    const int me = ctx.Id(), next = (me + 1) % ctx.Size();
    float* sum = ctx.Alloc<float>(N);
    half* halves = ctx.Alloc<half>(N);
    float* row = ctx.Alloc<float>(N);
    int32_t* flag = ctx.Alloc<int32_t>(1);
    float* echo = ctx.Alloc<float>(N);
    float mine[N], fetched[N];
    half small[N];
    for (int i = 0; i < N; ++i) {
        mine[i] = row[i] = float(100 * me + i);  // `row` is in this rank's window
        small[i] = half(float(me + 1) + 0.25f * float(i));
    }
    Staging staging;
    HalfStaging hstaging;
    TASSIGN(staging, 0x0);
    TASSIGN(hstaging, 0x200);
    Row src(mine), total(ctx.Peer(sum, 0));
    HalfRow hsrc(small), htotal(ctx.Peer(halves, 0));
    Signal theirs(ctx.Peer(flag, next)), own(flag);
    ctx.Barrier();
    comm::TPUT<AtomicType::AtomicAdd>(total, src, staging);
    comm::TPUT(htotal, hsrc, hstaging, AtomicType::AtomicAdd);
    comm::TNOTIFY(theirs, me + 1, NotifyOp::Set);
    Row there(ctx.Peer(row, next)), back(fetched);
    comm::TGET(back, there, staging);
    print(me, "fetched", fetched, N);
    Row echoed(ctx.Peer(echo, next));
    AsyncSession session;
    const AsyncEvent put = comm::TPUT_ASYNC(echoed, src, session);
    if (!put.Wait(session))
        std::printf("rank %d: TPUT_ASYNC did not complete\n", me);
    ctx.Barrier();
    print(me, "echo", echo, N);
    const int prev = (me + ctx.Size() - 1) % ctx.Size();
    const bool set = comm::TTEST(own, prev + 1, WaitCmp::EQ), unset = comm::TTEST(own, 0, WaitCmp::EQ);
    std::printf("rank %d test: %d %d\n", me, int(set), int(unset));
    if (me == 0) {
        print(me, "sum", sum, N);
        print(me, "half sum", halves, N);
    }
}

// Collectives from rank 0: the sum of every rank's row, every rank's row gathered, the gathered rows
// negated and scattered back, and rank 0's row broadcast into every rank's window.
static void collectives(RankContext& ctx) {
    const int me = ctx.Id(), n = ctx.Size();
    float* part = ctx.Alloc<float>(N);
    float* copy = ctx.Alloc<float>(N);
    float* scattered = ctx.Alloc<float>(N);
    for (int i = 0; i < N; ++i)
        part[i] = float((me + 1) * (i + 1) * (me % 2 == 0 ? 1 : -1));
    ctx.Barrier();
    if (me == 0) {
        Row parts[4] = {Row(part), Row(part), Row(part), Row(part)};
        Row copies[4] = {Row(copy), Row(copy), Row(copy), Row(copy)};
        for (int r = 0; r < n; ++r)
            parts[r] = Row(ctx.Peer(part, r)), copies[r] = Row(ctx.Peer(copy, r));
        ParallelGroup<Row> group(parts, n, 0), targets(copies, n, 0);
        Row scatters[4] = {Row(part), Row(part), Row(part), Row(part)};
        for (int r = 0; r < n; ++r)
            scatters[r] = Row(ctx.Peer(scattered, r));
        ParallelGroup<Row> receivers(scatters, n, 0);
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
        for (int i = 0; i < n * N; ++i)
            gathered[i] = -gathered[i];
        comm::TSCATTER(receivers, all, acc);
        Row from(part);
        comm::TBROADCAST(targets, from, acc);
    }
    ctx.Barrier();
    print(me, "broadcast", copy, N);
    print(me, "scattered", scattered, N);
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

// The ranks' second allocations differ: the symmetric heap would place objects apart.
static void asymmetric(RankContext& ctx) {
    ctx.Alloc<float>(N);
    ctx.Alloc<float>(ctx.Id() == 0 ? N : 2 * N);  // UNEVEN_ALLOC
}

int main(int argc, char** argv) {
    const std::string what = argc > 1 ? argv[1] : "";
    RankLaunchOptions options;
    options.window_bytes = 4096;
    if (what == "all")
        return LaunchRanks(options, [](RankContext& ctx) {
            ring(ctx);
            ctx.Barrier();
            atomics(ctx);
            ctx.Barrier();
            collectives(ctx);
        });
    if (what == "peek")
        return LaunchRanks(options, peek);
    if (what == "deadlock")
        return LaunchRanks(options, deadlock);
    if (what == "asymmetric")
        return LaunchRanks(options, asymmetric);
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
    lines |= {line(r, "fetched", [100 * ((r + 1) % n) + i for i in row]) for r in range(n)}
    lines |= {f"rank {r} test: 1 0" for r in range(n)}
    lines |= {line(r, "echo", [100 * ((r - 1) % n) + i for i in row]) for r in range(n)}
    lines |= {line(r, "broadcast", parts[0]) for r in range(n)}
    lines |= {line(r, "scattered", [-v for v in parts[r]]) for r in range(n)}
    lines |= {
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


def uneven_allocation(stderr: str, pattern: str, program: str) -> None:
    """The rank's message (`pattern` after the op) and, where addr2line is, its call site."""
    first = next(line for line in stderr.splitlines() if line.startswith("PTO runtime error"))
    assert re.fullmatch(
        r"PTO runtime error: RankContext::Alloc: allocation 1 asks for "
        + pattern
        + r": every rank allocates the same sizes in the same order",
        first,
    ), first
    if shutil.which("addr2line"):
        assert f"{program}.cpp:{line_of('UNEVEN_ALLOC')}" in stderr, stderr


def test_threads_stop_ranks_that_allocate_unevenly(threads: Path) -> None:
    out = run_threads(threads, "asymmetric", 2)
    assert out.returncode != 0
    uneven_allocation(
        out.stderr, r"(32 bytes on rank 0 and 64|64 bytes on rank 1 and 32) on another rank", "ranks"
    )


def test_processes_stop_ranks_that_allocate_unevenly(processes: tuple[Path, list[str]]) -> None:
    out = run_processes(processes, "asymmetric", 2)
    assert out.returncode != 0
    uneven_allocation(
        out.stderr,
        r"(32 bytes on rank 0|64 bytes on rank 1) and between 32 and 64 across the ranks",
        "ranks_mpi",
    )


def test_user_guides_ring_is_the_program_these_tests_build() -> None:
    from ..helpers import ROOT

    guide = (ROOT / "generated/docs/user-guide.md").read_text(encoding="utf-8")
    section = guide.split("## Communication kernels as ranks", 1)[1]
    shown = re.search(r"```cpp\n(.*?)```", section, re.S)
    assert shown and "comm::TPUT(" in shown.group(1) and shown.group(1) in PROGRAM
