"""Faithful: with and without the preload, Node says exactly the same thing.

One script exercises the error cases (missing, directory without recursive, not a
directory, argument validation), the callback timing, util.promisify, the functions'
name and length, the fs module's shape and the global object; its output and stderr
(warnings included) must be identical with and without the shim, on both majors.
"""

import re

from test_node_common import NODES, json_out, node_events, run_script

SCRIPT = r"""
'use strict';
const fs = require('fs');
const util = require('util');
const path = require('path');
const base = process.argv[2];
fs.rmSync(base, { recursive: true, force: true });
fs.mkdirSync(path.join(base, 'dir/sub'), { recursive: true });
fs.writeFileSync(path.join(base, 'dir/sub/f'), 'x');
fs.mkdirSync(path.join(base, 'empty'));
fs.writeFileSync(path.join(base, 'file'), 'x');
const P = (p) => path.join(base, p);
const out = [];
function sig(e) {
  if (!e) return 'ok';
  return { name: e.name, code: e.code, errno: e.errno, syscall: e.syscall, path: e.path,
    message: e.message, ctor: e.constructor.name };
}
const warnings = [];
process.on('warning', (w) => warnings.push(w.name + ':' + (w.code || '')));
const cases = [
  ['rmSync', [P('missing')]],
  ['rmSync', [P('missing'), { force: true }]],
  ['rmSync', [P('dir')]],
  ['rmSync', [P('dir'), { recursive: false }]],
  ['rmSync', [P('file/x')]],
  ['rmSync', [P('file/x'), { force: true }]],
  ['rmSync', [P('file'), null]],
  ['rmSync', [P('file'), 'str']],
  ['rmSync', [P('file'), { recursive: 'x' }]],
  ['rmSync', [P('file'), { force: 1 }]],
  ['rmSync', [P('file'), { maxRetries: -1 }]],
  ['rmSync', [P('file'), { retryDelay: 'a' }]],
  ['rmSync', [123]],
  ['rmSync', ['a\0b']],
  ['rmSync', [new URL('http://x/y')]],
  ['unlinkSync', [P('missing')]],
  ['unlinkSync', [P('dir')]],
  ['unlinkSync', [P('file/')]],
  ['unlinkSync', [{}]],
  ['rmdirSync', [P('missing')]],
  ['rmdirSync', [P('file')]],
  ['rmdirSync', [P('dir')]],
  ['rmdirSync', [P('dir'), null]],
  ['rmdirSync', [P('dir'), { recursive: 1 }]],
  ['rmdirSync', [P('missing'), { recursive: true }]],
  ['rmdirSync', [P('file'), { recursive: true }]],
  ['rmdirSync', [P('empty/.')]],
];
for (const [fn, args] of cases) {
  let r;
  try { fs[fn](...args); r = 'ok'; } catch (e) { r = sig(e); }
  out.push([fn, args.map(String), r]);
}
// identity
for (const k of ['rm', 'rmSync', 'unlink', 'unlinkSync', 'rmdir', 'rmdirSync']) {
  out.push([k, fs[k].name, fs[k].length]);
}
for (const k of ['rm', 'unlink', 'rmdir']) {
  out.push(['promises.' + k, fs.promises[k].name, fs.promises[k].length]);
}
out.push(['fs/promises identity', require('fs/promises') === fs.promises]);
out.push(['globals', Object.keys(globalThis).sort().join(',')]);
out.push(['fs keys', Object.keys(fs).join(',')]);
(async () => {
  const pcases = [
    ['rm', [P('missing')]], ['rm', [P('dir')]], ['rm', [P('file/x')]],
    ['rm', [P('missing'), { force: true }]],
    ['rm', [P('file'), null]], ['rm', [P('file'), { maxRetries: -1 }]], ['rm', [5]],
    ['unlink', [P('missing')]], ['unlink', [P('dir')]],
    ['rmdir', [P('file')]], ['rmdir', [P('dir')]],
    ['rmdir', [P('missing'), { recursive: true }]],
  ];
  for (const [fn, args] of pcases) {
    let r;
    try { await fs.promises[fn](...args); r = 'ok'; } catch (e) { r = sig(e); }
    out.push(['promises.' + fn, args.map(String), r]);
    // callback form
    r = await new Promise((resolve) => {
      let sync = true;
      try {
        fs[fn](...args, (err) => { resolve(['cb', sync ? 'sync' : 'async', sig(err)]); });
      } catch (e) { resolve(['threw', sig(e)]); }
      sync = false;
    });
    out.push(['cb.' + fn, args.map(String), r]);
    const p = util.promisify(fs[fn]);
    try { await p(...args); r = 'ok'; } catch (e) { r = sig(e); }
    out.push(['promisify.' + fn, args.map(String), r]);
  }
  let threw;
  try { fs.unlink(P('file')); } catch (e) { threw = sig(e); }
  out.push(['unlink no cb', threw]);
  // successful ops
  fs.writeFileSync(P('g'), 'x');
  const frozen = Object.freeze({ recursive: true, force: false, maxRetries: 2 });
  fs.rmSync(P('dir'), frozen);
  fs.rmSync(P('g'));
  out.push(['after', fs.readdirSync(base).sort()]);
  out.push(['warnings', warnings]);
  process.stdout.write(JSON.stringify(out, null, 0).replace(/\],\[/g, '],\n[') + '\n');
})();

"""


def without_shim(env):
    env = dict(env)
    env.pop("NODE_OPTIONS")
    return env


def normalise(stderr):
    return re.sub(r"\(node:\d+\)", "(node:PID)", stderr)


@NODES
def test_errors_identity_and_warnings_match_plain_node(sandbox, node):
    env = sandbox.shim_env(threshold=999)
    plain = run_script(sandbox, node, SCRIPT, env=without_shim(env), args=[str(sandbox.work / "p")])
    shimmed = run_script(sandbox, node, SCRIPT, env=env, args=[str(sandbox.work / "s")])
    assert plain.returncode == shimmed.returncode == 0, shimmed.stderr
    expected = plain.stdout.replace(str(sandbox.work / "p"), "BASE")
    assert shimmed.stdout.replace(str(sandbox.work / "s"), "BASE") == expected
    assert normalise(shimmed.stderr) == normalise(plain.stderr)
    # The successful calls went to the trash, so the comparison covered the shim.
    trashed = sorted(e["path"].rsplit("/", 1)[-1] for e in node_events(sandbox))
    assert trashed == ["dir", "empty", "g"]
    assert "DEP0147" in plain.stderr


DOT = r"""
const fs = require('fs');
fs.mkdirSync('d/child', { recursive: true });
fs.writeFileSync('d/child/f', 'x');
let error = null;
try { fs.rmSync('d/.', { recursive: true, force: true }); } catch (e) { error = e; }
console.log(JSON.stringify({ code: error && error.code, syscall: error && error.syscall,
  left: fs.existsSync('d/child/f') }));
"""


@NODES
def test_rm_of_dot_fails_without_emptying_the_directory(sandbox, node):
    """Node empties 'd/.' and then fails; the shim fails the same way, touching nothing."""
    out = json_out(run_script(sandbox, node, DOT, threshold=999))
    assert out == {"code": "EINVAL", "syscall": "rmdir", "left": True}
    assert sandbox.trashed_names() == []


SHAPE = r"""
import fs, { rmSync, unlink } from 'node:fs';
import * as promised from 'node:fs/promises';
import { promisify } from 'node:util';
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
console.log(JSON.stringify({
  esmSeesWrapper: rmSync === fs.rmSync && unlink === fs.unlink && promised.rm === fs.promises.rm,
  promisesIdentity: require('fs/promises') === fs.promises,
  promisifyRuns: typeof promisify(fs.rm) === 'function',
  loaded: Boolean(process[Symbol.for('safedel.node.installed')]),
}));
"""


@NODES
def test_esm_named_imports_see_the_wrappers(sandbox, node):
    out = json_out(run_script(sandbox, node, SHAPE, name="shape.mjs"))
    assert out == {
        "esmSeesWrapper": True,
        "promisesIdentity": True,
        "promisifyRuns": True,
        "loaded": True,
    }
