'use strict';
// Whether a target lies on the very mount of the exempt root above it, as in
// safedel/core/mounts.py. `mount --bind ~/proj /tmp/x` puts a project at a path that
// looks exempt; its files must not be deleted for real. So the target's parent must
// sit on the root's mount (Linux: the kernel's mount id, `mnt_id:` in
// /proc/self/fdinfo; elsewhere the device), and a directory must not be a mount point.
// Verdicts are kept per parent (path, dev, ino): a temp file costs one Map lookup, and
// a mount made later over that path changes its identity, so it is asked afresh.

const { openSync, closeSync, fstatSync, readFileSync, statSync } = require('./originals.cjs');
const { DIR_FLAGS } = require('./resolve.cjs');
const { O_NOFOLLOW = 0 } = require('fs').constants;

const LINUX = process.platform === 'linux';
const LIMIT = 4096;
const roots = new Map(); // exempt root (latin1) -> { dev, ino, mount }
const verdicts = new Map(); // `${parent}\0${dev},${ino}` -> boolean

// The kernel's id of the mount the descriptor fd lies on (Linux).
function mountId(fd) {
  const info = readFileSync(`/proc/self/fdinfo/${fd}`, 'latin1');
  const found = /(?:^|\n)mnt_id:\s*(\d+)/.exec(info);
  if (!found) throw Object.assign(new Error('no mnt_id in fdinfo'), { code: 'EINVAL' });
  return Number(found[1]);
}

// The mount id of the directory at path (a Buffer or string), or null when it is not
// there, is not the directory id [dev, ino] names, or cannot be told.
function mountOf(path, id, flags = 0) {
  let fd;
  try {
    fd = openSync(path, DIR_FLAGS | flags);
  } catch {
    return null;
  }
  try {
    if (id) {
      const st = fstatSync(fd);
      if (st.dev !== id[0] || st.ino !== id[1]) return null;
    }
    return mountId(fd);
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

function rootOf(root) {
  let found = roots.get(root);
  if (found === undefined) {
    if (root === null) return null;
    const path = Buffer.from(root, 'latin1');
    let st;
    try {
      st = statSync(path, { throwIfNoEntry: false });
    } catch {
      return null;
    }
    if (!st) return null;
    const mount = LINUX ? mountOf(path) : null;
    if (LINUX && mount === null) return null;
    found = { dev: st.dev, ino: st.ino, mount };
    roots.set(root, found);
  }
  return found;
}

function ask(parent, parentId, root) {
  const mine = rootOf(root);
  if (!mine || !parentId) return false; // nothing to compare: judged like any other path
  if (parentId[0] === mine.dev && parentId[1] === mine.ino) return true; // the root itself
  if (parentId[0] !== mine.dev) return false; // another file system is another mount
  if (!LINUX) return true;
  return mountOf(parent, parentId) === mine.mount;
}

// Whether parent (a real path, Buffer; parentId its [dev, ino]) lies on the mount of
// the exempt root (real, latin1) that holds it; findRoot() names that root, and is
// asked only when the parent is new.
function onRootMount(parent, parentId, findRoot) {
  const key = `${parent.toString('latin1')}\0${parentId}`;
  let known = verdicts.get(key);
  if (known === undefined) {
    if (verdicts.size > LIMIT) verdicts.clear();
    known = ask(parent, parentId, findRoot());
    verdicts.set(key, known);
  }
  return known;
}

// Whether the directory at path (real, Buffer; st its stat) is on its exempt root's
// mount: not a mount point of its own.
function dirOnRootMount(path, st, root) {
  const mine = rootOf(root);
  if (!mine || st.dev !== mine.dev) return false;
  if (!LINUX || st.ino === mine.ino) return true;
  return mountOf(path, [st.dev, st.ino], O_NOFOLLOW) === mine.mount;
}

// [dev, mount id] of the directory open as fd, which every directory a real delete
// enters must share (the mount id is null where fdinfo cannot be read).
function mountKey(fd) {
  const st = fstatSync(fd);
  let mount = null;
  if (LINUX) {
    try {
      mount = mountId(fd);
    } catch {
      mount = null;
    }
  }
  return `${st.dev}:${mount}`;
}

// Whether some mount point lies at or below the directory path (real, Buffer), as this
// process's mount table says: for a walk that is Node's own, which would cross it.
function mountBeneath(path) {
  if (!LINUX) return false;
  let table;
  try {
    table = readFileSync('/proc/self/mountinfo', 'latin1');
  } catch {
    return false;
  }
  const top = path.toString('latin1').replace(/\/+$/, '');
  for (const line of table.split('\n')) {
    const field = line.split(' ')[4];
    if (field === undefined) continue;
    // The kernel writes space, tab, newline and backslash as \ooo.
    const octal = (_, code) => String.fromCharCode(parseInt(code, 8));
    const point = field.replace(/\\([0-7]{3})/g, octal);
    if (point === top || point.startsWith(top + '/')) return true;
  }
  return false;
}

module.exports = { mountId, onRootMount, dirOnRootMount, mountKey, mountBeneath };
