"""Each patched fs API, in its sync, callback, promise and ESM forms, on both Node majors:
a file and a directory go to the trash with a report line, exempt paths are really
deleted without counting, and the guard refuses what passes the threshold."""

import os

import pytest
from conftest import last_markers
from test_node_common import NODES, json_out, node_events, run_script

PRELUDE = {
    "sync": "const fs = require('fs');\n"
    "const del = async (api, p, o) => { try { fs[api + 'Sync'](p, ...(o ? [o] : [])); "
    "return null; } catch (e) { return e; } };\n",
    "callback": "const fs = require('fs');\n"
    "const del = (api, p, o) => new Promise((res) => { let sync = true; "
    "fs[api](p, ...(o ? [o] : []), (e) => res(sync ? new Error('callback ran synchronously') "
    ": e)); sync = false; });\n",
    "promise": "const fs = require('fs');\n"
    "const del = (api, p, o) => fs.promises[api](p, ...(o ? [o] : []))"
    ".then(() => null, (e) => e);\n",
    "esm": "import fs, { rmSync, unlinkSync, rmdirSync } from 'node:fs';\n"
    "import { rm as promisedRm } from 'node:fs/promises';\n"
    "const named = { rm: rmSync, unlink: unlinkSync, rmdir: rmdirSync };\n"
    "const del = async (api, p, o) => { try { named[api](p, ...(o ? [o] : [])); "
    "return null; } catch (e) { return e; } };\n",
}

BODY = r"""
const path = require_path();
const W = process.cwd();
const T = process.env.TMPDIR;
const file = (p) => {
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, 'x');
  return p;
};
const dir = (p, full) => {
  fs.mkdirSync(p, { recursive: true });
  if (full) file(path.join(p, 'inner', 'f'));
  return p;
};
const plan = [
  ['rm', file(path.join(W, 'rmfile'))],
  ['rm', dir(path.join(W, 'rmdir'), true), { recursive: true }],
  ['unlink', file(path.join(W, 'ufile'))],
  ['rmdir', dir(path.join(W, 'emptydir'))],
  ['rmdir', dir(path.join(W, 'fulldir'), true), { recursive: true }],
  ['rm', file(path.join(T, 'x1'))],
  ['rm', dir(path.join(T, 'xd'), true), { recursive: true }],
  ['unlink', file(path.join(T, 'x2'))],
  ['rmdir', dir(path.join(T, 'xe'))],
  ['rmdir', dir(path.join(T, 'xf'), true), { recursive: true }],
  ['unlink', file(path.join(W, 'g1'))],
  ['unlink', file(path.join(W, 'g2'))],
  ['unlink', file(path.join(W, 'g3'))],
];
(async () => {
  const results = [];
  if (typeof promisedRm === 'function') {
    file(path.join(W, 'esm-promised'));
    const e = await promisedRm(path.join(W, 'esm-promised')).then(() => null, (e) => e);
    results.push(e && { code: e.code });
  }
  for (const [api, p, o] of plan) {
    const e = await del(api, p, o);
    results.push(e && { code: e.code, errno: e.errno, syscall: e.syscall, path: e.path,
      message: e.message });
  }
  const exists = plan.map(([, p]) => fs.existsSync(p));
  console.log(JSON.stringify({ results, exists }));
})();
"""

FORMS = ["sync", "callback", "promise", "esm"]


def script_for(form):
    if form == "esm":
        head = PRELUDE[form] + "import { createRequire } from 'node:module';\n"
        head += "const require_path = () => createRequire(import.meta.url)('path');\n"
        return head + BODY, "script.mjs"
    head = PRELUDE[form] + "const require_path = () => require('path');\nconst promisedRm = null;\n"
    return head + BODY, "script.cjs"


@NODES
@pytest.mark.parametrize("form", FORMS)
def test_every_form_trashes_reports_exempts_and_guards(sandbox, node, form):
    source, name = script_for(form)
    extra = 1 if form == "esm" else 0
    proc = run_script(sandbox, node, source, name=name, threshold=7 + extra)
    out = json_out(proc)
    results = out["results"]
    assert results[:-1] == [None] * (12 + extra), results
    refusal = results[-1]
    assert refusal["code"] == "EPERM" and refusal["errno"] == -1
    assert refusal["syscall"] == "unlink"
    assert refusal["path"] == str(sandbox.work / "g3")
    assert "bulk guard" in refusal["message"]
    # Everything but the refused file is gone from where it was.
    assert out["exists"] == [False] * 12 + [True]
    trashed = ["rmfile", "rmdir", "ufile", "emptydir", "fulldir", "g1", "g2"]
    trashed += ["esm-promised"] if extra else []
    assert sorted(sandbox.trashed_names()) == sorted(trashed)
    # A directory is trashed whole, contents included.
    assert (sandbox.trash / "files" / "rmdir" / "inner" / "f").read_text() == "x"
    assert (sandbox.trash / "files" / "fulldir" / "inner" / "f").read_text() == "x"
    events = node_events(sandbox)
    assert sorted(os.path.basename(e["path"]) for e in events) == sorted(trashed)
    kinds = {os.path.basename(e["path"]): e["kind"] for e in events}
    assert kinds["rmdir"] == "dir" and kinds["ufile"] == "file"
    for event in events:
        assert event["session"] == sandbox.session and event["turn"] == sandbox.turn
        assert os.path.exists(event["trashPath"]) and os.path.exists(event["infoPath"])
    # Exempt paths were really deleted: not in the trash, not reported, not counted.
    assert not any(str(sandbox.tmpdir) in e["path"] for e in sandbox.report())
    marker = last_markers(proc.stderr)["SAFE_DELETE_BULK_CONFIRM_REQUIRED"]
    assert marker["count"] == 7 + extra and marker["threshold"] == 7 + extra
    assert marker["targets"] == [str(sandbox.work / "g3")] and marker["targetCount"] == 1
    refusals = node_events(sandbox, "refuse")
    assert [e["path"] for e in refusals] == [str(sandbox.work / "g3")]
