'use strict';
// Which environment protects this thread. A Worker started with `env: {}` (or any env
// without SAFEDEL_ACTIVE) still runs the preload, but its process.env says nothing:
// protection then comes from the parent's state, the environment the process was
// started with (/proc/self/environ), which the program's own code cannot have edited
// away. The main thread always reads process.env, at call time.

let inherited;

function isWorker() {
  // Node replaces process.chdir in every Worker; asking worker_threads costs ~2 ms.
  return typeof process.chdir === 'function' && process.chdir.name === 'unavailableInWorker';
}

function startEnvironment() {
  if (inherited !== undefined) return inherited;
  inherited = null;
  try {
    const raw = require('fs').readFileSync('/proc/self/environ');
    const env = {};
    for (const entry of raw.toString().split('\0')) {
      const at = entry.indexOf('=');
      if (at > 0 && !(entry.slice(0, at) in env)) env[entry.slice(0, at)] = entry.slice(at + 1);
    }
    if (env.SAFEDEL_ACTIVE === '1') inherited = env;
  } catch {
    // No /proc: such a Worker runs unprotected, as docs/coverage.md's table says.
  }
  return inherited;
}

// The environment the shim acts on, or null when it must stay inert.
function environment() {
  if (process.env.SAFEDEL_ACTIVE === '1') return process.env;
  return isWorker() ? startEnvironment() : null;
}

module.exports = { environment };
