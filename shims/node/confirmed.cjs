'use strict';
// The config files a person confirmed, as safedel/core/contract/confirmed.py keeps them
// (<state dir>/confirmed.json: per file path, the text confirmed), and the rule for the
// rest, as core/contract/userconfig.py applies it: a file applies in full while its
// content is that text, byte for byte; from any other version a value applies only
// where it is no wider than the confirmed version's (or, never confirmed, the
// default's), and a warning names what waits. A command that writes the config file
// widens nothing, for its own run or a later one.

const nativePath = require('path');
const { O_RDONLY, O_NONBLOCK = 0 } = require('fs').constants;
const originals = require('./originals.cjs');
const { closeSync, fstatSync, openSync, readSync, realpathSync, statSync } = originals;

const RECORD = 'confirmed.json';
const VERSION = 1;
const MAX_BYTES = 1 << 20;
// Python's bytes.decode('utf-8'): invalid bytes give no text at all, a BOM is kept.
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const records = new Map(); // state dir -> { key, files }

// The whole content of the regular file at path (a string or Buffer) as bytes, or null.
function readBytes(path, limit) {
  let fd;
  try {
    // Most people have no config file: a missing one must not cost an exception per call.
    if (!statSync(path, { throwIfNoEntry: false })) return null;
    // O_NONBLOCK: a FIFO put where a config file goes must not hang every deletion.
    fd = openSync(path, O_RDONLY | O_NONBLOCK);
    const st = fstatSync(fd);
    if (!st.isFile()) return null;
    const chunks = [];
    let size = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(65536);
      const got = readSync(fd, chunk, 0, chunk.length, null);
      if (!got) break;
      chunks.push(chunk.subarray(0, got));
      size += got;
      if (size > limit) return null;
    }
    return Buffer.concat(chunks);
  } catch {
    return null;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

// The config file's content as text: null when missing, too big or not UTF-8.
function readText(path) {
  const bytes = readBytes(path, MAX_BYTES);
  if (bytes === null) return null;
  try {
    return decoder.decode(bytes);
  } catch {
    return null;
  }
}

function confirmedFiles(stateDir) {
  let fd;
  try {
    // Nearly nobody has confirmed a file: a missing record must not cost an exception.
    if (!originals.lstatSync(nativePath.join(stateDir, RECORD), { throwIfNoEntry: false })) {
      records.delete(stateDir);
      return {};
    }
    const { openUnder } = require('./private.cjs');
    // O_NONBLOCK: a FIFO planted where the record goes must not hang a deletion.
    fd = openUnder(stateDir, [RECORD], O_RDONLY | O_NONBLOCK, false);
  } catch {
    records.delete(stateDir);
    return {};
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return {};
    const key = `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`;
    const known = records.get(stateDir);
    if (known && known.key === key) return known.files;
    const files = valid(originals.readFileSync(fd, 'utf8'));
    records.set(stateDir, { key, files });
    return files;
  } catch {
    return {};
  } finally {
    closeSync(fd);
  }
}

function valid(text) {
  let found;
  try {
    found = JSON.parse(text);
  } catch {
    return {};
  }
  if (!found || typeof found !== 'object' || found.v !== VERSION) return {};
  const files = found.files;
  if (!files || typeof files !== 'object' || Array.isArray(files)) return {};
  const kept = Object.create(null);
  for (const [path, entry] of Object.entries(files)) {
    if (entry && typeof entry === 'object' && typeof entry.text === 'string') kept[path] = entry;
  }
  return kept;
}

// What a person last confirmed for the file at path (a UTF-8 string): its record entry
// (text, and roots and relative for its workspace roots), or null.
function kept(path, stateDir) {
  if (!stateDir) return null;
  return confirmedFiles(stateDir)[nativePath.resolve(path)] || null;
}

function keptText(path, stateDir) {
  const entry = kept(path, stateDir);
  return entry ? entry.text : null;
}

// { roots, relative } confirmed with entry: the real paths of its workspace roots where
// the person saw them, and the user config's entries relative to where a command starts.
function keptRoots(entry) {
  const strings = (value) =>
    new Set(Array.isArray(value) ? value.filter((v) => typeof v === 'string') : []);
  return { roots: strings(entry && entry.roots), relative: strings(entry && entry.relative) };
}

// { text, kept, confirmed } of the config file at path (a string; text given if read).
function standing(path, stateDir, text) {
  if (text === undefined) text = readText(path);
  const kept = keptText(path, stateDir); // a file that is gone keeps what was confirmed
  return { text, kept, confirmed: text !== null && text === kept };
}

const AGENTS = new Set(['claude-code', 'codex', 'cursor', 'gemini-cli']);

// The one line that says a setting waits; under an agent harness it names no command.
function heldMessage(path, what) {
  const { host } = require('./audit.cjs');
  const how = AGENTS.has(host())
    ? 'it waits until the user confirms the file at their own terminal'
    : '`safedel config trust` at a terminal shows the change and asks';
  return `${path}: not applying ${what}: no person confirmed this version of the file; ${how}`;
}

function realOf(path) {
  try {
    return realpathSync(path);
  } catch {
    return nativePath.resolve(path);
  }
}

function within(path, root) {
  root = root.replace(/\/+$/, '') || '/';
  return path === root || path.startsWith(root === '/' ? '/' : root + '/');
}

// Each rule gives the value to apply from current and kept (undefined: not set).
const RULES = {
  threshold(current, kept, env, parse) {
    return parse(current) > parse(kept) ? kept : current;
  },
  outside_workspace(current, kept) {
    const narrow = (v) =>
      v !== undefined && !['', 'allow'].includes(String(v).trim().toLowerCase());
    if (narrow(current) || current === kept) return current;
    return narrow(kept) ? kept : undefined;
  },
  exempt(current, kept, env) {
    if (current === undefined) return kept;
    const roots = (value) => String(value).split(nativePath.delimiter).filter(Boolean);
    const fallback = env.TMPDIR || env.TEMP || env.TMP || '/tmp';
    const allowed = roots(kept === undefined ? fallback : kept).map(realOf);
    const inside = roots(current).filter((p) => allowed.some((a) => within(realOf(p), a)));
    return inside.length === roots(current).length ? current : inside.join(nativePath.delimiter);
  },
};

function same(current, kept) {
  return current === kept ? current : kept;
}

module.exports = { readText, kept, keptRoots, keptText, standing, heldMessage, RULES, same };
