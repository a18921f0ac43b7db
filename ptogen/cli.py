"""`ptogen` command line: gen, check, list, cflags, schema, test, import, upstream-st."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import GenerationError, SpecError, SpecErrors, did_you_mean, one_line
from .paths import RUNTIME_INCLUDE, Layout

if TYPE_CHECKING:
    from collections.abc import Callable

    from .emit.incremental import Result
    from .lower.views import OpView, ProjectView
    from .spec.load import SpecSet

EXIT_DRIFT = 1
EXIT_SPEC = 2
EXIT_ENV = 3  # a named environment fault: disk full, read-only or busy output, lock held


def _layout(args: argparse.Namespace) -> Layout:
    return Layout.make(root=args.root, specs=args.specs, out=args.out, templates=args.templates)


def _build(layout: Layout, allow_fast: bool = True) -> Result:
    """Incremental build (see emit/incremental.py): Result.files is None when the fast path found
    generated/ exactly as recorded for these inputs."""
    from .emit.incremental import build

    return build(layout, allow_fast=allow_fast)


def cmd_gen(args: argparse.Namespace) -> int:
    from .emit.output import output_lock, recover, write_tree

    layout = _layout(args)
    with output_lock(layout.out):
        recover(layout.out)  # a killed run's leftovers go even when nothing else changes
        result = _build(layout)
        if result.files is not None:
            _check_examples(layout, result)  # before anything is written
        changed = [] if result.files is None else write_tree(layout.out, result.files)
    print(f"ptogen: {result.count} files in {_rel(layout.out)}, {len(changed)} changed")
    for rel in changed:
        print(f"  {rel}")
    return 0


def _check_examples(layout: Layout, result: Result) -> None:
    """The pages' compiled examples against the headers about to be written (emit/examples.py)."""
    from .emit.examples import check_examples
    from .emit.incremental import cache_root
    from .lower.views import ProjectView
    from .spec.load import load_specs

    assert result.files is not None
    project = result.project or ProjectView(load_specs(layout.specs, layout.root))
    check_examples(project, result.files, RUNTIME_INCLUDE, cache_root(layout))


def cmd_check(args: argparse.Namespace) -> int:
    from .emit.output import output_lock

    layout = _layout(args)
    with output_lock(layout.out, exclusive=False):  # a concurrent gen finishes its switch first
        return _check(layout)


def _check(layout: Layout) -> int:
    from .emit.output import compare_tree

    result = _build(layout)
    if result.files is None:
        print(f"ptogen check: {_rel(layout.out)} is up to date ({result.count} files)")
        return 0
    files = result.files
    drift = compare_tree(layout.out, files, _rel(layout.out))
    if drift.clean:
        print(f"ptogen check: {_rel(layout.out)} is up to date ({len(files)} files)")
        return 0
    sys.stdout.write(drift.diff)
    print(
        f"ptogen check: {_rel(layout.out)} differs from the specs: {len(drift.changed)} changed, "
        f"{len(drift.missing)} missing, {len(drift.orphans)} orphaned; run `ptogen gen`",
        file=sys.stderr,
    )
    for what, items in (("changed", drift.changed), ("missing", drift.missing), ("orphan", drift.orphans)):
        for rel in items:
            print(f"  {what}: {rel}", file=sys.stderr)
    return EXIT_DRIFT


def cmd_show(args: argparse.Namespace) -> int:
    """The op's resolved spec, each fact with its origin: the spec, a class, a set, a profile."""
    from .spec import show
    from .spec.load import load_specs

    layout = _layout(args)
    specs = load_specs(layout.specs, layout.root)
    try:
        op = specs.op(args.op)
    except KeyError:
        names = [o.spec.key for o in specs.ops]
        print(
            f"ptogen show: unknown op {args.op}{did_you_mean(args.op.lower().removeprefix('pto.'), names)}",
            file=sys.stderr,
        )
        return EXIT_SPEC
    if args.brief:
        return _show_brief(layout, specs, op.spec.mnemonic)
    from .spec.model import OpSpec
    from .spec.resolve import plain

    origins = specs.provenance[op.path]
    resolved = plain(origins[()])
    order = list(OpSpec.model_fields)  # the page's order of sections
    data = {
        k: resolved[k] for k in sorted(resolved, key=lambda k: order.index(k) if k in order else len(order))
    }
    sys.stdout.write(show.render(data, origins))
    return 0


def _show_brief(layout: Layout, specs: SpecSet, mnemonic: str) -> int:
    """Signatures, element types per profile, tile placement and semantics (lower/brief.py)."""
    from .emit.render import environment
    from .lower.brief import Brief
    from .lower.views import ProjectView

    project = ProjectView(specs)
    op = next(o for o in project.ops if o.spec.mnemonic == mnemonic)
    template = environment(layout.templates).get_template("cli/brief.txt.j2")
    sys.stdout.write(template.render(project=project, op=op, brief=Brief(op)))
    return 0


def _list_filters(project: ProjectView, args: argparse.Namespace) -> Callable[[OpView], bool] | str:
    """Whether an op passes `list`'s filters (all of them), or what is wrong with one."""
    from .lower.glance import Glance

    targets = project.targets
    sets = {s.id: s for s in targets.instruction_sets}
    want_set = None
    if args.set:
        # An instruction set by id (matrix_and_matrix_vector) or title, any case, `-` or `_` alike.
        key = args.set.lower().replace("-", "_").replace(" ", "_")
        spelled = {s.id: s.id for s in sets.values()}
        spelled |= {s.title.lower().replace("-", "_").replace(" ", "_"): s.id for s in sets.values()}
        # A part of one set's name picks that set (`matrix`).
        partial = {i for k, i in spelled.items() if key in k}
        if key not in spelled and len(partial) == 1:
            spelled[key] = partial.pop()
        if key not in spelled:
            hint = did_you_mean(key, list(sets))
            return f"unknown instruction set {args.set}{hint} (known: {', '.join(sets)})"
        want_set = spelled[key]
    names = targets.profile_names()
    if args.profile and args.profile not in names:
        return (
            f"unknown profile {args.profile}{did_you_mean(args.profile, names)} (known: {', '.join(names)})"
        )
    dtype = None
    if args.dtype:
        if not targets.has_dtype(args.dtype):
            spellings = [n for d in targets.dtypes for n in (d.name, *d.aliases)]
            return f"unknown element type {args.dtype}{did_you_mean(args.dtype, spellings)}"
        dtype = targets.dtype(args.dtype).name
    profiles = [args.profile] if args.profile else names
    groupings = {}
    for what, groups in (("category", targets.categories), ("unit", targets.units)):
        given = getattr(args, what)
        if given:
            ids = [g.id for g in groups]
            found = [g.id for g in groups if given.lower() in (g.id, g.title.lower())]
            if not found:
                return f"unknown {what} {given}{did_you_mean(given, ids)} (known: {', '.join(ids)})"
            groupings[what] = found[0]

    def grouped(op: OpView) -> bool:
        return all(getattr(getattr(op, what), "id", None) == gid for what, gid in groupings.items())

    def admits(op: OpView) -> bool:
        # Some operand takes the type under one of the profiles (the page's element-type table).
        glance = Glance(op)
        return any(dtype in glance.types(p, o) for p in profiles for o in op.tiles)

    def wanted(op: OpView) -> bool:
        if want_set is not None and op.spec.instruction_set != want_set:
            return False
        if args.profile and not op.available(args.profile):
            return False
        if not grouped(op):
            return False
        return dtype is None or admits(op)

    return wanted


def cmd_list(args: argparse.Namespace) -> int:
    from .lower.views import ProjectView
    from .spec.load import load_specs

    layout = _layout(args)
    project = ProjectView(load_specs(layout.specs, layout.root))
    sets = {s.id: s for s in project.targets.instruction_sets}
    wanted = _list_filters(project, args)
    if isinstance(wanted, str):
        print(f"ptogen list: {wanted}", file=sys.stderr)
        return EXIT_SPEC
    rows = []
    for op in project.ops:
        if not wanted(op):
            continue
        profiles = [p.name for p in project.profiles if op.available(p.name)]
        rows.append((op.spec.mnemonic, op.name, sets[op.spec.instruction_set].title, ",".join(profiles)))
    if not rows:
        print("ptogen list: no op matches", file=sys.stderr)
        return 1
    if args.json:
        keys = ("mnemonic", "cpp", "instruction_set")
        entries = [
            {**dict(zip(keys, r[:3], strict=True)), "profiles": r[3].split(",") if r[3] else []} for r in rows
        ]
        print(json.dumps(entries, indent=2))
        return 0
    widths = [
        max(len(r[i]) for r in rows + [("mnemonic", "C++", "instruction set", "profiles")]) for i in range(4)
    ]
    for r in [("mnemonic", "C++", "instruction set", "profiles"), *rows]:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())
    used = {r[2] for r in rows}
    print(f"{len(rows)} ops in {len(used)} instruction sets")
    return 0


def cflags(layout: Layout, profile: str | None) -> list[str]:
    from .buildsys import FP_FLAGS, profile_define

    flags = [f"-I{layout.generated_include}", f"-I{RUNTIME_INCLUDE}", *FP_FLAGS]
    if profile:
        flags.append(f"-D{profile_define(profile)}")
    return flags


def cmd_build_dir(args: argparse.Namespace) -> int:
    """Write the CMake package or the pkg-config files for this project; print their directory."""
    from . import buildsys
    from .spec.load import load_specs

    layout = _layout(args)
    profiles = load_specs(layout.specs, layout.root).targets.profile_names()
    write = buildsys.cmake_dir if args.command == "cmake-dir" else buildsys.pkgconfig_dir
    print(write(layout, profiles))
    return 0


def cmd_cflags(args: argparse.Namespace) -> int:
    layout = _layout(args)
    if args.builtins:
        if args.mpi:
            print("ptogen cflags: --builtins takes no --mpi (builtins run A5 vector code, not comm ranks)",
                  file=sys.stderr)
            return EXIT_SPEC
        if args.profile:
            print("ptogen cflags: --builtins takes no --profile (builtins check the simulated profile)",
                  file=sys.stderr)
            return EXIT_SPEC
        from .buildsys import builtin_cflags

        print(" ".join(builtin_cflags(layout)))
        return 0
    if args.profile:
        from .spec.load import load_specs

        names = load_specs(layout.specs, layout.root).targets.profile_names()
        if args.profile not in names:
            print(
                f"ptogen cflags: unknown profile {args.profile}{did_you_mean(args.profile, names)} "
                f"(known: {', '.join(names)})",
                file=sys.stderr,
            )
            return EXIT_SPEC
    flags = cflags(layout, args.profile)
    if args.mpi:
        from .buildsys import MpiMissing, mpi_flags

        try:
            compile_flags, link_flags = mpi_flags()
        except MpiMissing as e:
            print(f"ptogen cflags --mpi: {e}", file=sys.stderr)
            return EXIT_ENV
        flags += [*compile_flags, *link_flags]
    print(" ".join(flags))
    return 0


def cmd_schema(args: argparse.Namespace) -> int:
    from .spec.classes import class_file_schema, spec_file_schema
    from .spec.model import OpSpec, Targets

    schemas = {
        "targets": Targets.model_json_schema,
        "op": OpSpec.model_json_schema,  # a spec with its class and sets filled in (`ptogen show`)
        "spec": spec_file_schema,  # a spec file as written
        "class": class_file_schema,
    }
    text = json.dumps(schemas[args.kind](), indent=2) + "\n"
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


def cmd_test(args: argparse.Namespace) -> int:
    from .testing.runner import run_cli

    return run_cli(_layout(args), args)


def cmd_import(args: argparse.Namespace) -> int:
    from .importer.build import run_import

    return run_import(_layout(args), args)


def cmd_diff_header(args: argparse.Namespace) -> int:
    """Declaration and dispatch drift between upstream's hand-written pto_instr.hpp (and the headers of
    instruction sets declared apart, pto_comm_inst.hpp) and the generated ones."""
    from .importer.declarations import Drift, arguing_notes, header_drift
    from .lower.views import ProjectView
    from .spec.load import load_specs

    layout = _layout(args)
    path = Path(args.upstream)
    if path.is_dir():
        path = path / "include" / "pto" / "common" / "pto_instr.hpp"
    try:
        upstream = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        print(f"ptogen diff-header: cannot read {path}: {exc.strerror}", file=sys.stderr)
        return EXIT_SPEC
    generated = (layout.generated_include / "pto" / "common" / "pto_instr.hpp").read_text(encoding="utf-8")
    specs = load_specs(layout.specs, layout.root)
    drift = header_drift(upstream, generated, arguing_notes(specs))
    # The headers of instruction sets declared apart (pto/comm/pto_comm_inst.hpp), beside upstream's.
    include = path.parents[2]  # upstream's include/ (path is its pto/common/pto_instr.hpp)
    for header, _impl, _namespace in ProjectView(specs).namespaced_headers:
        theirs = include / header
        if theirs.is_file():
            ours = (layout.generated_include / header).read_text(encoding="utf-8")
            more = header_drift(
                theirs.read_text(encoding="utf-8", errors="replace"), ours, arguing_notes(specs)
            )
            drift = Drift(
                drift.lines + more.lines,
                drift.total + more.total,
                drift.declared + more.declared,
                drift.identical + more.identical,
                drift.dispatched + more.dispatched,
                drift.unargued + more.unargued,
            )
    for line in drift.lines:
        print(line)
    differences = sum(not line.startswith(" ") for line in drift.lines)
    print(
        f"ptogen diff-header: of {drift.total} upstream declarations of the covered intrinsics, "
        f"{drift.declared} are generated, {drift.identical} token for token, and {drift.dispatched} "
        f"dispatch to the same _IMPL with the same arguments; {differences} difference(s), "
        f"{drift.unargued} argued by no spec note",
        file=sys.stderr,
    )
    return 1 if drift.unargued else 0


def docs_argv(layout: Layout, action: str, extra: list[str]) -> list[str]:
    """The MkDocs command `ptogen docs` runs: the generated site's config, strict builds."""
    config = layout.out / "mkdocs.yml"
    argv = [sys.executable, "-m", "mkdocs", action, "-f", str(config)]
    if action == "build":
        argv += ["--strict", "-d", str(layout.root / "site")]
    return argv + extra


def cmd_docs(args: argparse.Namespace) -> int:
    """Build (into site/) or serve the documentation site from anywhere in the checkout."""
    import importlib.util
    import subprocess

    layout = _layout(args)
    if importlib.util.find_spec("mkdocs") is None:
        print("ptogen docs: MkDocs is not installed; run `pip install -e '.[docs]'` first", file=sys.stderr)
        return EXIT_SPEC
    if not (layout.out / "mkdocs.yml").is_file():
        print(f"ptogen docs: {layout.out / 'mkdocs.yml'} is missing; run `ptogen gen` first", file=sys.stderr)
        return EXIT_SPEC
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}  # Material's end-of-life notice is no warning
    return subprocess.run(docs_argv(layout, args.action, args.mkdocs_args), env=env, check=False).returncode


def cmd_a5_check(args: argparse.Namespace) -> int:
    from .a5check import run_cli

    return run_cli(_layout(args), args)


def cmd_upstream_st(args: argparse.Namespace) -> int:
    from .upstream_st import run_cli

    return run_cli(_layout(args), args)


def _rel(path: Path) -> str:
    try:
        return path.relative_to(Path.cwd()).as_posix() or "."
    except ValueError:
        return str(path)


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="ptogen",
        description="Generate the PTO ISA header, checks, simulator, tests and docs from op specs.",
    )
    ap.add_argument(
        "--root", type=Path, help="project root (default: nearest directory with specs/ and templates/)"
    )
    ap.add_argument("--specs", type=Path, help="specs directory (default: ROOT/specs)")
    ap.add_argument("--out", type=Path, help="generated directory (default: ROOT/generated)")
    ap.add_argument("--templates", type=Path, help="templates directory (default: ROOT/templates)")
    sub = ap.add_subparsers(dest="command", required=True)

    sub.add_parser("gen", help="regenerate the output tree from the specs").set_defaults(func=cmd_gen)
    sub.add_parser(
        "check", help="exit 1 with a diff if the output tree is not what the specs produce"
    ).set_defaults(func=cmd_check)
    p = sub.add_parser("docs", help="build the documentation site into site/ (strict), or serve it")
    p.add_argument("action", nargs="?", choices=["build", "serve"], default="build")
    p.add_argument("mkdocs_args", nargs=argparse.REMAINDER, help="further arguments for mkdocs")
    p.set_defaults(func=cmd_docs)
    p = sub.add_parser(
        "show", help="an op's spec with its class and sets filled in, and where each fact came from"
    )
    p.add_argument("op", help="the op, e.g. tmaxs or pto.tmaxs")
    p.add_argument(
        "--brief",
        action="store_true",
        help="what a kernel writer looks up: declarations, element types per profile, tiles, semantics",
    )
    p.set_defaults(func=cmd_show)
    p = sub.add_parser("list", help="list the ops, their instruction sets and profiles")
    p.add_argument("--json", action="store_true")
    p.add_argument("--set", help="only this instruction set (its id or title, e.g. matrix_and_matrix_vector)")
    p.add_argument("--profile", help="only the ops this profile offers (A2A3, A5, CPU)")
    p.add_argument(
        "--dtype", help="only the ops some operand of which takes this element type, e.g. bfloat16_t"
    )
    p.add_argument("--category", help="only the ops of this category (targets.yaml `categories`): reduce")
    p.add_argument("--unit", help="only the ops this unit runs (targets.yaml `units`), e.g. cube")
    p.set_defaults(func=cmd_list)
    p = sub.add_parser("cflags", help="compiler flags to build a kernel against the generated headers")
    p.add_argument("--profile", help="enforce this target profile's checks (A2A3, A5, CPU)")
    p.add_argument(
        "--builtins",
        action="store_true",
        help="flags that run A5 vector code (upstream's include/, given with -I) on the builtin simulation",
    )
    p.add_argument(
        "--mpi",
        action="store_true",
        help="also the flags that run a comm kernel's ranks as MPI processes (PTO_COMM_MPI, MPI's includes "
        "and libraries: put them after the sources)",
    )
    p.set_defaults(func=cmd_cflags)
    sub.add_parser(
        "cmake-dir",
        help="write ptogenConfig.cmake for this project and print its directory, for "
        "find_package(ptogen) (-Dptogen_DIR=...): targets ptogen::ptogen and ptogen::<PROFILE>",
    ).set_defaults(func=cmd_build_dir)
    sub.add_parser(
        "pkgconfig-dir",
        help="write ptogen.pc (and ptogen-<profile>.pc) for this project and print their directory, "
        "for PKG_CONFIG_PATH",
    ).set_defaults(func=cmd_build_dir)
    p = sub.add_parser("schema", help="write the JSON Schema of a spec file (for editors)")
    p.add_argument(
        "--kind",
        choices=["spec", "class", "targets", "op"],
        default="spec",
        help="spec: an op spec file as written; class: specs/classes/*.yaml; "
        "op: a spec resolved (as `show` prints it)",
    )
    p.add_argument("-o", "--output", help="file to write (default: stdout)")
    p.set_defaults(func=cmd_schema)
    p = sub.add_parser("test", help="compile and run the generated test kernels")
    p.add_argument("ops", nargs="*", help="ops to test (default: all), e.g. tlrelu pto.tmaxs")
    p.add_argument("--profile", action="append", help="profile(s) to test (default: all)")
    p.add_argument(
        "--cxx",
        action="append",
        help="compiler(s) (default: $PTOGEN_TEST_COMPILERS, else the first of clang++ and g++)",
    )
    p.add_argument(
        "--include",
        type=Path,
        action="append",
        default=[],
        help="include directory of another PTO CPU simulator to compile the kernels against",
    )
    p.add_argument("-j", "--jobs", type=int, default=0, help="parallel jobs (default: CPU count)")
    p.add_argument("--no-compile-fail", action="store_true", help="skip the compile-fail tests")
    p.add_argument(
        "--tier",
        choices=["quick", "full"],
        default="full",
        help="full: every runtime case (default); quick: a reduced dtype x shape matrix, every op, "
        "profile, rule case and overload kept (user guide, 'Tests')",
    )
    p.add_argument(
        "--launcher",
        help="command every compile runs through, as CMake's CXX_COMPILER_LAUNCHER, e.g. ccache "
        "(default: $PTOGEN_CXX_LAUNCHER)",
    )
    p.add_argument("--cache", type=Path, help="object cache directory (default: ROOT/.ptogen-cache)")
    p.add_argument("-q", "--quiet", action="store_true", help="print failures and the summary only")
    p.add_argument(
        "--timeout",
        type=float,
        default=None,
        help="seconds one test executable may run (default: $PTOGEN_TEST_TIMEOUT, else 120)",
    )
    p.set_defaults(func=cmd_test)
    p = sub.add_parser(
        "diff-header", help="declarations where upstream's hand-written pto_instr.hpp and the specs differ"
    )
    p.add_argument("upstream", help="an upstream checkout, or its include/pto/common/pto_instr.hpp")
    p.set_defaults(func=cmd_diff_header)
    p = sub.add_parser("import", help="write specs from existing ISA documentation pages")
    p.add_argument("pages", nargs="+", type=Path)
    p.add_argument(
        "--out", dest="into", type=Path, help="directory for the new specs (default: ROOT/specs/ops)"
    )
    p.add_argument("--force", action="store_true", help="overwrite existing spec files")
    p.set_defaults(func=cmd_import)
    from .upstream_st import add_parser

    add_parser(sub).set_defaults(func=cmd_upstream_st)
    from .a5check import add_parser as add_a5_parser

    add_a5_parser(sub).set_defaults(func=cmd_a5_check)
    return ap


def _parse(argv: list[str] | None) -> argparse.Namespace:
    """Parse, letting the subcommand report an option it does not know (with its own usage)."""
    ap = parser()
    args, extra = ap.parse_known_args(argv)
    if extra:
        sub = next(a for a in ap._actions if isinstance(a, argparse._SubParsersAction))
        sub.choices[args.command].error(f"unrecognized arguments: {' '.join(extra)}")
    return args


def _environment_fault(exc: OSError) -> str:
    """One line naming the file and the fault, e.g. `generated/x: no space left on device (ENOSPC)`."""
    import errno

    name = errno.errorcode.get(exc.errno or 0, "")
    what = (exc.strerror or str(exc)).lower()
    where = f"{exc.filename}: " if exc.filename else ""
    return one_line(f"{where}{what}" + (f" ({name})" if name else ""))


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    try:
        return int(args.func(args))
    except SpecErrors as exc:
        for err in exc.errors:
            print(f"error: {err}", file=sys.stderr)
        return EXIT_SPEC
    except SpecError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_SPEC
    except GenerationError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_SPEC
    except BrokenPipeError:  # e.g. `ptogen gen | head`: the reader left, which is not an error
        sys.stderr.close()
        return 0
    except OSError as exc:  # disk full, read-only or busy output, lock held: nothing was replaced
        print(f"error: {_environment_fault(exc)}; {_rel(_layout(args).out)}/ is unchanged", file=sys.stderr)
        return EXIT_ENV


if __name__ == "__main__":
    sys.exit(main())
