'use strict';
// The per-turn bulk guard ledger (the same format as safedel/core/guard/ledger.py's): a
// process appends its `take` line with one O_APPEND write, then reads the ledger; the
// verdict is a pure function of the lines before its own (ledgerrule.cjs, the same rule
// as safedel/core/guard/rule.py), so no lock can go stale.
// The turn's administration (withdrawing a take, the whole turn's state, pruning) is in
// ledgerturn.cjs, loaded only when one of them is asked for.

const fs = require('fs');
const { digest, openUnder } = require('./private.cjs');
const { TurnState, DAMAGED, voidedIds } = require('./ledgerrule.cjs');

const { O_RDWR, O_APPEND, O_CREAT } = fs.constants;
const LEDGER_FLAGS = O_RDWR | O_APPEND | O_CREAT;
const { writeSync, fstatSync, readSync, closeSync } = require('./originals.cjs');
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

// The turn's ledger holds what safedel never writes (core/guard/ledger.py's damaged()).
function damaged(why) {
  return new GuardError(
    `the bulk-guard ledger of this turn is damaged (${why}), so nothing was deleted; ` +
      'a person must reset the turn'
  );
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
    require('./ledgerturn.cjs').prune(settings.stateDir); // a new turn only
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
  // Under a run its keeper gives the verdict, once it has read our line (keeper.cjs).
  const keeper = process.platform === 'linux' ? require('./keeper.cjs') : null;
  const kept = keeper ? keeper.forSettings(settings) : null;
  const fd = openLedger(settings);
  let data;
  let offset;
  let state;
  let file;
  let ledgerIno;
  try {
    appendLine(fd, own);
    if (kept !== null) ledgerIno = fstatSync(fd).ino;
    else {
      const st = fstatSync(fd);
      file = `${st.dev}:${st.ino}`;
      [offset, state, data] = readOn(fd, st, key);
    }
  } catch (err) {
    throw new GuardError(`cannot use the bulk-guard ledger: ${err.message}`);
  } finally {
    closeSync(fd);
  }
  if (kept !== null) return keeper.decide(kept, settings, record, ledgerIno);
  let voided = voidedIds(data);
  if (voided.size && offset) {
    // A void reaches back past the cursor: read the whole ledger again.
    const fd2 = openLedger(settings);
    try {
      data = readAt(fd2, fstatSync(fd2).size, 0);
    } finally {
      closeSync(fd2);
    }
    [offset, state, voided] = [0, new TurnState(), voidedIds(data)];
  }
  let start = 0;
  while (start < data.length) {
    let end = data.indexOf(0x0a, start);
    end = end < 0 ? data.length : end + 1;
    const line = data.subarray(start, end);
    const verdict = state.applyLine(line, voided);
    offset += end - start;
    start = end;
    if (line.equals(own)) {
      if (verdict === DAMAGED) throw damaged(state.damaged);
      cursors.set(key, { file, offset, line: own, state: state.copy() });
      return { verdict, count: state.granted, threshold: settings.threshold, id };
    }
    if (line.length > own.length && line.subarray(line.length - own.length).equals(own)) {
      return null; // glued to a torn fragment: no reader counts that line
    }
  }
  throw damaged("this process's own entry is gone from it: it was rewritten");
}

module.exports = { GuardError, damaged, take, openLedger, appendLine, readAt };
