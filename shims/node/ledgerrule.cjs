'use strict';
// The bulk guard's rule (the same as safedel/core/guard/rule.py's, checked in both runtimes by
// tests/vectors/ledger.json): which lines are records, and the verdict each take gets
// from the lines before it. Pure: no file is read or written here (ledger.cjs does that).

const ALLOW = 'allow';
const CONFIRM = 'confirmRequired';
const REJECTED = 'rejected';

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

module.exports = { ALLOW, CONFIRM, REJECTED, TurnState, parseLine, verdicts };
