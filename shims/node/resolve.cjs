'use strict';
// Where a deletion target really is, as the kernel resolves it (the rules of
// safedel/core/resolve.py). `a/link/../f` names f in the parent of wherever link points,
// not a/f; `link/` names the directory the link leads to, not the link. path.resolve
// gets both wrong, so the parent is opened the way the kernel opens it and the kernel is
// asked (/proc/self/fd) which directory that is. The protected check, the location
// class and the Path= of the trash info file all come from this. Buffers throughout.

const fs = require('fs');
const { openSync, closeSync, fstatSync, lstatSync } = require('./originals.cjs');
const { readlinkSync, realpathSync, statSync } = require('./originals.cjs');

const { O_RDONLY, O_DIRECTORY = 0, O_CLOEXEC = 0 } = fs.constants;
// O_PATH (Linux; Node does not export it): a directory one may search but not read
// (mode 0300) is still one rm deletes in, so resolving must not need read permission.
const O_PATH = process.platform === 'linux' ? 0o10000000 : 0;
const DIR_FLAGS = (O_PATH || O_RDONLY) | O_DIRECTORY | O_CLOEXEC;
const SLASH = 0x2f;
const ROOT = Buffer.from('/');
const DELETED = Buffer.from(' (deleted)');

function join(parent, name) {
  if (!name.length) return parent;
  if (parent[parent.length - 1] === SLASH) return Buffer.concat([parent, name]);
  return Buffer.concat([parent, ROOT, name]);
}

function dirname(path) {
  const cut = path.lastIndexOf(SLASH);
  return cut <= 0 ? ROOT : path.subarray(0, cut);
}

function basename(path) {
  return path.subarray(path.lastIndexOf(SLASH) + 1);
}

// { head, last, slash }: the directory part, the last component, a trailing slash.
function split(raw) {
  let end = raw.length;
  while (end > 0 && raw[end - 1] === SLASH) end -= 1;
  const slash = end !== raw.length;
  if (end === 0) return { head: ROOT, last: Buffer.alloc(0), slash };
  const cut = raw.lastIndexOf(SLASH, end - 1);
  const last = raw.subarray(cut + 1, end);
  if (cut < 0) return { head: Buffer.from('.'), last, slash };
  return { head: cut === 0 ? ROOT : raw.subarray(0, cut), last, slash };
}

// { real, id } of a directory as the kernel resolves it: its real absolute path and
// [dev, ino], so that a later user can tell whether it is still the same directory.
function realDirectory(directory) {
  const fd = openSync(directory, DIR_FLAGS);
  let st;
  let real = null;
  try {
    st = fstatSync(fd);
    real = fdPath(fd);
  } finally {
    closeSync(fd);
  }
  if (real === null) {
    // No /proc: realpath walks as the kernel does, each symlink before the `..` after it.
    real = realpathSync(directory, { encoding: 'buffer' });
    const check = lstatSync(real);
    if (check.dev !== st.dev || check.ino !== st.ino) {
      throw Object.assign(new Error('the directory moved while it was resolved'), {
        code: 'ESTALE',
      });
    }
  }
  return { real, id: [st.dev, st.ino] };
}

let procFd = process.platform === 'linux' ? null : false;

function fdPath(fd) {
  if (procFd === false) return null;
  let link;
  try {
    link = readlinkSync(`/proc/self/fd/${fd}`, { encoding: 'buffer' });
    procFd = true;
  } catch {
    if (procFd === null) procFd = false;
    return null;
  }
  // A removed directory reads "/x (deleted)"; one outside our root reads relative.
  const deleted = link.length > DELETED.length && link.subarray(-DELETED.length).equals(DELETED);
  return link[0] === SLASH && !deleted ? link : null;
}

// Parents found outside every exempt root (remember()), by spelling: { id, real }. A
// build deleting thousands of files in one folder then pays two stats for it instead
// of open, fstat, readlink and close. A stale entry can only name a place outside the
// exempt roots, so it errs towards the trash, never towards a real delete.
const known = new Map();

function knownDirectory(head) {
  const entry = known.get(head.toString('latin1'));
  if (entry === undefined) return null;
  const now = statSync(head, { throwIfNoEntry: false });
  const there = now && lstatSync(entry.real, { throwIfNoEntry: false });
  const same = (st) => st && st.dev === entry.id[0] && st.ino === entry.id[1];
  return same(now) && same(there) && there.isDirectory() ? entry : null;
}

function remember(target) {
  if (!target.head || !target.parentId) return;
  if (known.size > 4096) known.clear();
  known.set(target.head.toString('latin1'), { id: target.parentId, real: target.parent });
}

// One target: { parent, name, path, st, slash, viaLink, dots, parentId }. path is
// where the entry really is (parent/name), or, for `link/`, the directory link leads
// to (viaLink; the link itself stays). st is lstat of parent/name; `seen` is the
// caller's lstat of raw, which is the same unless raw ends in a slash. Throws as the
// kernel would for an unreachable parent.
function resolve(raw, seen) {
  const { head, last, slash } = split(raw);
  const dots = last.length === 1 ? last[0] === 0x2e : last.equals(Buffer.from('..'));
  if (dots || !last.length) {
    const { real, id } = dots ? realDirectory(raw) : { real: ROOT, id: null };
    const st = lstatSync(real);
    return target(dirname(real), basename(real), st, slash, id, dots);
  }
  const { real, id } = knownDirectory(head) || realDirectory(head);
  const own = seen && !slash ? seen : lstatSync(join(real, last), { throwIfNoEntry: false });
  const found = target(real, last, own, slash, id);
  found.head = head;
  if (slash && found.st && found.st.isSymbolicLink()) {
    try {
      found.path = realDirectory(found.path).real;
      found.viaLink = true;
    } catch {
      // A dangling link or one to a non-directory: the syscall itself fails on `link/`.
    }
  }
  return found;
}

function target(parent, name, st, slash, parentId, dots = false) {
  const path = join(parent, name);
  return { parent, name, path, st, slash, viaLink: false, dots, parentId, head: null };
}

module.exports = { resolve, remember, realDirectory, split, join, dirname, basename, DIR_FLAGS };
