'use strict';
// The exempt roots by identity, as in safedel/core/contract/exemptids.py and
// core/policy/exemptroot.py. An exempt root is the directory its name led to when it
// was fixed (the run record's exemptIds, SAFEDEL_EXEMPT_IDS from the bootstrap, else
// this process's first need of it), never the name: after `mv "$TMPDIR" x; mv ~/project
// "$TMPDIR"`, or a bind mount over it, nothing under the name is exempt. A target
// straight inside a root is exempt when its parent is the root's directory (device,
// inode); deeper, when its parent lies on the root's own mount and its ancestor that
// many levels up, walked by '..' from a descriptor of the parent, is the root's
// directory. Identities are "dev:ino" strings from bigint stats: Numbers lose inodes
// past 2**53 (overlayfs), and two directories must never compare equal by rounding.
// tests/vectors/exemptids.json holds this and the Python engine to one answer.

const { openSync, closeSync, fstatSync, statSync } = require('./originals.cjs');
const { readlinkSync, realpathSync } = require('./originals.cjs');
const { DIR_FLAGS } = require('./resolve.cjs');

const { O_NOFOLLOW = 0 } = require('fs').constants;
const DIGITS = /^[0-9]+$/;
const learned = new Map(); // root -> identity, fixed at this process's first need
const usableRoots = new Map(); // key of the settings' roots -> [{ real, id }]
const below = new WeakMap(); // usable roots -> Map(`${place}\0${identity}` -> verdict)

const identityOf = (st) => `${st.dev}:${st.ino}`;

// { root: "dev:ino" or null } from the record's value (an object) or the variable's
// text; null when it is no such object.
function parse(value) {
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return null;
    }
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return null;
  const found = {};
  for (const [root, text] of Object.entries(value)) found[root] = identity(text);
  return found;
}

function identity(text) {
  if (typeof text !== 'string') return null;
  const cut = text.indexOf(':');
  const dev = text.slice(0, cut);
  const ino = text.slice(cut + 1);
  if (cut < 0 || !DIGITS.test(dev) || !DIGITS.test(ino)) return null;
  return `${BigInt(dev)}:${BigInt(ino)}`;
}

// What a run record fixes: every root of its exempt list, a root it does not name (or
// an identity it cannot read) holding nothing.
function ofRecord(exempt, value) {
  const ids = parse(value) || {};
  const fixed = {};
  for (const root of exempt) fixed[root] = Object.hasOwn(ids, root) ? ids[root] : null;
  return fixed;
}

function ofDirectory(root) {
  try {
    const st = statSync(root, { bigint: true, throwIfNoEntry: false });
    return st && st.isDirectory() ? identityOf(st) : null;
  } catch {
    return null;
  }
}

// The identity (or null) of each exempt root of settings, in order: the fixed one where
// settings.exemptIds names it, else what this process found at its first need.
function fixed(settings) {
  const known = settings.exemptIds || {};
  return settings.exempt.map((root) => {
    if (Object.hasOwn(known, root)) return known[root];
    if (!learned.has(root)) learned.set(root, ofDirectory(root));
    return learned.get(root);
  });
}

// The exempt roots of settings that hold anything, found once per process: each whose
// name leads, the first time it is asked, to the directory it was fixed as.
// [{ real (latin1), id }].
function roots(settings) {
  const ids = fixed(settings);
  const key = settings.exempt.map((root, i) => `${root}\0${ids[i]}`).join('\0\0');
  let found = usableRoots.get(key);
  if (found === undefined) {
    found = [];
    settings.exempt.forEach((root, i) => {
      if (ids[i] === null) return; // no directory when it was fixed: it holds nothing
      const real = realIf(root, ids[i]);
      if (real !== null) found.push({ real, id: ids[i] });
    });
    if (usableRoots.size > 64) usableRoots.clear();
    usableRoots.set(key, found);
  }
  return found;
}

// The real path (latin1) of the directory root leads to, if it is the one of identity
// id, else null.
function realIf(root, id) {
  let fd;
  try {
    fd = openSync(Buffer.from(root, 'utf8'), DIR_FLAGS);
  } catch {
    return null;
  }
  try {
    if (identityOf(fstatSync(fd, { bigint: true })) !== id) return null;
    let real;
    try {
      real = readlinkSync(`/proc/self/fd/${fd}`, { encoding: 'buffer' });
    } catch {
      // No /proc: realpath walks as the kernel does; it must lead to the same directory.
      real = realpathSync(Buffer.from(root, 'utf8'), { encoding: 'buffer' });
      if (identityOf(statSync(real, { bigint: true })) !== id) return null;
    }
    const text = real.toString('latin1');
    return text[0] === '/' && !text.endsWith(' (deleted)') ? text.replace(/(.)\/+$/, '$1') : null;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

const realRoots = (settings) => roots(settings).map((root) => root.real);

// How many levels below root (real, latin1) the directory path lies: 0 for root itself,
// -1 when it is not inside.
function depth(path, root) {
  if (path === root) return 0;
  const top = root === '/' ? '/' : root + '/';
  if (!path.startsWith(top)) return -1;
  return path.slice(top.length).split('/').length;
}

// The rule without the file system: whether the directory at place (real, latin1), of
// identity placeId, lies in one of usable. ancestor(n) is the identity n levels up,
// sameMount(root) whether it shares root's mount; asked only below a root.
function verdict(place, placeId, ancestor, sameMount, usable) {
  for (const root of usable) {
    const levels = depth(place, root.real);
    if (levels < 0) continue;
    if (levels === 0) {
      if (placeId === root.id) return true;
    } else if (sameMount(root) && ancestor(levels) === root.id) {
      return true;
    }
  }
  return false;
}

// The identity of the directory levels steps up from the one open as fd (Linux).
function ancestor(fd, levels) {
  let here = fd;
  try {
    for (let step = 0; step < levels; step++) {
      const up = openSync(`/proc/self/fd/${here}/..`, DIR_FLAGS);
      if (here !== fd) closeSync(here);
      here = up;
    }
    return identityOf(fstatSync(here, { bigint: true }));
  } catch {
    return null;
  } finally {
    if (here !== fd) closeSync(here);
  }
}

// Whether the directory open as fd (Linux), at place (real, latin1), lies in one of
// usable: its identity, its mount and its ancestors read from the descriptor itself.
// A directory below a root is asked once per path and identity (a build deleting
// thousands of files in /tmp/cc-XXXX walks once); moved or replaced, it is asked afresh.
function holdsAt(fd, place, usable) {
  const mounts = require('./mounts.cjs');
  const id = identityOf(fstatSync(fd, { bigint: true }));
  if (!usable.some((root) => depth(place, root.real) > 0)) {
    return verdict(place, id, null, null, usable); // the root itself, or nothing
  }
  let known = below.get(usable);
  if (known === undefined) below.set(usable, (known = new Map()));
  const key = `${place}\0${id}`;
  let found = known.get(key);
  if (found === undefined) {
    let here;
    const sameMount = (root) => {
      if (here === undefined) here = mounts.mountIdOrNull(fd);
      return here !== null && here === mounts.rootMount(root);
    };
    found = verdict(place, id, (levels) => ancestor(fd, levels), sameMount, usable);
    if (known.size > 4096) known.clear();
    known.set(key, found);
  }
  return found;
}

// Whether the directory at path (real, Buffer: where `link/` leads) lies in usable.
function directoryHolds(path, usable) {
  let fd;
  try {
    fd = openSync(path, DIR_FLAGS | O_NOFOLLOW);
  } catch {
    return false;
  }
  try {
    return holdsAt(fd, path.toString('latin1'), usable);
  } catch {
    return false;
  } finally {
    closeSync(fd);
  }
}

// macOS and Windows, with no descriptor to name by: whether the directory at path (a
// string) lies in usable, its ancestors read by path and its device standing for its
// mount.
function holdsByPath(path, usable) {
  const ofPath = (p) => statSync(p, { bigint: true, throwIfNoEntry: false });
  const here = ofPath(path);
  if (!here) return false;
  const ancestor = (levels) => {
    const found = ofPath(path + '/..'.repeat(levels));
    return found ? identityOf(found) : null;
  };
  const sameMount = (root) => root.id.startsWith(`${here.dev}:`);
  const place = Buffer.from(path).toString('latin1');
  return verdict(place, identityOf(here), ancestor, sameMount, usable);
}

module.exports = {
  parse,
  ofRecord,
  identityOf,
  fixed,
  roots,
  realRoots,
  depth,
  verdict,
  holdsAt,
  directoryHolds,
  holdsByPath,
};
