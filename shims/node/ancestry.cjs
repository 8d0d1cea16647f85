'use strict';
// The `safedel run` this process runs under, found from the process tree (as
// safedel/core/runrecord.py does): a command that unsets or forges SAFEDEL_RUN_ID, or
// moves SAFEDEL_STATE_DIR, still deletes under its run's session, turn and threshold.
// `safedel run` leaves <dir>/by-pid/<pid>-<start time> (/proc/<pid>/stat field 22, so
// a recycled pid never matches) under <state>/runs and under the user's runtime
// directory (else the default state dir).

const nativePath = require('path');
const { O_RDONLY } = require('fs').constants;
const { closeSync, lstatSync, readFileSync } = require('./originals.cjs');

const MAX_DEPTH = 64;

function procStat(pid) {
  try {
    const data = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // The command name (field 2) may hold spaces and ')': count after the last ')'.
    const rest = data.slice(data.lastIndexOf(')') + 2).split(' ');
    const ppid = Number(rest[1]);
    return Number.isInteger(ppid) && rest[19] ? { ppid, start: rest[19] } : null;
  } catch {
    return null;
  }
}

// The user's runtime directory, which no environment variable chooses, else the
// default state dir (as safedel/core/runrecord.py's second_dir).
function secondDir(defaultDir) {
  const runtime = `/run/user/${process.getuid()}`;
  try {
    if (lstatSync(runtime, { throwIfNoEntry: false })?.isDirectory()) {
      return nativePath.join(runtime, 'safedel');
    }
  } catch {
    // Node's permission model may deny the look (ERR_ACCESS_DENIED): not a place then
  }
  return defaultDir;
}

function places(stateDir, defaultDir) {
  const found = [
    [stateDir, ['runs', 'by-pid']],
    [secondDir(defaultDir), ['by-pid']],
  ];
  return found.filter(([root, parts]) => {
    try {
      return lstatSync(nativePath.join(root, ...parts), { throwIfNoEntry: false });
    } catch {
      return false; // a state dir that is a file: settings fail closed elsewhere
    }
  });
}

function readPointer(where, name) {
  const { openUnder } = require('./private.cjs');
  for (const [root, parts] of where) {
    let fd;
    try {
      fd = openUnder(root, [...parts, name], O_RDONLY, false);
    } catch {
      continue;
    }
    try {
      const record = JSON.parse(readFileSync(fd, 'latin1'));
      if (record && typeof record === 'object') return record;
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
const cache = new Map();

function enclosing(stateDir, defaultDir) {
  if (process.platform !== 'linux') return null;
  const key = `${stateDir}\0${defaultDir}`;
  if (!cache.has(key)) cache.set(key, search(stateDir, defaultDir));
  return cache.get(key);
}

function search(stateDir, defaultDir) {
  const where = places(stateDir, defaultDir);
  let pid = process.ppid;
  for (let depth = 0; where.length && depth < MAX_DEPTH && pid > 1; depth++) {
    const stat = procStat(pid);
    if (stat === null) return null;
    const record = readPointer(where, `${pid}-${stat.start}`);
    if (record !== null) return record;
    pid = stat.ppid;
  }
  return null;
}

module.exports = { enclosing };
