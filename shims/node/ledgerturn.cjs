'use strict';
// The turn's administration in the bulk-guard ledger (as safedel/core/guard/turn.py):
// withdrawing a refused take, the whole turn's state, and pruning old state. Only a
// refusal, an outside-workspace check or a new turn's ledger needs it.

const pathPosix = require('path').posix;
const { TurnState, parseLine, voidedIds } = require('./ledgerrule.cjs');
const { GuardError, damaged, openLedger, appendLine, readAt } = require('./ledger.cjs');
const { fstatSync, closeSync } = require('./originals.cjs');
const { readdirSync, lstatSync, unlinkSync } = require('./originals.cjs');

const PRUNE_AGE_MS = 24 * 3600 * 1000;

// Take back the refused take id: its batch turned out to be regenerable, and the turn
// should read as if it had never been asked (core/guard/turn.py's `withdraw`). It grants
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
  const lines = data.toString('latin1').split('\n');
  lines.pop(); // what follows the last newline is not a whole line yet
  const voided = voidedIds(data);
  for (const text of lines) {
    const line = Buffer.from(text + '\n', 'latin1');
    const record = parseLine(line);
    if (record && firstTs === null && Number.isFinite(record.ts)) firstTs = record.ts;
    state.applyLine(line, voided);
  }
  if (state.damaged !== null) throw damaged(state.damaged);
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

module.exports = { withdraw, turnState, prune };
