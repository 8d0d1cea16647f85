'use strict';
// The run's record as its guard keeper holds it, and the check of the run's files
// against it (as safedel/core/contract/keptrecord.py does, which says why). Under a
// keeper, the values that bind a Node process come from the record the keeper
// published when the run started, never from a file the command can rewrite: the
// nearest pointer whose run the keeper publishes, under the name the keeper gave it,
// must hold the published bytes; a pointer below it (a run inside the run) must say the
// same but for its own run id and pid. A file that says otherwise leaves the published
// values and a reason that fails every deletion closed.

const keeperModule = require('./keeper.cjs');
const { pointers } = require('./ancestry.cjs');

const OWN = new Set(['run', 'pid']);
const PLACING_DEADLINE_MS = 10000;
const pause = new Int32Array(new SharedArrayBuffer(4));
const checked = new Map(); // run id -> { record, why }: a run's record never changes

// { record, why } of this process's run as its keeper holds it (why: null, or the reason
// its deletions fail closed); null when no keeper is among its ancestors.
function governing(runId) {
  const keeper = keeperModule.find();
  if (keeper === null) return null;
  const key = String(runId || '');
  if (!checked.has(key)) checked.set(key, check(keeper, runId));
  return checked.get(key);
}

function check(keeper, runId) {
  let records;
  try {
    records = keeperModule.records(keeper);
  } catch (err) {
    return { record: {}, why: err.message };
  }
  const below = [];
  for (const hit of pointers()) {
    const run = hit.record.run;
    let entry = typeof run === 'string' && Object.hasOwn(records, run) ? records[run] : null;
    if (entry === null) {
      below.push(hit); // a nested run's, or one the command planted
      continue;
    }
    if (entry[0] === '-') entry = placed(keeper, run) || entry;
    if (entry[0] !== hit.name) {
      return { record: parsed(entry[1]), why: why(hit.path, 'names another run than its own') };
    }
    if (hit.data !== entry[1]) {
      return { record: parsed(entry[1]), why: why(hit.path, "differs from the run's record") };
    }
    return agreeing(hit.record, below);
  }
  const values = Object.values(records);
  let entry = typeof runId === 'string' && Object.hasOwn(records, runId) ? records[runId] : null;
  if (entry === null && values.length === 1) entry = values[0];
  if (entry === null) {
    const said = "the run's guard keeper holds no record of this process's run";
    return { record: {}, why: `${said}, so nothing was deleted` };
  }
  return agreeing(parsed(entry[1]), below);
}

// The value with every object's keys sorted, and none of OWN at the top.
function shared(value, top = true) {
  if (Array.isArray(value)) return value.map((v) => shared(v, false));
  if (value === null || typeof value !== 'object') return value;
  const out = {};
  for (const k of Object.keys(value).sort()) {
    if (!(top && OWN.has(k))) out[k] = shared(value[k], false);
  }
  return out;
}

function agreeing(record, below) {
  const expected = JSON.stringify(shared(record));
  for (const hit of below) {
    if (JSON.stringify(shared(hit.record)) !== expected) {
      return { record, why: why(hit.path, "differs from the run's record") };
    }
  }
  if (below.length && typeof below[0].record.run === 'string') {
    // The nested run's own id: its events and signals are its own.
    return { record: { ...record, run: below[0].record.run }, why: null };
  }
  return { record, why: null };
}

// The run's entry once the keeper has named its pointer (a served run's root), or null.
function placed(keeper, run) {
  const deadline = Date.now() + PLACING_DEADLINE_MS;
  let wait = 0.1;
  while (Date.now() < deadline) {
    Atomics.wait(pause, 0, 0, wait);
    wait = Math.min(wait * 2, 10);
    let entry;
    try {
      entry = keeperModule.records(keeper)[run];
    } catch {
      return null;
    }
    if (!entry || entry[0] !== '-') return entry || null;
  }
  return null;
}

function parsed(text) {
  try {
    const record = JSON.parse(text);
    return record && typeof record === 'object' ? record : {};
  } catch {
    return {};
  }
}

function why(path, what) {
  return (
    `${path} ${what}, as the run's guard keeper holds it (changed while the run was ` +
    'going), so nothing was deleted'
  );
}

module.exports = { governing };
