'use strict';
// Short-lived churn, as safedel/core/policy/churn.py: an entry born in this turn and
// removed within LIMIT seconds of its birth is deleted for real, never trashed nor
// counted; one that existed when the turn began, or lived longer, always reaches the
// trash. Birth is the kernel's (statx, through lstat at a descriptor of the very
// parent judged), never a name. Only a file, a symlink or an empty directory; never in
// safedel's own trash or state, nor in a git dir. tests/vectors/churn.json holds
// verdict() to the Python engine's.

const nativePath = require('path');
const { openSync, closeSync, fstatSync, lstatSync, readdirSync } = require('./originals.cjs');
const { realpathSync } = require('./originals.cjs');
const { DIR_FLAGS } = require('./resolve.cjs');

const LIMIT = 60;

// LIMIT, or less where SAFEDEL_CHURN_SECONDS asks (core/policy/churn.py limit): it only
// lowers, so nothing a command sets deletes more for real.
function limit(env) {
  const raw = env ? env.SAFEDEL_CHURN_SECONDS : undefined;
  if (raw === undefined) return LIMIT;
  const asked = Number(raw);
  if (raw === '' || Number.isNaN(asked)) return LIMIT;
  return Math.min(Math.max(asked, 0), LIMIT);
}

function turnStart(settings) {
  const raw = settings.turnStart || '';
  const cut = raw.indexOf(':');
  if (cut < 0 || raw.slice(cut + 1) !== settings.turn) return null;
  const start = Number(raw.slice(0, cut));
  return Number.isFinite(start) && start > 0 ? start : null;
}

// The rule without the file system.
function verdict(btime, start, now, isDirectory, entries, most = LIMIT) {
  if (btime === null || btime < start || now - btime > most || most <= 0) return false;
  return !isDirectory || entries === 0;
}

function real(path) {
  try {
    return Buffer.from(realpathSync(path)).toString('latin1');
  } catch {
    return Buffer.from(nativePath.resolve(path)).toString('latin1');
  }
}

let pointerFolders = null;

function kept(settings, env) {
  const home = settings.homeTrash || require('./trashroots.cjs').homeTrash(env).toString();
  const places = [home, settings.trashDir, settings.stateDir, settings.report];
  if (pointerFolders === null) {
    // The run pointers' folders (ancestry.cjs places): state of safedel's, never churn.
    const found = process.platform === 'linux' ? [...require('./ancestry.cjs').places()] : [];
    pointerFolders = found.map(([root, parts]) => nativePath.join(root, ...parts));
  }
  return [...places, ...pointerFolders].filter(Boolean).map(real);
}

function excluded(shown, settings, env) {
  if (`${shown}/`.includes('/.git/')) return true;
  return kept(settings, env).some((root) => shown === root || shown.startsWith(`${root}/`));
}

// The entry's birth (seconds) read at a descriptor of the parent judged, while the
// entry is the one judged; null otherwise.
function birthAtParent(target) {
  let fd;
  try {
    fd = openSync(target.parent, DIR_FLAGS);
  } catch {
    return null;
  }
  try {
    const here = fstatSync(fd);
    if (here.dev !== target.parentId[0] || here.ino !== target.parentId[1]) return null;
    const at = Buffer.concat([Buffer.from(`/proc/self/fd/${fd}/`), Buffer.from(target.name)]);
    const st = lstatSync(at, { bigint: true });
    if (Number(st.dev) !== target.st.dev || Number(st.ino) !== target.st.ino) return null;
    return st.birthtimeNs > 0n ? Number(st.birthtimeNs) / 1e9 : null;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

function shortLived(target, settings, env) {
  const st = target.st;
  if (!st || target.viaLink || !target.parentId || process.platform !== 'linux') return false;
  const start = turnStart(settings);
  if (start === null || st.ctimeMs / 1000 < start - 0.001) return false;
  if (excluded(Buffer.from(target.path).toString('latin1'), settings, env)) return false;
  const btime = birthAtParent(target);
  if (btime === null) return false;
  let entries = 0;
  if (st.isDirectory()) {
    try {
      entries = readdirSync(target.path).length;
    } catch {
      entries = 1;
    }
  }
  return verdict(btime, start, Date.now() / 1000, st.isDirectory(), entries, limit(env));
}

module.exports = { LIMIT, verdict, shortLived, turnStart };
