'use strict';
// Which of git's "ignored" answers the guard believes, as
// safedel/core/guard/ignorerules.py: git is asked with nothing of the command's (no
// GIT_* variable, the inert config of safedel/core/git/inert.py, no excludes file,
// case-sensitive matching), and an answer holds only when every file behind it
// predates the turn: the work tree's .git, the git dir's commondir, info/exclude and config,
// and each .gitignore from the top down to the target's parent. An ignore rule the
// command writes must not leave its own runaway deletion uncounted.
// Paths are latin1 strings (one char per byte), as settings.cjs keeps them.

const pathPosix = require('path').posix;
const { lstatSync, statSync, readFileSync } = require('./originals.cjs');

const OPTIONS = [
  ...['-c', 'core.fsmonitor=false', '-c', 'core.hooksPath=/dev/null'],
  ...['-c', 'protocol.allow=never', '-c', 'core.excludesFile=/dev/null'],
  ...['-c', 'core.ignoreCase=false'],
];

// env without git's own variables, plus those that keep git from starting anything.
function gitEnv(env) {
  const clean = {};
  for (const [key, value] of Object.entries(env)) {
    if (!key.startsWith('GIT_')) clean[key] = value;
  }
  clean.GIT_OPTIONAL_LOCKS = '0';
  clean.GIT_NO_LAZY_FETCH = '1';
  clean.GIT_TERMINAL_PROMPT = '0';
  clean.GIT_NO_REPLACE_OBJECTS = '1';
  return clean;
}

function latin1(path) {
  return Buffer.from(path, 'latin1');
}

// The file at path, if any, last written (mtime and ctime) before startMs: the link and
// what it points to.
function before(path, startMs) {
  let link;
  try {
    link = lstatSync(latin1(path), { throwIfNoEntry: false });
  } catch {
    return false; // unreadable: not known to be old
  }
  if (!link) return true;
  let target = null;
  try {
    target = statSync(latin1(path));
  } catch {
    target = null;
  }
  const old = (st) => latest(st.mtimeMs) < startMs && latest(st.ctimeMs) < startMs;
  return [link, target].every((st) => !st || old(st));
}

// The latest time a file stamped ms may have been written: the kernel's file clock lags
// a tick; a file system of whole (or two) seconds cuts the rest off.
function latest(ms) {
  return ms + (ms % 1000 === 0 ? 2000 : 20);
}

// A .git entry: born before startMs (its ctime where no birth time is kept), and a
// gitdir: file also written before it.
function entryBefore(dotgit, startMs) {
  let st;
  try {
    st = lstatSync(latin1(dotgit), { throwIfNoEntry: false });
  } catch {
    return false;
  }
  if (!st) return false;
  const born = st.birthtimeMs > 0 ? st.birthtimeMs : st.ctimeMs;
  return latest(born) < startMs && (st.isDirectory() || before(dotgit, startMs));
}

function firstLine(path) {
  try {
    return readFileSync(latin1(path)).toString('latin1').split('\n')[0].trim();
  } catch {
    return null;
  }
}

function gitDir(tree) {
  const dotgit = pathPosix.join(tree, '.git');
  let st = null;
  try {
    st = lstatSync(latin1(dotgit), { throwIfNoEntry: false });
  } catch {
    return null;
  }
  if (st && st.isDirectory()) return dotgit;
  const line = firstLine(dotgit);
  return line && line.startsWith('gitdir:') ? pathPosix.join(tree, line.slice(7).trim()) : null;
}

// The paths of answers (Map: absolute path -> the file holding its rule) git's rules
// for which predate startMs.
function believed(tree, answers, startMs) {
  const found = new Set();
  if (startMs === null || !entryBefore(pathPosix.join(tree, '.git'), startMs)) return found;
  const dir = gitDir(tree);
  if (!dir || !before(pathPosix.join(dir, 'commondir'), startMs)) return found;
  const shared = firstLine(pathPosix.join(dir, 'commondir'));
  const common = shared ? pathPosix.join(dir, shared) : dir;
  if (!before(pathPosix.join(common, 'info', 'exclude'), startMs)) return found;
  // The config decides where the work tree is (core.worktree): set this turn, no.
  if (!before(pathPosix.join(common, 'config'), startMs)) return found;
  for (const path of answers.keys()) {
    const relative = pathPosix.relative(tree, pathPosix.dirname(path));
    const steps = relative === '' ? [] : relative.split('/');
    let ok = true;
    for (let i = 0; i <= steps.length && ok; i++) {
      ok = before(pathPosix.join(tree, ...steps.slice(0, i), '.gitignore'), startMs);
    }
    if (ok) found.add(path);
  }
  return found;
}

// Map of absolute path -> source from `check-ignore -v -z` output; negations left out.
function parseVerbose(tree, output) {
  const fields = output.toString('latin1').split('\0');
  const found = new Map();
  for (let i = 0; i + 3 < fields.length; i += 4) {
    const [source, , pattern, path] = fields.slice(i, i + 4);
    if (pattern && !pattern.startsWith('!')) {
      found.set(path.startsWith('/') ? path : pathPosix.join(tree, path), source);
    }
  }
  return found;
}

module.exports = { OPTIONS, gitEnv, believed, parseVerbose };
