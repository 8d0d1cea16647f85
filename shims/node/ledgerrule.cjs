'use strict';
// The bulk guard's rule (the same as safedel/core/guard/rule.py's, checked in both runtimes by
// tests/vectors/ledger.json): which lines are records, and the verdict each take gets
// from the lines before it. Pure: no file is read or written here (ledger.cjs does that).
// A line that is neither a record nor a fragment a full disk tore off glued to a whole
// record damages the turn: every later take fails closed until a person resets it.

const ALLOW = 'allow';
const CONFIRM = 'confirmRequired';
const REJECTED = 'rejected';
const DAMAGED = 'damaged';
const RECORD_START = Buffer.from('{"op":"');
const APPROVALS = ['approve', 'approveOutside'];
const VOID_WORD = Buffer.from('"void"');

class TurnState {
  constructor(mode = 'open', granted = 0, outside = false, damaged = null) {
    this.mode = mode;
    this.granted = granted;
    this.outside = outside; // deletions outside the workspace approved for the turn
    this.damaged = damaged; // why the ledger cannot be trusted, once it cannot
  }

  copy() {
    return new TurnState(this.mode, this.granted, this.outside, this.damaged);
  }

  damage(why) {
    if (this.damaged === null) this.damaged = why;
  }

  // Apply one ledger record; return the verdict for a take, else null.
  apply(record) {
    if (record.op === 'take') {
      const n = toInt(record.n);
      const threshold = toInt(record.t);
      if (this.damaged !== null) return DAMAGED;
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
    else if (record.op === DAMAGED) this.damage(`marked damaged: ${record.why || 'no reason given'}`);
    return null;
  }

  // Apply one raw line (a Buffer or a string); return the verdict for a take, else null.
  // An approval whose id is in voided (voidedIds) changes nothing.
  applyLine(line, voided = null) {
    const record = parseLine(line);
    if (record && voided && APPROVALS.includes(record.op) && voided.has(record.id)) return null;
    if (record) return this.apply(record);
    if (!gluedToAFragment(line)) this.damage('a line in it is not a record safedel writes');
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

// Whether line is a fragment a full disk tore off glued to the whole record written after
// it: the fragment begins as every record does and holds no newline, and what follows
// its last record start is a whole record.
function gluedToAFragment(line) {
  let body = Buffer.isBuffer(line) ? line : Buffer.from(line);
  if (body.length && body[body.length - 1] === 0x0a) body = body.subarray(0, body.length - 1);
  const start = body.lastIndexOf(RECORD_START);
  if (start <= 0 || !body.subarray(0, RECORD_START.length).equals(RECORD_START)) return false;
  return parseLine(body.subarray(start)) !== null;
}

// The ids of the approvals that `void` lines anywhere in data (a Buffer) take back: a
// run's keeper found that it did not make them (core/guard/rule.py's voided_ids).
function voidedIds(data) {
  const found = new Set();
  if (data.indexOf(VOID_WORD) < 0) return found;
  let start = 0;
  while (start < data.length) {
    let end = data.indexOf(0x0a, start);
    if (end < 0) end = data.length;
    const line = data.subarray(start, end);
    if (line.indexOf(VOID_WORD) >= 0) {
      const record = parseLine(line);
      if (record && record.op === 'void' && typeof record.id === 'string') found.add(record.id);
    }
    start = end + 1;
  }
  return found;
}

function joined(lines) {
  return Buffer.concat(lines.map((line) => Buffer.from(Buffer.isBuffer(line) ? line : String(line) + '\n')));
}

// [[record or null, verdict or null]] for a sequence of ledger lines: the pure rule.
function verdicts(lines) {
  const state = new TurnState();
  const voided = voidedIds(joined(lines));
  return lines.map((line) => [parseLine(line), state.applyLine(line, voided)]);
}

// The TurnState after a sequence of ledger lines.
function replay(lines) {
  const state = new TurnState();
  const voided = voidedIds(joined(lines));
  for (const line of lines) state.applyLine(line, voided);
  return state;
}

module.exports = {
  ALLOW,
  CONFIRM,
  REJECTED,
  DAMAGED,
  TurnState,
  parseLine,
  voidedIds,
  verdicts,
  replay,
};
