'use strict';
// Which targets are protected (always refused) and which are exempt (deleted for real),
// judged on where resolve.cjs found them, never on the operand's spelling: the rules of
// safedel/core/policy/targets.py, checked against it by tests/vectors/resolve.json.

const os = require('os');
const pathPosix = require('path').posix;
const { realpathSync } = require('./originals.cjs');

const SYSTEM_DIRS = new Set(
  ['bin', 'boot', 'dev', 'etc', 'home', 'lib', 'lib32', 'lib64', 'libx32', 'media', 'mnt']
    .concat(['opt', 'proc', 'root', 'run', 'sbin', 'snap', 'srv', 'sys', 'tmp', 'usr', 'var'])
    .map((name) => '/' + name)
);

function realOrNull(buf) {
  try {
    return realpathSync(buf, { encoding: 'buffer' });
  } catch {
    return null;
  }
}

function under(path, roots) {
  for (let root of roots) {
    root = root.replace(/\/+$/, '') || '/';
    const prefix = root === '/' ? '/' : root + '/';
    if (path.startsWith(prefix) && path !== root) return true;
  }
  return false;
}

// True when the item whose real location is `real` (a Buffer from resolve.cjs) lies
// strictly inside one of realRoots (real, latin1: exemptids.cjs realRoots): /tmp/link/
// src, with link pointing into a project, looks exempt but is not, and deleting it for
// real would destroy project files.
function isExempt(real, realRoots) {
  return realRoots.length > 0 && under(real.toString('latin1'), realRoots);
}

const homeReal = new Map();

function homesOf(env) {
  const home = env.HOME || os.homedir();
  let found = homeReal.get(home);
  if (found === undefined) {
    found = home ? spellings(home) : [];
    homeReal.set(home, found);
  }
  return found;
}

// The password database's home for this uid, so that a command pointing HOME elsewhere
// has not unprotected the real one: looked up once, and only for a directory.
let accountHomes = null;

function accountHomesOf() {
  if (accountHomes === null) {
    let home = null;
    try {
      home = os.userInfo().homedir;
    } catch {
      home = null; // no entry for this uid
    }
    accountHomes = home ? spellings(home) : [];
  }
  return accountHomes;
}

function spellings(home) {
  const real = realOrNull(Buffer.from(home)) || Buffer.from(pathPosix.resolve(home));
  return [Buffer.from(pathPosix.resolve(home)), real].map((b) => b.toString('latin1'));
}

// What would go is a directory: the entry is one, or it is `link/`.
function isDirectoryTarget(target) {
  return Boolean(target.st) && (target.viaLink || target.st.isDirectory());
}

// Why target (from resolve.cjs) must never be deleted or trashed, or null. A symlink is
// judged as the link; `link/` as the directory it leads to, which is what would go.
function protectedReason(target, env) {
  const path = target.path.toString('latin1');
  const shown = target.path.toString('utf8');
  if (path === '/') return "refusing to remove '/'";
  const home = homesOf(env).includes(path);
  if (home || (isDirectoryTarget(target) && accountHomesOf().includes(path))) {
    return `refusing to remove your home directory ${shown}`;
  }
  if (SYSTEM_DIRS.has(path)) return `refusing to remove the system directory ${shown}`;
  return null;
}

module.exports = { isExempt, protectedReason };
