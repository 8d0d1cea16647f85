'use strict';
// Runs tests/vectors/resolve.json against the JS engine, in a tree the caller built:
// node run_resolve_vectors.cjs <shim node dir> <root>. One JSON summary line out.

const fs = require('fs');
const path = require('path');

const shimDir = path.resolve(process.argv[2]);
const root = fs.realpathSync(process.argv[3]);
const { resolve } = require(path.join(shimDir, 'resolve.cjs'));
const policy = require(path.join(shimDir, 'policy.cjs'));
const vectors = JSON.parse(fs.readFileSync(path.join(__dirname, 'resolve.json'), 'utf8'));
const env = { HOME: path.join(root, vectors.home) };
const exempt = vectors.exempt.map((name) => path.join(root, name));
const failures = [];
let passed = 0;

function classOf(target) {
  if (policy.protectedReason(target, env)) return 'protected';
  return policy.isExempt(target.path, exempt) ? 'exempt' : 'other';
}

for (const c of vectors.cases) {
  process.chdir(path.join(root, c.cwd || ''));
  const target = resolve(Buffer.from(c.operand));
  const actual = { path: path.relative(root, target.path.toString()) };
  const expected = { path: c.path };
  if (c.dots) {
    actual.dots = target.dots;
    expected.dots = true;
  } else {
    Object.assign(actual, { via_link: target.viaLink, class: classOf(target) });
    Object.assign(expected, { via_link: c.via_link, class: c.class });
  }
  if (JSON.stringify(actual) === JSON.stringify(expected)) passed += 1;
  else failures.push({ name: c.name, actual, expected });
}
process.stdout.write(JSON.stringify({ passed, failures }) + '\n');
process.exitCode = failures.length ? 1 : 0;
