"""The Node shim names trash entries as core/trash/info.py does: the name itself, then
name.<8 random hex digits>, so that a name trashed many times costs the same probes
each time (issue 31, cases 3 and 12; rimraf's delete-many-files)."""

import os
import re

from test_node_common import NODES, json_out, run_script

# Loaded by hand after fs.openSync counts the info files it is asked to create: the
# engine takes its fs functions when it loads (originals.cjs), so it gets the counter.
PROBES = r"""
const fs = require('fs');
const path = require('path');
const realOpen = fs.openSync;
let probes = [];
fs.openSync = function (p, ...rest) {
  if (String(p).endsWith('.trashinfo')) probes.push(path.basename(String(p)));
  return realOpen.call(fs, p, ...rest);
};
require(path.join(process.env.SAFEDEL_HOME, 'node', 'safedel.cjs'));
const perItem = [];
for (let i = 0; i < Number(process.argv[2]); i++) {
  fs.writeFileSync('dup', String(i));
  const before = probes.length;
  fs.unlinkSync('dup');
  perItem.push(probes.length - before);
}
console.log(JSON.stringify({ perItem, last: probes.slice(-2) }));
"""


@NODES
def test_the_200th_same_name_takes_as_many_probes_as_the_second(sandbox, node):
    env = sandbox.shim_env()
    env.pop("NODE_OPTIONS", None)
    env["SAFEDEL_THRESHOLD"] = "99999"  # the guard is not what is measured
    out = json_out(run_script(sandbox, node, PROBES, env=env, args=["200"]))
    assert out["perItem"] == [1] + [2] * 199
    assert out["last"][0] == "dup.trashinfo"
    assert re.fullmatch(r"dup\.[0-9a-f]{8}\.trashinfo", out["last"][1])
    names = sandbox.trashed_names()
    assert len(names) == 200 and "dup" in names
    assert all(re.fullmatch(r"dup\.[0-9a-f]{8}", n) for n in names if n != "dup")
    assert (sandbox.trash / "files" / "dup").read_text() == "0"


COLLIDE = r"""
const fs = require('fs');
for (const dir of ['one', 'two', 'three']) {
  fs.mkdirSync(dir); fs.writeFileSync(dir + '/same', dir); fs.unlinkSync(dir + '/same');
}
console.log('[]');
"""


@NODES
def test_name_collisions_get_random_suffixes(sandbox, node):
    json_out(run_script(sandbox, node, COLLIDE))
    names = sandbox.trashed_names()
    assert len(names) == 3 and "same" in names
    assert (sandbox.trash / "files" / "same").read_text() == "one"
    for name in names:
        if name == "same":
            continue
        assert re.fullmatch(r"same\.[0-9a-f]{8}", name)
        info = (sandbox.trash / "info" / f"{name}.trashinfo").read_text()
        which = (sandbox.trash / "files" / name).read_text()
        assert f"Path={sandbox.work}/{which}/same\n".replace(" ", "%20") in info
        assert oct(os.stat(sandbox.trash / "info" / f"{name}.trashinfo").st_mode & 0o777) == "0o600"
