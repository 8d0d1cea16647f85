'use strict';
// Settings from the environment and the config file, read at call time (like
// safedel/core/contract/settings.py), and the exempt / protected path policy (core/policy/targets.py).

const os = require('os');
const nativePath = require('path');
const pathPosix = nativePath.posix;

const DEFAULT_THRESHOLD = 50;
const MAX_THRESHOLD = 99999;
const warned = new Set();
const { O_RDONLY } = require('fs').constants;
const originals = require('./originals.cjs');
const { closeSync, readFileSync, writeSync } = originals;
const { printable } = require('./refusal.cjs');

function warnOnce(message) {
  if (warned.has(message)) return;
  warned.add(message);
  try {
    writeSync(2, `safedel: warning: ${printable(message)}\n`);
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

// The line breaks Python's str.splitlines() knows, so both sides see the same lines.
const LINE_BREAK = /\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/;

// Flat `key = value` lines, the subset of TOML that the Python side reads too.
function parseFlat(text) {
  const values = {};
  for (let line of text.split(LINE_BREAK)) {
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

// The user config file as it applies (confirmed.cjs, core/contract/userconfig.py): what
// it widens counts only once a person confirmed it. Read at the first value asked for:
// under `safedel run` the record fixes them all, and no config file is read.
function userConfig(env, stateDir) {
  const path = configPath(env);
  let state = null;
  function get(key) {
    const confirmed = require('./confirmed.cjs');
    if (state === null) {
      state = confirmed.standing(path, stateDir);
      state.values = state.text === null ? {} : parseFlat(state.text);
      state.keptValues = state.kept === null ? {} : parseFlat(state.kept);
    }
    const current = state.values[key];
    if (state.confirmed || (state.text === null && state.kept === null)) return current;
    const parse = (raw) => parseThreshold(raw, 'threshold in the config file');
    const rule = confirmed.RULES[key] || confirmed.same;
    const value = rule(current, state.keptValues[key], env, parse);
    if (value !== current) {
      const what = current === undefined ? `the removal of ${key}` : `${key} = ${current}`;
      warnOnce(confirmed.heldMessage(path, what));
    }
    return value;
  }
  return { get };
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

// A run's record is written once and never changes: read it once per process.
const runRecords = new Map();

function runRecord(stateDir, runId) {
  if (!runId || runId.includes('/') || runId === '.' || runId === '..') return {};
  const key = `${stateDir}\0${runId}`;
  if (!runRecords.has(key)) {
    const fixed = readRunRecord(stateDir, runId);
    if (fixed === null) return {};
    runRecords.set(key, fixed);
  }
  return runRecords.get(key);
}

function readRunRecord(stateDir, runId) {
  try {
    const { openUnder } = require('./private.cjs');
    const fd = openUnder(stateDir, ['runs', runId, 'run.json'], O_RDONLY, false);
    let record;
    try {
      record = JSON.parse(readFileSync(fd, 'latin1'));
    } finally {
      closeSync(fd);
    }
    return pick(record);
  } catch {
    return null;
  }
}

function pick(record) {
  const fixed = {};
  for (const key of ['session', 'turn', 'toolCall', 'threshold', 'turnStart']) {
    if (record && record[key] !== undefined && record[key] !== null) fixed[key] = record[key];
  }
  // Where the run keeps its ledger, report and trash (absolute paths; older records have
  // none), and the rest of its deletion policy, as core/contract/runrecord.py fixed_policy reads it.
  const absolute = (value) => typeof value === 'string' && nativePath.isAbsolute(value);
  for (const key of ['stateDir', 'report', 'homeTrash']) {
    if (record && absolute(record[key])) fixed[key] = record[key];
  }
  if (!record) return fixed;
  const strings = (value) => Array.isArray(value) && value.every((v) => typeof v === 'string');
  if (strings(record.workspaceRoots) && record.workspaceRoots.every(absolute)) {
    fixed.workspaceRoots = record.workspaceRoots;
  }
  if (strings(record.exempt)) fixed.exempt = record.exempt;
  if (fixed.exempt && 'exemptIds' in record) {
    // Each root's directory when the run started (exemptids.cjs).
    fixed.exemptIds = require('./exemptids.cjs').ofRecord(fixed.exempt, record.exemptIds);
  }
  if (['confirm', 'allow'].includes(record.outsideWorkspace)) {
    fixed.outsideWorkspace = record.outsideWorkspace;
  }
  if (record.trashDir === null || absolute(record.trashDir)) fixed.trashDir = record.trashDir;
  // The git the guard may ask (core/git/inert.py pinned): [path, "dev:ino:ctimeNs"],
  // or false for none.
  if ('git' in record) {
    const git = record.git;
    const pinned = Array.isArray(git) && git.length === 2;
    fixed.git = pinned && git.every((v) => typeof v === 'string') ? git : false;
  }
  return fixed;
}

function load(env) {
  // Under `safedel run` these were fixed when the run started (runs/<id>/run.json): the
  // command cannot move its deletions to another turn or lift the threshold for itself,
  // whatever it does to SAFEDEL_RUN_ID (ancestry.cjs finds the run from the process tree).
  const stateDir = env.SAFEDEL_STATE_DIR || defaultStateDir(env);
  // Under a run's keeper, the record it holds, which the run's files must agree with
  // (keptrecord.cjs): a command can rewrite a file, not the keeper's memory.
  const checked = require('./keptrecord.cjs').governing(env.SAFEDEL_RUN_ID);
  const enclosing = checked ? checked.record : require('./ancestry.cjs').enclosing();
  const fixed = enclosing ? pick(enclosing) : runRecord(stateDir, env.SAFEDEL_RUN_ID);
  // The run's ledger, signals and report too: a command that moves SAFEDEL_STATE_DIR
  // would otherwise count from zero in a ledger of its own, out of the run's sight.
  const fixedDir = fixed.stateDir || stateDir;
  const config = userConfig(env, fixedDir);
  const who = {
    session: env.SAFEDEL_SESSION || 'default',
    turn: currentTurn(env),
    toolCall: env.SAFEDEL_TOOL_CALL || '',
    turnStart: env.SAFEDEL_TURN_START || '',
  };
  Object.assign(who, fixed);
  if (who.threshold === undefined) {
    who.threshold =
      'SAFEDEL_THRESHOLD' in env
        ? parseThreshold(env.SAFEDEL_THRESHOLD, 'SAFEDEL_THRESHOLD')
        : parseThreshold(config.get('threshold'), 'threshold in the config file');
  }
  return {
    session: who.session,
    turn: who.turn,
    toolCall: who.toolCall,
    stateDir: fixedDir,
    report: who.report || env.SAFEDEL_REPORT || nativePath.join(fixedDir, 'report.jsonl'),
    threshold: who.threshold,
    // A run's own start, not one the command exports to uncount older files.
    turnStart: who.turnStart,
    // The run's deletion policy too: a command that widens its workspace, exempts
    // everything, skips the outside question or moves the trash into an exempt folder
    // for itself still deletes as the run decided.
    trashDir: 'trashDir' in who ? who.trashDir : envTrashDir(env, config),
    homeTrash: who.homeTrash || null,
    exempt: who.exempt || envExempt(env, config),
    // What the run or the bootstrap fixed each exempt root as (exemptids.cjs).
    exemptIds: who.exemptIds || envExemptIds(env),
    workspaceRoots: who.workspaceRoots || null,
    outsideWorkspace: parseOutside(
      who.outsideWorkspace ?? env.SAFEDEL_OUTSIDE_WORKSPACE ?? config.get('outside_workspace')
    ),
    // The `safedel run` this process is under (a run found by ancestry names itself).
    run: (enclosing && enclosing.run) || env.SAFEDEL_RUN_ID || null,
    // A run's record fixed these values: its keeper must be found (keeper.cjs).
    bound: Boolean(checked || enclosing) || Object.keys(fixed).length > 0,
    // Why every deletion fails closed: a run's file differs from what its keeper holds.
    tampered: checked ? checked.why : null,
    // The git a run found when it started (null: no run pinned one; look on PATH).
    git: 'git' in who ? who.git : null,
  };
}

function envTrashDir(env, config) {
  return env.SAFEDEL_TRASH_DIR || config.get('trash_dir') || null;
}

// The config's `exempt` as it applies, else the temp dir; plus a person's
// SAFEDEL_EXEMPT; an empty one (--no-exempt's) means none, and one handed down by a run or a
// bootstrap (SAFEDEL_EXEMPT_IDS beside it) is the whole list already
// (core/contract/settings.py exempt_roots).
function envExempt(env, config) {
  const given = env.SAFEDEL_EXEMPT;
  if (given === '' || (given !== undefined && env.SAFEDEL_EXEMPT_IDS !== undefined)) {
    return require('./caches.cjs').joined(given.split(nativePath.delimiter).filter(Boolean), env);
  }
  const parts = [];
  let configured = config.get('exempt');
  if (configured === undefined || configured === null) {
    configured = env.TMPDIR || env.TEMP || env.TMP || '/tmp';
  }
  for (const value of [configured, given]) {
    for (const part of String(value || '').split(nativePath.delimiter)) {
      if (part && !parts.includes(part)) parts.push(part);
    }
  }
  return require('./caches.cjs').joined(parts, env);
}

// Read at every deletion: parsed once per value.
let exemptIdsText = null;
let exemptIdsFound = null;

function envExemptIds(env) {
  const text = env.SAFEDEL_EXEMPT_IDS;
  if (text === undefined) return null;
  if (text !== exemptIdsText) {
    exemptIdsFound = require('./exemptids.cjs').parse(text);
    exemptIdsText = text;
  }
  return exemptIdsFound;
}

// "confirm" (the default: refused until approved) or "allow" (trashed like the rest).
function parseOutside(raw) {
  const value = String(raw ?? '').trim().toLowerCase();
  if (value === '' || value === 'confirm' || value === 'allow') return value || 'confirm';
  warnOnce(`outside_workspace=${JSON.stringify(raw)} is not one of confirm, allow; using confirm`);
  return 'confirm';
}

module.exports = { load, warnOnce, parseThreshold, configPath, parseFlat, userConfig };
