"""Rule kinds `tensor_dtype`, `same_tensor_dtype` and `same_tensor_layout`: the element types and
layouts of GlobalTensors and parallel groups beside staging tiles (the communication ops)."""

from __future__ import annotations

from ptogen.rules import PageLine
from ptogen.rules.tensor_types import SameTensorDTypeRule, SameTensorLayoutRule, TensorDTypeRule

from ..helpers import ROOT
from .common import OPS, PAGE, SPECS, failing_cases


def test_each_profile_breaks_the_rules_it_has_and_the_cpu_profile_only_upstream_simulators() -> None:
    tput = failing_cases("tput")
    assert sorted(tput) == [
        "fail_a2a3_00_same_tensor_dtype",
        "fail_a2a3_01_same_tensor_layout",
        "fail_a5_00_same_tensor_dtype",
        "fail_a5_01_same_tensor_layout",
    ]  # upstream's simulator converts between element types and layouts: the CPU profile too
    assert tput["fail_a5_00_same_tensor_dtype"] == [
        "TPUT [A5]: the element types of dst_global_data, src_global_data and staging_tile_data must be"
        " the same"
    ]
    ttest = failing_cases("ttest")
    assert ttest["fail_cpu_01_tensor_dtype"] == [
        "TTEST [CPU]: the element type of signal_data must be int32_t, uint32_t or float"
    ]
    assert ttest["fail_a2a3_00_tensor_dtype"] == [
        "TTEST [A2A3]: the element type of signal_data must be int32_t"
    ]
    gather = failing_cases("comm_tgather")
    assert gather["fail_cpu_01_same_tensor_layout"] == [
        "TGATHER [CPU]: the layouts of parallel_group and dst_global_data must be the same"
    ]
    # The second tensor changes: dst becomes DN beside the group's ND tensors.
    verify = (ROOT / "generated/tests/comm_tgather/verify.cpp").read_text()
    body = verify[verify.index("void fail_cpu_01_same_tensor_layout") :]
    body = body[: body.index("\n}\n")]
    assert body.count("Layout::DN>") == 1 and body.count("Layout::ND>") == 3


def test_doc_lines_read_back_and_conditions_name_the_operands_types() -> None:
    op = OPS["twait"]
    (rule,) = [r for r in op.spec.constraints if isinstance(r, TensorDTypeRule)]
    assert rule.doc(op) == "The element type of `signal_data` must be `int32_t`."
    assert op.rule_view(rule).condition == (
        "sim::is_one_of_v<std::remove_cv_t<typename GlobalSignalData::DType>, int32_t>"
    )
    line = PageLine(
        None, "The element type of signal_data must be int32_t, uint32_t or float (bits compared)."
    )
    assert TensorDTypeRule.recognise(line, PAGE) == {
        "operands": ["signal_data"],
        "dtypes": ["int32_t", "uint32_t", "float"],
        "note": "bits compared",
    }
    op = OPS["tbroadcast"]
    same, layout = op.spec.constraints
    assert isinstance(same, SameTensorDTypeRule) and isinstance(layout, SameTensorLayoutRule)
    assert op.rule_view(layout).condition == "ParallelGroupType::layout == GlobalSrcData::layout"
    assert (
        layout.doc(op) == "The layouts (`Layout`) of `parallel_group` and `src_global_data` must be the same."
    )
    read = SameTensorLayoutRule.recognise(
        PageLine(None, "The layouts (Layout) of parallel_group and src_global_data must be the same."), PAGE
    )
    assert read == {"operands": ["parallel_group", "src_global_data"]}
    read = SameTensorDTypeRule.recognise(
        PageLine(
            None,
            "The element types of parallel_group, src_global_data and staging_tile_data must be the same.",
        ),
        PAGE,
    )
    assert read == {"operands": ["parallel_group", "src_global_data", "staging_tile_data"]}
    assert SameTensorDTypeRule.recognise(PageLine(None, "The element types of a must differ."), PAGE) is None


def test_a_rule_names_operands_of_the_kinds_it_compares() -> None:
    spec, targets = OPS["tput"].spec, SPECS.targets
    problems = list(
        TensorDTypeRule(operands=["staging_tile_data"], dtypes=["int32_t", "int33_t"]).check(spec, targets)
    )
    assert problems == [
        (("operands", 0), "'staging_tile_data' is not a GlobalTensor or parallel group operand of this op"),
        (("dtypes", 1), "unknown dtype 'int33_t' (did you mean 'int32_t'?)"),
    ]
    tiles_only = SameTensorDTypeRule(operands=["staging_tile_data", "staging_tile_data"])
    assert list(tiles_only.check(spec, targets))[-1] == (
        ("kind",),
        "the operands are all tiles: a same_dtype rule states that",
    )
    assert list(SameTensorLayoutRule(operands=["dst_global_data", "nosuch"]).check(spec, targets)) == [
        (("operands", 1), "'nosuch' is not a GlobalTensor or parallel group operand of this op")
    ]
