"""The Node preload as one file.

`node --permission` reads only what `--allow-fs-read` names, and a preload that
requires its neighbours fails there (Node 20 dies at start-up; Node 24 warns and runs
unprotected). So the shim home gets `node/safedel.cjs` as one file holding every module
of shims/node. Each module is a string returned by its own function, built and compiled
(as CommonJS would wrap it) only when first required: V8 skips over a string far faster
than it pre-parses code, so a start that loads nothing (inactive) or only the wrappers
(active) stays about as cheap as it was with separate files.
"""

import json
import os
import re

ENTRY = "safedel.cjs"
_NAME = re.compile(r"^[a-z]+\.cjs$")

_HEAD = """'use strict';
// safedel's Node preload, all in one file (built from shims/node/*.cjs when the shim
// home is written), so that `node --permission --allow-fs-read=<this file>` can load it.
(function safedelBundle(nodeRequire) {
"""

_SOURCES = """  // Each module's text is built only when it is first required; until then V8 only
  // scans over it, so a start pays for what it loads and little else.
"""

_TAIL = """  const loaded = {};
  const params = ['module', 'exports', 'require'];
  function local(id) {
    const name = typeof id === 'string' && id.startsWith('./') ? id.slice(2) : null;
    if (name === null || !(name in sources)) return nodeRequire(id);
    if (!loaded[name]) {
      const module = { exports: {} };
      loaded[name] = module;
      const options = { filename: `${__filename}#${name}` };
      const body = nodeRequire('vm').compileFunction(sources[name](), params, options);
      body.call(module.exports, module, module.exports, local);
    }
    return loaded[name].exports;
  }
  (function entry(require) {
"""

_END = """  })(local);
"""


def bundle(node_dir):
    """The one-file preload (bytes) for the modules in node_dir."""
    names = sorted(n for n in os.listdir(node_dir) if _NAME.match(n) and n != ENTRY)
    functions = {name: "source_" + name[: -len(".cjs")] for name in names}
    table = ", ".join(f"'{name}': {function}" for name, function in functions.items())
    parts = [_HEAD, f"  const sources = {{ {table} }};\n", _TAIL, _read(node_dir, ENTRY), _END]
    parts.append(_SOURCES)
    for name, function in functions.items():
        parts.append(
            f"  function {function}() {{\n    return {json.dumps(_read(node_dir, name))};\n  }}\n"
        )
    parts.append("})(require);\n")
    return "".join(parts).encode("utf-8")


def _read(node_dir, name):
    with open(os.path.join(node_dir, name), encoding="utf-8") as handle:
        text = handle.read()
    return text if text.endswith("\n") else text + "\n"
