'use strict';
// Runs tests/vectors/workspace.json against the JS engine, in the trees the caller built
// (one a case, named by its index): node run_workspace_vectors.cjs <shim node dir> <root>.
// One JSON summary line out; exits 1 when any vector fails.

const fs = require('fs');
const path = require('path');

const shimDir = path.resolve(process.argv[2]);
const root = fs.realpathSync(process.argv[3]);
const workspace = require(path.join(shimDir, 'workspace.cjs'));
const { parseList } = require(path.join(shimDir, 'workspaceroots.cjs'));
const vectors = JSON.parse(fs.readFileSync(path.join(__dirname, 'workspace.json'), 'utf8'));
const failures = [];
let passed = 0;

function check(name, actual, expected) {
  if (JSON.stringify(actual) === JSON.stringify(expected)) passed += 1;
  else failures.push({ name, actual, expected });
}

for (const c of vectors.parse) check(`parse: ${c.name}`, parseList(c.text), c.list);

vectors.collect.forEach((c, index) => {
  const base = path.join(root, String(index));
  const env = { HOME: path.join(base, 'home'), SAFEDEL_CONFIG: path.join(base, 'user.toml') };
  for (const [name, value] of Object.entries(c.env || {})) {
    env[name] = value.replace('$ROOT', base);
  }
  const settings = { session: 's', stateDir: path.join(base, 'state') };
  const found = workspace.scopeRoots(env, settings, path.join(base, c.start));
  const roots = found.roots.map((r) => [path.relative(base, r.path) || '.', r.scope]);
  check(`collect: ${c.name}`, [roots, found.warnings.length], [c.roots, c.warnings]);
});

process.stdout.write(JSON.stringify({ passed, failures }) + '\n');
process.exitCode = failures.length ? 1 : 0;
