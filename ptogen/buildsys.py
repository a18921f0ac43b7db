"""Using the headers from a build system: a CMake package (`find_package(ptogen)`) and pkg-config
files, written for one project's generated tree and the installed runtime by `ptogen cmake-dir` and
`ptogen pkgconfig-dir`, which print the directory to point CMake (`ptogen_DIR`) or pkg-config
(`PKG_CONFIG_PATH`) at. They state what `ptogen cflags` states: the two include directories and
`-ffp-contract=off`, so that no compiler fuses a multiply and an add the simulator keeps apart (its
results are the spec's, bit for bit, on every compiler); and C++20, which the headers need. Each
profile has a target (`ptogen::A5`) and a .pc file (`ptogen-a5`) that also select the profile."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from . import __version__
from .emit.format import write_atomic
from .paths import RUNTIME_INCLUDE, Layout

# What every build of a kernel against the headers needs besides the include directories.
FP_FLAGS = ["-ffp-contract=off"]


def include_dirs(layout: Layout) -> list[Path]:
    return [layout.generated_include.resolve(), RUNTIME_INCLUDE.resolve()]


def profile_define(profile: str) -> str:
    return f"PTO_TARGET_PROFILE=PTO_PROFILE_{profile}"


def _cmake_config(layout: Layout, profiles: list[str]) -> str:
    dirs = ";".join(d.as_posix() for d in include_dirs(layout))
    lines = [
        f"# The ptogen headers of {layout.root.as_posix()}, written by `ptogen cmake-dir`.",
        "# ptogen::ptogen: the include directories, C++20 and -ffp-contract=off (the simulator's",
        "# results are the spec's only when the compiler fuses no multiply and add the headers keep",
        "# apart); ptogen::<PROFILE> also checks the kernel against that target profile.",
        "if(TARGET ptogen::ptogen)",
        "  return()",
        "endif()",
        "add_library(ptogen::ptogen INTERFACE IMPORTED)",
        "set_target_properties(ptogen::ptogen PROPERTIES",
        f'  INTERFACE_INCLUDE_DIRECTORIES "{dirs}"',
        "  INTERFACE_COMPILE_FEATURES cxx_std_20",
        f'  INTERFACE_COMPILE_OPTIONS "{";".join(FP_FLAGS)}")',
    ]
    for p in profiles:
        lines += [
            f"add_library(ptogen::{p} INTERFACE IMPORTED)",
            f"set_target_properties(ptogen::{p} PROPERTIES",
            "  INTERFACE_LINK_LIBRARIES ptogen::ptogen",
            f'  INTERFACE_COMPILE_DEFINITIONS "{profile_define(p)}")',
        ]
    lines.append(f'set(ptogen_PROFILES "{";".join(profiles)}")')
    return "\n".join(lines) + "\n"


def _cmake_version() -> str:
    # Any request of the same major version is met (CMake's SameMajorVersion).
    major = __version__.split(".")[0]
    return "\n".join(
        [
            f'set(PACKAGE_VERSION "{__version__}")',
            "if(PACKAGE_FIND_VERSION_MAJOR STREQUAL \"\" OR",
            f"   (PACKAGE_FIND_VERSION_MAJOR EQUAL {major} AND",
            f'    NOT PACKAGE_FIND_VERSION VERSION_GREATER "{__version__}"))',
            "  set(PACKAGE_VERSION_COMPATIBLE TRUE)",
            "  if(PACKAGE_FIND_VERSION STREQUAL PACKAGE_VERSION)",
            "    set(PACKAGE_VERSION_EXACT TRUE)",
            "  endif()",
            "else()",
            "  set(PACKAGE_VERSION_COMPATIBLE FALSE)",
            "endif()",
        ]
    ) + "\n"


def _pc_file(layout: Layout, name: str, profile: str | None) -> str:
    flags = [*(f"-I{d.as_posix()}" for d in include_dirs(layout)), "-std=c++20", *FP_FLAGS]
    if profile is not None:
        flags.append(f"-D{profile_define(profile)}")
    what = f", checked against the {profile} profile" if profile else ""
    return "\n".join(
        [
            f"# The ptogen headers of {layout.root.as_posix()}, written by `ptogen pkgconfig-dir`.",
            f"Name: {name}",
            f"Description: PTO ISA intrinsics and CPU simulator (header only){what}",
            f"Version: {__version__}",
            f"Cflags: {' '.join(flags)}",
        ]
    ) + "\n"


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        write_atomic(path, text.encode("utf-8"))


def cmake_dir(layout: Layout, profiles: list[str]) -> Path:
    """The directory of ptogenConfig.cmake for this project (written or brought up to date)."""
    top = layout.root.resolve() / ".ptogen-cache" / "cmake" / "ptogen"
    _write(top / "ptogenConfig.cmake", _cmake_config(layout, profiles))
    _write(top / "ptogenConfigVersion.cmake", _cmake_version())
    return top


def pkgconfig_dir(layout: Layout, profiles: list[str]) -> Path:
    """The directory of ptogen.pc and ptogen-<profile>.pc for this project."""
    top = layout.root.resolve() / ".ptogen-cache" / "pkgconfig"
    _write(top / "ptogen.pc", _pc_file(layout, "ptogen", None))
    for p in profiles:
        _write(top / f"ptogen-{p.lower()}.pc", _pc_file(layout, f"ptogen-{p.lower()}", p))
    return top


def builtin_cflags(layout: Layout) -> list[str]:
    """Flags that put the vector builtin simulation on a compile line ahead of another include tree
    (upstream's `include/`, given with -I): that tree's host configuration (`__CPU_SIM`; C++23 for
    its `std::bfloat16_t`), this tree searched only after it (-idirafter: its files never shadow the
    other's, and only `pto/vsim/` and the std-only arithmetic are reached), and the builtins
    force-included after that tree's host prelude, as a device compiler provides them without an
    include. Registers are reinterpreted between element types, hence no strict aliasing. The
    architecture is A5's, as the device compiler selects it: A5 code written for it (the 64-bit
    integer helpers, the unified buffer's size) is compiled, not left out."""
    return [
        "-std=c++2b",  # C++23, spelled so that older compilers take it too
        "-D__CPU_SIM",
        "-DPTO_NPU_ARCH_A5",
        "-fno-strict-aliasing",
        "-ffp-contract=off",
        f"-idirafter{layout.generated_include}",
        f"-idirafter{RUNTIME_INCLUDE}",
        # <stdfloat> where the standard library has none (searched after the system's headers).
        f"-idirafter{RUNTIME_INCLUDE / 'pto/vsim/host'}",
        # A distinct bfloat16_t (host_types.hpp), the other tree's host prelude (its qualifiers, element
        # types and stubs), the builtins, then what A5 headers use without including (a5_prelude.hpp).
        "-include",
        "pto/vsim/host_types.hpp",
        "-include",
        "pto/common/cpu_stub.hpp",
        "-include",
        "pto/vsim/builtins.hpp",
        "-include",
        "pto/vsim/a5_prelude.hpp",
    ]


# The macro that builds a communication kernel's ranks as MPI processes (pto/comm/ranks.hpp).
MPI_DEFINE = "-DPTO_COMM_MPI"


class MpiMissing(Exception):
    """No MPI compiler wrapper to ask for MPI's flags; the message says what to install."""


def mpi_flags(wrapper: str = "mpicxx") -> tuple[list[str], list[str]]:
    """The flags that build ranks as MPI processes: PTO_COMM_MPI with MPI's include directories (the
    compile), and MPI's libraries (the link, after the sources), as MPI's C++ wrapper states them."""
    path = shutil.which(wrapper)
    if path is None:
        raise MpiMissing(
            f"no {wrapper} on PATH: install MPI (Debian: apt-get install libopenmpi-dev openmpi-bin)"
        )

    def ask(what: str) -> list[str]:
        told = subprocess.run([path, f"--showme:{what}"], capture_output=True, text=True)
        if told.returncode != 0:
            raise MpiMissing(
                f"{wrapper} --showme:{what} failed (an Open MPI wrapper answers it): {told.stderr.strip()}"
            )
        return told.stdout.split()

    return [MPI_DEFINE, *ask("compile")], ask("link")
