'use strict';
// One deletion call, decided and carried out: what Node would do with the path (succeed,
// or fail with its own error), then exempt / protected / guard / trash / report, the way
// safedel/core/deletion.py does it for the other runtimes.

const os = require('os');
const url = require('url');
const settingsModule = require('./settings.cjs');
const ledger = require('./ledger.cjs');
const audit = require('./audit.cjs');
const trashModule = require('./trash.cjs');

const FAIL_CLOSED = 'SAFE_DELETE_FAIL_CLOSED';
const CONFIRM_REQUIRED = 'SAFE_DELETE_BULK_CONFIRM_REQUIRED';
const REJECTED = 'SAFE_DELETE_BULK_REJECTED';
const GUARD_ERROR = 'SAFE_DELETE_BULK_GUARD_ERROR';
const { lstatSync, readdirSync } = require('./originals.cjs');
// Linux trashes in-process; elsewhere only the native trash (via the Python engine) can.
const IN_PROCESS = process.platform === 'linux';

// The path as bytes, URL and string alike (validation already passed).
function toBuffer(path) {
  if (Buffer.isBuffer(path)) return path;
  if (path instanceof Uint8Array) return Buffer.from(path);
  if (typeof path !== 'string') path = url.fileURLToPath(path);
  return Buffer.from(path);
}

function absoluteOf(raw) {
  if (!IN_PROCESS) return Buffer.from(require('path').resolve(raw.toString()));
  const text = raw.toString('latin1');
  const base = text.startsWith('/') ? '' : Buffer.from(process.cwd()).toString('latin1');
  return Buffer.from(require('path').posix.resolve(base || '/', text), 'latin1');
}

function stripSlashes(raw) {
  let end = raw.length;
  while (end > 1 && raw[end - 1] === 0x2f) end -= 1;
  return raw.subarray(0, end);
}

function isDotName(raw) {
  const base = trashModule.basename(stripSlashes(raw)).toString('latin1');
  return base === '.' || base === '..';
}

function exempt(path, settings) {
  return settingsModule.isExempt(absoluteOf(stripSlashes(toBuffer(path))), settings.exempt);
}

// What to do with one call on an existing path: 'delegate' (the original fails with
// Node's own error), 'dot' ('.' or '..', which Node refuses only after emptying the
// directory), or 'trash'. `st` is lstat(path); `op` is unlink, rmdir or rm.
function decide(op, raw, st, recursive) {
  const target = stripSlashes(raw);
  if (target.length !== raw.length && recursive) {
    const own = lstatSync(target, { throwIfNoEntry: false });
    // `link/` with recursive would empty the link's target; the link itself goes instead.
    if (own && own.isSymbolicLink()) return 'trash';
  }
  if (op === 'unlink') return st.isDirectory() ? 'delegate' : 'trash';
  if (op === 'rm' && !recursive) return st.isDirectory() ? 'delegate' : 'trash';
  if (op === 'rmdir') {
    if (!st.isDirectory()) return 'delegate';
    if (isDotName(raw)) return recursive ? 'dot' : 'delegate';
    if (!recursive && readdirSync(target).length) return 'delegate';
    return 'trash';
  }
  return isDotName(raw) ? 'dot' : 'trash';
}

function errnoOf(code) {
  const value = os.constants.errno[code];
  return value ? -value : -os.constants.errno.EIO;
}

function makeError(code, detail, syscall, path) {
  const shown = Buffer.isBuffer(path) ? path.toString() : String(path);
  const err = new Error(`${code}: ${detail}, ${syscall} '${shown}'`);
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
function authorize(settings, absolute, syscall, path) {
  const targets = [audit.fsdecode(absolute)];
  let decision;
  try {
    decision = ledger.take(settings, 1);
  } catch (err) {
    const message = err instanceof ledger.GuardError ? err.message : String(err);
    const reason = `the bulk guard failed, so nothing was deleted: ${message}`;
    refuse(settings, GUARD_ERROR, 'guardError', reason, { message }, targets);
    return refused(reason, syscall, path);
  }
  if (decision.verdict === ledger.ALLOW) return null;
  const payload = {
    count: decision.count,
    threshold: decision.threshold,
    scope: 'turn',
    targets,
    targetCount: 1,
    session: settings.session,
    turn: settings.turn,
  };
  if (decision.verdict === ledger.REJECTED) {
    const reason = "bulk guard: this turn's bulk deletion was rejected; nothing was deleted";
    refuse(settings, REJECTED, 'rejected', reason, payload, targets);
    return refused(reason, syscall, path);
  }
  const reason =
    `bulk guard: 1 more would pass this turn's limit of ${decision.threshold} ` +
    `(already ${decision.count}); nothing was deleted; run \`safedel guard approve\` to allow it`;
  refuse(settings, CONFIRM_REQUIRED, 'confirmRequired', reason, payload, targets);
  return refused(reason, syscall, path);
}

function failClosed(settings, absolute, code, reason, syscall, path) {
  const shown = audit.fsdecode(absolute);
  refuse(settings, FAIL_CLOSED, null, reason, { path: shown, reason }, [shown]);
  const detail = `safedel could not trash it and left it in place: ${reason}`;
  return makeError(code, detail, syscall, path);
}

// Guard, trash and report one path; return null or the error to raise.
function trashPath(settings, raw, st, syscall, path) {
  const target = stripSlashes(raw);
  const own = target.length === raw.length ? st : lstatSync(target);
  const absolute = absoluteOf(target);
  const why = settingsModule.protectedReason(absolute, own, process.env);
  if (why) return failClosed(settings, absolute, 'EPERM', why, syscall, path);
  if (!IN_PROCESS) return viaCli(absolute, syscall, path);
  const denied = authorize(settings, absolute, syscall, path);
  if (denied) return denied;
  let record;
  try {
    record = trashModule.trash(target, absolute, own, settings.trashDir, process.env);
  } catch (err) {
    const reason = err instanceof trashModule.TrashFailure ? err.reason : String(err.message);
    return failClosed(settings, absolute, err.code || 'EIO', reason, syscall, path);
  }
  const fields = {
    path: audit.fsdecode(absolute),
    trashPath: audit.fsdecode(record.trashPath),
    infoPath: audit.fsdecode(record.infoPath),
    kind: record.kind,
  };
  try {
    audit.append(settings.report, [audit.event('trash', settings, fields)]);
  } catch (err) {
    // The item is safe in the trash; only the audit line is missing.
    settingsModule.warnOnce(`cannot write the report ${settings.report}: ${err.message}`);
  }
  return null;
}

// macOS and Windows: `safedel trash` guards, calls the native trash (send2trash) and
// reports, as one batch of one. Only there; on Linux nothing is ever handed over.
function viaCli(absolute, syscall, path) {
  const args = ['trash', '--runtime', 'node', '--recurse', '--json', '--', absolute.toString()];
  const result = require('child_process').spawnSync('safedel', args, {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    shell: process.platform === 'win32',
  });
  let outcome = null;
  try {
    outcome = JSON.parse(result.stdout.trim().split('\n').pop());
  } catch {
    outcome = null;
  }
  if (outcome && outcome.ok) return null;
  const reason = (outcome && outcome.error) || (result.error && result.error.message) ||
    `safedel trash exited with ${result.status}`;
  const detail = `operation not permitted: safedel left it in place, ${reason}`;
  return makeError('EPERM', detail, syscall, path);
}

module.exports = { toBuffer, exempt, decide, trashPath, load: settingsModule.load };
