'use strict';
// State and report files: 0600 files in 0700 directories, never through a symlink.
// Node has no openat(), so each directory under the state root is checked with lstat
// (and remembered); the file itself is opened with O_NOFOLLOW.

const fs = require('fs');
const pathPosix = require('path').posix;

const { O_NOFOLLOW = 0, O_CLOEXEC = 0 } = fs.constants;
const NOFOLLOW = O_NOFOLLOW | O_CLOEXEC;
const { lstatSync, mkdirSync, openSync } = require('./originals.cjs');
const checkedDirs = new Set();
let createHash = null;
const digests = new Map();

function digest(value) {
  let hex = digests.get(value);
  if (hex === undefined) {
    createHash = createHash || require('crypto').createHash;
    hex = createHash('sha256').update(value, 'utf8').digest('hex').slice(0, 16);
    digests.set(value, hex);
  }
  return hex;
}

function symlinkError(path) {
  const err = new Error(`refusing a state directory that is a symlink: ${path}`);
  err.code = 'ELOOP';
  return err;
}

// Make sure dir is a real directory (not a symlink), creating it 0700 when allowed.
function checkDir(dir, create) {
  if (checkedDirs.has(dir)) return;
  let st = lstatSync(dir, { throwIfNoEntry: false });
  if (!st) {
    if (!create) {
      const err = new Error(`no such directory: ${dir}`);
      err.code = 'ENOENT';
      throw err;
    }
    try {
      mkdirSync(dir, 0o700);
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
    }
    st = lstatSync(dir);
  }
  if (!st.isDirectory()) throw symlinkError(dir);
  checkedDirs.add(dir);
}

// The directory root/parts[0]/..., every level checked; root made 0700 if missing.
function privateDir(root, parts, createDirs) {
  root = pathPosix.resolve(root);
  if (createDirs && !checkedDirs.has(root)) {
    const parent = pathPosix.dirname(root);
    if (!lstatSync(parent, { throwIfNoEntry: false })) mkdirSync(parent, { recursive: true });
  }
  const dirs = [root];
  for (const name of parts) dirs.push(pathPosix.join(dirs[dirs.length - 1], name));
  for (const d of dirs) checkDir(d, createDirs);
  return dirs;
}

// Open root/parts[0]/.../parts[-1] (a file, 0600, O_NOFOLLOW) with every directory checked.
function openUnder(root, parts, flags, createDirs) {
  let dirs = privateDir(root, parts.slice(0, -1), createDirs);
  const name = parts[parts.length - 1];
  try {
    return openSync(pathPosix.join(dirs[dirs.length - 1], name), flags | NOFOLLOW, 0o600);
  } catch (err) {
    if (err.code !== 'ENOENT' || !createDirs) throw err;
    // A directory checked earlier was removed (e.g. `safedel guard reset`): check again.
    for (const d of dirs) checkedDirs.delete(d);
    dirs = privateDir(root, parts.slice(0, -1), true);
    return openSync(pathPosix.join(dirs[dirs.length - 1], name), flags | NOFOLLOW, 0o600);
  }
}

// A single file outside the state tree (the report): O_NOFOLLOW, 0600, parent 0700.
function openPrivate(path, flags) {
  try {
    return openSync(path, flags | NOFOLLOW, 0o600);
  } catch (err) {
    if (err.code !== 'ENOENT' || !(flags & fs.constants.O_CREAT)) throw err;
    mkdirSync(pathPosix.dirname(pathPosix.resolve(path)), { recursive: true, mode: 0o700 });
    return openSync(path, flags | NOFOLLOW, 0o600);
  }
}

module.exports = { digest, privateDir, openUnder, openPrivate };
