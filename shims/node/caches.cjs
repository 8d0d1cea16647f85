'use strict';
// The user's tool caches, as safedel/core/contract/caches.py lists them: they join the
// exempt roots (deleted for real, never counted, never asked about), each held to the
// directory it was when fixed (exemptids.cjs). Only these places under the home, each
// a directory of this user's strictly inside the home's real path.

const nativePath = require('path');
const { statSync, realpathSync } = require('./originals.cjs');

const PLACES = [
  '.npm',
  '.yarn/berry/cache',
  '.local/share/pnpm/store',
  '.cargo/registry',
  '.cargo/git',
  'go/pkg/mod',
  '.m2/repository',
  '.gradle/caches',
  '.gradle/wrapper/dists',
  '.node-gyp',
  '.bun/install/cache',
  '.nuget/packages',
  '.conda/pkgs',
  '.ccache',
];
const found = new Map();

function candidates(env) {
  const home = env.HOME || '';
  if (!nativePath.isAbsolute(home)) return [];
  const xdg = env.XDG_CACHE_HOME || '';
  const first = nativePath.isAbsolute(xdg) ? xdg : nativePath.join(home, '.cache');
  return [first, ...PLACES.map((place) => nativePath.join(home, place))];
}

function usable(env) {
  const places = candidates(env);
  if (!places.length) return [];
  let home;
  try {
    home = realpathSync(env.HOME);
  } catch {
    home = nativePath.resolve(env.HOME);
  }
  const inside = home.replace(/\/+$/, '') + '/';
  const uid = typeof process.getuid === 'function' ? process.getuid() : null;
  return places.filter((place) => {
    try {
      const st = statSync(place);
      if (!st.isDirectory() || (uid !== null && st.uid !== uid)) return false;
      return realpathSync(place).startsWith(inside);
    } catch {
      return false;
    }
  });
}

function roots(env) {
  const key = `${env.HOME}\0${env.XDG_CACHE_HOME}`;
  if (!found.has(key)) found.set(key, usable(env));
  return found.get(key);
}

// The kernel's POSIX IPC dir, as caches.py kernel_ipc: /dev/shm when it is a mount of
// its own (sem_open's and shm_unlink's names; nobody keeps those).
const KERNEL_IPC = '/dev/shm';
let ipc = null;
function kernelIpc() {
  if (ipc === null) {
    try {
      const { lstatSync } = require('./originals.cjs');
      const st = lstatSync(KERNEL_IPC);
      const parent = statSync(nativePath.dirname(KERNEL_IPC));
      ipc = st.isDirectory() && st.dev !== parent.dev ? [KERNEL_IPC] : [];
    } catch {
      ipc = [];
    }
  }
  return ipc;
}

// exempt with the caches and the kernel's IPC dir added; none when exempt is empty
// (`--no-exempt`).
function joined(exempt, env) {
  if (!exempt.length) return exempt;
  return [...exempt, ...[...roots(env), ...kernelIpc()].filter((c) => !exempt.includes(c))];
}

module.exports = { PLACES, candidates, roots, joined };
