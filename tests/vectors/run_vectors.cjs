'use strict';
// Runs the shared vectors against the JS engine: node run_vectors.cjs <shim node dir>.
// Prints one JSON summary line; exits 1 when any vector fails.

const fs = require('fs');
const path = require('path');

const shimDir = path.resolve(process.argv[2]);
const trashinfo = require(path.join(shimDir, 'trashinfo.cjs'));
const rule = require(path.join(shimDir, 'ledgerrule.cjs'));
const load = (name) => JSON.parse(fs.readFileSync(path.join(__dirname, name), 'utf8'));
const hex = (text) => Buffer.from(text, 'hex');
const failures = [];
let passed = 0;

function check(name, actual, expected) {
  if (JSON.stringify(actual) === JSON.stringify(expected)) passed += 1;
  else failures.push({ name, actual, expected });
}

const info = load('trashinfo.json');
for (const c of info.encode) {
  check(`encode: ${c.name}`, trashinfo.encodePath(hex(c.path_hex)).toString('hex'), c.encoded_hex);
}
for (const c of info.decode) {
  check(`decode: ${c.name}`, trashinfo.decodePath(hex(c.encoded_hex)).toString('hex'), c.path_hex);
}
for (const c of info.render) {
  const content = trashinfo.render(hex(c.path_hex), c.date).toString('hex');
  check(`render: ${c.name}`, content, c.content_hex);
}

for (const c of load('names.json').cases) {
  const name = trashinfo.entryName(hex(c.basename_hex), c.token);
  check(`name: ${c.name}`, name.toString('hex'), c.expected_hex);
}

const ledgerVectors = load('ledger.json');
for (const c of ledgerVectors.cases) {
  const results = rule.verdicts(c.lines).map(([, verdict]) => verdict);
  const state = rule.replay(c.lines);
  check(
    `ledger: ${c.name}`,
    [results, state.granted, state.mode, state.damaged !== null, c.outside ?? state.outside],
    [c.verdicts, c.granted, c.mode, c.damaged, state.outside]
  );
}
const keeper = require(path.join(shimDir, 'keeper.cjs'));
for (const c of load('keeper.json').cases) {
  let got;
  try {
    const view = keeper.parse(c.publication, c.key);
    const verdict = view.verdict(c.take);
    got = {
      view: {
        ino: view.ino,
        granted: view.granted,
        mode: view.mode,
        outside: view.outside,
        canAsk: view.canAsk,
        damaged: view.damaged,
        threshold: view.threshold,
      },
      verdict: verdict && [verdict.verdict, verdict.count, verdict.n, verdict.t],
      answer: view.answer(c.ask),
    };
  } catch (err) {
    got = { error: err.message };
  }
  const want =
    'error' in c ? { error: got.error && got.error.includes(c.error) ? got.error : c.error } : c;
  check(
    `keeper: ${c.name}`,
    got,
    'error' in c ? want : { view: c.view, verdict: c.verdict, answer: c.answer }
  );
}
const workspace = require(path.join(shimDir, 'workspace.cjs'));
for (const c of load('classify.json').cases) {
  const latin1 = (text) => Buffer.from(text).toString('latin1');
  const got = workspace.location(latin1(c.path), c.workspace.map(latin1), c.exempt.map(latin1));
  check(`classify: ${c.name}`, got, c.class);
}
const exemptids = require(path.join(shimDir, 'exemptids.cjs'));
const identities = load('exemptids.json');
for (const c of identities.parse) {
  check(`exempt ids: ${c.name}`, exemptids.parse(c.value), c.expected);
}
for (const c of identities.record) {
  check(`exempt record: ${c.name}`, exemptids.ofRecord(c.exempt, c.exemptIds), c.expected);
}
for (const c of identities.verdict) {
  const ancestor = (levels) => c.ancestors[levels - 1] ?? null;
  const sameMount = (root) => c.sameMount.includes(root.real);
  const got = exemptids.verdict(c.place, c.placeId, ancestor, sameMount, c.roots);
  check(`exempt verdict: ${c.name}`, got, c.expected);
}
const churn = require(path.join(shimDir, 'churn.cjs'));
const churnVectors = load('churn.json');
check('churn limit', churn.LIMIT, churnVectors.limit);
for (const c of churnVectors.cases) {
  const got = churn.verdict(c.btime, churnVectors.start, c.now, c.directory, c.entries);
  check(`churn: ${c.name}`, got, c.expected);
}
const built = require(path.join(shimDir, 'buildoutput.cjs'));
const builtVectors = load('buildoutput.json');
for (const c of builtVectors.head) {
  check(`build output head: ${c.name}`, built.headKind(hex(c.head_hex)), c.expected);
}
for (const c of builtVectors.statusPwd) {
  const pwd = built.statusPwd(hex(c.head_hex));
  const got = pwd === null ? null : Buffer.from(pwd, 'latin1').toString('hex');
  check(`config.status: ${c.name}`, got, c.expected_hex);
}
for (const c of builtVectors.verdict) {
  check(`build output: ${c.name}`, built.verdict(c.kind, c.born, c.anchor), c.expected);
}
process.stdout.write(JSON.stringify({ passed, failures }) + '\n');
process.exitCode = failures.length ? 1 : 0;
