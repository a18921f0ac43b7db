"""Building a kernel against the headers from a build system: `find_package(ptogen)` through the
package `ptogen cmake-dir` writes, and pkg-config through the files `ptogen pkgconfig-dir` writes;
each carries the include directories, C++20 and -ffp-contract=off, and a per-profile variant."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ..compilers import cxx_argv, require
from ..helpers import ROOT
from .test_commands import KERNEL


def _ptogen(*argv: str) -> Path:
    proc = subprocess.run(
        [sys.executable, "-m", "ptogen.cli", "--root", str(ROOT), *argv],
        capture_output=True,
        text=True,
        check=True,
    )
    return Path(proc.stdout.strip())


CMAKE_LISTS = """cmake_minimum_required(VERSION 3.20)
project(kernels CXX)
find_package(ptogen 0.1 REQUIRED)
add_executable(k_a5 kernel.cpp)
target_link_libraries(k_a5 PRIVATE ptogen::A5)
"""


# The user guide's CMake and pkg-config snippets build a kernel in the quick tier
# (tests/docs/test_docs_text.py); this build with g++ runs in the full tier, as in CI.
@pytest.mark.full_tier
def test_a_kernel_builds_through_find_package(tmp_path: Path) -> None:
    cmake = shutil.which("cmake")
    if cmake is None:
        pytest.skip("cmake is not installed (apt-get install cmake)")
    cxx = require("g++")
    (tmp_path / "CMakeLists.txt").write_text(CMAKE_LISTS)
    (tmp_path / "kernel.cpp").write_text(KERNEL % ("float", "float", "float"))
    build = tmp_path / "build"
    package = _ptogen("cmake-dir")
    assert (package / "ptogenConfig.cmake").is_file()
    configure = [cmake, "-S", str(tmp_path), "-B", str(build), f"-Dptogen_DIR={package}"]
    launcher = cxx_argv(cxx)[:-1]  # the suite's compiler launcher (ccache, say), as CMake spells it
    if launcher:
        configure.append(f"-DCMAKE_CXX_COMPILER_LAUNCHER={';'.join(launcher)}")
    subprocess.run([*configure, f"-DCMAKE_CXX_COMPILER={cxx}"], capture_output=True, text=True, check=True)
    built = subprocess.run(
        [cmake, "--build", str(build), "--verbose"], capture_output=True, text=True, env=os.environ
    )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    # The flags the simulator needs (ptogen::ptogen's) reach the compile; the profile target adds
    # its profile.
    assert "-ffp-contract=off" in built.stdout and "-std=gnu++20" in built.stdout
    assert "-DPTO_TARGET_PROFILE=PTO_PROFILE_A5" in built.stdout
    ran = subprocess.run([str(build / "k_a5")], capture_output=True, text=True, check=True)
    assert ran.stdout.strip() == "-2"


# The user guide's CMake and pkg-config snippets build a kernel in the quick tier
# (tests/docs/test_docs_text.py); this build with g++ runs in the full tier, as in CI.
@pytest.mark.full_tier
def test_a_kernel_builds_through_pkg_config(tmp_path: Path) -> None:
    pkg_config = shutil.which("pkg-config")
    if pkg_config is None:
        pytest.skip("pkg-config is not installed (apt-get install pkg-config)")
    cxx = require("g++")
    env = {**os.environ, "PKG_CONFIG_PATH": str(_ptogen("pkgconfig-dir"))}

    def cflags(package: str) -> list[str]:
        return subprocess.run(
            [pkg_config, "--cflags", package], capture_output=True, text=True, env=env, check=True
        ).stdout.split()

    flags = cflags("ptogen")
    assert "-ffp-contract=off" in flags and "-std=c++20" in flags
    (tmp_path / "k.cpp").write_text(KERNEL % ("float", "float", "float"))
    subprocess.run([*cxx_argv(cxx), *flags, "k.cpp", "-o", "k"], cwd=tmp_path, check=True)
    ran = subprocess.run([str(tmp_path / "k")], capture_output=True, text=True, check=True)
    assert ran.stdout.strip() == "-2"
    # The A5 variant checks the kernel against A5, which takes no int32_t TLRELU.
    (tmp_path / "i.cpp").write_text(KERNEL % ("int32_t", "int32_t", "int32_t"))
    rejected = subprocess.run(
        [*cxx_argv(cxx), *cflags("ptogen-a5"), "-fsyntax-only", "i.cpp"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert rejected.returncode != 0 and "TLRELU [A5]" in rejected.stderr, rejected.stderr[-2000:]
