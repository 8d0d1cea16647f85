'use strict';
// Kept roots, as in safedel/core/policy/kept.py: safedel's own trash directories and state
// directory where they lie inside an exempt root (HOME=/tmp in a container). There
// they are roots of their own, nearer than the temp dir (workspace.location): what lies
// in them is judged, and an exempt directory that is or holds one is refused whole, as
// it can go neither into a trash inside itself nor away for real.

const pathPosix = require('path').posix;
const workspace = require('./workspace.cjs');

const found = new Map();

// The kept roots of settings (real, latin1) strictly inside an exempt root: the home
// trash (the one a run fixed, else the one env names), the single trash dir, the state
// dir, and this user's trashes at the top of an exempt root's mount.
function roots(settings, env) {
  // Asked at every exempt deletion: keyed on what the home trash is made of.
  const fixed = settings.homeTrash || '';
  const made = fixed ? '' : `${env.XDG_DATA_HOME}\0${env.HOME}`;
  const key = [fixed, made, settings.trashDir, settings.stateDir, ...settings.exempt].join('\0');
  let kept = found.get(key);
  if (kept === undefined) {
    let home = fixed ? latin1(fixed) : null;
    if (home === null && process.platform !== 'win32') {
      home = require('./trashroots.cjs').homeTrash(env).toString('latin1');
    }
    const trashDir = settings.trashDir ? latin1(settings.trashDir) : null;
    const stateDir = settings.stateDir ? latin1(settings.stateDir) : null;
    const exempt = workspace.exemptRoots(settings);
    kept = [home, trashDir, stateDir]
      .filter(Boolean)
      .map(workspace.real)
      .concat(mountTrashes(exempt))
      .filter((root) => workspace.deepest(root, exempt, true) !== null);
    if (found.size > 64) found.clear();
    found.set(key, kept);
  }
  return kept;
}

// This user's trashes at the top of each exempt root's own mount: where a project in a
// temp dir on a filesystem of its own (a tmpfs /tmp) has its items trashed.
function mountTrashes(exempt) {
  if (process.platform === 'win32') return [];
  const { statSync } = require('./originals.cjs');
  const { mountTopdir } = require('./trashroots.cjs');
  const uid = String(process.getuid());
  const found = [];
  for (const root of exempt) {
    let top;
    try {
      const st = statSync(Buffer.from(root, 'latin1'), { throwIfNoEntry: false });
      if (!st) continue;
      top = mountTopdir(Buffer.from(root, 'latin1'), st.dev).toString('latin1');
    } catch {
      continue; // the permission model may deny a look above the root: no trash known there
    }
    found.push(pathPosix.join(top, '.Trash-' + uid), pathPosix.join(top, '.Trash', uid));
  }
  return found;
}

const latin1 = (text) => Buffer.from(text, 'utf8').toString('latin1');

// The kept root that path (real, latin1) is, or holds strictly inside it, or null.
function held(path, settings, env) {
  const kept = roots(settings, env);
  return kept.find((root) => workspace.inside(root, path)) || null;
}

// Why a directory that is or holds the kept root must stay.
function reason(path, root) {
  const show = (p) => Buffer.from(p, 'latin1').toString('utf8');
  if (path === root) return `refusing to remove safedel's own trash or state ${show(root)}`;
  return `refusing to remove ${show(path)}, which holds safedel's own trash or state ${show(root)}`;
}

module.exports = { roots, held, reason };
