"""The strategy every op kind implements (see the package docstring)."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, ClassVar

from ..spec.expr import Node, has_reduction, uses_function

if TYPE_CHECKING:
    from pathlib import Path

    from ..kind_api import FormViewAPI, OpViewAPI, ProjectViewAPI
    from ..rule_api import TileDecl
    from ..spec.model import OpSpec
    from ..testing.golden import Check, GoldenContext
    from ..testing.plan import OpTests

Job = tuple[str, str, dict[str, Any]]


@dataclass(frozen=True)
class PageOp:
    """What `ptogen import` knows of a page when op kinds look for themselves in it."""

    vector: bool  # the page's instruction set is a vector one
    math: str  # the page's formula (LaTeX), "" when it has none
    reduces_over: str | None  # the index a reduction at the top of the formula's right side runs over
    intro: str  # the paragraph introducing the formula (a generated page: the kind's iteration domain)
    operand_kinds: tuple[str, ...]  # the kind of each operand (tile, scalar, global, events, ...)

    @property
    def lhs(self) -> str:
        return self.math.partition("=")[0]

    def count(self, kind: str) -> int:
        """How many operands of this kind the page has."""
        return self.operand_kinds.count(kind)

    def has(self, kind: str) -> bool:
        return kind in self.operand_kinds

    def intro_says(self, phrase: str) -> bool:
        """Whether the formula's introduction walks elements (`For each ...`) and says `phrase`."""
        return self.intro.startswith("For each") and phrase in self.intro


# How specific a page's evidence for an op kind is (`OpKind.recognise`); the import takes the kind
# with the most specific evidence.
FALLBACK = 0  # what any tile (or vector) page is unless a kind recognises more
FORMULA = 1  # the formula's shape: a reduction, a packed result
DOMAIN = 2  # the wording of the kind's own iteration-domain paragraph (its domain.md.j2)
OPERANDS = 3  # the operands alone: a GlobalTensor, events without a tile


class OpKind:
    name: ClassVar[str]
    # Operates on vector registers lane by lane (its functions live in pto_vec.hpp), not on tiles.
    lanes: ClassVar[bool] = False
    # An overload may state its own element semantics (its simulator template renders one function
    # per such form, and its golden preparation checks each).
    form_exprs: ClassVar[bool] = False
    # With form_exprs: a form's own expression may also read the tile operands only that form takes
    # (TMATMUL_MX's accumulating form reads its `c_in`, its bias form its `bias`).
    form_operands_in_expr: ClassVar[bool] = False
    # Its simulator names the result's element type `T`, so `rounded(x)` may round to it.
    rounds_to_element: ClassVar[bool] = False
    # It writes its domain operand, which is then the op's dst (a hint's domain is only read).
    writes: ClassVar[bool] = True
    # Its spec writes the semantics as index notation (`dst[i,j] = ...`), which `ptogen import` reads
    # back from the page's formula as such.
    index_notation: ClassVar[bool] = False
    # Its overloads declare every value template parameter of the main declaration (the loader says
    # so when one is missing). A kind whose declarations take different value parameters (TFILLPAD's
    # `TFillPadMode mode` and its one-type form's `PadValue PadVal`) turns this off.
    overloads_keep_values: ClassVar[bool] = True
    # A tile op of this kind may write further outputs (`semantics.extra_outputs`), as vector ops may.
    tile_extra_outputs: ClassVar[bool] = False
    # Its overloads may write further destinations of their own (own tile operands of role dst, as
    # TEXTRACT's two-window form writes `dst1`): the generic overload tests give each such tile the
    # destination's type and bytes and compare it with the main form's result (`FormTestView.own_results`).
    form_results: ClassVar[bool] = False

    def own_impls(self, spec: OpSpec) -> set[str]:
        """Backend functions (`<NAME>_IMPL`, by NAME) the kind's simulator defines for some of the
        op's declarations beside the op's own (TEXTRACT's ND to 2xNZ form): none by default."""
        return set()

    # Its test plan calls each declaration in runtime cases of its own (TMRGSORT's forms take other
    # operands than its main one): the kernels then call no further overload after a kernel's first case.
    plans_forms: ClassVar[bool] = False
    # Every operand is a whole tile of the destination's shape and element (i, j) of the result reads
    # element (i, j) of each source, so `python -m ptogen.bench --sim` can time it on square tiles.
    whole_tile_bench: ClassVar[bool] = False
    # Destination operands the kind writes beyond its domain and `extra_outputs`, by its own rule rather
    # than by an expression (TQUANT's `exp`, `max` and `scaling`, passed by pointer).
    side_outputs: ClassVar[tuple[str, ...]] = ()

    # The variants of the main declaration an op of this kind may state (`variants:` of its spec):
    # calls the types of their operands select (ConvTile operands), checked by the variant's own rules.
    variant_names: ClassVar[tuple[str, ...]] = ()

    def variant_condition(self, op: OpViewAPI, name: str) -> str:
        """The C++ condition, over the main declaration's template types, under which a call is the
        variant `name` (one of `variant_names`)."""
        raise NotImplementedError(f"{self.name} ops have no variant {name!r}")

    def template(self, part: str) -> str:
        """A template of this kind's own text: templates/opkinds/<name>/<part>."""
        return f"opkinds/{self.name}/{part}"

    # ----------------------------------------------------------------- import
    # How the kind's iteration-domain paragraph (the `math_intro` of its domain.md.j2) begins, without
    # Markdown: the import leaves such paragraphs out of the mechanism it reads.
    domain_starts: ClassVar[tuple[str, ...]] = ()

    def recognise(self, page: PageOp) -> int | None:
        """Whether a page shows an op of this kind: None if not, else how specific the evidence is
        (FALLBACK, FORMULA, DOMAIN, OPERANDS). `ptogen import` asks every kind in `KINDS` and takes
        the one with the most specific evidence (on a tie, the first in `KINDS`); each kind reads
        what its own templates write (`templates/opkinds/<name>/domain.md.j2`), and
        tests/test_contracts.py checks that every spec's kind recognises the spec's own pages."""
        return None

    def import_domain(self, operands: list[dict[str, Any]]) -> str | None:
        """The operand an imported op of this kind iterates (its `semantics.domain`), or None: the
        page names none. By default its first destination."""
        return next((o["name"] for o in operands if o["role"] == "dst"), None)

    def import_formulas(self, math: str) -> list[tuple[str | None, str]]:
        """The plain formulas a page's formula (LaTeX) holds, each with the result it gives: the
        main result's first (its name may be None), then further results' (`extra_outputs`). By
        default the whole formula is the main result's."""
        return [(None, math)]

    def complete_import(self, semantics: dict[str, Any], operands: list[dict[str, Any]]) -> None:
        """Adjust an imported spec's `semantics` and `operands` to what a page of this kind implies
        (default: nothing to adjust)."""

    # ----------------------------------------------------------------- spec checks
    def check_expr(self, expr: Node) -> list[str]:
        """Problems of the parsed `semantics.expr` for this kind (default: no reductions)."""
        problems = []
        if has_reduction(expr):
            problems.append("this op kind does not reduce; reductions belong to row_reduce/col_reduce ops")
        for fn in ("rounded", "saturated"):
            if uses_function(expr, fn) and not self.rounds_to_element:
                problems.append(f"{fn}() converts to the result's element type, which {self.name} ops lack")
        return problems

    def check_operands(self, spec: OpSpec) -> list[tuple[tuple[str | int, ...], str]]:
        """Problems of the operand list for this kind (default: no GlobalTensor operands)."""
        return [
            (("operands", i, "kind"), "only transfer ops read or write a GlobalTensor")
            for i, o in enumerate(spec.operands)
            if o.kind == "global"
        ]

    # ----------------------------------------------------------------- math
    def arg_value_output(self, expr: Node) -> bool:
        """Whether an overload may add an output holding the source value at each picked index."""
        return False

    def region_source(self, op: OpViewAPI) -> str:
        """The source tile whose valid region the op walks (reductions: the one their term reads)."""
        return self.region(op)

    def region(self, op: OpViewAPI) -> str:
        """The tile whose valid region the op iterates (the destination, unless the kind says)."""
        return op.spec.semantics.domain

    def math(self, op: OpViewAPI) -> str | None:
        """LaTeX of the op's semantics when the kind does not write it as `dst = expr` (a binding)."""
        return None

    def result_index(self, op: OpViewAPI) -> str:
        """LaTeX index of one result element, e.g. `i,j` (tile) or `i` (lane, row reduction)."""
        raise NotImplementedError

    def operand_index(self, op: OpViewAPI, operand: str) -> str:
        """LaTeX index of an operand element as the math reads it."""
        raise NotImplementedError

    def reduce_index(self, op: OpViewAPI) -> str | None:
        """LaTeX index a reduction in the expression runs over (None: the kind does not reduce)."""
        return None

    def reduce_axis(self, op: OpViewAPI) -> int | None:
        """numpy axis a reduction folds over (None: the kind does not reduce)."""
        return None

    def tile_shape(
        self, op: OpViewAPI, operand: str, rows: int, cols: int, vr: int, vc: int
    ) -> tuple[int, int, int, int]:
        """(rows, cols, valid rows, valid cols) of a tile operand when the source tile has the
        given shape; element-wise kinds use one shape for every tile."""
        return rows, cols, vr, vc

    def shaped_tile(self, op: OpViewAPI, tile: TileDecl) -> TileDecl:
        """A test tile of an operand as this kind declares it, given the plan's tile: by default the
        same location and layout, shaped by `tile_shape`; a kind whose operands live in particular
        locations or layouts (the cube's Left, Right and Acc tiles) sets those too."""
        rows, cols, vr, vc = self.tile_shape(
            op, tile.name, tile.rows, tile.cols, tile.valid_rows, tile.valid_cols
        )
        return replace(tile, rows=rows, cols=cols, valid_rows=vr, valid_cols=vc)

    # ----------------------------------------------------------------- outputs
    def outputs(self, op: OpViewAPI) -> list[Job]:
        """Files this op contributes besides the project-wide ones (header, checks, indexes): its
        simulator (templates/opkinds/<kind>/sim.hpp.j2), both doc pages and the figure. An op that
        dispatches to another op's `_IMPL` (TRECIP to TDIVS) has no simulator of its own."""
        own = op.has_backend
        sim = [(f"include/{op.sim_header}", self.template("sim.hpp.j2"), {"op": op})] if own else []
        return [
            *sim,
            (op.doc_path, "docs/op_page.md.j2", {"op": op}),
            (op.ref_doc_path, "docs/ref_page.md.j2", {"op": op}),
            (f"docs/isa/figures/{op.upper}.svg", "docs/figure.svg.j2", {"op": op}),
        ]

    # ----------------------------------------------------------------- header and backend
    unchecked_reason: ClassVar[str] = ""

    def unchecked_when(self, op: OpViewAPI, form: FormViewAPI) -> str | None:
        """A C++ condition on a form's types under which it runs without the profile's rules (which
        cannot speak about those types), or None: it is always checked."""
        return None

    def impl_value_type(self, op: OpViewAPI, form: FormViewAPI, name: str, declared: str) -> str:
        """The type under which the CPU backend's `_IMPL` takes the value template parameter `name`,
        which the declaration types `declared`: by default the same. A kind whose declarations say
        `auto` for parameters that only their backends type (TQUANT's `quant_type`, `mx_alg`) names the
        enum, so that the overloads of its `_IMPL` stay apart as upstream's do."""
        return declared

    def sim_targs(self, op: OpViewAPI, form: FormViewAPI) -> list[str]:
        """Template arguments the CPU backend's `_IMPL` passes to the simulator function of a form."""
        return []

    def form_changes_result(self, op: OpViewAPI, form: FormViewAPI) -> bool:
        """Whether a form without its own `expr`, called with its test values, computes something
        other than the main form (TSTORE's atomic and ReLU modes); such a form gets its own golden."""
        return False

    def stand_in(self, op: OpViewAPI, form: FormViewAPI, operand: str) -> str | None:
        """The operand that plays `operand` in a form that drops it (None: nothing does, and the
        form's body must not need it). TMATMUL_ACC's in-place form reads its destination there."""
        return None

    def dropped_template_arg(self, op: OpViewAPI, form: FormViewAPI, name: str) -> str | None:
        """What a form that lacks the main declaration's template parameter `name` (and any operand
        standing in for it) passes for it to the op's common check, or None: such a form is an error.
        SYNCALL's hardware form passes `SyncAllMode::Hard` and no workspace type."""
        return None

    def sim_args(self, op: OpViewAPI, form: FormViewAPI) -> list[str]:
        """Arguments the CPU backend's `_IMPL` passes to the simulator function of a form."""
        return form.impl_args

    # ----------------------------------------------------------------- tests
    def test_call(
        self, op: OpViewAPI, tiles: dict[str, TileDecl], variant: dict[str, str], scalar_expr: dict[str, str]
    ) -> tuple[list[str], list[str]] | None:
        """(template arguments, call arguments) of a test kernel's call of the main declaration when
        the kind spells it itself (every template argument explicit, as TCI's `TCI<TileT, T, 1>`), or
        None: the planner's default (value template arguments only where a variant sets them)."""
        return None

    def form_template_args(
        self, form: FormViewAPI, main_explicit: list[str], type_names: dict[str, str]
    ) -> list[str] | None:
        """Explicit template arguments of a test call of a further declaration, given the main call's
        (`main_explicit`, from `test_call`) and the C++ types of the test's tiles, when the kind
        spells its calls itself; None: the default (lower/testcalls.py)."""
        return None

    def manifest_extra(self, op: OpViewAPI) -> dict[str, Any]:
        """Facts of the op that this kind's `prepare_cases` needs beyond the common manifest."""
        return {}

    def plan_tests(self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
        raise NotImplementedError

    @staticmethod
    def dtype_profiles(project: ProjectViewAPI, op: OpViewAPI) -> list[tuple[str, list[str]]]:
        """Each element type some profile's tests run, in vocabulary order, with those profiles."""
        profiles = [p.name for p in project.profiles]
        order = [d.name for d in project.targets.dtypes]
        dtypes = {d for p in profiles for d in op.test_dtypes(p)}
        return [(d, [p for p in profiles if d in op.test_dtypes(p)]) for d in sorted(dtypes, key=order.index)]

    def runs_untested(self, op: OpViewAPI) -> set[str]:
        """Element types outside the test matrix (`test_matrix: false`) that this kind's tests run
        for the op all the same (an MX product's fp8 elements and e8m0 scales); default: none."""
        return set()

    def test_includes(self, op: OpViewAPI) -> list[str]:
        """Standard headers the op's test kernels include besides the common ones (`<sstream>`).
        Default: none."""
        return []

    def form_tile(self, op: OpViewAPI, form: FormViewAPI, operand: str, like: TileDecl) -> TileDecl:
        """A tile only the further declaration `form` takes (`operand`), as its rule-driven compile
        cases declare it before renaming it `<operand>_f<k>`. Default: shaped like the destination
        (`like`); the MX products give the bias forms' tile its own one-row Bias shape."""
        return replace(like, name=operand)

    def test_contexts(self, op: OpViewAPI) -> list[tuple[str, str]]:
        """(C++ type, name) of the context operands the rule-driven compile cases of the main
        declaration declare (`plan_rule_cases`). Default: none."""
        return []

    def prepare_cases(self, gx: GoldenContext, data: Path) -> list[Check]:
        """Write the inputs of a runtime group's cases into `data`; return one check per case."""
        raise NotImplementedError


class NamesOperand(OpKind):
    """Kinds whose expression only names the operand the op moves, views or reads (transfers,
    gathers and scatters, views, hints): it computes nothing."""

    def check_expr(self, expr: Node) -> list[str]:
        if expr.op != "name":
            return [f"a {self.name} op's expression names one operand, e.g. `src`; it computes nothing"]
        return []

    @staticmethod
    def source(op: OpViewAPI) -> str:
        return str(op.loaded.expr.value)


def operand_type(op: OpViewAPI, operand: str) -> str:
    """The template type of an operand in the main declaration (`SrcTileData`)."""
    return next(str(p.type) for p in op.forms[0].params if p.operand == operand and p.type)


def fixed_type(form: FormViewAPI, expr: str) -> str:
    """The type of a constant template argument the intrinsic fixes: its enum when it is one of
    targets.yaml's enumerators (`AtomicType::AtomicNone`), so that the adapter is the same function
    as that of a declaration passing a parameter of that enum there; else `auto`."""
    m = re.fullmatch(r"(\w+)::(\w+)", expr.strip())
    enums = {e.name: e for e in form.op.targets.enums}
    if m and m.group(1) in enums and m.group(2) in enums[m.group(1)].values:
        return m.group(1)
    return "auto"
