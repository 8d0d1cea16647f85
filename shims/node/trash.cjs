'use strict';
// The freedesktop trash on Linux, in-process: the same rules as safedel/core/trash/move.py and
// trashdirs.py. Paths are Buffers throughout, so a non-UTF-8 name is never decoded; path
// arithmetic runs on latin1 strings, which map bytes one to one. A file that arrives with
// other hard links gets an inode of its own in the trash (hardlinks.cjs).

const fs = require('fs');
const pathPosix = require('path').posix;
const { INFO_SUFFIX, entryName, collisionToken, deletionDate, render } = require('./trashinfo.cjs');

const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW = 0, O_CLOEXEC = 0 } = fs.constants;
const INFO_FLAGS = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;

const { lstatSync, openSync, writeSync, closeSync } = require('./originals.cjs');
const { fchmodSync, fstatSync, readdirSync } = require('./originals.cjs');
const { renameSync, unlinkSync } = require('./originals.cjs');

const roots = require('./trashroots.cjs');
const { makeOwn, unreadable } = require('./hardlinks.cjs');

const { TrashFailure, latin1, bytes, join, dirname, basename, show } = roots;

function lexists(buf) {
  return lstatSync(buf, { throwIfNoEntry: false }) !== undefined;
}

function quietly(action) {
  try {
    action();
  } catch {
    // The info file is already gone; nothing is left behind.
  }
}

function kindOf(st) {
  if (st.isSymbolicLink()) return 'symlink';
  return st.isDirectory() ? 'dir' : 'file';
}

function failure(err, what) {
  return new TrashFailure(err.code || 'EIO', `${what}: ${describe(err)}`);
}

// A trash that vanished while being prepared (swapped away by someone) gives ENOENT,
// which would tell the caller the item itself is gone: `force` and catch-ENOENT code
// would then say nothing while the item is still in place.
function notMissing(err) {
  // EEXIST: a trash root made meanwhile by someone else, not the item's own error.
  if (err.code === 'ENOENT' || err.code === 'ENOTDIR' || err.code === 'EEXIST') err.code = 'EIO';
  return err;
}

function describe(err) {
  // "ENOENT: no such file or directory, open '...'" -> "no such file or directory"
  const match = /^[A-Z0-9]+: ([^,]+)/.exec(err.message || '');
  return match ? match[1] : String(err.message || err);
}

// Trash target (from resolve.cjs: its real parent plus its name, st its lstat).
// home: the home trash a run fixed (else env's). Returns the report fields or throws a
// TrashFailure.
function trash(target, trashDir, env, home) {
  const absolute = target.path;
  const st = target.st;
  if (st.isDirectory()) {
    const parentSt = lstatSync(dirname(absolute), { throwIfNoEntry: false });
    if (parentSt && parentSt.dev !== st.dev) {
      throw new TrashFailure(
        'EBUSY',
        `${show(absolute)} is a mount point and cannot be moved to a trash`
      );
    }
  }
  if (unreadable(st)) {
    const why = 'a file with other hard links that cannot be read cannot be copied to the trash';
    throw new TrashFailure('EACCES', why);
  }
  let location;
  let into;
  try {
    location = roots.locate(absolute, st.dev, trashDir, env, home);
    into = roots.folders(location.root, location.owned);
  } catch (err) {
    if (err instanceof TrashFailure) throw err;
    throw notMissing(failure(err, 'cannot prepare the trash'));
  }
  // Path= is relative to the topdir, which was found from the same real path.
  const field = location.topdir
    ? bytes(pathPosix.relative(latin1(location.topdir), latin1(absolute)))
    : absolute;
  const content = render(field, deletionDate());
  const filesDir = join(location.root, Buffer.from('files'));
  const infoDir = join(location.root, Buffer.from('info'));
  const base = basename(absolute);
  // The name itself first; a name taken gets a fresh random token each time (O(1)
  // whatever came before, see trashinfo.cjs); a retry of the same name keeps its token.
  let token;
  for (;;) {
    const name = entryName(base, token);
    const infoName = Buffer.concat([name, Buffer.from(INFO_SUFFIX)]);
    const infoPath = join(infoDir, infoName);
    const entry = join(filesDir, name);
    // The same two places, reached through the folders' descriptors (or their paths).
    const heldInfo = join(into.info, infoName);
    const heldEntry = join(into.files, name);
    let fd;
    try {
      fd = openSync(heldInfo, INFO_FLAGS, 0o600);
    } catch (err) {
      if (err.code === 'EEXIST') {
        token = collisionToken();
        continue;
      }
      if (err.code === 'ERR_ACCESS_DENIED' && roots.withoutProcNames()) {
        into = roots.folders(location.root, location.owned);
        continue;
      }
      if (err.code === 'ENOENT' && roots.forget(location.root)) {
        // Somebody emptied the trash by removing its folders: make them again.
        roots.ensureTrashRoot(location.root, location.owned);
        into = roots.folders(location.root, location.owned);
        continue;
      }
      throw notMissing(failure(err, 'cannot create the trash info file'));
    }
    if (lexists(heldEntry)) {
      closeSync(fd);
      unlinkSync(heldInfo);
      token = collisionToken();
      continue;
    }
    try {
      try {
        if (writeSync(fd, content) !== content.length) {
          // Only a full disk cuts a write this small short.
          throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
        }
      } finally {
        closeSync(fd);
      }
      moveLending(absolute, heldEntry, st);
    } catch (err) {
      quietly(() => unlinkSync(heldInfo));
      throw failure(err, 'cannot move it into the trash');
    }
    try {
      makeOwn(heldEntry, absolute);
    } catch (err) {
      quietly(() => unlinkSync(heldInfo)); // back in place, under its own name
      throw failure(err, 'cannot copy a file with other hard links to the trash');
    }
    return { trashPath: entry, infoPath, kind: kindOf(st) };
  }
}

const DIR_FLAGS = fs.constants.O_RDONLY | fs.constants.O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;

// Moving a directory to another parent rewrites its '..', so the kernel wants u+w on
// it, where rmdir needs only the parent's: its owner lends itself u+wx for the rename
// and gives the mode back inside the trash (or in place on failure). Node has no
// O_PATH, so the loan goes through a descriptor opened for reading, checked to be the
// directory judged: one its owner may not read (mode 0) gets none and fails closed.
// One with entries gets none either: Node could not have emptied it to remove it.
function moveLending(from, to, st) {
  const euid = process.geteuid ? process.geteuid() : 0;
  const mode = st.mode & 0o7777;
  if (!st.isDirectory() || euid === 0 || st.uid !== euid || (mode & 0o300) === 0o300) {
    renameSync(from, to);
    return;
  }
  let fd;
  try {
    fd = openSync(from, DIR_FLAGS);
  } catch {
    renameSync(from, to); // no loan: the kernel's own answer stands
    return;
  }
  try {
    const now = fstatSync(fd);
    if (now.dev !== st.dev || now.ino !== st.ino) {
      throw Object.assign(new Error('ESTALE: stale file handle'), { code: 'ESTALE' });
    }
    if (readdirSync(`/proc/self/fd/${fd}`).length > 0) {
      renameSync(from, to);
      return;
    }
    fchmodSync(fd, mode | 0o300);
    try {
      renameSync(from, to);
    } finally {
      giveBack(fd, mode);
    }
  } finally {
    closeSync(fd);
  }
}

// On the directory, wherever it now is. Its owner's fchmod does not fail short of an I/O
// error, and a throw here would call a directory already in the trash not moved.
function giveBack(fd, mode) {
  try {
    fchmodSync(fd, mode);
  } catch {
    // The directory keeps u+wx; it is still safe, in the trash or in place.
  }
}

module.exports = { TrashFailure, trash, kindOf };
