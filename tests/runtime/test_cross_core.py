"""The cross-core and buffer-slot builtins of the pipeline-sync pages (pto/common/cross_core.hpp):
sub-blocks of one launch block signal each other through the block's semaphores (A5 intra-block,
A2A3 cross-core events), never another block's; a wait no sub-block satisfies stops after the wait
bound naming the builtin, the id and the call site instead of hanging; get_buf / rls_buf check the
slot protocol in program order."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from ..compilers import COMPILERS, build_shared_program, require

PROGRAM = r"""
#include <pto/pto-inst.hpp>
#include <cstdio>
#include <cstring>

using namespace pto;

static void launch(std::uint32_t blocks, std::uint32_t subblocks, void (*body)()) {
    cpu_sim::KernelLaunchOptions options;
    options.explicit_block_count = blocks;
    options.subblocks_per_block = subblocks;
    cpu_sim::LaunchKernelMultiCore(options, nullptr, body);
}

int main(int argc, char** argv) {
    const char* mode = argc > 1 ? argv[1] : "ok";
    if (std::strcmp(mode, "ok") == 0) {
        for (int i = 0; i < 2; ++i) {  // the load pipe fills the slot, then the vector pipe reads it
            get_buf(PIPE_MTE2, 0, true);
            rls_buf(PIPE_MTE2, 0, true);
            get_buf(PIPE_V, 0, true);
            rls_buf(PIPE_V, 0, false);
        }
        launch(2, 2, [] {
            if (get_subblockid() == 0) {
                set_intra_block(PIPE_MTE2, 16);  // to the other sub-block, which answers on id 1
                wait_intra_block(PIPE_V, 1);
                wait_flag_dev(2);
                wait_flag_dev(PIPE_S, 2);        // the page's spelling; two signals, two waits
            } else {
                wait_intra_block(PIPE_V, 16);
                set_intra_block(PIPE_V, 1);
                ffts_cross_core_sync(PIPE_MTE3, 0x221);  // mode 2, event 2
                ffts_cross_core_sync(PIPE_MTE3, 0x221);
            }
        });
        std::puts("ok");
    } else if (std::strcmp(mode, "never") == 0) {
        launch(1, 2, [] {
            if (get_subblockid() == 0)
                wait_intra_block(PIPE_V, 5);  // NEVER: the other sub-block signals nothing
        });
    } else if (std::strcmp(mode, "other_block") == 0) {
        launch(2, 1, [] {
            if (get_block_idx() == 0)
                ffts_cross_core_sync(PIPE_MTE3, 0x721);
            else
                wait_flag_dev(7);  // block 0's event is not this block's
        });
    } else if (std::strcmp(mode, "twice") == 0) {
        get_buf(PIPE_V, 3, true);
        get_buf(PIPE_V, 3, true);
    } else if (std::strcmp(mode, "held") == 0) {
        get_buf(PIPE_MTE2, 3, true);
        get_buf(PIPE_V, 3, true);
    } else if (std::strcmp(mode, "unheld") == 0) {
        rls_buf(PIPE_V, 4, true);
    } else if (std::strcmp(mode, "range") == 0) {
        set_intra_block(PIPE_MTE2, 32);
    }
    return 0;
}
"""
NEVER_LINE = next(i for i, text in enumerate(PROGRAM.splitlines(), 1) if "NEVER" in text)


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cxx = require(COMPILERS[0])
    return build_shared_program(cxx, PROGRAM, tmp_path_factory, "cross-core")


def run(program: Path, mode: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PTO_CPU_SIM_WAIT_MS": "50"}
    return subprocess.run([str(program), mode], capture_output=True, text=True, timeout=60, env=env)


def test_sub_blocks_signal_each_other_and_slots_take_turns(program: Path) -> None:
    result = run(program, "ok")
    assert result.returncode == 0 and result.stdout == "ok\n", result.stderr


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        ("never", "wait_intra_block: no core of this block signalled the semaphore"),
        ("other_block", "wait_flag_dev: no core of this block signalled the semaphore"),
        ("twice", "get_buf: the pipe already holds this buffer"),
        ("held", "get_buf: another pipe holds this buffer and releases it only later in program order"),
        ("unheld", "rls_buf: the pipe does not hold this buffer"),
        ("range", "set_intra_block: the semaphore id must be in 0..31"),
    ],
)
def test_a_broken_protocol_stops_naming_the_builtin(program: Path, mode: str, message: str) -> None:
    result = run(program, mode)
    assert result.returncode != 0
    assert f"PTO runtime error: {message}" in result.stderr, result.stderr


def test_an_unsatisfiable_wait_names_its_id_and_call_site(program: Path) -> None:
    """The device would wait forever; the simulation waits the bound, then names what it waited for."""
    stderr = run(program, "never").stderr
    assert "compared: id = 5" in stderr, stderr
    assert f"cross-core.cpp:{NEVER_LINE}" in stderr or "for the line" in stderr, stderr
