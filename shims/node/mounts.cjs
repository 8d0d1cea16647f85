'use strict';
// Which mount a directory lies on, as in safedel/core/mounts.py. `mount --bind ~/proj
// /tmp/x` puts a project at a path that looks exempt; its files must not be deleted for
// real. So a target's parent must sit on its exempt root's mount (Linux: the kernel's
// mount id, `mnt_id:` in /proc/self/fdinfo; elsewhere the device), and a directory must
// not be a mount point (exemptids.cjs applies this).

const { openSync, closeSync, fstatSync, readFileSync } = require('./originals.cjs');
const { DIR_FLAGS } = require('./resolve.cjs');
const { O_NOFOLLOW = 0 } = require('fs').constants;

const LINUX = process.platform === 'linux';
const roots = new Map(); // `${real root}\0${identity}` -> its mount id

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

// The mount id of the directory an exempt root ({ real, id }: exemptids.cjs) was fixed
// as, found once, and only while its path leads to that very directory.
function rootMount(root) {
  const key = `${root.real}\0${root.id}`;
  let found = roots.get(key);
  if (found === undefined) {
    let fd;
    try {
      fd = openSync(Buffer.from(root.real, 'latin1'), DIR_FLAGS);
    } catch {
      return null;
    }
    try {
      const st = fstatSync(fd, { bigint: true });
      if (`${st.dev}:${st.ino}` !== root.id) return null;
      found = LINUX ? mountId(fd) : `${st.dev}`;
    } catch {
      return null;
    } finally {
      closeSync(fd);
    }
    roots.set(key, found);
  }
  return found;
}

// The mount the directory open as fd lies on (its device where there are no mount
// ids), or null when it cannot be told.
function mountIdOrNull(fd) {
  try {
    return LINUX ? mountId(fd) : `${fstatSync(fd, { bigint: true }).dev}`;
  } catch {
    return null;
  }
}

// Whether the directory at path (real, Buffer; st its lstat) lies on the mount of an
// exempt root in usable ({ real, id }) that holds it: not a mount point of its own.
function notAMountPoint(path, st, usable) {
  const shown = path.toString('latin1');
  for (const root of usable) {
    const top = root.real === '/' ? '/' : root.real + '/';
    if (!shown.startsWith(top) || `${st.dev}` !== root.id.split(':')[0]) continue;
    if (!LINUX) return true;
    if (mountOf(path, [st.dev, st.ino], O_NOFOLLOW) === rootMount(root)) return true;
  }
  return false;
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

module.exports = { mountId, mountIdOrNull, rootMount, notAMountPoint, mountKey, mountBeneath };
