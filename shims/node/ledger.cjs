'use strict';
// The per-turn bulk guard ledger (the same format as safedel/core/guard/ledger.py, the
// same rule as safedel/core/guard/rule.py): a process appends its `take` line with one
// O_APPEND write, then reads the ledger; the verdict is a pure function of the lines
// before its own, so no lock can go stale.

const fs = require('fs');
const pathPosix = require('path').posix;
const { digest, openUnder } = require('./private.cjs');

const ALLOW = 'allow';
const CONFIRM = 'confirmRequired';
const REJECTED = 'rejected';
const PRUNE_AGE_MS = 24 * 3600 * 1000;
const { O_RDWR, O_APPEND, O_CREAT } = fs.constants;
const LEDGER_FLAGS = O_RDWR | O_APPEND | O_CREAT;
const { writeSync, fstatSync, readSync, closeSync } = require('./originals.cjs');
const { readdirSync, lstatSync, unlinkSync } = require('./originals.cjs');
// The furthest point this process has already read, per ledger: { ino, offset, state }.
const cursors = new Map();

// Take ids are unique across processes (pid and a random part drawn once) and within
// one (a counter); drawing random bytes per take costs more than the rest of it.
let idPrefix = null;
let idCounter = 0;

function nextId() {
  if (idPrefix === null) {
    idPrefix = `${process.pid}.${require('crypto').randomBytes(6).toString('hex')}`;
  }
  idCounter += 1;
  return `${idPrefix}.${idCounter}`;
}

class GuardError extends Error {}

class TurnState {
  constructor(mode = 'open', granted = 0, outside = false) {
    this.mode = mode;
    this.granted = granted;
    this.outside = outside; // deletions outside the workspace approved for the turn
  }

  copy() {
    return new TurnState(this.mode, this.granted, this.outside);
  }

  // Apply one ledger record; return the verdict for a take, else null.
  apply(record) {
    if (record.op === 'take') {
      const n = toInt(record.n);
      const threshold = toInt(record.t);
      if (this.mode === 'rejected') return REJECTED;
      if (this.mode === 'approved' || this.granted + n <= threshold) {
        this.granted += n;
        return ALLOW;
      }
      return CONFIRM;
    }
    if (record.op === 'approve') this.mode = 'approved';
    else if (record.op === 'reject') this.mode = 'rejected';
    else if (record.op === 'approveOutside') this.outside = true;
    return null;
  }
}

// Python's int() on what JSON can hold: whole numbers, truncated floats, numeric strings.
function toInt(value) {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number' && Number.isFinite(value)) return Math.trunc(value);
  if (typeof value === 'string' && /^\s*[+-]?\d+\s*$/.test(value)) return parseInt(value, 10);
  throw new TypeError('not an integer');
}

// The record on one line, or null for anything that is not a whole record (a fragment a
// full disk tore off, a blank line): such a line was never granted, and every reader
// skips it.
function parseLine(line) {
  let record;
  try {
    record = JSON.parse(typeof line === 'string' ? line : line.toString('utf8'));
  } catch {
    return null;
  }
  if (!record || typeof record !== 'object' || Array.isArray(record)) return null;
  if (typeof record.op !== 'string') return null;
  if (record.op === 'take') {
    let n;
    let t;
    try {
      n = toInt(record.n);
      t = toInt(record.t);
    } catch {
      return null;
    }
    if (!(n >= 0 && t > 0)) return null;
  }
  return record;
}

// [[record or null, verdict or null]] for a sequence of ledger lines: the pure rule.
function verdicts(lines) {
  const state = new TurnState();
  return lines.map((line) => {
    const record = parseLine(line);
    return [record, record ? state.apply(record) : null];
  });
}

// Append one line with one O_APPEND write. A short write (a full disk) throws: that
// take fails closed, and readers skip the fragment it left.
function appendLine(fd, data) {
  if (writeSync(fd, data) !== data.length) throw new Error('short write: the disk is full');
}

function ledgerParts(session, turn) {
  return ['bulk-guard', digest(session), digest(turn) + '.jsonl'];
}

function openLedger(settings) {
  const parts = ledgerParts(settings.session, settings.turn);
  try {
    return openUnder(settings.stateDir, parts, LEDGER_FLAGS, false);
  } catch (err) {
    if (err.code !== 'ENOENT') {
      throw new GuardError(`cannot open the bulk-guard ledger: ${err.message}`);
    }
  }
  try {
    prune(settings.stateDir);
    return openUnder(settings.stateDir, parts, LEDGER_FLAGS, true);
  } catch (err) {
    throw new GuardError(`cannot open the bulk-guard ledger: ${err.message}`);
  }
}

function readAt(fd, length, position) {
  const data = Buffer.allocUnsafe(length);
  let got = 0;
  while (got < length) {
    const read = readSync(fd, data, got, length - got, position + got);
    if (read === 0) break;
    got += read;
  }
  return data.subarray(0, got);
}

// Read the ledger from where this process left off: [offset, state, data]. The ledger
// may have been reset and a new one given the same inode, so the cursor holds only if
// this process's own unique last line still ends right at it; it is read in the same
// pread as the rest, then checked.
function readOn(fd, st, key) {
  const cursor = cursors.get(key);
  if (cursor && cursor.file === `${st.dev}:${st.ino}` && cursor.offset <= st.size) {
    const from = cursor.offset - cursor.line.length;
    const data = readAt(fd, st.size - from, from);
    if (data.subarray(0, cursor.line.length).equals(cursor.line)) {
      return [cursor.offset, cursor.state.copy(), data.subarray(cursor.line.length)];
    }
  }
  return [0, new TurnState(), readAt(fd, st.size, 0)];
}

// Ask for n deletions in the current turn: { verdict, count, threshold }. Throws GuardError.
// A second take is written only when a fragment a full disk tore off swallowed the first
// (the two made one line that no reader counts; our newline ended the fragment).
function take(settings, n) {
  for (let attempt = 0; attempt < 2; attempt += 1) {
    const decision = takeOnce(settings, n);
    if (decision) return decision;
  }
  throw new GuardError('the bulk-guard ledger keeps tearing lines; nothing was deleted');
}

function takeOnce(settings, n) {
  const id = nextId();
  const record = { op: 'take', id, n, t: settings.threshold, ts: Date.now() };
  const own = Buffer.from(JSON.stringify(record) + '\n');
  const key = `${settings.stateDir}\0${settings.session}\0${settings.turn}`;
  const fd = openLedger(settings);
  let data;
  let offset;
  let state;
  let file;
  try {
    appendLine(fd, own);
    const st = fstatSync(fd);
    file = `${st.dev}:${st.ino}`;
    [offset, state, data] = readOn(fd, st, key);
  } catch (err) {
    throw new GuardError(`cannot use the bulk-guard ledger: ${err.message}`);
  } finally {
    closeSync(fd);
  }
  let start = 0;
  while (start < data.length) {
    let end = data.indexOf(0x0a, start);
    end = end < 0 ? data.length : end + 1;
    const line = data.subarray(start, end);
    const record = parseLine(line);
    const verdict = record ? state.apply(record) : null;
    offset += end - start;
    start = end;
    if (line.equals(own)) {
      cursors.set(key, { file, offset, line: own, state: state.copy() });
      return { verdict, count: state.granted, threshold: settings.threshold, id };
    }
    if (line.length > own.length && line.subarray(line.length - own.length).equals(own)) {
      return null; // glued to a torn fragment: no reader counts that line
    }
  }
  throw new GuardError(
    "the bulk-guard ledger lost this process's entry; run `safedel guard reset`"
  );
}

// Take back the refused take id: its batch turned out to be regenerable, and the turn
// should read as if it had never been asked (core/guard/rule.py's WITHDRAW). It grants
// nothing, so no verdict changes. Like an approve line, it is written again after a
// newline if a torn fragment swallowed it. Throws GuardError.
function withdraw(settings, id) {
  const record = { op: 'withdraw', id, by: 'regenerable', ts: Date.now() };
  const line = Buffer.from(JSON.stringify(record) + '\n');
  const fd = openLedger(settings);
  try {
    for (let attempt = 0; attempt < 2; attempt += 1) {
      appendLine(fd, line);
      // Node cannot ask where O_APPEND put it: find it (the rescue path only).
      const data = readAt(fd, fstatSync(fd).size, 0);
      const at = data.indexOf(line);
      if (at === 0 || (at > 0 && data[at - 1] === 0x0a)) return;
    }
    throw new Error('the ledger keeps tearing lines');
  } catch (err) {
    throw new GuardError(`cannot write the bulk-guard ledger: ${err.message}`);
  } finally {
    closeSync(fd);
  }
}

// The turn's whole ledger, read once: { state, firstTs } (firstTs: the first line's ts,
// in ms, or null). Throws GuardError.
function turnState(settings) {
  const fd = openLedger(settings);
  let data;
  try {
    data = readAt(fd, fstatSync(fd).size, 0);
  } catch (err) {
    throw new GuardError(`cannot read the bulk-guard ledger: ${err.message}`);
  } finally {
    closeSync(fd);
  }
  const state = new TurnState();
  let firstTs = null;
  for (const line of data.toString('latin1').split('\n')) {
    const record = line ? parseLine(Buffer.from(line + '\n', 'latin1')) : null;
    if (!record) continue;
    if (firstTs === null && Number.isFinite(record.ts)) firstTs = record.ts;
    state.apply(record);
  }
  return { state, firstTs };
}

// Remove ledgers and signal files untouched for 24 hours.
function prune(stateDir) {
  const cutoff = Date.now() - PRUNE_AGE_MS;
  for (const top of ['bulk-guard', 'signals']) {
    const root = pathPosix.join(stateDir, top);
    let sessions;
    try {
      sessions = readdirSync(root);
    } catch {
      continue;
    }
    for (const session of sessions) {
      const dir = pathPosix.join(root, session);
      let names;
      try {
        names = readdirSync(dir);
      } catch {
        continue;
      }
      for (const name of names) {
        const file = pathPosix.join(dir, name);
        try {
          const st = lstatSync(file);
          if (st.isFile() && st.mtimeMs < cutoff) unlinkSync(file);
        } catch {
          // Gone already, or not ours to remove.
        }
      }
    }
  }
}

module.exports = {
  ALLOW,
  CONFIRM,
  REJECTED,
  GuardError,
  TurnState,
  verdicts,
  parseLine,
  take,
  withdraw,
  turnState,
};
