'use strict';
// Settings from the environment and the config file, read at call time (like
// safedel/core/settings.py), and the exempt / protected path policy (core/policy.py).

const os = require('os');
const nativePath = require('path');
const pathPosix = nativePath.posix;
const { join, dirname, basename, latin1 } = require('./trash.cjs');

const DEFAULT_THRESHOLD = 50;
const MAX_THRESHOLD = 99999;
const SYSTEM_DIRS = new Set(
  ['bin', 'boot', 'dev', 'etc', 'home', 'lib', 'lib32', 'lib64', 'libx32', 'media', 'mnt']
    .concat(['opt', 'proc', 'root', 'run', 'sbin', 'snap', 'srv', 'sys', 'tmp', 'usr', 'var'])
    .map((name) => '/' + name)
);
const warned = new Set();
const { readFileSync, lstatSync, realpathSync, writeSync } = require('./originals.cjs');

function warnOnce(message) {
  if (warned.has(message)) return;
  warned.add(message);
  try {
    writeSync(2, `safedel: warning: ${message}\n`);
  } catch {
    // stderr is closed; the warning has nowhere to go.
  }
}

function pyRepr(value) {
  return "'" + String(value).replace(/\\/g, '\\\\').replace(/'/g, "\\'") + "'";
}

function parseThreshold(raw, origin) {
  if (raw === undefined || raw === null || raw === '') return DEFAULT_THRESHOLD;
  const text = String(raw).trim();
  // Plain ASCII digits only, as the Python side accepts.
  const value = /^[0-9]+$/.test(text) ? Number(text) : 0;
  if (value >= 1 && value <= MAX_THRESHOLD) return value;
  warnOnce(`${origin}=${pyRepr(raw)} is not a whole number in 1..${MAX_THRESHOLD}; using 50`);
  return DEFAULT_THRESHOLD;
}

function defaultStateDir(env) {
  const home = os.homedir();
  if (process.platform === 'win32') {
    const local = env.LOCALAPPDATA || nativePath.join(home, 'AppData', 'Local');
    return nativePath.join(local, 'safedel', 'safedel');
  }
  if (process.platform === 'darwin') {
    return nativePath.join(home, 'Library', 'Application Support', 'safedel');
  }
  return pathPosix.join(env.XDG_STATE_HOME || pathPosix.join(home, '.local', 'state'), 'safedel');
}

function configPath(env) {
  if (env.SAFEDEL_CONFIG) return env.SAFEDEL_CONFIG;
  const home = os.homedir();
  let base;
  if (process.platform === 'win32') {
    base = env.APPDATA || home;
  } else if (process.platform === 'darwin') {
    base = nativePath.join(home, 'Library', 'Application Support');
  } else {
    base = env.XDG_CONFIG_HOME || pathPosix.join(home, '.config');
  }
  return nativePath.join(base, 'safedel', 'config.toml');
}

// Flat `key = value` lines, the subset of TOML that the Python side reads too.
function readConfig(path) {
  const values = {};
  let text;
  try {
    // Most people have no config file: a missing one must not cost an exception per call.
    if (!lstatSync(path, { throwIfNoEntry: false })) return values;
    text = readFileSync(path, 'utf8');
  } catch {
    return values;
  }
  for (let line of text.split(/\r?\n/)) {
    line = line.split('#', 1)[0].trim();
    if (!line.includes('=') || line.startsWith('[')) continue;
    const at = line.indexOf('=');
    const key = line.slice(0, at).trim();
    let value = line.slice(at + 1).trim();
    if (value.length >= 2 && value[0] === value[value.length - 1] && `'"`.includes(value[0])) {
      value = value.slice(1, -1);
    }
    values[key] = value;
  }
  return values;
}

// SAFEDEL_TURN_FILE wins over SAFEDEL_TURN, so a prompt hook can rotate turns.
function currentTurn(env) {
  if (env.SAFEDEL_TURN_FILE) {
    try {
      const turn = readFileSync(env.SAFEDEL_TURN_FILE, 'utf8').trim();
      if (turn) return turn;
    } catch {
      // An unreadable turn file falls back to SAFEDEL_TURN, as the Python side does.
    }
  }
  return env.SAFEDEL_TURN || 'default';
}

function load(env) {
  const config = readConfig(configPath(env));
  const threshold =
    'SAFEDEL_THRESHOLD' in env
      ? parseThreshold(env.SAFEDEL_THRESHOLD, 'SAFEDEL_THRESHOLD')
      : parseThreshold(config.threshold, 'threshold in the config file');
  let exempt = env.SAFEDEL_EXEMPT !== undefined ? env.SAFEDEL_EXEMPT : config.exempt;
  if (exempt === undefined) exempt = env.TMPDIR || env.TEMP || env.TMP || '/tmp';
  const stateDir = env.SAFEDEL_STATE_DIR || defaultStateDir(env);
  return {
    session: env.SAFEDEL_SESSION || 'default',
    turn: currentTurn(env),
    toolCall: env.SAFEDEL_TOOL_CALL || '',
    stateDir,
    report: env.SAFEDEL_REPORT || nativePath.join(stateDir, 'report.jsonl'),
    threshold,
    trashDir: env.SAFEDEL_TRASH_DIR || config.trash_dir || null,
    exempt: exempt.split(nativePath.delimiter).filter(Boolean),
  };
}

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

// Resolved exempt roots, and parents already known to resolve outside every root. Only
// the "not exempt" answer is remembered: if it goes stale the item is trashed, not lost.
const realRoots = new Map();
const notExempt = new Set();

function realRoot(root) {
  let real = realRoots.get(root);
  if (real === undefined) {
    real = latin1(realOrNull(Buffer.from(root)) || Buffer.from(root));
    realRoots.set(root, real);
  }
  return real;
}

// True when the item at absolute (a Buffer) really lies strictly inside an exempt root.
// Judged on real paths only: /tmp/link/src, with link pointing into a project, looks
// exempt but is not, and deleting it for real would destroy project files.
function isExempt(absolute, roots) {
  if (!roots.length) return false;
  const parent = dirname(absolute);
  const key = `${roots.join('\0')}\0\0${latin1(parent)}`;
  if (notExempt.has(key)) return false;
  const real = realOrNull(parent);
  const resolved = real && latin1(join(real, basename(absolute)));
  const exempt = real !== null && under(resolved, roots.map(realRoot));
  if (!exempt) notExempt.add(key);
  return exempt;
}

const homeReal = new Map();

function homesOf(env) {
  const home = env.HOME || os.homedir();
  if (!home) return [];
  let real = homeReal.get(home);
  if (real === undefined) {
    real = (realOrNull(Buffer.from(home)) || Buffer.from(pathPosix.resolve(home))).toString();
    homeReal.set(home, real);
  }
  return [pathPosix.resolve(home), real];
}

// Why absolute (a Buffer; st its lstat) must never be trashed, or null. A symlink is
// judged as the link. Resolving keeps the last name of a non-symlink, so only a path
// named like a protected directory needs resolving at all.
function protectedReason(absolute, st, env) {
  const homes = homesOf(env);
  const text = absolute.toString('utf8');
  const name = pathPosix.basename(text);
  const candidates = [text];
  const suspicious =
    SYSTEM_DIRS.has('/' + name) || homes.some((h) => pathPosix.basename(h) === name);
  if (suspicious && !st.isSymbolicLink()) {
    const real = realOrNull(absolute);
    if (real) candidates.push(real.toString('utf8'));
  }
  for (const candidate of candidates) {
    if (candidate === '/') return "refusing to remove '/'";
    if (homes.includes(candidate)) return `refusing to remove your home directory ${candidate}`;
    if (SYSTEM_DIRS.has(candidate)) return `refusing to remove the system directory ${candidate}`;
  }
  return null;
}

module.exports = { load, isExempt, protectedReason, warnOnce, parseThreshold };
