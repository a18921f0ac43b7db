"""What the spec checks (spec/load.py) ask of an op kind: what its specs may state, as data
(`KindFacts`), and its checks of an op's expression and operands (`SpecKind`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from .expr import Node, as_source_problems, has_reduction, uses_function

if TYPE_CHECKING:
    from .model import OpSpec


@dataclass(frozen=True)
class KindFacts:
    """What the specs of an op kind may state (the loader rejects the rest)."""

    # An overload may state its own element semantics (its simulator template renders one function
    # per such form, and its golden preparation checks each).
    form_exprs: bool = False
    # With form_exprs: a form's own expression may also read the tile operands only that form takes
    # (TMATMUL_MX's accumulating form reads its `c_in`, its bias form its `bias`).
    form_operands_in_expr: bool = False
    # Its simulator names the result's element type `T`, so `rounded(x)` may round to it.
    rounds_to_element: bool = False
    # Its simulator also reads the tiles of `as_source(x)` as stored and computes x in their element
    # type `S`.
    rounds_to_source: bool = False
    # It writes its domain operand, which is then the op's dst (a hint's domain is only read).
    writes: bool = True
    # Its overloads declare every value template parameter of the main declaration (the loader says
    # so when one is missing). A kind whose declarations take different value parameters (TFILLPAD's
    # `TFillPadMode mode` and its one-type form's `PadValue PadVal`) turns this off.
    overloads_keep_values: bool = True
    # A tile op of this kind may write further outputs (`semantics.extra_outputs`), as vector ops may.
    tile_extra_outputs: bool = False
    # Its overloads may write further destinations of their own (own tile operands of role dst, as
    # TEXTRACT's two-window form writes `dst1`): the generic overload tests give each such tile the
    # destination's type and bytes and compare it with the main form's result (`FormTestView.own_results`).
    form_results: bool = False
    # Its test plan calls each declaration in runtime cases of its own (TMRGSORT's forms take other
    # operands than its main one): the kernels then call no further overload after a kernel's first case.
    plans_forms: bool = False
    # Destination operands the kind writes beyond its domain and `extra_outputs`, by its own rule rather
    # than by an expression (TQUANT's `exp`, `max` and `scaling`, passed by pointer).
    side_outputs: tuple[str, ...] = ()
    # The variants of the main declaration an op of this kind may state (`variants:` of its spec):
    # calls the types of their operands select (ConvTile operands), checked by the variant's own rules.
    variant_names: tuple[str, ...] = ()
    # Its expressions may name a context operand that stands for several tensors (a communication
    # op's parallel group of ranks) or for state shared between cores (a pipe's ring of slots).
    reads_groups: bool = False
    # Its ops are functions of the hand-written runtime (`builtin:`) at any level, as every scalar
    # page's op is: the vector register model's loads and stores.
    runtime_calls: bool = False
    # Its ops are IR forms that C++ writes with the language itself (a pointer cast, pointer arithmetic,
    # a subscript, a vector scope), not a function: a spec states that code (`spelling:`) instead of a
    # runtime `builtin`, at the scalar level.
    spelled: bool = False
    # Functions of the kind's own its expressions may apply (name -> number of arguments): the
    # collectives' row blocks of a group (`stacked(group)`, `split(src)`).
    functions: tuple[tuple[str, int], ...] = ()
    # The spans one result of its reduction may fold (`semantics.folds`, which each of its specs then
    # states): a tile's rows or columns, a register's whole, its 32-byte groups or its pairs of lanes.
    folds: tuple[str, ...] = ()


class SpecKind:
    """An op kind as the spec checks see it: its facts and its checks."""

    name: ClassVar[str]
    facts: ClassVar[KindFacts] = KindFacts()

    def check_expr(self, expr: Node) -> list[str]:
        """Problems of the parsed `semantics.expr` for this kind (default: no reductions)."""
        problems = []
        if has_reduction(expr):
            problems.append("this op kind does not reduce; reductions belong to the reduction kinds")
        for fn in ("rounded", "saturated"):
            if uses_function(expr, fn) and not self.facts.rounds_to_element:
                problems.append(f"{fn}() converts to the result's element type, which {self.name} ops lack")
        if uses_function(expr, "as_source") and not self.facts.rounds_to_source:
            problems.append(f"as_source() computes in its tiles' element type, which {self.name} ops lack")
        problems += as_source_problems(expr)
        return problems

    def check_operands(self, spec: OpSpec) -> list[tuple[tuple[str | int, ...], str]]:
        """Problems of the operand list for this kind (default: no GlobalTensor operands)."""
        return [
            (("operands", i, "kind"), "only transfer ops read or write a GlobalTensor")
            for i, o in enumerate(spec.operands)
            if o.kind == "global"
        ]

    def writes_domain(self, spec: OpSpec) -> bool:
        """Whether the op writes its domain operand, which is then its dst (default: `facts.writes`)."""
        return self.facts.writes

    def arg_value_output(self, expr: Node) -> bool:
        """Whether an overload may add an output holding the source value at each picked index."""
        return False
