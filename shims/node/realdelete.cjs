'use strict';
// Real deletes of exempt items (the temp directory), without following anything. Node
// has no unlinkat(), but /proc/self/fd/N/name is the same thing: the kernel starts from
// the directory open as descriptor N, whatever has since been renamed or swapped on
// the path to it. So the walk holds a descriptor for every directory it empties, opens
// each subdirectory with O_NOFOLLOW, and unlinks entries by name in it: a subdirectory
// that somebody swaps for a symlink to your data is unlinked as a link, never followed.
// Nor does it cross into another mount (a project bind-mounted below a temp directory):
// that directory stays, and the error says where (EXDEV, err.mountPoint).

const fs = require('fs');
const { openSync, closeSync, fstatSync, lstatSync, readdirSync } = require('./originals.cjs');
const { unlinkSync, rmdirSync, readlinkSync } = require('./originals.cjs');
const { mountKey } = require('./mounts.cjs');
const { holdsAt } = require('./exemptids.cjs');

const { DIR_FLAGS } = require('./resolve.cjs');

const { O_RDONLY, O_DIRECTORY = 0, O_NOFOLLOW = 0, O_CLOEXEC = 0 } = fs.constants;
// Directories the walk empties are read, as rm reads them.
const SUBDIR_FLAGS = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
let available = null;

// Is /proc there to name descriptors by? Without it the caller hands the call to Node.
function supported() {
  if (available === null) {
    try {
      available =
        process.platform === 'linux' &&
        lstatSync('/proc/self/fd', { throwIfNoEntry: false }) !== undefined;
    } catch {
      available = false; // Node's permission model may deny the look (ERR_ACCESS_DENIED)
    }
  }
  return available;
}

function at(fd, name) {
  return Buffer.concat([Buffer.from(`/proc/self/fd/${fd}/`), name]);
}

// An error from a call on the /proc name `proc` names `shown`, as Node's own would.
function asCallers(err, proc, shown) {
  const raw = proc.toString();
  if (err && typeof err === 'object' && err.path === raw) {
    err.message = err.message.split(raw).join(shown);
    err.path = shown;
  }
  return err;
}

function call(fn, proc, shown, tolerate) {
  try {
    return fn(proc);
  } catch (err) {
    if (err.code === tolerate) return undefined;
    throw asCallers(err, proc, shown);
  }
}

const listing = (dir) => readdirSync(dir, { encoding: 'buffer' });
const lstatIfAny = (path) => lstatSync(path, { throwIfNoEntry: false });

// Empty the directory open as fd (shown as `shown`).
function emptyDirectory(fd, shown, top) {
  for (const name of call(listing, at(fd, Buffer.alloc(0)), shown)) {
    const entry = at(fd, name);
    const inner = `${shown}/${name.toString()}`;
    const st = lstatIfAny(entry);
    if (!st) continue; // removed meanwhile by someone else
    if (st.isDirectory()) removeDirectory(fd, name, inner, top);
    else call(unlinkSync, entry, inner, 'ENOENT');
  }
}

// Empty and remove the directory `name` inside the directory open as parentFd; top is
// the mount (mounts.mountKey) of the directory the walk started in, if it has begun.
function removeDirectory(parentFd, name, shown, top) {
  const entry = at(parentFd, name);
  let fd;
  try {
    fd = openSync(entry, SUBDIR_FLAGS);
  } catch (err) {
    // Swapped for a symlink or a file since lstat: remove that, as it is, here.
    if (err.code === 'ELOOP' || err.code === 'ENOTDIR') call(unlinkSync, entry, shown, 'ENOENT');
    else if (err.code !== 'ENOENT') throw asCallers(err, entry, shown);
    return;
  }
  try {
    const here = mountKey(fd);
    if (top !== undefined && here !== top) throw anotherMount(fd, shown);
    emptyDirectory(fd, shown, here);
  } finally {
    closeSync(fd);
  }
  call(rmdirSync, entry, shown, 'ENOENT');
}

function anotherMount(fd, shown) {
  const err = new Error(`EXDEV: another mount, left in place, rm '${shown}'`);
  let point = Buffer.from(shown);
  try {
    point = readlinkSync(`/proc/self/fd/${fd}`, { encoding: 'buffer' });
  } catch {
    // The caller's spelling names it well enough.
  }
  return Object.assign(err, { code: 'EXDEV', syscall: 'rm', path: shown, mountPoint: point });
}

// What remove() returns when the parent is not in the temp dir's very directory: the
// caller judges the target like any other.
const NOT_EXEMPT = Symbol('not exempt');
// As usable: the target was judged churn (churn.cjs), which no exempt root need hold.
const ANYWHERE = Symbol('anywhere');

// Delete target (from resolve.cjs) for real, as `op` with `recursive` does in Node,
// relative to its parent directory, which must still be the one resolved, and lie in
// one of the exempt roots usable (exemptids.cjs), as read from its very descriptor.
// Returns null, NOT_EXEMPT or the error to throw; shown is the caller's spelling.
function remove(op, target, recursive, shown, usable) {
  const parentFd = openSync(target.parent, DIR_FLAGS);
  try {
    const st = fstatSync(parentFd);
    if (st.dev !== target.parentId[0] || st.ino !== target.parentId[1]) {
      const err = new Error(`ESTALE: the directory changed while it was checked, ${op} '${shown}'`);
      return Object.assign(err, { code: 'ESTALE', syscall: op, path: shown });
    }
    const place = target.parent.toString('latin1');
    if (usable !== ANYWHERE && !holdsAt(parentFd, place, usable)) return NOT_EXEMPT;
    const entry = at(parentFd, target.name);
    if (op === 'rmdir' && !recursive) call(rmdirSync, entry, shown);
    else if (target.st.isDirectory()) removeDirectory(parentFd, target.name, shown);
    else call(unlinkSync, entry, shown);
    return null;
  } catch (err) {
    return err;
  } finally {
    closeSync(parentFd);
  }
}

module.exports = { supported, remove, NOT_EXEMPT, ANYWHERE };
