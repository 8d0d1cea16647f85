'use strict';
// The wrappers around fs.rm/rmSync/unlink/unlinkSync/rmdir/rmdirSync and fs.promises.
// Node itself validates every argument: the path through lstatSync (the same validator),
// the options by running the original on a path that cannot exist. Every call Node would
// fail is handed to the original, so its errors are Node's own; the rest go to the trash.

const fs = require('fs');
const util = require('util');
const originals = require('./originals.cjs');

// The engine loads at the first deletion, so a process that deletes nothing pays for
// this file only.
let engine = null;
const deletion = () => engine || (engine = require('./deletion.cjs'));

// A path below a character device: it can never exist, so the original only validates.
const PROBE =
  process.platform === 'win32' ? '\\\\?\\NUL\\safedel-probe' : '/dev/null/safedel-probe';
const DELEGATE = { action: 'delegate' };
const DONE = { action: 'done' };
const lstatSync = originals.lstatSync;
const original = {
  rm: fs.rm,
  rmSync: fs.rmSync,
  unlink: fs.unlink,
  unlinkSync: originals.unlinkSync,
  rmdir: fs.rmdir,
  rmdirSync: originals.rmdirSync,
};
const promises = fs.promises;
const originalPromises = { rm: promises.rm, unlink: promises.unlink, rmdir: promises.rmdir };
// Inside a delegated synchronous call (an exempt tree going through Node's rimraf, which
// calls the public fs functions): those inner calls are the original's business.
let passThrough = 0;

function isValidation(err) {
  return err !== null && typeof err === 'object' && /^ERR_/.test(String(err.code));
}

// lstat with Node's own path validation: validation errors throw, fs errors are returned.
function probe(path) {
  try {
    return { st: lstatSync(path), error: null };
  } catch (err) {
    if (isValidation(err)) throw err;
    return { st: undefined, error: err };
  }
}

// The common shapes ({ recursive: true, force: true } and the like) are what Node's
// validators accept without a second look: booleans only, nothing else Node checks.
function simpleOptions(options) {
  if (typeof options !== 'object' || options === null) return null;
  if (Object.getPrototypeOf(options) !== Object.prototype) return null;
  const flags = { recursive: false, force: false };
  for (const key of Object.keys(options)) {
    if (key === 'recursive' || key === 'force') {
      if (typeof options[key] !== 'boolean') return null;
      flags[key] = options[key];
    } else if (key === 'maxRetries' || key === 'retryDelay') {
      return null;
    }
  }
  return flags;
}

// { recursive, force } once Node's own validators accepted the options (or threw).
function validateOptions(op, options) {
  const simple = simpleOptions(options);
  // rmdir's deprecated `recursive` goes through Node so that its warning is Node's own.
  if (simple && !(op === 'rmdir' && simple.recursive)) return simple;
  try {
    if (op === 'rm') original.rmSync(PROBE, options);
    else original.rmdirSync(PROBE, options);
  } catch (err) {
    if (isValidation(err)) throw err;
  }
  return { recursive: options.recursive === true, force: options.force === true };
}

// Decide one call and carry it out unless the original must: { action, error }.
function prepare(op, path, options, sync = false) {
  const { st, error } = probe(path);
  let recursive = false;
  let force = false;
  if (options !== undefined && op !== 'unlink') {
    const flags = validateOptions(op, options);
    recursive = flags.recursive;
    force = op === 'rm' && flags.force;
  }
  // What Node cannot even lstat, it fails on by itself (force forgives only ENOENT);
  // with its own error, never by walking the path again (kernelfails.cjs).
  if (!st) {
    if (force && error.code === 'ENOENT') return DONE;
    return require('./kernelfails.cjs').failure(error, op, error.path, recursive);
  }
  const plan = deletion().handle(op, path, st, recursive, sync);
  if (plan.action !== 'dot') return plan;
  // Node empties the directory, then fails to remove '.'; safedel only fails, the same way.
  try {
    original.rmdirSync(path);
  } catch (err) {
    return { action: 'error', error: err };
  }
  return DONE;
}

// A delegated call that must fail as the caller's would, without Node walking the
// caller's path again, goes to plan.instead (kernelfails.cjs); its error names the
// caller's path.
function instead(plan, args, callback) {
  const call = Array.from(args);
  call[0] = plan.instead;
  const { spelledBack } = require('./kernelfails.cjs');
  const back = (err) => spelledBack(err, plan.instead, plan.shown);
  if (callback !== undefined) {
    call[call.lastIndexOf(callback)] = (err, ...rest) => callback(err && back(err), ...rest);
  }
  return { call, back };
}

function finishSync(plan, fn, args) {
  if (plan.action === 'error') throw plan.error;
  if (plan.action === 'done') return undefined;
  const substitute = plan.instead === undefined ? null : instead(plan, args);
  passThrough += 1;
  try {
    return Reflect.apply(fn, fs, substitute ? substitute.call : args);
  } catch (err) {
    throw substitute ? substitute.back(err) : err;
  } finally {
    passThrough -= 1;
  }
}

async function finishPromise(plan, fn, args) {
  if (plan.action === 'error') throw plan.error;
  if (plan.action === 'done') return undefined;
  const substitute = plan.instead === undefined ? null : instead(plan, args);
  try {
    return await Reflect.apply(fn, promises, substitute ? substitute.call : args);
  } catch (err) {
    throw substitute ? substitute.back(err) : err;
  }
}

function finishCallback(plan, fn, args, callback) {
  if (plan.action === 'delegate') {
    if (plan.instead === undefined) return Reflect.apply(fn, fs, args);
    return Reflect.apply(fn, fs, instead(plan, args, callback).call);
  }
  const err = plan.action === 'error' ? plan.error : null;
  // Callbacks always run asynchronously, as Node's own do.
  process.nextTick(() => callback(err));
  return undefined;
}

const wrappers = {
  rm(path, options, callback) {
    if (passThrough) return Reflect.apply(original.rm, fs, arguments);
    if (typeof options === 'function') {
      callback = options;
      options = undefined;
    }
    return finishCallback(prepare('rm', path, options), original.rm, arguments, callback);
  },
  rmSync(path, options) {
    if (passThrough) return Reflect.apply(original.rmSync, fs, arguments);
    return finishSync(prepare('rm', path, options, true), original.rmSync, arguments);
  },
  unlink(path, callback) {
    if (passThrough || typeof callback !== 'function') {
      return Reflect.apply(original.unlink, fs, arguments);
    }
    return finishCallback(prepare('unlink', path), original.unlink, arguments, callback);
  },
  unlinkSync(path) {
    if (passThrough) return Reflect.apply(original.unlinkSync, fs, arguments);
    return finishSync(prepare('unlink', path), original.unlinkSync, arguments);
  },
  rmdir(path, options, callback) {
    const cb = typeof options === 'function' ? options : callback;
    if (passThrough || typeof cb !== 'function') {
      return Reflect.apply(original.rmdir, fs, arguments);
    }
    const opts = typeof options === 'function' ? undefined : options;
    return finishCallback(prepare('rmdir', path, opts), original.rmdir, arguments, cb);
  },
  rmdirSync(path, options) {
    if (passThrough) return Reflect.apply(original.rmdirSync, fs, arguments);
    return finishSync(prepare('rmdir', path, options), original.rmdirSync, arguments);
  },
};

const promiseWrappers = {
  async rm(path, options) {
    return finishPromise(prepare('rm', path, options), originalPromises.rm, arguments);
  },
  async unlink(path) {
    return finishPromise(prepare('unlink', path), originalPromises.unlink, arguments);
  },
  async rmdir(path, options) {
    return finishPromise(prepare('rmdir', path, options), originalPromises.rmdir, arguments);
  },
};

// The wrapper looks like the original: name, length, and util.promisify.custom if any.
function lookAlike(wrapper, fn, promiseVersion) {
  Object.defineProperty(wrapper, 'name', { value: fn.name, configurable: true });
  Object.defineProperty(wrapper, 'length', { value: fn.length, configurable: true });
  if (fn[util.promisify.custom] && promiseVersion) {
    const custom = { value: promiseVersion, configurable: true };
    Object.defineProperty(wrapper, util.promisify.custom, custom);
  }
  return wrapper;
}

function install() {
  for (const name of Object.keys(promiseWrappers)) {
    promises[name] = lookAlike(promiseWrappers[name], originalPromises[name]);
  }
  for (const name of Object.keys(wrappers)) {
    const base = name.replace(/Sync$/, '');
    fs[name] = lookAlike(wrappers[name], original[name], name === base ? promises[base] : null);
  }
  // ESM named imports (`import { rmSync } from 'node:fs'`) are copies taken from the
  // CommonJS exports; this refreshes them to the wrappers.
  require('module').syncBuiltinESMExports();
}

module.exports = { install };
