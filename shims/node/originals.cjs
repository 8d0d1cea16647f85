'use strict';
// The fs functions the engine uses, taken before anything is patched: the engine loads
// lazily (at the first deletion), by which time fs.unlinkSync and friends are wrappers,
// and the engine must never call back into them.

const fs = require('fs');

module.exports = {
  closeSync: fs.closeSync,
  fchmodSync: fs.fchmodSync,
  fchownSync: fs.fchownSync,
  fstatSync: fs.fstatSync,
  ftruncateSync: fs.ftruncateSync,
  futimesSync: fs.futimesSync,
  linkSync: fs.linkSync,
  lstatSync: fs.lstatSync,
  mkdirSync: fs.mkdirSync,
  openSync: fs.openSync,
  readdirSync: fs.readdirSync,
  readFileSync: fs.readFileSync,
  readSync: fs.readSync,
  readlinkSync: fs.readlinkSync,
  realpathSync: fs.realpathSync.native,
  renameSync: fs.renameSync,
  rmdirSync: fs.rmdirSync,
  rmSync: fs.rmSync,
  statSync: fs.statSync,
  unlinkSync: fs.unlinkSync,
  writeSync: fs.writeSync,
};
