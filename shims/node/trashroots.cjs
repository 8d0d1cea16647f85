'use strict';
// Where an item goes on Linux, and whether that trash can be trusted: the home trash,
// or $topdir/.Trash/$uid under a root-owned sticky .Trash, or $topdir/.Trash-$uid, or
// SAFEDEL_TRASH_DIR (the rules of safedel/core/trash/dirs.py). A root is checked before
// every item, so a process that trashed once never follows one swapped since.

const pathPosix = require('path').posix;
const { lstatSync, mkdirSync, openSync, closeSync, fstatSync } = require('./originals.cjs');

const S_ISVTX = 0o1000;
const { O_RDONLY, O_DIRECTORY = 0, O_NOFOLLOW = 0, O_CLOEXEC = 0 } = require('fs').constants;
const DIR_FLAGS = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;

class TrashFailure extends Error {
  constructor(code, reason) {
    super(reason);
    this.code = code;
    this.reason = reason;
  }
}

const latin1 = (buf) => buf.toString('latin1');
const bytes = (str) => Buffer.from(str, 'latin1');
const join = (...parts) => bytes(pathPosix.join(...parts.map(latin1)));
const dirname = (buf) => bytes(pathPosix.dirname(latin1(buf)));
const basename = (buf) => bytes(pathPosix.basename(latin1(buf)));
const show = (buf) => buf.toString('utf8');

function homeTrash(env) {
  const dataHome = env.XDG_DATA_HOME || pathPosix.join(require('os').homedir(), '.local', 'share');
  return join(Buffer.from(dataHome), Buffer.from('Trash'));
}

const mine = () => process.getuid();

// A trash root we may put things in: a real directory (never a symlink), owned by us
// when it must be (topdir trashes, SAFEDEL_TRASH_DIR), writable by nobody else.
function checkRoot(root, st, owned) {
  if (st.isSymbolicLink() || !st.isDirectory()) {
    throw new TrashFailure('ENOTDIR', `${show(root)} is a symlink or not a directory`);
  }
  if (owned && st.uid !== mine()) {
    throw new TrashFailure('EPERM', `${show(root)} belongs to another user`);
  }
  if (owned && st.mode & 0o022) {
    throw new TrashFailure('EPERM', `${show(root)} is writable by other users`);
  }
}

// Roots whose files/ and info/ were checked, with the root's identity then. Only the
// root's owner can change what is inside it, so while lstat shows the same root they
// need no second look; the root itself is checked before every item.
const checkedInside = new Map();

// Create root/files and root/info (0700) as needed and check the root every time: a
// process that trashed once must not follow a root swapped for a symlink since.
function ensureTrashRoot(root, owned) {
  let st = lstatSync(root, { throwIfNoEntry: false });
  if (!st) {
    mkdirSync(root, { recursive: true, mode: 0o700 });
    st = lstatSync(root);
  }
  checkRoot(root, st, owned);
  const identity = `${st.dev}:${st.ino}`;
  if (checkedInside.get(latin1(root)) === identity) return st.dev;
  for (const sub of ['files', 'info']) {
    const path = join(root, Buffer.from(sub));
    let sst = lstatSync(path, { throwIfNoEntry: false });
    if (!sst) {
      try {
        mkdirSync(path, 0o700);
      } catch (err) {
        if (err.code !== 'EEXIST') throw err;
      }
      sst = lstatSync(path);
    }
    if (sst.isSymbolicLink() || !sst.isDirectory() || sst.uid !== st.uid) {
      throw new TrashFailure('ENOTDIR', `${show(path)} is not a directory of the trash's owner`);
    }
  }
  checkedInside.set(latin1(root), identity);
  return st.dev;
}

// The highest ancestor of directory (a real path) that is still on dev.
function mountTopdir(directory, dev) {
  let current = directory;
  for (;;) {
    const parent = dirname(current);
    if (parent.equals(current)) return current;
    const st = lstatSync(parent, { throwIfNoEntry: false });
    if (!st || st.dev !== dev) return current;
    current = parent;
  }
}

// $topdir/.Trash/$uid when .Trash is a sticky real directory, else $topdir/.Trash-$uid.
function topdirTrash(topdir) {
  const uid = String(process.getuid());
  const errors = [];
  const shared = join(topdir, Buffer.from('.Trash'));
  const st = lstatSync(shared, { throwIfNoEntry: false });
  // Only a root-owned sticky .Trash: anybody else who owns it can swap our $uid in it.
  if (st && st.isDirectory() && st.mode & S_ISVTX && st.uid === 0) {
    const root = join(shared, Buffer.from(uid));
    try {
      ensureTrashRoot(root, true);
      return root;
    } catch (err) {
      errors.push(`${show(root)}: ${err.reason || err.message}`);
    }
  }
  const root = join(topdir, Buffer.from('.Trash-' + uid));
  try {
    ensureTrashRoot(root, true);
    return root;
  } catch (err) {
    errors.push(`${show(root)}: ${err.reason || err.message}`);
  }
  throw new TrashFailure(
    'EXDEV',
    `no usable trash on device of ${show(topdir)} (${errors.join('; ')})`
  );
}

// { root, topdir } for an item at absolute (Buffer) on device dev; topdir null = absolute
// Path=. fixedHome: the home trash a run fixed in its record (a string), else env's.
function locate(absolute, dev, trashDir, env, fixedHome) {
  if (trashDir) {
    const root = Buffer.from(trashDir);
    if (ensureTrashRoot(root, true) !== dev) {
      throw new TrashFailure(
        'EXDEV',
        `${show(absolute)} is on another device than the trash directory ` +
          `${show(root)}, and safedel never copies`
      );
    }
    return { root, topdir: null, owned: true };
  }
  const home = fixedHome ? Buffer.from(fixedHome) : homeTrash(env);
  let homeDev = null;
  try {
    homeDev = ensureTrashRoot(home, false);
  } catch {
    homeDev = null;
  }
  if (homeDev === dev) return { root: home, topdir: null, owned: false };
  const topdir = mountTopdir(dirname(absolute), dev);
  return { root: topdirTrash(topdir), topdir, owned: true };
}

// Forget that root's folders were checked (they went missing); true if they had been.
function forget(root) {
  drop(latin1(root));
  return checkedInside.delete(latin1(root));
}

// Descriptors on each root's files/ and info/, items going in as /proc/self/fd/N/name
// (Node has no openat): the kernel starts from the folder we checked, so a root
// swapped for a symlink between the check and the move cannot redirect an item. The
// program owns the descriptor table, so a held one is trusted (and closed) only while
// fstat still shows the folder it was opened on. Without /proc: the checked paths.
const held = new Map(); // latin1(root) -> { ident, fds: [[fd, ident], [fd, ident]] }
let procFd = null;
const identOf = (st) => `${st.dev}:${st.ino}`;

function isStill([fd, ident]) {
  try {
    const st = fstatSync(fd);
    return identOf(st) === ident && st.nlink > 0;
  } catch {
    return false;
  }
}

function drop(key) {
  const entry = held.get(key);
  held.delete(key);
  for (const pair of entry ? entry.fds : []) if (isStill(pair)) closeSync(pair[0]);
}

function openFolders(root, owned) {
  const rootFd = openSync(root, DIR_FLAGS); // a symlink fails here (O_NOFOLLOW)
  const fds = [];
  try {
    const st = fstatSync(rootFd);
    checkRoot(root, st, owned);
    for (const sub of ['files', 'info']) {
      const fd = openSync(`/proc/self/fd/${rootFd}/${sub}`, DIR_FLAGS);
      const sst = fstatSync(fd);
      fds.push([fd, identOf(sst)]);
      if (!sst.isDirectory() || sst.uid !== st.uid || (owned && sst.mode & 0o022)) {
        throw new TrashFailure('EPERM', `${show(root)}/${sub} is not a folder of its owner`);
      }
    }
    return { ident: identOf(st), fds };
  } catch (err) {
    for (const [fd] of fds) closeSync(fd);
    throw err;
  } finally {
    closeSync(rootFd);
  }
}

// Can descriptors be named by path here? Not without /proc, nor where the permission
// model keeps /proc out of reach.
function procNames() {
  try {
    return lstatSync('/proc/self/fd', { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}

// The permission model can let us read /proc yet not write through it: then use the
// checked paths from now on. True if that changed anything.
function withoutProcNames() {
  if (!procFd) return false;
  procFd = false;
  for (const key of [...held.keys()]) drop(key);
  return true;
}

// { files, info }: where items and info files go into root, just checked by locate().
function folders(root, owned) {
  if (procFd === null) procFd = procNames();
  if (!procFd) return { files: join(root, Buffer.from('files')), info: join(root, Buffer.from('info')) };
  const key = latin1(root);
  const now = lstatSync(root, { throwIfNoEntry: false });
  let entry = held.get(key);
  if (!entry || !now || identOf(now) !== entry.ident || !entry.fds.every(isStill)) {
    drop(key);
    entry = openFolders(root, owned);
    held.set(key, entry);
  }
  const [files, info] = entry.fds.map(([fd]) => Buffer.from(`/proc/self/fd/${fd}`));
  return { files, info };
}

module.exports = {
  TrashFailure,
  latin1,
  bytes,
  join,
  dirname,
  basename,
  show,
  homeTrash,
  mountTopdir,
  ensureTrashRoot,
  locate,
  forget,
  folders,
  withoutProcNames,
};
