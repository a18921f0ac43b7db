"""Round trip: every generated page (op page and reference page) of every op imports back to the
spec it was generated from, up to what a page cannot carry (listed below, each with its reason)."""

from __future__ import annotations

import copy
import functools
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from ptogen.importer.build import import_page
from ptogen.importer.problem import ImportProblem
from ptogen.spec.load import load_specs, resolve_file

from ..helpers import ROOT, checkout_project, generated_pages, quick_sample

YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

DOCS = ROOT / "generated/docs/isa"

# Spec facts no generated page states, so no import can recover them: (dotted path, reason).
NOT_ON_ANY_PAGE: tuple[tuple[str, str], ...] = (
    ("semantics.compute", "the compute type is used by the simulator only, never printed"),
    ("semantics.tolerance", "test tolerances are for the generated tests, not documented"),
    ("test_values", "special test values are used by the generated tests only"),
    ("operands.*.packed", "packing is described in prose, which is not parsed back into a field"),
    ("operands.*.broadcast", "broadcasting is described in prose only"),
    ("operands.*.broadcast_swap", "the swappable roles are stated by the broadcast_role rule's line"),
    ("semantics.extra_outputs.*", "the page gives the formula of the main result only"),
    ("intrinsic.overloads.*.test_args", "test arguments of overloads are not documented"),
    ("intrinsic.overloads.*.test_template_args", "test template arguments of overloads are not documented"),
    ("intrinsic.dispatch", "the backend call is a fact of upstream's header, not of the pages"),
    ("intrinsic.overloads.*.dispatch", "the backend call is a fact of upstream's header, not of the pages"),
    ("intrinsic.backend_headers", "backend file names are facts of upstream's tree, not of the pages"),
)
# The reference layout has no Side Effects, Exceptions, Target-Profile Restrictions or operand-table
# sections.
NOT_ON_REFERENCE_PAGES: tuple[tuple[str, str], ...] = (
    ("mechanism", "the reference layout has the summary as its introduction and no mechanism prose"),
    ("side_effects", "the reference layout has no Side Effects section"),
    ("exceptions", "the reference layout has no Exceptions section"),
    ("operands.*.description", "the reference layout has no Inputs / Expected Outputs tables"),
    ("operands.*.asm_type", "the reference layout has no Inputs / Expected Outputs tables"),
    ("operands.*.role", "the reference layout has no Inputs / Expected Outputs tables"),
    ("profile_notes", "the reference layout has no Target-Profile Restrictions section"),
    ("intrinsic.overloads.*.operands.*.description", "the reference layout has no operand tables"),
    ("intrinsic.overloads.*.operands.*.asm_type", "the reference layout has no operand tables"),
    ("intrinsic.overloads.*.operands.*.role", "the reference layout has no operand tables"),
)


# Facts the pages do carry but the importer does not read back yet (work left, not a page limit).
# They are compared on the pages listed in EXACT below, which already round-trip in full. One is
# left: a page's Variants section (the pages of TEXTRACT and TTRANS, which are therefore not EXACT).
NOT_READ_BACK_YET: tuple[tuple[str, str], ...] = (
    (
        "variants",
        "a page's Variants section (TEXTRACT's and TTRANS's ConvTile variants) is not read back yet",
    ),
)

# Pages whose op has declarations that drop main operands and that `ptogen import` does
# not read back yet; what each lacks, precisely (the op pages of TMRGSORT and TGATHER and both pages
# of TSCATTER read back in full: a further declaration over the main one's destination drops the
# main operands it does not pass, takes a struct parameter as a context operand, and a rule limited
# to it reads the tiles it passes as its data tiles):
# - TMRGSORT.md: the reference layout has no operand table, so a list form's struct parameter
#   (`executedNumList`) keeps its parameter's name instead of the syntax line's `%executed`, and the
#   list forms, named apart from the spec's operands, are left out with the rules limited to them.
# - TGATHER.md: the reference layout has no operand table, so the operands are named after the
#   syntax lines, whose `%src` (the mask form's) binds the index form's `tmp` parameter as an operand
#   `src`; the operands, the declarations and the rules on them are misread.
# Reading them back needs the reference layout's syntax lines matched to each declaration (which
# line belongs to which form), not a change of the pages.
_DROPPING = ("intrinsic.overloads",)
_MISREAD = ("intrinsic", "operands", "constraints")
# Pages of the MX products: their accumulating forms name the destination
# `cOutMatrix` (the main form `cMatrix`) and their accumulating and bias forms add a tile their own
# expression reads; the importer keeps neither kind of declaration yet.
_MX_FORMS = ("intrinsic.overloads",)
# TEXTRACT's ND to 2xNZ declaration writes a further destination (`dst1`), which the importer does not
# read back as an operand either: the declaration and the rules that name `dst1` are left out.
_FURTHER = ("intrinsic.overloads", "constraints")
NOT_READ_BACK_ON: dict[str, tuple[str, ...]] = {
    "tile/ops/matrix-and-matrix-vector/tmatmul_mx.md": _MX_FORMS,
    "TMATMUL_MX.md": _MX_FORMS,
    "tile/ops/matrix-and-matrix-vector/tgemv_mx.md": _MX_FORMS,
    "TGEMV_MX.md": _MX_FORMS,
    "tile/ops/layout-and-rearrangement/textract.md": _FURTHER,
    "TEXTRACT.md": _FURTHER,
    "TMRGSORT.md": _DROPPING,
    "TGATHER.md": _MISREAD,
    "tile/ops/irregular-and-complex/tscatter.md": _MISREAD,
    "TSCATTER.md": _MISREAD,
    # SYNCALL's further declaration drops the main operands, which the importer does not keep; its
    # two-line assembly syntax is not read.
    "tile/ops/sync-and-config/syncall.md": (*_DROPPING, "syntax"),
    "SYNCALL.md": (*_DROPPING, "syntax"),
    # TQUANT: its MX side tiles are passed by pointer and its integer forms drop them; the importer
    # reads the forms' own operands as main ones and keeps neither the pointers nor the dropping forms,
    # and the page's formula is the MX stages' summary, not an element expression.
    "tile/ops/irregular-and-complex/tquant.md": (*_MISREAD, "intrinsic.overloads", "semantics.expr"),
    "TQUANT.md": (*_MISREAD, "intrinsic.overloads", "semantics.expr"),
    # TDEINTERLEAVE's one-source declaration passes its `src` for `src0` and drops `src1`.
    "tile/ops/layout-and-rearrangement/tdeinterleave.md": _DROPPING,
    "TDEINTERLEAVE.md": _DROPPING,
}


# Pages that round-trip in full, every fact compared (NOT_READ_BACK_YET included).
EXACT: tuple[str, ...] = (
    "tile/ops/sync-and-config/set_quant_scalar.md",
    "SET_QUANT_SCALAR.md",
    "scalar/ops/pipeline-sync/set_flag.md",
    "scalar/ops/pipeline-sync/wait_flag.md",
    "scalar/ops/pipeline-sync/pipe_barrier.md",
    "scalar/ops/pipeline-sync/mem_bar.md",
    "scalar/ops/pipeline-sync/get_buf.md",
    "scalar/ops/pipeline-sync/rls_buf.md",
    "scalar/ops/pipeline-sync/set_cross_core.md",
    "scalar/ops/pipeline-sync/wait_flag_dev.md",
    "scalar/ops/pipeline-sync/set_intra_block.md",
    "scalar/ops/pipeline-sync/wait_intra_core.md",
    "vector/ops/vector-load-store/vlds.md",
    "vector/ops/vector-load-store/vldas.md",
    "vector/ops/vector-load-store/vldus.md",
    "vector/ops/vector-load-store/vgather2.md",
    "vector/ops/vector-load-store/vgather2_bc.md",
    "vector/ops/vector-load-store/vsts.md",
    "vector/ops/vector-load-store/vscatter.md",
    "vector/ops/vector-load-store/vstus.md",
    "vector/ops/vector-load-store/vstur.md",
    "vector/ops/vector-load-store/vstas.md",
    "vector/ops/vector-load-store/vstar.md",
    "vector/ops/vector-load-store/vldsx2.md",
    "vector/ops/vector-load-store/vsld.md",
    "vector/ops/vector-load-store/vsldb.md",
    "vector/ops/vector-load-store/vgatherb.md",
    "vector/ops/vector-load-store/vstsx2.md",
    "vector/ops/vector-load-store/vsst.md",
    "vector/ops/vector-load-store/vsstb.md",
    "vector/ops/vector-load-store/vsta.md",
    "vector/ops/vector-load-store/vstu.md",
    "vector/ops/data-rearrangement/vintlv.md",
    "vector/ops/data-rearrangement/vdintlv.md",
    "vector/ops/data-rearrangement/vsqz.md",
    "vector/ops/data-rearrangement/vpack.md",
    "vector/ops/data-rearrangement/vslide.md",
    "vector/ops/data-rearrangement/vshift.md",
    "vector/ops/data-rearrangement/vusqz.md",
    "vector/ops/data-rearrangement/vperm.md",
    "vector/ops/data-rearrangement/vsunpack.md",
    "vector/ops/data-rearrangement/vzunpack.md",
    "vector/ops/data-rearrangement/vintlvv2.md",
    "vector/ops/data-rearrangement/vdintlvv2.md",
    "scalar/ops/predicate-generation-and-algebra/pset_b8.md",
    "scalar/ops/predicate-generation-and-algebra/pset_b16.md",
    "scalar/ops/predicate-generation-and-algebra/pset_b32.md",
    "scalar/ops/predicate-generation-and-algebra/pge_b8.md",
    "scalar/ops/predicate-generation-and-algebra/pge_b16.md",
    "scalar/ops/predicate-generation-and-algebra/pge_b32.md",
    "scalar/ops/predicate-generation-and-algebra/plt_b8.md",
    "scalar/ops/predicate-generation-and-algebra/plt_b16.md",
    "scalar/ops/predicate-generation-and-algebra/plt_b32.md",
    "scalar/ops/predicate-generation-and-algebra/ppack.md",
    "scalar/ops/predicate-generation-and-algebra/punpack.md",
    "scalar/ops/predicate-generation-and-algebra/pand.md",
    "scalar/ops/predicate-generation-and-algebra/por.md",
    "scalar/ops/predicate-generation-and-algebra/pxor.md",
    "scalar/ops/predicate-generation-and-algebra/pnot.md",
    "scalar/ops/predicate-generation-and-algebra/psel.md",
    "scalar/ops/predicate-generation-and-algebra/pdintlv_b8.md",
    "scalar/ops/predicate-generation-and-algebra/pdintlv_b16.md",
    "scalar/ops/predicate-generation-and-algebra/pdintlv_b32.md",
    "scalar/ops/predicate-generation-and-algebra/pintlv_b8.md",
    "scalar/ops/predicate-generation-and-algebra/pintlv_b16.md",
    "scalar/ops/predicate-generation-and-algebra/pintlv_b32.md",
    "scalar/ops/predicate-load-store/plds.md",
    "scalar/ops/predicate-load-store/pld.md",
    "scalar/ops/predicate-load-store/pldi.md",
    "scalar/ops/predicate-load-store/psts.md",
    "scalar/ops/predicate-load-store/pst.md",
    "scalar/ops/predicate-load-store/psti.md",
    "scalar/ops/predicate-load-store/pstu.md",
    "vector/ops/compare-select/vcmp.md",
    "vector/ops/compare-select/vcmps.md",
    "vector/ops/compare-select/vsel.md",
    "vector/ops/compare-select/vselr.md",
    "vector/ops/predicate-and-materialization/vbr.md",
    "vector/ops/predicate-and-materialization/vdup.md",
    "vector/ops/compare-select/vselrv2.md",
    "vector/ops/conversion-ops/vci.md",
    "vector/ops/conversion-ops/vcvt.md",
    "vector/ops/conversion-ops/vtrc.md",
    "vector/ops/conversion-ops/vbitcast.md",
    "vector/ops/conversion-ops/pbitcast.md",
    "vector/ops/sfu-and-dsa-ops/vprelu.md",
    "vector/ops/sfu-and-dsa-ops/vexpdif.md",
    "vector/ops/sfu-and-dsa-ops/vaddrelu.md",
    "vector/ops/sfu-and-dsa-ops/vsubrelu.md",
    "vector/ops/sfu-and-dsa-ops/vaxpy.md",
    "vector/ops/sfu-and-dsa-ops/vaddreluconv.md",
    "vector/ops/sfu-and-dsa-ops/vmulconv.md",
    "vector/ops/sfu-and-dsa-ops/vmull.md",
    "vector/ops/sfu-and-dsa-ops/vmula.md",
    "vector/ops/sfu-and-dsa-ops/vtranspose.md",
    "vector/ops/sfu-and-dsa-ops/vsort32.md",
    "vector/ops/sfu-and-dsa-ops/vbitsort.md",
    "vector/ops/sfu-and-dsa-ops/vmrgsort.md",
    "comm/ops/communication/tput.md",
    "TPUT.md",
    "comm/ops/communication/tget.md",
    "TGET.md",
    "comm/ops/communication/tput_async.md",
    "TPUT_ASYNC.md",
    "comm/ops/communication/tget_async.md",
    "TGET_ASYNC.md",
    "comm/ops/communication/tnotify.md",
    "TNOTIFY.md",
    "comm/ops/communication/twait.md",
    "TWAIT.md",
    "comm/ops/communication/ttest.md",
    "TTEST.md",
    "comm/ops/communication/tbroadcast.md",
    "TBROADCAST.md",
    "comm/ops/communication/treduce.md",
    "TREDUCE.md",
    "comm/ops/communication/tgather.md",
    "comm/TGATHER.md",
    "comm/ops/communication/tscatter.md",
    "comm/TSCATTER.md",
    "tile/ops/layout-and-rearrangement/timg2col.md",
    "TIMG2COL.md",
    "tile/ops/sync-and-config/setfmatrix.md",
    "SETFMATRIX.md",
    "tile/ops/sync-and-config/set_img2col_rpt.md",
    "SET_IMG2COL_RPT.md",
    "tile/ops/sync-and-config/set_img2col_padding.md",
    "SET_IMG2COL_PADDING.md",
    "tile/ops/layout-and-rearrangement/tinterleave.md",
    "TINTERLEAVE.md",
    "tile/ops/irregular-and-complex/tsort32.md",
    "TSORT32.md",
    "tile/ops/irregular-and-complex/tgatherb.md",
    "TGATHERB.md",
    "tile/ops/irregular-and-complex/tscatter.md",
    "TSCATTER.md",
    "tile/ops/irregular-and-complex/tgather.md",
    "tile/ops/irregular-and-complex/tmrgsort.md",
    "tile/ops/irregular-and-complex/thistogram.md",
    "THISTOGRAM.md",
    "tile/ops/layout-and-rearrangement/tmov.md",
    "TMOV.md",
    "tile/ops/layout-and-rearrangement/tmov_fp.md",
    "TMOV_FP.md",
    "tile/ops/layout-and-rearrangement/tfillpad.md",
    "TFILLPAD.md",
    "tile/ops/layout-and-rearrangement/tfillpad_inplace.md",
    "TFILLPAD_INPLACE.md",
    "tile/ops/layout-and-rearrangement/tfillpad_expand.md",
    "TFILLPAD_EXPAND.md",
    "tile/ops/memory-and-data-movement/tstore_fp.md",
    "TSTORE_FP.md",
    "tile/ops/irregular-and-complex/tci.md",
    "TCI.md",
    "tile/ops/irregular-and-complex/ttri.md",
    "TTRI.md",
    "tile/ops/irregular-and-complex/tpartadd.md",
    "TPARTADD.md",
    "tile/ops/irregular-and-complex/tpartmul.md",
    "TPARTMUL.md",
    "tile/ops/irregular-and-complex/tpartmax.md",
    "TPARTMAX.md",
    "tile/ops/irregular-and-complex/tpartmin.md",
    "TPARTMIN.md",
    "tile/ops/irregular-and-complex/tpartargmax.md",
    "TPARTARGMAX.md",
    "tile/ops/irregular-and-complex/tpartargmin.md",
    "TPARTARGMIN.md",
    "tile/ops/layout-and-rearrangement/textract_fp.md",
    "TEXTRACT_FP.md",
    "tile/ops/layout-and-rearrangement/tinsert.md",
    "TINSERT.md",
    "tile/ops/layout-and-rearrangement/tinsert_fp.md",
    "TINSERT_FP.md",
    "tile/ops/layout-and-rearrangement/treshape.md",
    "TRESHAPE.md",
    "tile/ops/layout-and-rearrangement/tconcat.md",
    "TCONCAT.md",
    "tile/ops/reduce-and-expand/tpairreducesum.md",
    "TPAIRREDUCESUM.md",
    "tile/ops/elementwise-tile-tile/tabs.md",
    "TABS.md",
    "tile/ops/elementwise-tile-tile/tadd.md",
    "TADD.md",
    "tile/ops/elementwise-tile-tile/taddc.md",
    "TADDC.md",
    "tile/ops/elementwise-tile-tile/tand.md",
    "TAND.md",
    "tile/ops/elementwise-tile-tile/tcmp.md",
    "TCMP.md",
    "tile/ops/elementwise-tile-tile/tcvt.md",
    "TCVT.md",
    "tile/ops/elementwise-tile-tile/tdiv.md",
    "TDIV.md",
    "tile/ops/elementwise-tile-tile/texp.md",
    "TEXP.md",
    "tile/ops/elementwise-tile-tile/tfmod.md",
    "TFMOD.md",
    "tile/ops/elementwise-tile-tile/tlog.md",
    "TLOG.md",
    "tile/ops/elementwise-tile-tile/tmax.md",
    "TMAX.md",
    "tile/ops/elementwise-tile-tile/tmin.md",
    "TMIN.md",
    "tile/ops/elementwise-tile-tile/tmul.md",
    "TMUL.md",
    "tile/ops/elementwise-tile-tile/tneg.md",
    "TNEG.md",
    "tile/ops/elementwise-tile-tile/tnot.md",
    "TNOT.md",
    "tile/ops/elementwise-tile-tile/tor.md",
    "TOR.md",
    "tile/ops/elementwise-tile-tile/tpow.md",
    "TPOW.md",
    "tile/ops/elementwise-tile-tile/tprelu.md",
    "TPRELU.md",
    "tile/ops/elementwise-tile-tile/trecip.md",
    "TRECIP.md",
    "tile/ops/elementwise-tile-tile/trelu.md",
    "TRELU.md",
    "tile/ops/elementwise-tile-tile/trem.md",
    "TREM.md",
    "tile/ops/elementwise-tile-tile/trsqrt.md",
    "TRSQRT.md",
    "tile/ops/elementwise-tile-tile/tsel.md",
    "TSEL.md",
    "tile/ops/elementwise-tile-tile/tshl.md",
    "TSHL.md",
    "tile/ops/elementwise-tile-tile/tshr.md",
    "TSHR.md",
    "tile/ops/elementwise-tile-tile/tsqrt.md",
    "TSQRT.md",
    "tile/ops/elementwise-tile-tile/tsub.md",
    "TSUB.md",
    "tile/ops/elementwise-tile-tile/tsubc.md",
    "TSUBC.md",
    "tile/ops/elementwise-tile-tile/txor.md",
    "TXOR.md",
    "tile/ops/memory-and-data-movement/mgather.md",
    "MGATHER.md",
    "tile/ops/memory-and-data-movement/mscatter.md",
    "MSCATTER.md",
    "tile/ops/memory-and-data-movement/tload.md",
    "TLOAD.md",
    "tile/ops/memory-and-data-movement/tprefetch.md",
    "TPREFETCH.md",
    "tile/ops/memory-and-data-movement/tstore.md",
    "TSTORE.md",
    "tile/ops/reduce-and-expand/tcolargmax.md",
    "TCOLARGMAX.md",
    "tile/ops/reduce-and-expand/tcolargmin.md",
    "TCOLARGMIN.md",
    "tile/ops/reduce-and-expand/tcolexpand.md",
    "TCOLEXPAND.md",
    "tile/ops/reduce-and-expand/tcolexpandadd.md",
    "TCOLEXPANDADD.md",
    "tile/ops/reduce-and-expand/tcolexpanddiv.md",
    "TCOLEXPANDDIV.md",
    "tile/ops/reduce-and-expand/tcolexpandexpdif.md",
    "TCOLEXPANDEXPDIF.md",
    "tile/ops/reduce-and-expand/tcolexpandmax.md",
    "TCOLEXPANDMAX.md",
    "tile/ops/reduce-and-expand/tcolexpandmin.md",
    "TCOLEXPANDMIN.md",
    "tile/ops/reduce-and-expand/tcolexpandmul.md",
    "TCOLEXPANDMUL.md",
    "tile/ops/reduce-and-expand/tcolexpandsub.md",
    "TCOLEXPANDSUB.md",
    "tile/ops/reduce-and-expand/tcolmax.md",
    "TCOLMAX.md",
    "tile/ops/reduce-and-expand/tcolmin.md",
    "TCOLMIN.md",
    "tile/ops/reduce-and-expand/tcolprod.md",
    "TCOLPROD.md",
    "tile/ops/reduce-and-expand/tcolsum.md",
    "TCOLSUM.md",
    "tile/ops/reduce-and-expand/trowargmax.md",
    "TROWARGMAX.md",
    "tile/ops/reduce-and-expand/trowargmin.md",
    "TROWARGMIN.md",
    "tile/ops/reduce-and-expand/trowexpand.md",
    "TROWEXPAND.md",
    "tile/ops/reduce-and-expand/trowexpandadd.md",
    "TROWEXPANDADD.md",
    "tile/ops/reduce-and-expand/trowexpanddiv.md",
    "TROWEXPANDDIV.md",
    "tile/ops/reduce-and-expand/trowexpandexpdif.md",
    "TROWEXPANDEXPDIF.md",
    "tile/ops/reduce-and-expand/trowexpandmax.md",
    "TROWEXPANDMAX.md",
    "tile/ops/reduce-and-expand/trowexpandmin.md",
    "TROWEXPANDMIN.md",
    "tile/ops/reduce-and-expand/trowexpandmul.md",
    "TROWEXPANDMUL.md",
    "tile/ops/reduce-and-expand/trowexpandsub.md",
    "TROWEXPANDSUB.md",
    "tile/ops/reduce-and-expand/trowmax.md",
    "TROWMAX.md",
    "tile/ops/reduce-and-expand/trowmin.md",
    "TROWMIN.md",
    "tile/ops/reduce-and-expand/trowprod.md",
    "TROWPROD.md",
    "tile/ops/reduce-and-expand/trowsum.md",
    "TROWSUM.md",
    "tile/ops/tile-scalar-and-immediate/tadds.md",
    "TADDS.md",
    "tile/ops/tile-scalar-and-immediate/taddsc.md",
    "TADDSC.md",
    "tile/ops/tile-scalar-and-immediate/tands.md",
    "TANDS.md",
    "tile/ops/tile-scalar-and-immediate/taxpy.md",
    "TAXPY.md",
    "tile/ops/tile-scalar-and-immediate/tcmps.md",
    "TCMPS.md",
    "tile/ops/tile-scalar-and-immediate/tdivs.md",
    "TDIVS.md",
    "tile/ops/tile-scalar-and-immediate/texpands.md",
    "TEXPANDS.md",
    "tile/ops/tile-scalar-and-immediate/tfmods.md",
    "TFMODS.md",
    "tile/ops/tile-scalar-and-immediate/tlrelu.md",
    "TLRELU.md",
    "tile/ops/tile-scalar-and-immediate/tmaxs.md",
    "TMAXS.md",
    "tile/ops/tile-scalar-and-immediate/tmins.md",
    "TMINS.md",
    "tile/ops/tile-scalar-and-immediate/tmuls.md",
    "TMULS.md",
    "tile/ops/tile-scalar-and-immediate/tors.md",
    "TORS.md",
    "tile/ops/tile-scalar-and-immediate/tpows.md",
    "TPOWS.md",
    "tile/ops/tile-scalar-and-immediate/trems.md",
    "TREMS.md",
    "tile/ops/tile-scalar-and-immediate/tsels.md",
    "TSELS.md",
    "tile/ops/tile-scalar-and-immediate/tshls.md",
    "TSHLS.md",
    "tile/ops/tile-scalar-and-immediate/tshrs.md",
    "TSHRS.md",
    "tile/ops/tile-scalar-and-immediate/tsubs.md",
    "TSUBS.md",
    "tile/ops/tile-scalar-and-immediate/tsubsc.md",
    "TSUBSC.md",
    "tile/ops/tile-scalar-and-immediate/txors.md",
    "TXORS.md",
    "vector/ops/vec-scalar-ops/vaddcs.md",
    "vector/ops/vec-scalar-ops/vadds.md",
    "vector/ops/vec-scalar-ops/vands.md",
    "vector/ops/vec-scalar-ops/vlrelu.md",
    "vector/ops/vec-scalar-ops/vmaxs.md",
    "vector/ops/vec-scalar-ops/vmins.md",
    "vector/ops/vec-scalar-ops/vmuls.md",
    "vector/ops/vec-scalar-ops/vors.md",
    "vector/ops/vec-scalar-ops/vshls.md",
    "vector/ops/vec-scalar-ops/vshrs.md",
    "vector/ops/vec-scalar-ops/vsubcs.md",
    "vector/ops/vec-scalar-ops/vsubs.md",
    "vector/ops/vec-scalar-ops/vxors.md",
    "vector/ops/binary-vector-ops/vadd.md",
    "vector/ops/binary-vector-ops/vsub.md",
    "vector/ops/binary-vector-ops/vmul.md",
    "vector/ops/binary-vector-ops/vdiv.md",
    "vector/ops/binary-vector-ops/vmax.md",
    "vector/ops/binary-vector-ops/vmin.md",
    "vector/ops/binary-vector-ops/vand.md",
    "vector/ops/binary-vector-ops/vor.md",
    "vector/ops/binary-vector-ops/vxor.md",
    "vector/ops/binary-vector-ops/vshl.md",
    "vector/ops/binary-vector-ops/vshr.md",
    "vector/ops/binary-vector-ops/vaddc.md",
    "vector/ops/binary-vector-ops/vsubc.md",
    "vector/ops/unary-vector-ops/vabs.md",
    "vector/ops/unary-vector-ops/vneg.md",
    "vector/ops/unary-vector-ops/vexp.md",
    "vector/ops/unary-vector-ops/vln.md",
    "vector/ops/unary-vector-ops/vsqrt.md",
    "vector/ops/unary-vector-ops/vrelu.md",
    "vector/ops/unary-vector-ops/vrec.md",
    "vector/ops/unary-vector-ops/vrsqrt.md",
    "vector/ops/unary-vector-ops/vnot.md",
    "vector/ops/unary-vector-ops/vmov.md",
    "vector/ops/unary-vector-ops/vbcnt.md",
    "vector/ops/unary-vector-ops/vcls.md",
    "vector/ops/reduction-ops/vcadd.md",
    "vector/ops/reduction-ops/vcmax.md",
    "vector/ops/reduction-ops/vcmin.md",
    "vector/ops/reduction-ops/vcgadd.md",
    "vector/ops/reduction-ops/vcgmax.md",
    "vector/ops/reduction-ops/vcgmin.md",
    "vector/ops/reduction-ops/vcpadd.md",
    "tile/ops/sync-and-config/subview.md",
    "TSUBVIEW.md",
    "tile/ops/sync-and-config/talias.md",
    "TALIAS.md",
    "tile/ops/sync-and-config/tsync.md",
    "TSYNC.md",
    "tile/ops/sync-and-config/tassign.md",
    "TASSIGN.md",
    "tile/ops/memory-and-data-movement/tprefetch_async.md",
    "TPREFETCH_ASYNC.md",
    "tile/ops/matrix-and-matrix-vector/tgemv.md",
    "TGEMV.md",
    "tile/ops/matrix-and-matrix-vector/tgemv_acc.md",
    "TGEMV_ACC.md",
    "tile/ops/matrix-and-matrix-vector/tgemv_bias.md",
    "TGEMV_BIAS.md",
    "tile/ops/matrix-and-matrix-vector/tmatmul.md",
    "TMATMUL.md",
    "tile/ops/matrix-and-matrix-vector/tmatmul_acc.md",
    "TMATMUL_ACC.md",
    "tile/ops/matrix-and-matrix-vector/tmatmul_bias.md",
    "TMATMUL_BIAS.md",
    # the fused element-wise ops and TDEQUANT
    "tile/ops/elementwise-tile-tile/tfusedmuladd.md",
    "TFUSEDMULADD.md",
    "tile/ops/elementwise-tile-tile/tfusedmuladdrelu.md",
    "TFUSEDMULADDRELU.md",
    "tile/ops/elementwise-tile-tile/tmuladddst.md",
    "TMULADDDST.md",
    "tile/ops/elementwise-tile-tile/tsubrelu.md",
    "TSUBRELU.md",
    "tile/ops/elementwise-tile-tile/tadddeqrelu.md",
    "TADDDEQRELU.md",
    "tile/ops/irregular-and-complex/tdequant.md",
    "TDEQUANT.md",
    "tile/ops/elementwise-tile-tile/taddreluconv.md",
    "TADDRELUCONV.md",
    "tile/ops/elementwise-tile-tile/tsubreluconv.md",
    "TSUBRELUCONV.md",
    # the MX products
    "tile/ops/sync-and-config/tget_scale_addr.md",
    "TGET_SCALE_ADDR.md",
    # the DMA copies and their loop registers, and the micro-instruction builtins
    "scalar/ops/dma-copy/mte_gm_ub.md",
    "scalar/ops/dma-copy/mte_ub_gm.md",
    "scalar/ops/dma-copy/mte_ub_ub.md",
    "scalar/ops/dma-copy/mte_ub_l1.md",
    "scalar/ops/dma-copy/set_loop_size_outtoub.md",
    "scalar/ops/dma-copy/set_loop2_stride_outtoub.md",
    "scalar/ops/dma-copy/set_loop1_stride_outtoub.md",
    "scalar/ops/dma-copy/set_loop_size_ubtoout.md",
    "scalar/ops/dma-copy/set_loop2_stride_ubtoout.md",
    "scalar/ops/dma-copy/set_loop1_stride_ubtoout.md",
    "scalar/ops/micro-instruction/get_block_idx.md",
    "scalar/ops/micro-instruction/get_subblock_idx.md",
    "scalar/ops/micro-instruction/get_block_num.md",
    "scalar/ops/micro-instruction/get_subblock_num.md",
    "scalar/ops/micro-instruction/get_vms4_sr.md",
    "scalar/ops/micro-instruction/init_align.md",
    # the IR forms: pointer operations and vector scopes
    "scalar/ops/micro-instruction/castptr.md",
    "scalar/ops/micro-instruction/addptr.md",
    "scalar/ops/micro-instruction/load_scalar.md",
    "scalar/ops/micro-instruction/store_scalar.md",
    "scalar/ops/micro-instruction/vecscope.md",
    "scalar/ops/micro-instruction/strict_vecscope.md",
    # the pipes and the fix-pipe's vector quantisation register
    "system/ops/system-scheduling/talloc.md",
    "TALLOC.md",
    "system/ops/system-scheduling/tpush.md",
    "TPUSH.md",
    "system/ops/system-scheduling/tpop.md",
    "TPOP.md",
    "system/ops/system-scheduling/tfree.md",
    "TFREE.md",
    "tile/ops/sync-and-config/set_quant_vector.md",
    "SET_QUANT_VECTOR.md",
    # a dtype list of every profile; a further declaration's GlobalTensor scratch
    "tile/ops/irregular-and-complex/trandom.md",
    "TRANDOM.md",
    "tile/ops/irregular-and-complex/tprint.md",
    "TPRINT.md",
)


def _drop(node: Any, path: list[str]) -> None:
    if not path or node is None:
        return
    head, rest = path[0], path[1:]
    if head == "*":
        items = node.values() if isinstance(node, dict) else node
        for item in list(items):
            if rest:
                _drop(item, rest)
        if not rest and isinstance(node, dict):
            for key in node:
                node[key] = None
        return
    if isinstance(node, dict) and head in node:
        if rest:
            _drop(node[head], rest)
        else:
            del node[head]


def normalise(spec: dict[str, Any], layout: str, exact: bool = True) -> dict[str, Any]:
    """The spec as a page can carry it: excluded facts removed, rules and prose constraints one
    per profile and in a fixed order (a page lists them per profile group), code without its final
    newline. With `exact` false, the facts not read back yet are left out as well."""
    spec = copy.deepcopy(spec)
    excluded = NOT_ON_ANY_PAGE + (NOT_ON_REFERENCE_PAGES if layout == "ref" else ())
    excluded += () if exact else NOT_READ_BACK_YET
    for path, _reason in excluded:
        _drop(spec, path.split("."))
    rules = []
    for rule in spec.get("constraints", []):
        for profile in rule.get("profiles") or [None]:
            one = {k: v for k, v in rule.items() if k != "profiles"}
            if profile:
                one["profiles"] = [profile]
            rules.append(one)
    spec["constraints"] = sorted(rules, key=lambda r: json.dumps(r, sort_keys=True))
    prose = [
        {"text": p["text"], **({"profiles": [profile]} if profile else {})}
        for p in spec.get("prose_constraints") or []
        for profile in p.get("profiles") or [None]
    ]
    if "prose_constraints" in spec:
        spec["prose_constraints"] = sorted(prose, key=lambda r: json.dumps(r, sort_keys=True))
    for ex in spec.get("examples", []):
        ex["code"] = ex["code"].rstrip("\n")
    for key in ("notes", "prose_constraints", "profile_notes"):
        if not spec.get(key):
            spec.pop(key, None)
    return spec


def _cases() -> list[tuple[Path, Path, str]]:
    return [(spec, page, kind) for spec, kind, page in generated_pages()]


CASES = [(spec, page) for spec, page, _ in _cases()]
# The round trip of every page runs in the full tier; the quick one reads back a page of each op kind
# (of each span a reduction kind folds, which the page states) in each instruction set, in each layout.
FOLDS = {ROOT / op.path: op.spec.semantics.folds for op in checkout_project().ops}
SAMPLED = [
    (spec, page)
    for spec, page, _ in quick_sample(
        _cases(), lambda c: (c[2], FOLDS[c[0]], c[1].parent, c[1].stem.isupper())
    )
]
# The reference-layout pages: named after the intrinsic, upper case
REF_PAGES = {page for _, page in CASES if page.stem.isupper()}


@pytest.fixture(scope="module")
def targets() -> Any:
    return _targets()


@functools.cache
def _targets() -> Any:
    return load_specs(ROOT / "specs", ROOT).targets


def test_every_op_has_both_pages() -> None:
    ops = load_specs(ROOT / "specs", ROOT).ops
    tile = [o for o in ops if o.spec.intrinsic is not None]
    assert len(CASES) == len(ops) + len(tile)  # vector ops and scalar builtins have no reference page


@functools.cache
def _imported(page: Path) -> str:
    return json.dumps(import_page(page, _targets()).spec)  # imported once, compared twice


def _both(spec: Path, page: Path, targets: Any, exact: bool) -> tuple[dict[str, Any], dict[str, Any]]:
    layout = "ref" if page in REF_PAGES else "op"
    original = resolve_file(spec, ROOT / "specs", ROOT)[0]  # with its class and sets filled in
    imported = json.loads(_imported(page))
    if not exact:
        for path in NOT_READ_BACK_ON.get(page.relative_to(DOCS).as_posix(), ()):
            _drop(original, path.split("."))
            _drop(imported, path.split("."))
            if path == "intrinsic.overloads":  # rules limited to those declarations go with them
                for spec_ in (original, imported):
                    spec_["constraints"] = [c for c in spec_.get("constraints", []) if "forms" not in c]
    return normalise(imported, layout, exact), normalise(original, layout, exact)


# Pages `ptogen import` cannot read back yet at all, each with what stops it; the test below fails
# when one starts to import, so the list stays current. Every generated page imports at present.
NOT_IMPORTABLE_YET: dict[str, str] = {}


@pytest.mark.parametrize(("spec", "page"), SAMPLED, ids=[c[1].relative_to(DOCS).as_posix() for c in SAMPLED])
def test_generated_page_imports_to_its_spec(spec: Path, page: Path, targets: Any) -> None:
    """The page reads back to its spec; a page that reads back in full is listed in EXACT (so it
    cannot slip back), and one that does not is not (so the list stays current)."""
    if page.relative_to(DOCS).as_posix() in NOT_IMPORTABLE_YET:
        with pytest.raises(ImportProblem):
            import_page(page, targets)
        return
    listed = page.relative_to(DOCS).as_posix() in EXACT
    again, original = _both(spec, page, targets, exact=listed)
    assert again == original
    if not listed:
        again, original = _both(spec, page, targets, exact=True)
        assert again != original, "this page now reads back in full: add it to EXACT"


def test_an_ssa_line_broken_before_its_types_reads_back(tmp_path: Path) -> None:
    """Upstream's vcvt page breaks its SSA line before the ` : types`, indented on the next line: the
    generated page so broken still imports to its spec."""
    page = DOCS / "vector/ops/conversion-ops/vcvt.md"
    ssa = '%result = pto.vcvt %input, %mask {rnd = "RND", sat = "SAT", part = "PART"}'
    text = page.read_text()
    assert f"{ssa} : " in text
    broken = tmp_path / page.name
    broken.write_text(text.replace(f"{ssa} : ", f"{ssa}\n    : ", 1))
    assert import_page(broken, _targets()).spec == json.loads(_imported(page))


def test_a_pipe_page_without_the_kinds_paragraph_reads_as_a_pipe_op(tmp_path: Path) -> None:
    """Upstream's pipe pages have neither the pipe kind's paragraph nor its formula: the `Pipe`
    parameter alone makes the op a pipe op (over a hint's reading of a context and a GlobalTensor)."""
    page = DOCS / "TALLOC.md"
    text = page.read_text()
    intro = next(line for line in text.splitlines() if line.startswith("No element is computed"))
    formula = r"$$ \mathrm{gm\_tensor} \leftarrow \mathrm{pipe} $$"
    assert formula in text
    bare = tmp_path / page.name
    bare.write_text(text.replace(intro, "").replace(formula, ""))
    spec = import_page(bare, _targets()).spec
    assert spec["semantics"]["kind"] == "pipe"
    kinds = sorted((o["name"], o["kind"]) for o in spec["operands"])
    assert kinds == [("gm_tensor", "global"), ("pipe", "context")]
