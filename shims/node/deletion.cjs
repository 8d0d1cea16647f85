'use strict';
// One deletion call, in the order of safedel/core/deletion.py: resolve the path where
// the kernel puts it, refuse a protected one, delete an exempt one for real (without
// following anything), let Node fail what Node would fail, then guard, trash, report.

const url = require('url');
const settingsModule = require('./settings.cjs');
const policy = require('./policy.cjs');
const audit = require('./audit.cjs');
const trashModule = require('./trash.cjs');
const refusal = require('./refusal.cjs');
const { resolve, remember, join } = require('./resolve.cjs');
const realdelete = require('./realdelete.cjs');
const { environment } = require('./inherit.cjs');
const workspace = require('./workspace.cjs');
const kept = require('./kept.cjs');
const mounts = require('./mounts.cjs');
const exemptids = require('./exemptids.cjs');
const kernelfails = require('./kernelfails.cjs');
const churn = require('./churn.cjs');

const { readdirSync, lstatSync, rmSync } = require('./originals.cjs');
// Linux trashes in-process; elsewhere only the native trash (via the Python engine) can.
const IN_PROCESS = process.platform === 'linux';
const DELEGATE = { action: 'delegate' };
const DONE = { action: 'done' };
const KERNEL_FAILS = new Set(['ENOENT', 'ENOTDIR', 'ELOOP', 'EACCES', 'ENAMETOOLONG']);

// The path as bytes, URL and string alike (validation already passed).
function toBuffer(path) {
  if (Buffer.isBuffer(path)) return path;
  if (path instanceof Uint8Array) return Buffer.from(path);
  if (typeof path !== 'string') path = url.fileURLToPath(path);
  return Buffer.from(path);
}

const outcome = (error) => (error ? { action: 'error', error } : DONE);

// What Node does with one call on an existing path; `st` is lstat(path), op is unlink,
// rmdir or rm. Returns a plan: delegate (the original runs: Node's own outcome), done,
// dot ('.' or '..': Node empties the directory first, safedel only fails), or error.
function handle(op, path, st, recursive, sync) {
  const env = environment() || process.env;
  const settings = settingsModule.load(env);
  if (!IN_PROCESS) return elsewhere(op, path, st, recursive, settings);
  const raw = toBuffer(path);
  let target;
  try {
    target = resolve(raw, st);
  } catch (err) {
    // A parent the kernel cannot reach fails Node's own call the same way (its error,
    // kernelfails.cjs); anything else (the permission model, no descriptors left) must
    // not become a real delete.
    if (KERNEL_FAILS.has(err.code)) return kernelfails.failure(err, op, shownPath(path), recursive);
    const reason = `cannot tell where it is: ${err.message}`;
    return outcome(refusal.failClosed(settings, raw, 'EPERM', reason, op, path));
  }
  if (target.dots) {
    if (!st.isDirectory() || op === 'unlink' || !recursive) return DELEGATE;
    return { action: 'dot' };
  }
  if (target.slash && target.st && target.st.isSymbolicLink()) {
    if (!(sync && op === 'rm' && recursive && target.viaLink)) return DELEGATE;
    return linkSlash(settings, env, target, path);
  }
  // A run's file that differs from what its keeper holds (keptrecord.cjs): nothing goes.
  const why = settings.tampered || policy.protectedReason(target, env);
  if (why) return outcome(refusal.failClosed(settings, target.path, 'EPERM', why, op, path));
  if (!wouldRemove(op, target, st, recursive)) {
    // Node refuses it on what is there: in the very directory looked at (kernelfails.cjs).
    const options = recursive ? { recursive } : undefined;
    return outcome(kernelfails.onJudgedParent(op, target, options, shownPath(path)));
  }
  const kept = keptRefusal(target.path, settings, env);
  if (kept) return outcome(refusal.failClosed(settings, target.path, 'EPERM', kept, op, path));
  if (isExemptTarget(target, settings, env)) {
    if (!realdelete.supported()) return DELEGATE;
    const usable = exemptids.roots(settings);
    const err = realdelete.remove(op, target, recursive, shownPath(path), usable);
    if (err && err.mountPoint) {
      const reason = 'another mount: not part of the exempt directory, left in place';
      return outcome(refusal.failClosed(settings, err.mountPoint, 'EXDEV', reason, op, path));
    }
    // A parent that is not the temp dir's own (by identity) is judged like any other.
    if (err !== realdelete.NOT_EXEMPT) return outcome(err);
  }
  if (realdelete.supported() && churn.shortLived(target, settings, env)) {
    const shown = shownPath(path);
    const err = realdelete.remove(op, target, recursive, shown, realdelete.ANYWHERE);
    if (err !== realdelete.NOT_EXEMPT) return outcome(err);
  }
  if (!target.viaLink) remember(target);
  return outcome(trashTarget(settings, env, target, op, path));
}

// `link/` fails in the kernel for rmdir and unlink (ENOTDIR), and in Node's rm and
// promises.rm without removing anything. rmSync on Node 24 first empties the directory
// the link leads to, then fails: safedel trashes those entries, and Node then fails
// on the empty directory as it would have.
function linkSlash(settings, env, target, path) {
  if (!rmSyncEmptiesLinkTargets()) return DELEGATE;
  const why = policy.protectedReason(target, env);
  if (why) return outcome(refusal.failClosed(settings, target.path, 'EPERM', why, 'rm', path));
  // Node's own walk empties where the link leads: only when no mount lies below.
  if (isExemptTarget(target, settings, env) && !mounts.mountBeneath(target.path)) return DELEGATE;
  const id = [target.st.dev, target.st.ino];
  for (const name of readdirSync(target.path, { encoding: 'buffer' })) {
    const entry = join(target.path, name);
    const st = lstatSync(entry, { throwIfNoEntry: false });
    if (!st) continue;
    const child = { parent: target.path, name, path: entry, st, parentId: id };
    const err = trashTarget(settings, env, child, 'rm', path);
    if (err) return outcome(err);
  }
  return DELEGATE;
}

let emptiesLinkTargets = null;

// Does this Node's rmSync('link/', { recursive: true }) empty where link leads? Asked
// once, of a private copy of that shape in the temp directory.
function rmSyncEmptiesLinkTargets() {
  if (emptiesLinkTargets !== null) return emptiesLinkTargets;
  const fs = require('fs');
  const dir = fs.mkdtempSync(require('path').join(require('os').tmpdir(), 'safedel-probe-'));
  try {
    fs.mkdirSync(`${dir}/d`);
    fs.writeFileSync(`${dir}/d/x`, '');
    fs.symlinkSync('d', `${dir}/l`);
    try {
      rmSync(`${dir}/l/`, { recursive: true });
    } catch {
      // The failure is expected; what matters is whether d/x survived it.
    }
    emptiesLinkTargets = !fs.existsSync(`${dir}/d/x`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return emptiesLinkTargets;
}

// macOS and Windows: no /proc to resolve by, and the native trash does the work.
function elsewhere(op, path, st, recursive, settings) {
  const absolute = Buffer.from(require('path').resolve(shownPath(path)));
  if (!wouldRemove(op, { path: absolute }, st, recursive)) return DELEGATE;
  const exempt = policy.isExempt(absolute, exemptids.realRoots(settings));
  if (exempt && onExemptDevice(absolute, st, settings)) {
    // A directory holding a workspace root or safedel's own state goes to safedel trash,
    // which trashes the one and refuses the other (core/deletion.py); on Windows the
    // paths are not posix, and that is not told here.
    if (process.platform === 'win32' || !holdsARoot(absolute, settings, env)) return DELEGATE;
  }
  return outcome(viaCli(absolute, op, path));
}

function holdsARoot(absolute, settings, env) {
  const real = Buffer.from(workspace.real(absolute.toString('latin1')), 'latin1');
  return holdsWorkspace(real, settings, env) || keptRefusal(real, settings, env) !== null;
}

// Why an item that is or holds safedel's own trash or state in the temp dir stays.
function keptRefusal(real, settings, env) {
  // Kept roots lie only there.
  if (!policy.isExempt(real, exemptids.realRoots(settings))) return null;
  const path = real.toString('latin1');
  const root = kept.held(path, settings, env);
  return root === null ? null : kept.reason(path, root);
}

// A directory of the temp dir holding a workspace root is trashed whole, as part of
// the workspace: deleting it for real would take the project with it.
function holdsWorkspace(real, settings, env) {
  return workspace.holdsRoot(real.toString('latin1'), workspace.roots(env, settings));
}

// No mount ids there: the device tells a volume mounted into the temp dir apart (not a
// bind mount, which only Linux has in this form). No /proc either: the parent and its
// ancestors are read by path (exemptids.cjs: the root by its identity).
function onExemptDevice(absolute, st, settings) {
  const usable = exemptids.roots(settings);
  if (!exemptids.holdsByPath(require('path').dirname(absolute.toString()), usable)) return false;
  return !st.isDirectory() || usable.some((root) => root.id.startsWith(`${st.dev}:`));
}

function shownPath(path) {
  if (typeof path === 'string') return path;
  return Buffer.isBuffer(path) || path instanceof Uint8Array
    ? Buffer.from(path).toString()
    : url.fileURLToPath(path);
}

// Would Node remove something here? If not, its own call fails with its own error.
function wouldRemove(op, target, st, recursive) {
  const isDir = st.isDirectory();
  if (op === 'unlink' || (op === 'rm' && !recursive)) return !isDir;
  if (op === 'rmdir') {
    if (!isDir) return false;
    return recursive || readdirSync(target.path).length === 0;
  }
  return true;
}

// Deleted for real: inside an exempt root and in no workspace root nearer to it.
function isExempt(real, settings, env) {
  if (!policy.isExempt(real, exemptids.realRoots(settings))) return false;
  if (workspace.classify(real.toString('latin1'), settings, env) !== workspace.EXEMPT) return false;
  return !holdsWorkspace(real, settings, env);
}

// Exempt by its path, and no mount point of its own (mounts.cjs): a project
// bind-mounted into the temp dir is judged like any other path. Whether its parent is
// in the temp dir's very directory is asked where it is deleted, at the parent's
// descriptor (realdelete.cjs); `link/`, which Node's own rmSync follows, is asked here.
function isExemptTarget(target, settings, env) {
  if (!isExempt(target.path, settings, env)) return false;
  const usable = exemptids.roots(settings);
  if (target.viaLink) return exemptids.directoryHolds(target.path, usable);
  const isDir = target.st && target.st.isDirectory();
  return !isDir || mounts.notAMountPoint(target.path, target.st, usable);
}

// Guard, trash and report one target; return null or the error to raise.
function trashTarget(settings, env, target, syscall, path) {
  const absolute = target.path;
  const uncounted = {};
  const denied = refusal.authorize(settings, absolute, syscall, path, env, uncounted);
  if (denied) return denied;
  let record;
  try {
    record = trashModule.trash(target, settings.trashDir, env, settings.homeTrash);
  } catch (err) {
    const reason = err instanceof trashModule.TrashFailure ? err.reason : String(err.message);
    return refusal.failClosed(settings, absolute, err.code || 'EIO', reason, syscall, path);
  }
  const fields = {
    path: audit.fsdecode(absolute),
    trashPath: audit.fsdecode(record.trashPath),
    infoPath: audit.fsdecode(record.infoPath),
    kind: record.kind,
  };
  if (uncounted.why) Object.assign(fields, { counted: false, why: uncounted.why });
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
  let answer = null;
  try {
    answer = JSON.parse(result.stdout.trim().split('\n').pop());
  } catch {
    answer = null;
  }
  if (answer && answer.ok) return null;
  const reason =
    (answer && answer.error) ||
    (result.error && result.error.message) ||
    `safedel trash exited with ${result.status}`;
  const detail = `operation not permitted: safedel left it in place, ${reason}`;
  return refusal.makeError('EPERM', detail, syscall, path);
}

module.exports = { handle, DELEGATE, DONE };
