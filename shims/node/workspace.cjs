'use strict';
// Where a deletion lands, as in safedel/core/policy/workspace.py, outside.py and
// regenerable.py: the location class of a target (workspace, exempt or outside), the
// outside-workspace question, and the regenerable targets the guard leaves uncounted
// (build outputs: buildoutput.cjs).
// Paths are latin1 strings (one char per byte), as settings.cjs keeps them.

const nativePath = require('path');
const pathPosix = nativePath.posix;
const { lstatSync, readlinkSync, realpathSync, statSync } = require('./originals.cjs');
const { openSync, readSync, fstatSync, closeSync } = require('./originals.cjs');
const rules = require('./ignorerules.cjs');

const WORKSPACE = 'workspace';
const EXEMPT = 'exempt';
const OUTSIDE = 'outside';
const CREATED = 'created-this-turn';
const IGNORED = 'ignored';
const BUILT = 'build-output';
const START_DIR = Symbol.for('safedel.node.startDir');

function trim(root) {
  return root.replace(/\/+$/, '') || '/';
}

function inside(path, root) {
  root = trim(root);
  return path === root || path.startsWith(root === '/' ? '/' : root + '/');
}

function deepest(path, roots, strictly) {
  let found = null;
  for (const candidate of roots.map(trim)) {
    if (strictly && path === candidate) continue;
    if (inside(path, candidate) && (found === null || candidate.length > found.length)) {
      found = candidate;
    }
  }
  return found;
}

// The nearest enclosing root decides; on a tie the exempt root wins (tests/vectors).
// keptRoots (kept.cjs: safedel's own trash and state) are roots of their own: one
// nearer than the exempt root makes what lies in it judged, as any other path.
function location(path, roots, exemptRoots, keptRoots = []) {
  const root = deepest(path, roots, false);
  const exempt = deepest(path, exemptRoots, true);
  if (root !== null && (exempt === null || root.length > exempt.length)) return WORKSPACE;
  if (exempt === null) return OUTSIDE;
  const kept = keptRoots.length ? deepest(path, keptRoots, false) : null;
  if (kept !== null && kept.length > exempt.length) return root !== null ? WORKSPACE : OUTSIDE;
  return EXEMPT;
}

// Whether a root lies strictly inside path (a directory that holds one).
function holdsRoot(path, roots) {
  return roots.some((root) => trim(root) !== path && inside(trim(root), path));
}

// A path Node gave as text (the environment, process.cwd()), as a latin1 string of its
// UTF-8 bytes: compared with the kernel's paths byte for byte.
function latin1(text) {
  return Buffer.from(text, 'utf8').toString('latin1');
}

// Where this process started, as the kernel names it (bytes that are not UTF-8
// included); process.cwd() where /proc is not there.
function startDir() {
  if (process[START_DIR] !== undefined) return process[START_DIR];
  try {
    return readlinkSync('/proc/self/cwd', { encoding: 'buffer' }).toString('latin1');
  } catch {
    return latin1(process.cwd());
  }
}

// The real path of text, as os.path.realpath resolves it: what does not exist (yet) is
// kept as written below the part that does.
function real(text) {
  try {
    return realpathSync(Buffer.from(text, 'latin1'), { encoding: 'buffer' }).toString('latin1');
  } catch {
    const whole = pathPosix.resolve(text);
    const parent = pathPosix.dirname(whole);
    return parent === whole ? whole : pathPosix.join(real(parent), pathPosix.basename(whole));
  }
}

function workTree(dir) {
  for (let here = dir; ; here = pathPosix.dirname(here)) {
    if (lstatSync(pathPosix.join(here, '.git'), { throwIfNoEntry: false })) return here;
    if (pathPosix.dirname(here) === here) return null;
  }
}

const collected = new Map();

// Every scope's roots for a process started in start (a real latin1 path):
// { roots: [{ path, scope }], warnings } (workspaceroots.cjs; shared test vectors).
function scopeRoots(env, settings, start) {
  const { collect } = require('./workspaceroots.cjs');
  const { configPath } = require('./settings.cjs');
  const where = { start, project: workTree(start) || start, real, configPath: configPath(env) };
  return collect(env, { ...where, stateDir: settings.stateDir, session: settings.session });
}

// What `safedel run` decided (its record, else SAFEDEL_WORKSPACE_ROOTS); elsewhere every
// scope's roots for the directory this process started in, once per process: a program
// that later changes directory keeps its workspace.
function roots(env, settings) {
  if (settings.workspaceRoots) return settings.workspaceRoots.map(latin1);
  if (env.SAFEDEL_WORKSPACE_ROOTS !== undefined) {
    return env.SAFEDEL_WORKSPACE_ROOTS.split(nativePath.delimiter).filter(Boolean).map(latin1);
  }
  const start = real(startDir());
  const key = [start, env.SAFEDEL_WORKSPACE, settings.session, settings.stateDir].join('\0');
  let found = collected.get(key);
  if (found === undefined) {
    const result = scopeRoots(env, settings, start);
    result.warnings.forEach(require('./settings.cjs').warnOnce);
    found = result.roots.map((root) => root.path);
    if (collected.size > 64) collected.clear();
    collected.set(key, found);
  }
  return found;
}

function classify(path, settings, env) {
  const kept = require('./kept.cjs').roots(settings, env);
  return location(path, roots(env, settings), exemptRoots(settings), kept);
}

// The exempt roots as real paths (latin1): each the very directory it was fixed as.
function exemptRoots(settings) {
  return require('./exemptids.cjs').realRoots(settings);
}

// The nearest exempt root (real, latin1) holding path strictly inside it, or null.
function nearestExempt(path, settings) {
  return deepest(path, exemptRoots(settings), true);
}

// When the turn began (ms), for that turn only, as core/guard/regenerable.py reads it:
// SAFEDEL_TURN_START=seconds:turn (`safedel run`, zsh); one number from bash's prompt
// arithmetic, microseconds * 1000 + the turn's last three digits; `@FILE` from fish, a
// stamp file holding the turn; else the turn file dash and busybox sh rewrite as a turn
// starts. A file's mtime is the start. null: the caller falls back to the ledger.
function turnStart(settings, env) {
  const raw = (settings.turnStart !== undefined ? settings.turnStart : env.SAFEDEL_TURN_START) || '';
  const colon = raw.indexOf(':');
  let ms = null;
  if (raw.startsWith('@')) {
    ms = turnFileStart(raw.slice(1), settings.turn);
  } else if (colon >= 0) {
    const seconds = raw.slice(0, colon).trim() === '' ? NaN : Number(raw.slice(0, colon));
    if (raw.slice(colon + 1) === settings.turn && Number.isFinite(seconds)) ms = seconds * 1000;
  } else if (/^[0-9]+$/.test(raw) && /^[0-9]+$/.test(settings.turn)) {
    // Beyond 2**53: BigInt keeps every digit.
    const value = BigInt(raw);
    if (value % 1000n === BigInt(settings.turn) % 1000n) ms = Number(value / 1000n) / 1000;
  }
  if (ms === null) ms = turnFileStart(env.SAFEDEL_TURN_FILE, settings.turn);
  return ms !== null && ms > 0 ? ms : null;
}

// A turn file (sh) or stamp file (fish, which appends): its mtime, while its last line
// still names this turn.
function turnFileStart(path, turn) {
  if (!path) return null;
  let fd;
  try {
    fd = openSync(path, 'r');
    const st = fstatSync(fd);
    const tail = Buffer.alloc(Math.min(st.size, 4096));
    readSync(fd, tail, 0, tail.length, st.size - tail.length);
    const lines = tail.toString('utf8').split('\n').map((line) => line.trim()).filter(Boolean);
    return lines.length && lines[lines.length - 1] === turn ? st.mtimeMs : null;
  } catch {
    return null;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function createdSince(path, startMs) {
  if (startMs === null) return false;
  const st = lstatSync(Buffer.from(path, 'latin1'), { throwIfNoEntry: false });
  if (!st) return false;
  // libuv reads the birth time with statx where the file system keeps one.
  const born = st.birthtimeMs > 0 ? st.birthtimeMs : st.ctimeMs;
  return born >= startMs;
}

const ignoredDirs = new Set();

// The git to ask, as core/git/inert.py trusted: the one the run pinned, while the file
// there is still that very file (device, inode and ctime: not written over); none when
// the run found none; with no run, the first on PATH.
function trustedGit(settings, env) {
  const fixed = settings ? settings.git : null;
  if (fixed === null || fixed === undefined) return gitOnPath(env);
  if (!fixed) return null;
  const st = statSync(fixed[0], { bigint: true, throwIfNoEntry: false });
  if (!st) return null;
  return `${st.dev}:${st.ino}:${st.ctimeNs}` === fixed[1] ? fixed[0] : null;
}

function gitOnPath(env) {
  const ours = pathPosix.join(env.SAFEDEL_HOME || '\0', 'bin');
  for (const dir of (env.PATH || '').split(nativePath.delimiter)) {
    if (!dir || dir === ours) continue;
    const candidate = pathPosix.join(dir, 'git');
    const st = lstatSync(candidate, { throwIfNoEntry: false });
    if (st && !st.isDirectory()) return candidate;
  }
  return null;
}

// git's output, or null on failure: asked with nothing of the command's (ignorerules).
function gitOutput(git, tree, args, input) {
  const { spawnSync } = require('child_process');
  const argv = [...rules.OPTIONS, '-C', tree, ...args];
  const options = { input, stdio: ['pipe', 'pipe', 'ignore'], env: rules.gitEnv(process.env) };
  const done = spawnSync(git, argv, options);
  if (done.error || (done.status !== 0 && done.status !== 1)) return null;
  return done.stdout;
}

function askGit(git, tree, args, input) {
  const output = gitOutput(git, tree, args, input);
  const out = output ? output.toString('latin1').split('\0').filter(Boolean) : [];
  return new Set(out.map((p) => (p.startsWith('/') ? p : pathPosix.join(tree, p))));
}

// Does git ignore path (a real, absolute latin1 path) by rules older than startMs? No
// git, no work tree or any git failure: no. An ignored directory holding no tracked
// file is remembered.
function ignored(path, env, startMs, settings) {
  for (let dir = pathPosix.dirname(path); ; dir = pathPosix.dirname(dir)) {
    if (ignoredDirs.has(dir)) return true;
    if (pathPosix.dirname(dir) === dir) break;
  }
  const tree = workTree(pathPosix.dirname(path));
  const git = tree && path !== tree ? trustedGit(settings, env) : null;
  if (!git) return false;
  const parent = pathPosix.dirname(path);
  const asked = parent === tree ? [path] : [parent, path];
  const input = Buffer.from(asked.map((p) => p + '\0').join(''), 'latin1');
  const output = gitOutput(git, tree, ['check-ignore', '-v', '--stdin', '-z'], input);
  const verdicts = rules.parseVerbose(tree, output || Buffer.alloc(0));
  const answer = rules.believed(tree, verdicts, startMs);
  if (answer.has(parent) && parent !== tree) {
    const tracked = askGit(git, tree, ['ls-files', '-z', '--', parent], Buffer.alloc(0));
    if (tracked.size === 0) ignoredDirs.add(parent);
  }
  return answer.has(path);
}

// Why path need not count ('created-this-turn', 'ignored' or 'build-output'), or null.
function regenerable(path, settings, env, ledgerStart) {
  const turn = turnStart(settings, env);
  const start = turn !== null ? turn : ledgerStart();
  if (createdSince(path, start)) return CREATED;
  if (ignored(path, env, start, settings)) return IGNORED;
  return require('./buildoutput.cjs').output(path, start) ? BUILT : null;
}

module.exports = {
  WORKSPACE,
  EXEMPT,
  OUTSIDE,
  START_DIR,
  location,
  holdsRoot,
  inside,
  deepest,
  real,
  exemptRoots,
  roots,
  scopeRoots,
  classify,
  nearestExempt,
  regenerable,
};
