'use strict';
// The `safedel run` this process runs under, found from the process tree (as
// safedel/core/contract/runpointer.py does): a command that unsets or forges SAFEDEL_RUN_ID, or
// moves SAFEDEL_STATE_DIR, HOME or XDG_STATE_HOME, still deletes under its run's
// session, turn, threshold, state dir and report. `safedel run` leaves
// by-pid/<pid>-<start time> (/proc/<pid>/stat field 22, so a recycled pid never
// matches) in places no environment variable chooses, read in this order, the next
// only when those before miss: /run/user/<uid>/safedel when that runtime directory is
// ours and 0700, /tmp/safedel-<uid>, and ~/.local/state/safedel with ~ from the
// password database.

const nativePath = require('path');
const { O_NOFOLLOW = 0, O_RDONLY } = require('fs').constants;
const { closeSync, lstatSync, openSync, readFileSync } = require('./originals.cjs');

const MAX_DEPTH = 64;

function procStat(pid) {
  try {
    const data = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // The command name (field 2) may hold spaces and ')': count after the last ')'.
    const rest = data.slice(data.lastIndexOf(')') + 2).split(' ');
    const ppid = Number(rest[1]);
    const sid = Number(rest[3]);
    return Number.isInteger(ppid) && rest[19] ? { ppid, sid, start: rest[19] } : null;
  } catch {
    return null;
  }
}

// [root, parts] of each place, best first; lazily, since the last asks the password
// database (os.userInfo, not os.homedir, which reads HOME).
function* places() {
  const uid = process.getuid();
  const runtime = `/run/user/${uid}`;
  try {
    const st = lstatSync(runtime, { throwIfNoEntry: false });
    if (st && st.isDirectory() && st.uid === uid && (st.mode & 0o777) === 0o700) {
      yield [runtime, ['safedel', 'by-pid']];
    }
  } catch {
    // Node's permission model may deny the look (ERR_ACCESS_DENIED): not a place then
  }
  yield ['/tmp', [`safedel-${uid}`, 'by-pid']];
  let home = null;
  try {
    home = require('os').userInfo().homedir;
  } catch {
    return; // no passwd entry for this uid: the places before are all there is
  }
  if (nativePath.isAbsolute(home)) yield [home, ['.local', 'state', 'safedel', 'by-pid']];
}

// The place's pointer folder, or null when it is missing or a directory below its root
// is not ours, is a symlink, or another user could write to it.
function openPlace([root, parts]) {
  const uid = process.getuid();
  let dir = root;
  try {
    for (let i = 0; i < parts.length; i++) {
      dir = nativePath.join(dir, parts[i]);
      const st = lstatSync(dir, { throwIfNoEntry: false });
      const unsafe = i === parts.length - 1 ? 0o022 : 0o002;
      if (!st || !st.isDirectory() || st.uid !== uid || st.mode & unsafe) return null;
    }
  } catch {
    return null;
  }
  return dir;
}

function readPointer(dirs, name) {
  for (const dir of dirs) {
    let fd;
    try {
      fd = openSync(nativePath.join(dir, name), O_RDONLY | O_NOFOLLOW);
    } catch {
      continue;
    }
    try {
      const data = readFileSync(fd, 'latin1');
      const record = JSON.parse(data);
      if (record && typeof record === 'object') {
        return { name, path: nativePath.join(dir, name), data, record };
      }
    } catch {
      // a damaged pointer binds nothing
    } finally {
      closeSync(fd);
    }
  }
  return null;
}

// Ancestors only ever die (an orphan's new parent was already an ancestor), and a run's
// pointer exists before its descendants do: what is found holds for the process.
let found;

function enclosing() {
  if (process.platform !== 'linux') return null;
  if (found === undefined) {
    const first = pointers().next();
    found = first.done ? null : first.value.record;
  }
  return found;
}

// Opens the next place of pending that exists onto dirs; false when none is left.
function openNext(pending, dirs) {
  for (let next = pending.next(); !next.done; next = pending.next()) {
    const dir = openPlace(next.value);
    if (dir !== null) {
      dirs.push(dir);
      return true;
    }
  }
  return false;
}

function lookup(pending, dirs, name) {
  let record = readPointer(dirs, name);
  while (record === null && openNext(pending, dirs)) record = readPointer(dirs.slice(-1), name);
  return record;
}

// Each run pointer at or above this process, nearest first: { name, path, data, record }
// (a run inside a run has one of its own below its enclosing run's).
function* pointers() {
  if (process.platform !== 'linux') return;
  const pending = places();
  const dirs = [];
  openNext(pending, dirs);
  if (!dirs.length) return;
  // From the process itself: the root of a run `safedel serve` started carries its
  // run's pointer, written before its exec (safedel/serve/pointers.py).
  let pid = process.pid;
  let sid = null;
  const seen = new Set();
  for (let depth = 0; depth < MAX_DEPTH && pid > 1; depth++) {
    const stat = procStat(pid);
    if (stat === null) break;
    if (sid === null) sid = stat.sid;
    const hit = lookup(pending, dirs, `${pid}-${stat.start}`);
    if (hit !== null) yield hit;
    seen.add(pid);
    pid = stat.ppid;
  }
  // An orphan's new parent need not be its run (where a served run's root cannot
  // adopt it, the server does). A served run's root leads the session it made, and
  // every process in that session descends from it (runpointer.py says the same).
  if (!(sid > 1) || seen.has(sid)) return;
  const leader = procStat(sid);
  const hit = leader === null ? null : lookup(pending, dirs, `${sid}-${leader.start}`);
  if (hit !== null) yield hit;
}

module.exports = { enclosing, pointers, places };
