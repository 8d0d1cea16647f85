'use strict';
// Refusing a deletion: the marker line, the signal file and the `refuse` report event,
// and the error Node's caller gets. safedel's own messages never carry a raw control
// character: a file name holding a newline and a fake marker line must not turn into a
// line of its own in anybody's log.

const os = require('os');
const audit = require('./audit.cjs');
const ledger = require('./ledger.cjs');
const rule = require('./ledgerrule.cjs');
// The turn's administration: only a refused take or a target outside the workspace asks it.
const turn = () => require('./ledgerturn.cjs');
const workspace = require('./workspace.cjs');

const FAIL_CLOSED = 'SAFE_DELETE_FAIL_CLOSED';
const CONFIRM_REQUIRED = 'SAFE_DELETE_BULK_CONFIRM_REQUIRED';
const REJECTED = 'SAFE_DELETE_BULK_REJECTED';
const GUARD_ERROR = 'SAFE_DELETE_BULK_GUARD_ERROR';
const OUTSIDE_WORKSPACE = 'SAFE_DELETE_OUTSIDE_WORKSPACE';
const NAMED = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

// C0, DEL and C1 controls as \n, \t, \r or \xNN (what `safedel list` prints too).
function printable(text) {
  return String(text).replace(/[\u0000-\u001f\u007f-\u009f]/g, (ch) => {
    return NAMED[ch] || '\\x' + ch.charCodeAt(0).toString(16).padStart(2, '0');
  });
}

function errnoOf(code) {
  const value = os.constants.errno[code];
  return value ? -value : -os.constants.errno.EIO;
}

// An error shaped like Node's own ({ code, errno, syscall, path }); the message is
// safedel's, so it is escaped. `.path` stays the caller's path, as Node's is.
function makeError(code, detail, syscall, path) {
  const shown = Buffer.isBuffer(path) ? path.toString() : String(path);
  const err = new Error(printable(`${code}: ${detail}, ${syscall} '${shown}'`));
  err.errno = errnoOf(code);
  err.code = code;
  err.syscall = syscall;
  err.path = shown;
  return err;
}

function refused(reason, syscall, path) {
  const detail = `operation not permitted: safedel refused it, ${reason}`;
  return makeError('EPERM', detail, syscall, path);
}

function refuse(settings, kind, signal, reason, payload, targets) {
  audit.emit(kind, payload);
  if (signal) audit.writeSignal(settings, signal, payload);
  audit.reportRefusals(settings, targets, reason);
}

// Take one from the turn's allowance; return null, or the refusal error to raise.
// `uncounted` receives why a regenerable target was let through without counting.
function authorize(settings, absolute, syscall, path, env = process.env, uncounted = {}) {
  const targets = [audit.fsdecode(absolute)];
  let decision;
  try {
    const outside = askOutside(settings, absolute, env, targets);
    if (outside) return refused(outside, syscall, path);
    decision = ledger.take(settings, 1);
    if (decision.verdict !== rule.ALLOW) {
      const why = workspace.regenerable(absolute.toString('latin1'), settings, env, () => {
        return turn().turnState(settings).firstTs;
      });
      if (why) {
        turn().withdraw(settings, decision.id);
        uncounted.why = why;
        return null;
      }
    }
  } catch (err) {
    const message = err instanceof ledger.GuardError ? err.message : String(err);
    const reason = `the bulk guard failed, so nothing was deleted: ${message}`;
    refuse(settings, GUARD_ERROR, 'guardError', reason, { message }, targets);
    return refused(reason, syscall, path);
  }
  if (decision.verdict === rule.ALLOW) return null;
  const payload = {
    count: decision.count,
    threshold: decision.threshold,
    scope: 'turn',
    targets,
    targetCount: 1,
    session: settings.session,
    turn: settings.turn,
  };
  if (decision.verdict === rule.REJECTED) {
    const reason = "bulk guard: this turn's bulk deletion was rejected; nothing was deleted";
    refuse(settings, REJECTED, 'rejected', reason, payload, targets);
    return refused(reason, syscall, path);
  }
  const reason =
    `bulk guard: 1 more would pass this turn's limit of ${decision.threshold} ` +
    `(already ${decision.count}); nothing was deleted; ` +
    require('./remedy.cjs').bulk(settings);
  refuse(settings, CONFIRM_REQUIRED, 'confirmRequired', reason, payload, targets);
  return refused(reason, syscall, path);
}

// Outside every workspace root, under outside_workspace = "confirm" and not approved for
// the turn: signal it and return the reason (Node never prompts: it cannot tell whether
// it is in the foreground). Otherwise null.
function askOutside(settings, absolute, env, targets) {
  if (settings.outsideWorkspace === 'allow') return null;
  const path = absolute.toString('latin1');
  if (workspace.classify(path, settings, env) !== workspace.OUTSIDE) return null;
  // Under a run, what its keeper holds, not what the ledger file says.
  const keeper = process.platform === 'linux' ? require('./keeper.cjs') : null;
  const kept = keeper ? keeper.forSettings(settings) : null;
  const approved =
    kept !== null
      ? keeper.turnView(kept, settings).outside
      : turn().turnState(settings).state.outside;
  if (approved) return null;
  const payload = {
    targets,
    targetCount: 1,
    workspace: workspace.roots(env, settings).map((root) => audit.fsdecode(Buffer.from(root, 'latin1'))),
    session: settings.session,
    turn: settings.turn,
  };
  const reason =
    `outside the workspace: ${targets[0]} is in no workspace folder; nothing was deleted; ` +
    require('./remedy.cjs').outside(settings);
  refuse(settings, OUTSIDE_WORKSPACE, 'outsideWorkspace', reason, payload, targets);
  return reason;
}

// The item stays; say so on stderr, in the report, and in the error.
function failClosed(settings, absolute, code, reason, syscall, path) {
  const shown = audit.fsdecode(absolute);
  refuse(settings, FAIL_CLOSED, null, reason, { path: shown, reason }, [shown]);
  const detail = `safedel could not trash it and left it in place: ${reason}`;
  return makeError(code, detail, syscall, path);
}

module.exports = { printable, makeError, authorize, failClosed };
