'use strict';
// Calls Node would fail, failed without handing Node the caller's path again. The
// shim looks first (lstat, resolve) and decides; a rename racing it (the temp dir
// swapped for a project, renamed away and back) must not turn a call it saw fail into
// one that deletes for real, as Node walking the path afresh would. So (Linux):
//
// - a path that could not be looked at (lstat, or the walk to its parent, failed with
//   ENOENT or ENOTDIR) is handed to Node as a path that fails the same way and can
//   never lead anywhere: a name under a directory that was removed while held open, or
//   under /dev/null. Node's own code then fails, in its own words (each API names its
//   own syscall), and the error is given the caller's path back. Any other failure
//   gets the error made from that look's own (its code, errno and wording);
// - a call Node would refuse on what is there (unlink of a directory, rmdir of a file
//   or of a full directory, rm of a directory without `recursive`) is run by Node on
//   /proc/self/fd/N/name, N the parent directory judged (its device and inode), so
//   that the kernel looks in that very directory.

const os = require('os');
const nativePath = require('path');
const originals = require('./originals.cjs');
const { DIR_FLAGS } = require('./resolve.cjs');

const { openSync, closeSync, fstatSync } = originals;
// Node's own functions: rm's inner calls, if it gets that far, come back to the shim.
const SYNC = { unlink: originals.unlinkSync, rmdir: originals.rmdirSync, rm: originals.rmSync };
const LINUX = process.platform === 'linux';
let removed = null; // a descriptor of a directory removed while open: nothing is under it

function nowhere(code) {
  if (code === 'ENOTDIR') return '/dev/null/safedel-nowhere';
  // Still the removed directory (no links left), not a number a program reused after
  // closing descriptors it did not open.
  if (removed !== null && !stillRemoved()) removed = null;
  if (removed === null) {
    const dir = require('fs').mkdtempSync(nativePath.join(os.tmpdir(), 'safedel-nowhere-'));
    removed = openSync(dir, DIR_FLAGS);
    originals.rmdirSync(dir);
  }
  return `/proc/self/fd/${removed}/safedel-nowhere`;
}

function stillRemoved() {
  try {
    return fstatSync(removed).nlink === 0;
  } catch {
    return false;
  }
}

// The plan for a call whose path could not be looked at (err: the look's Node error;
// shown: the caller's path as Node prints it): Node's own call on a path failing the
// same way, or, where there is none, the error made from err.
function failure(err, op, shown, recursive) {
  if (LINUX && (err.code === 'ENOENT' || err.code === 'ENOTDIR')) {
    try {
      return { action: 'delegate', instead: nowhere(err.code), shown };
    } catch {
      // No temp dir to make the nowhere in: the error made from the look will do.
    }
  }
  return { action: 'error', error: asNodeWould(err, op, shown, recursive) };
}

// The error `op` gives for a path whose look failed with err (a Node fs error about the
// same path); rm, and rmdir with `recursive`, lstat first.
function asNodeWould(err, op, shown, recursive) {
  const syscall = op === 'rm' || (op === 'rmdir' && recursive) ? 'lstat' : op;
  if (err.syscall === syscall && err.path === shown) return err;
  const found = /^[A-Z0-9_]+: (.*), [a-z]+ '/s.exec(String(err.message));
  const wording = found ? found[1] : String(err.message);
  const out = new Error(`${err.code}: ${wording}, ${syscall} '${shown}'`);
  return Object.assign(out, { errno: err.errno, code: err.code, syscall, path: shown });
}

// Run the original synchronous `op` (with options) on target (resolve.cjs) through its
// parent's descriptor, once that is the directory judged; null when Node did it after
// all (what the parent holds changed meanwhile), else the error to throw.
function onJudgedParent(op, target, options, shown) {
  let fd;
  try {
    fd = openSync(target.parent, DIR_FLAGS);
  } catch (err) {
    return asNodeWould(err, op, shown, options !== undefined);
  }
  const proc = `/proc/self/fd/${fd}/${target.name.toString('latin1')}${target.slash ? '/' : ''}`;
  const spelled = Buffer.from(proc, 'latin1');
  try {
    const st = fstatSync(fd);
    if (st.dev !== target.parentId[0] || st.ino !== target.parentId[1]) {
      const err = new Error(`ESTALE: the directory changed while it was checked, ${op} '${shown}'`);
      return Object.assign(err, { code: 'ESTALE', syscall: op, path: shown });
    }
    if (options === undefined) SYNC[op](spelled);
    else SYNC[op](spelled, options);
    return null;
  } catch (err) {
    return spelledBack(err, spelled.toString(), shown);
  } finally {
    closeSync(fd);
  }
}

// err (from Node, about the path proc) about shown instead.
function spelledBack(err, proc, shown) {
  if (err && typeof err === 'object' && typeof err.message === 'string') {
    err.message = err.message.split(proc).join(shown);
    if (err.path === proc) err.path = shown;
  }
  return err;
}

module.exports = { failure, asNodeWould, onJudgedParent, spelledBack };
