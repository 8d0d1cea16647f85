'use strict';
// What safedel leaves behind: marker lines on stderr, report events, signal files. The
// JSON is byte-for-byte what Python's json.dumps(ensure_ascii=True) writes, so a hostile
// name can neither end a line nor fake a marker, and both runtimes' lines look alike.

const fs = require('fs');
const pathPosix = require('path').posix;
const { openPrivate, privateDir, digest } = require('./private.cjs');

// Node >= 18.14; older ones take the byte-by-byte path for anything not plain ASCII.
const { isUtf8 } = require('buffer');
const PREFIX = '[safe-delete]';
const MAX_TARGETS = 20;
const { O_WRONLY, O_APPEND, O_CREAT, O_EXCL } = fs.constants;
const { writeSync, closeSync, renameSync } = require('./originals.cjs');

function escapeChar(ch) {
  return '\\u' + ch.charCodeAt(0).toString(16).padStart(4, '0');
}

function asciiJson(value) {
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, escapeChar);
}

// Bytes -> str the way Python's os.fsdecode does: valid UTF-8 decodes, and every byte
// of an invalid sequence becomes a lone surrogate U+DC80+byte (surrogateescape).
function fsdecode(buf) {
  if (typeof buf === 'string') return buf;
  if (isUtf8 ? isUtf8(buf) : !buf.some((byte) => byte > 0x7f)) return buf.toString('utf8');
  let out = '';
  let i = 0;
  while (i < buf.length) {
    const len = sequenceLength(buf, i);
    if (len) {
      out += buf.toString('utf8', i, i + len);
      i += len;
    } else {
      out += String.fromCharCode(0xdc00 + buf[i]);
      i += 1;
    }
  }
  return out;
}

// Length of the valid UTF-8 sequence at i, or 0 (overlongs and surrogates are invalid).
function sequenceLength(buf, i) {
  const b0 = buf[i];
  if (b0 < 0x80) return 1;
  let len;
  let lo = 0x80;
  let hi = 0xbf;
  if (b0 >= 0xc2 && b0 <= 0xdf) len = 2;
  else if (b0 >= 0xe0 && b0 <= 0xef) {
    len = 3;
    if (b0 === 0xe0) lo = 0xa0;
    if (b0 === 0xed) hi = 0x9f;
  } else if (b0 >= 0xf0 && b0 <= 0xf4) {
    len = 4;
    if (b0 === 0xf0) lo = 0x90;
    if (b0 === 0xf4) hi = 0x8f;
  } else return 0;
  if (i + len > buf.length) return 0;
  if (buf[i + 1] < lo || buf[i + 1] > hi) return 0;
  for (let k = 2; k < len; k++) {
    if ((buf[i + k] & 0xc0) !== 0x80) return 0;
  }
  return len;
}

function emit(kind, payload) {
  try {
    writeSync(2, `${PREFIX}[${kind}] ${asciiJson(payload)}\n`);
  } catch {
    // stderr is closed; the error object still says what happened.
  }
}

// Who runs us, as safedel/core/contract/host.py tells it (docs/configuration.md, "Hosts"); what
// `safedel run` saw wins only over a plain "script".
const HOSTS = [
  ['claude-code', 'CLAUDECODE', '1'],
  ['codex', 'CODEX_SANDBOX', null],
  ['codex', 'CODEX_SANDBOX_NETWORK_DISABLED', null],
  ['codex', 'CODEX_THREAD_ID', null],
  ['cursor', 'CURSOR_AGENT', null],
  ['gemini-cli', 'GEMINI_CLI', null],
  ['github-actions', 'GITHUB_ACTIONS', 'true'],
  ['gitlab-ci', 'GITLAB_CI', null],
  ['buildkite', 'BUILDKITE', 'true'],
  ['jenkins', 'JENKINS_URL', null],
  ['ci', 'CI', null],
  ['vscode', 'TERM_PROGRAM', 'vscode'],
  ['jetbrains', 'TERMINAL_EMULATOR', 'JetBrains-JediTerm'],
];
const AGENTS = new Set(['claude-code', 'codex', 'cursor', 'gemini-cli']);
let hostName = null;

function host() {
  if (hostName !== null) return hostName;
  const env = process.env;
  for (const [name, variable, value] of HOSTS) {
    const found = (env[variable] || '').trim().toLowerCase();
    if (!found || ['0', 'false', 'no'].includes(found)) continue;
    if (value === null || found === value.toLowerCase()) return (hostName = name);
  }
  hostName = env.SAFEDEL_HOST || (require('tty').isatty(0) ? 'terminal' : 'script');
  return hostName;
}

// Whether an agent host runs us: then a model reads what we print.
function agentHost() {
  return AGENTS.has(host());
}

function event(operation, settings, fields) {
  return Object.assign({ v: 1, operation }, fields, {
    runtime: 'node',
    timestamp: Date.now(),
    session: settings.session,
    turn: settings.turn,
    toolCall: settings.toolCall,
    pid: process.pid,
    host: host(),
    // The `safedel run` this process is under: its result lists exactly these events.
    ...(settings.run ? { run: settings.run } : {}),
  });
}

// Append events to the report with one O_APPEND write for the whole batch.
function append(reportPath, events) {
  if (!reportPath || !events.length) return;
  const data = events.map((e) => asciiJson(e) + '\n').join('');
  const fd = openPrivate(reportPath, O_WRONLY | O_APPEND | O_CREAT);
  try {
    writeSync(fd, data);
  } finally {
    closeSync(fd);
  }
}

function reportRefusals(settings, targets, reason) {
  try {
    append(
      settings.report,
      targets.map((path) => event('refuse', settings, { path, reason }))
    );
  } catch {
    // The refusal itself still stands; only its audit line is missing.
  }
}

// Leave the latest refusal where a harness finds it: one file per run under `safedel
// run` (else per tool call, or turn), replaced whole by rename so that a reader never
// sees half of it.
function writeSignal(settings, type, payload) {
  const run = settings.run || null;
  const signal = { type, payload, session: settings.session, turn: settings.turn };
  signal.toolCall = settings.toolCall;
  signal.run = run;
  signal.createdAt = Date.now();
  const name = digest(run ? `run:${run}` : settings.toolCall || settings.turn) + '.json';
  try {
    const dirs = privateDir(settings.stateDir, ['signals', digest(settings.session)], true);
    const dir = dirs[dirs.length - 1];
    const temporary = pathPosix.join(dir, `.${name}.${process.pid}.${Date.now().toString(16)}.tmp`);
    const fd = openPrivate(temporary, O_WRONLY | O_CREAT | O_EXCL);
    try {
      writeSync(fd, asciiJson(signal));
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, pathPosix.join(dir, name));
  } catch {
    // The marker on stderr and the report event already carry the refusal.
  }
}

module.exports = {
  MAX_TARGETS,
  asciiJson,
  fsdecode,
  emit,
  event,
  agentHost,
  append,
  host,
  reportRefusals,
  writeSignal,
};
