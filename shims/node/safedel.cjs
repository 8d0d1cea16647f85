'use strict';
// safedel's Node preload (NODE_OPTIONS=--require "<home>/node/safedel.cjs"): fs deletions
// go to the trash, with the bulk guard and the report. Inert unless SAFEDEL_ACTIVE=1;
// a second load is a no-op; loading never throws. No dependencies: everything it needs
// sits next to it in this directory.

(function safedelPreload() {
  const installed = Symbol.for('safedel.node.installed');
  if (process[installed]) return;
  // A Worker given `env: {}` is protected by the state its process started with.
  const inWorker = process.chdir && process.chdir.name === 'unavailableInWorker';
  if (process.env.SAFEDEL_ACTIVE !== '1') {
    if (!inWorker || !require('./inherit.cjs').environment()) return;
  }
  try {
    Object.defineProperty(process, installed, { value: true });
    try {
      // Where this process started: its workspace when `safedel run` named none.
      // As the kernel names it, a latin1 string of its bytes (workspace.cjs).
      let startDir;
      try {
        startDir = require('fs').readlinkSync('/proc/self/cwd', { encoding: 'buffer' });
        startDir = startDir.toString('latin1');
      } catch {
        startDir = Buffer.from(process.cwd(), 'utf8').toString('latin1');
      }
      Object.defineProperty(process, Symbol.for('safedel.node.startDir'), { value: startDir });
    } catch {
      // A directory removed under us: the workspace is found when it is needed.
    }
    require('./patch.cjs').install();
    if (!inWorker) require('./workers.cjs').carry(__filename);
  } catch (err) {
    try {
      const why = String(err && err.message).replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');
      const message = `safedel: warning: the Node shim did not load: ${why}\n`;
      require('fs').writeSync(2, message);
    } catch {
      // Nowhere to report it; the process runs unprotected rather than not at all.
    }
  }
})();
