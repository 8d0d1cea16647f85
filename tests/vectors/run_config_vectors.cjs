'use strict';
// Runs tests/vectors/config.json against the Node shim's settings, in the trees the
// caller built (one a case, named by its index): node run_config_vectors.cjs <shim node
// dir> <root>. One JSON summary line out; exits 1 when any vector fails.

const fs = require('fs');
const path = require('path');

const shimDir = path.resolve(process.argv[2]);
const root = fs.realpathSync(process.argv[3]);
const settings = require(path.join(shimDir, 'settings.cjs'));
const vectors = JSON.parse(fs.readFileSync(path.join(__dirname, 'config.json'), 'utf8'));
const failures = [];
let passed = 0;

vectors.cases.forEach((c, index) => {
  const base = path.join(root, String(index));
  const env = {
    HOME: path.join(base, 'home'),
    TMPDIR: path.join(base, 'tmp'),
    SAFEDEL_CONFIG: path.join(base, 'config.toml'),
    SAFEDEL_STATE_DIR: path.join(base, 'state'),
  };
  Object.assign(env, c.env || {});
  const found = settings.load(env);
  const relative = (p) => path.relative(base, fs.realpathSync(p)) || '.';
  const actual = {
    threshold: found.threshold,
    outside: found.outsideWorkspace,
    // The kernel's IPC dir joins every list (caches.cjs): not the config's.
    exempt: found.exempt.filter((p) => p !== '/dev/shm').map(relative),
    trashDir: found.trashDir === null ? null : path.relative(base, found.trashDir),
  };
  if (JSON.stringify(actual) === JSON.stringify(c.expect)) passed += 1;
  else failures.push({ name: c.name, actual, expected: c.expect });
});

process.stdout.write(JSON.stringify({ passed, failures }) + '\n');
process.exitCode = failures.length ? 1 : 0;
