"""Many simulated cores (ptogen/runtime/include/pto/cpu/execution_context.hpp, NPUMemoryModel.hpp,
cpu_stub.hpp): each core's execution context (launched, scoped, reset), its own on-chip memories and
its own event flags, the multi-core launcher, and the device built-ins real kernels call. The
launch program also runs under ThreadSanitizer where the compiler has it, which must report nothing."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from ..compilers import COMPILERS, build_program, build_shared_program, cxx_argv, require

PROGRAM = r"""
#include <pto/pto-inst.hpp>
#include <pto/vsim/dma.hpp>
#include <pto/vsim/micro.hpp>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>

using namespace pto;
using V = Tile<TileType::Vec, float, 8, 8>;
using M = Tile<TileType::Mat, float, 8, 8>;

static int failures = 0;
#define CHECK(c) do { if (!(c)) { ++failures; std::printf("FAIL line %d: %s\n", __LINE__, #c); } } while (0)

// Two blocks of a cube core's two vector sub-blocks: every core writes its own number into UB and L1
// at offset 0, raises and consumes its own flags, and reads its number back after all have written.
static void launch() {
    std::mutex seen_mutex;
    std::set<std::tuple<unsigned, unsigned, unsigned, unsigned>> seen;
    std::atomic<int> arrived{0}, wrong{0};
    cpu_sim::KernelLaunchOptions options;
    options.kernel_name = "cores";
    options.explicit_block_count = 2;
    options.subblocks_per_block = 2;
    cpu_sim::LaunchKernelMultiCore(options, nullptr, [&] {
        const float me = static_cast<float>(get_block_idx() * 10 + get_subblockid());
        V v;
        M m;
        TASSIGN(v, 0);
        TASSIGN(m, 0);
        v.data()[7] = me;
        m.data()[7] = me + 0.5f;
        set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
        ++arrived;
        while (arrived.load() < 4)
            std::this_thread::yield();
        wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  // this core's own set, whatever the others did
        if (v.data()[7] != me || m.data()[7] != me + 0.5f || get_coreid() != get_block_idx())
            ++wrong;
        std::scoped_lock lock(seen_mutex);
        seen.emplace(get_block_idx(), get_subblockid(), get_subblockdim(), get_block_num());
    });
    CHECK(wrong.load() == 0);
    CHECK((seen == std::set<std::tuple<unsigned, unsigned, unsigned, unsigned>>{
                      {0, 0, 2, 2}, {0, 1, 2, 2}, {1, 0, 2, 2}, {1, 1, 2, 2}}));
    // The launching thread is the single core again; outside a launch get_block_num() answers the
    // configured core count, as upstream's simulator does.
    CHECK(get_block_idx() == 0 && get_subblockid() == 0 && get_subblockdim() == 1);
    CHECK(get_block_num() == cpu_sim::GetConfiguredCoreCount());
}

// SYNCALL waits for every core of the launch: what each core wrote before a barrier, every core reads
// after it, with no other synchronisation (ThreadSanitizer reports the reads if the barrier orders
// nothing). Outside a launch it returns at once.
static void syncall_across_cores() {
    static unsigned slots[6];
    std::atomic<int> wrong{0};
    cpu_sim::KernelLaunchOptions options;
    options.explicit_block_count = 3;
    options.subblocks_per_block = 2;
    cpu_sim::LaunchKernelMultiCore(options, nullptr, [&] {
        const unsigned me = get_block_idx() * 2 + get_subblockid();
        for (unsigned round = 1; round <= 3; ++round) {
            slots[me] = round * 10 + me;
            SYNCALL();
            for (unsigned c = 0; c < 6; ++c)
                wrong += slots[c] != round * 10 + c;
            float workspace[8] = {};
            GlobalTensor<float, Shape<1, 1, 1, 1, 8>, Stride<1, 1, 1, 1, 1>> ws(workspace);
            SYNCALL<SyncAllMode::Soft>(ws);  // nobody writes a slot before everybody has read them
        }
    });
    CHECK(wrong.load() == 0);
    SYNCALL();
}

static void scoped_and_reset() {
    cpu_sim::set_task_cookie(7);
    {
        cpu_sim::ScopedExecutionContext outer(3, 1, 2);
        cpu_sim::set_task_cookie(9);
        CHECK(get_block_idx() == 3 && get_subblockid() == 1 && get_subblockdim() == 2);
        CHECK(get_task_cookie() == 9);
        {
            cpu_sim::ScopedExecutionContext inner(4, 0, 0);  // a sub-block count of 0 is 1
            CHECK(get_block_idx() == 4 && get_subblockid() == 0 && get_subblockdim() == 1);
        }
        CHECK(get_block_idx() == 3 && get_subblockid() == 1);
    }
    CHECK(get_block_idx() == 0 && get_subblockdim() == 1 && get_task_cookie() == 7);
    cpu_sim::set_execution_context(5, 1, 2);
    CHECK(get_block_idx() == 5 && get_subblockid() == 1);
    cpu_sim::reset_execution_context();
    CHECK(get_block_idx() == 0 && get_subblockid() == 0 && get_subblockdim() == 1 && get_task_cookie() == 0);
}

// A core's memories are allocated with the target NPU_MEMORY_INIT selected on another thread.
static void target_follows_init() {
    NPU_MEMORY_INIT(NPUArch::A5);
    std::size_t l0c = 0;
    std::thread core([&] { l0c = NPUMemoryModel::Instance().Size(NPUMemoryModel::L0C); });
    core.join();
    CHECK(l0c == 256 * 1024);
    NPU_MEMORY_INIT(NPUArch::A2A3);
}

static void core_counts() {
    CHECK(cpu_sim::ResolveActiveCoreCount(3) == 3);
    CHECK(cpu_sim::ResolveActiveCoreCount(8, 5) == 5);        // no more blocks than items
    CHECK(cpu_sim::ResolveActiveCoreCount(4, 12, 4) == 3);    // 12 / 3 = 4 items a block
    CHECK(cpu_sim::ResolveActiveCoreCount(0) == cpu_sim::GetConfiguredCoreCount());
    cpu_sim::KernelLaunchOptions options;
    options.requested_cores = 4;
    options.total_work_items = 12;
    options.work_quantum = 4;
    std::atomic<unsigned> ran{0}, blocks{0};
    cpu_sim::LaunchKernelMultiCore(options, nullptr, [&] {
        ++ran;
        blocks = get_block_num();
    });
    CHECK(ran.load() == 3 && blocks.load() == 3);
    // A core's exception reaches the launcher.
    options = {};
    options.explicit_block_count = 3;
    std::string caught;
    try {
        cpu_sim::LaunchKernelMultiCore(options, nullptr, [] {
            if (get_block_idx() == 2)
                throw std::runtime_error("block 2 failed");
        });
    } catch (const std::runtime_error& e) {
        caught = e.what();
    }
    CHECK(caught == "block 2 failed");
}

// What device kernels call besides the tile ops.
static void device_builtins() {
    set_mask_norm();
    set_mask_count();
    set_vector_mask(~std::uint64_t{0}, ~std::uint64_t{0});
    set_ctrl(sbitset1(get_ctrl(), 50));
    CHECK(get_ctrl() == (std::uint64_t{1} << 50) && sbitset0(get_ctrl(), 50) == 0);
    std::uint64_t other = 1;
    std::thread([&] { other = get_ctrl(); }).join();  // the control register is per core
    CHECK(other == 0);
    set_ctrl(0);
    float gm[40] = {};
    dcci(gm, cache_line_t::ENTIRE_DATA_CACHE, dcci_dst_t::CACHELINE_OUT);
    dcci(gm, cache_line_t::SINGLE_CACHE_LINE);
    dsb(DSB_DDR);
    GlobalTensor<float, Shape<1, 1, 1, 1, DYNAMIC>, Stride<1, 1, 1, 1, 1>> g(gm, {40});
    CHECK(g.GetShape(4) == 40);
    GlobalTensor<float, Shape<1, 1, 1, DYNAMIC, DYNAMIC>, Stride<1, 1, 1, DYNAMIC, 1>> g2(gm, {5, 8}, {8});
    CHECK(g2.GetShape(3) == 5 && g2.GetShape(4) == 8 && g2.GetStride(3) == 8);
    V v;
    TASSIGN(v, 0x100);
    CHECK(__cce_get_tile_ptr(v.data()) == v.data());
    cce::printf("printf %d\n", 3);
    CHECK(F16_MAX == 65504.0f);
}

// The DMA registers and the merge-sort status register are the calling core's; a GM -> UB copy pads
// each UB row around its burst, with the pad value and to the row's 32-byte boundary when asked.
static void dma_registers() {
    set_loop_size_outtoub(std::uint64_t{1} << 21 | 3);
    pto::vsim::vms4_status() = 7;
    std::uint64_t other_size = 0;
    std::int64_t other_status = 1;
    std::thread([&] {
        other_size = pto::vsim::dma().outtoub.size;
        other_status = get_vms4_sr();
    }).join();
    CHECK(other_size == (std::uint64_t{1} << 21 | 1) && other_status == 0 && get_vms4_sr() == 7);
    float gm[4] = {1, 2, 3, 4};
    alignas(32) float ub[24] = {};
    set_loop1_stride_outtoub(std::uint64_t{32} << 40 | 4);  // a pass: one float on in GM, 32 bytes in UB
    copy_gm_to_ubuf_align_v2(ub, gm, 0, 1, 4, 0, 0, false, 0, 0, 0);
    CHECK(ub[0] == 1 && ub[8] == 2 && ub[16] == 3 && ub[1] == 0);
    set_loop_size_outtoub(std::uint64_t{1} << 21 | 1);
    set_mov_pad_val(0x40000000);  // 2.0f
    float row[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
    copy_gm_to_ubuf_align_v2(row, gm, 0, 1, 16, 2, 1, true, 0, 0, 0);  // 2 + 4 + 1 floats, then to 32 bytes
    CHECK(row[0] == 2 && row[1] == 2 && row[2] == 1 && row[5] == 4 && row[6] == 2 && row[7] == 2);
    copy_gm_to_ubuf_align_v2(row, gm, 0, 1, 16, 1, 0, false, 0, 0, 0);  // zero padding, no 32-byte fill
    CHECK(row[0] == 0 && row[1] == 1 && row[4] == 4 && row[5] == 4 && row[7] == 2);
    set_mov_pad_val(0);
    pto::vsim::vms4_status() = 0;
}

int main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "other_core_set") {
        {
            cpu_sim::ScopedExecutionContext core(1, 1, 2);
            set_flag(PIPE_MTE2, PIPE_V, EVENT_ID3);
        }
        std::thread([] { set_flag(PIPE_MTE2, PIPE_V, EVENT_ID3); }).join();  // core 0, another thread
        wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID3);  // takes the second set: the same core
        std::puts("first wait");
        std::fflush(stdout);
        wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID3);  // core 1.1's set is not this core's: WAIT LINE
        std::puts("survived");
        return 0;
    }
    if (mode == "dma_null") {
        alignas(32) float ub[8] = {};
        copy_ubuf_to_ubuf(nullptr, ub, 1, 1, 0, 0);
        std::puts("survived");
        return 0;
    }
    if (mode == "block_num") {
        std::printf("%u\n", get_block_num());
        return 0;
    }
    if (mode == "early_return") {  // block 1 returns before the barrier block 0 waits at
        cpu_sim::KernelLaunchOptions options;
        options.explicit_block_count = 2;
        cpu_sim::LaunchKernelMultiCore(options, nullptr, [] {
            if (get_block_idx() == 0)
                SYNCALL();
        });
        std::puts("survived");
        return 0;
    }
    launch();
    syncall_across_cores();
    scoped_and_reset();
    target_follows_init();
    core_counts();
    device_builtins();
    dma_registers();
    std::printf("%d failures\n", failures);
    return failures == 0 ? 0 : 1;
}
"""


@pytest.fixture(scope="module", params=COMPILERS)
def program(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    cxx = require(request.param)
    return build_shared_program(cxx, PROGRAM, tmp_path_factory, f"cores-{request.param}")


def test_cores_have_their_own_context_memories_and_flags(program: Path) -> None:
    result = subprocess.run([str(program)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines() == ["printf 3", "0 failures"]


def test_get_block_num_outside_a_launch_is_the_configured_core_count(program: Path) -> None:
    """Upstream's simulator answers PTO_CPU_SIM_NUM_CORES (4 when unset) outside a launch too."""
    env = {k: v for k, v in os.environ.items() if k != "PTO_CPU_SIM_NUM_CORES"}
    plain = subprocess.run([str(program), "block_num"], capture_output=True, text=True, timeout=60, env=env)
    six = subprocess.run(
        [str(program), "block_num"], capture_output=True, text=True, timeout=60,
        env={**env, "PTO_CPU_SIM_NUM_CORES": "6"},
    )  # fmt: skip
    assert (plain.stdout, six.stdout) == ("4\n", "6\n"), plain.stderr + six.stderr


def test_a_barrier_a_core_returned_from_ends_with_the_call_site(program: Path) -> None:
    """Block 1 returns without reaching SYNCALL: block 0's barrier can never complete. It stops at
    once (no timeout), naming the op, the cores and the kernel's call site, instead of hanging."""
    result = subprocess.run([str(program), "early_return"], capture_output=True, text=True, timeout=60)
    assert result.returncode != 0 and "survived" not in result.stdout
    assert "SYNCALL: a core of the launch returned from the kernel without reaching the" in result.stderr
    assert "cores_arrived = 1, cores_launched = 2" in result.stderr
    assert f"at {program.name}.cpp" in result.stderr, result.stderr  # the call site (no -g: an offset)


def test_a_dma_copy_with_a_null_pointer_stops_naming_the_builtin(program: Path) -> None:
    result = subprocess.run([str(program), "dma_null"], capture_output=True, text=True, timeout=60)
    assert result.returncode != 0 and "survived" not in result.stdout
    assert "PTO runtime error: copy_ubuf_to_ubuf: a copy of at least one byte has a null" in result.stderr


UNMATCHED = "wait_flag: no set_flag with the same pipes and event id precedes it on this core"


def test_a_wait_never_takes_another_cores_set(program: Path) -> None:
    """Under the CPU profile (the program's) an unmatched wait is accepted with a warning: upstream's
    simulator accepts it, and the device would hang (the NPU profiles stop: the test below)."""
    result = subprocess.run([str(program), "other_core_set"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["first wait", "survived"]
    assert result.stderr.startswith(f"PTO runtime warning: {UNMATCHED}"), result.stderr
    assert result.stderr.count("PTO runtime warning") == 1


UNMATCHED_WAITS = r"""
#include <pto/pto-inst.hpp>
#include <cstdio>
#include <thread>

int main() {
    for (int i = 0; i < 3; ++i)
        wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID2);  // FIRST SITE
    std::thread([] { wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID2); }).join();  // SECOND SITE
    std::puts("survived");
    return 0;
}
"""


@pytest.mark.parametrize("profile", ["CPU", "A5"])
def test_an_unmatched_wait_warns_once_per_call_site_or_stops(profile: str, tmp_path: Path) -> None:
    exe = build_program(
        require(COMPILERS[0]),
        UNMATCHED_WAITS,
        tmp_path,
        "waits",
        [f"-DPTO_TARGET_PROFILE=PTO_PROFILE_{profile}", "-g"],
    )
    result = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    lines = UNMATCHED_WAITS.splitlines()
    first, second = (
        next(i for i, t in enumerate(lines, 1) if site in t) for site in ("FIRST SITE", "SECOND SITE")
    )
    if profile == "CPU":
        assert result.returncode == 0 and result.stdout == "survived\n", result.stderr
        heads = [line for line in result.stderr.splitlines() if line.startswith("PTO runtime warning")]
        assert heads == [f"PTO runtime warning: {UNMATCHED} (the device would wait forever)"] * 2
        sites = [line.strip() for line in result.stderr.splitlines() if line.startswith("  at ")]
        if shutil.which("addr2line"):
            assert [s.rsplit(":", 1)[1] for s in sites] == [str(first), str(second)], result.stderr
    else:
        assert result.returncode != 0 and "survived" not in result.stdout
        assert result.stderr.startswith(f"PTO runtime error: {UNMATCHED}"), result.stderr


def tsan_available(cxx: str, work: Path) -> bool:
    """Whether `cxx` links a ThreadSanitizer program here (the runtime library may be missing)."""
    (work / "probe.cpp").write_text("int main() { return 0; }\n")
    probe = subprocess.run(
        [*cxx_argv(cxx), "-fsanitize=thread", str(work / "probe.cpp"), "-o", str(work / "probe")],
        capture_output=True,
    )
    ran = probe.returncode == 0 and subprocess.run([str(work / "probe")], capture_output=True).returncode == 0
    return ran


@pytest.mark.parametrize("compiler", COMPILERS)
def test_cores_race_free_under_thread_sanitizer(compiler: str, tmp_path: Path) -> None:
    cxx = require(compiler)
    if not tsan_available(cxx, tmp_path):
        reason = f"{compiler} cannot build -fsanitize=thread programs here"
        if os.environ.get("CI"):
            pytest.fail(f"{reason} (CI is set)")
        pytest.skip(reason)
    exe = build_program(cxx, PROGRAM, tmp_path, "cores_tsan", ["-fsanitize=thread", "-O1", "-g"])
    result = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120)
    assert "ThreadSanitizer" not in result.stderr, result.stderr
    assert result.returncode == 0 and "0 failures" in result.stdout, result.stdout + result.stderr


HOOKED = r"""
#include <pto/pto-inst.hpp>
#include <cstdio>

// A host runtime that owns the context: its functions, exported under upstream's names.
static std::uint32_t set_calls = 0;
extern "C" void pto_cpu_sim_set_execution_context(std::uint32_t, std::uint32_t, std::uint32_t) {
    ++set_calls;
}
extern "C" void pto_cpu_sim_get_execution_context(std::uint32_t* block, std::uint32_t* sub,
                                                  std::uint32_t* dim) {
    *block = 7;
    *sub = 1;
    *dim = 2;
}
extern "C" std::uint64_t pto_cpu_sim_get_task_cookie() {
    return 42;
}

int main() {
    pto::cpu_sim::set_execution_context(0, 0, 1);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    {
        pto::cpu_sim::ScopedExecutionContext other(7, 1, 2);  // the hook's core is 7.1 whatever is set
        wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    }
    std::printf("%u %u %u %llu %u\n", get_block_idx(), get_subblockid(), get_subblockdim(),
                static_cast<unsigned long long>(get_task_cookie()), set_calls);
    return 0;
}
"""


def test_a_host_runtime_can_own_the_context_through_upstreams_hooks(tmp_path: Path) -> None:
    exe = build_program(require(COMPILERS[0]), HOOKED, tmp_path, "hooked", ["-rdynamic"])
    result = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and result.stderr == "", result.stderr
    assert result.stdout.split() == ["7", "1", "2", "42", "2"]
