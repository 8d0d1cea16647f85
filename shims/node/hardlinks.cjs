'use strict';
// A file in the trash never shares its inode with a live path (the rules of
// safedel/core/trash/hardlinks.py). A regular file that arrives in files/ with other hard
// links is copied there (content, mode, times, its owner when run as root) and the copy
// takes its name by rename, so a write through another link (`: > /tmp/h`) cannot
// change what the trash holds. The link count is read after the move: a link made
// meanwhile is seen, and one attempted after finds no name to link to. A file with other
// links that this user may not read is refused before it moves. When a copy fails all the
// same (a full disk), the file goes back to its name and the trashing fails; should even
// that fail, it stays in the trash, sharing its inode, rather than be lost.

const fs = require('fs');
const { randomBytes } = require('crypto');
const { lstatSync, fstatSync, openSync, closeSync, readSync, writeSync } = require('./originals.cjs');
const { fchmodSync, fchownSync, ftruncateSync, futimesSync } = require('./originals.cjs');
const { linkSync, renameSync, unlinkSync } = require('./originals.cjs');
const { join } = require('./trashroots.cjs');

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW = 0, O_CLOEXEC = 0 } = fs.constants;
const OPEN = O_RDONLY | O_NOFOLLOW | O_CLOEXEC;
const CREATE = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
const CHUNK = 1 << 20;

// entry: the item's path in files/ (through the folder's descriptor or its path), from:
// where it was. Throws once the item is back at from, when no copy could be made.
function makeOwn(entry, from) {
  const st = lstatSync(entry, { throwIfNoEntry: false });
  if (!st || !st.isFile() || st.nlink < 2) return;
  const files = entry.subarray(0, entry.lastIndexOf(0x2f));
  try {
    replaceWithCopy(entry, files);
  } catch (err) {
    if (putBack(entry, from)) throw err;
  }
}

function replaceWithCopy(entry, files) {
  const source = openSync(entry, OPEN);
  try {
    const st = fstatSync(source, { bigint: true });
    if (!st.isFile() || st.nlink < 2n) return;
    const [part, copy] = createPart(files);
    try {
      try {
        copyBytes(source, copy);
        if (process.geteuid && process.geteuid() === 0) {
          fchownSync(copy, Number(st.uid), Number(st.gid));
        }
        fchmodSync(copy, Number(st.mode & 0o7777n));
        futimesSync(copy, seconds(st.atimeNs), seconds(st.mtimeNs));
      } catch (err) {
        // Emptied first: under the net, an unlink in the trash is judged like any other
        // and may be refused, leaving an empty file, not a copy.
        quietly(() => ftruncateSync(copy, 0));
        throw err;
      } finally {
        closeSync(copy);
      }
      renameSync(part, entry);
    } catch (err) {
      quietly(() => unlinkSync(part));
      throw err;
    }
  } finally {
    closeSync(source);
  }
}

function seconds(ns) {
  return Number(ns / 1000n) / 1e6;
}

function createPart(files) {
  for (;;) {
    const part = join(files, Buffer.from(`.safedel-copy-${randomBytes(6).toString('hex')}`));
    try {
      return [part, openSync(part, CREATE, 0o600)];
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
    }
  }
}

function copyBytes(source, copy) {
  const buffer = Buffer.allocUnsafe(CHUNK);
  for (;;) {
    const count = readSync(source, buffer, 0, CHUNK, null);
    if (count === 0) return;
    let written = 0;
    while (written < count) written += writeSync(copy, buffer, written, count - written);
  }
}

// Whether st is a file with other links that this user may not read, so that no copy of
// it could be made: it is refused before anything moves (by the mode bits, as in
// hardlinks.py: a read only an ACL grants is refused too).
function unreadable(st) {
  const euid = process.geteuid ? process.geteuid() : 0;
  if (!st.isFile() || st.nlink < 2 || euid === 0) return false;
  let bits = st.mode;
  if (st.uid === euid) bits = st.mode >> 6;
  else if (st.gid === process.getegid() || process.getgroups().includes(st.gid)) {
    bits = st.mode >> 3;
  }
  return (bits & 0o4) === 0;
}

// Whether the item is back at from, under its old name and inode: link(2) never replaces
// what took the name meanwhile. (Node has no renameat2; under the net the unlink in the
// trash after it is judged, and may leave the trash a second link: nothing is lost.)
function putBack(entry, from) {
  try {
    linkSync(entry, from);
  } catch {
    return false;
  }
  quietly(() => unlinkSync(entry));
  return true;
}

function quietly(action) {
  try {
    action();
  } catch {
    // Left behind in the trash's own folder, where it harms nothing.
  }
}

module.exports = { makeOwn, unreadable };
