'use strict';
// Workspace roots when `safedel run` handed none down (a Node program in a bootstrapped
// shell), merged from the same scopes and files as safedel/core/policy/workspace.py and
// workspace_files.py: session (SAFEDEL_WORKSPACE, and what `safedel workspace add
// --scope session` stored), local (.safedel/config.local.toml), project
// (.safedel/config.toml, held inside its own project: a cloned repository must not widen
// the boundary) and user (the config file). With none, the project itself.
// Paths are latin1 strings (one char per byte), as workspace.cjs keeps them.

const os = require('os');
const nativePath = require('path');
const { O_RDONLY } = require('fs').constants;
const { closeSync, readFileSync, lstatSync } = require('./originals.cjs');
const { digest, openUnder } = require('./private.cjs');

const KEY = 'workspace';
const LOCAL_FILE = '.safedel/config.local.toml';
const PROJECT_FILE = '.safedel/config.toml';
// The line breaks Python's str.splitlines() knows, so both sides see the same lines.
const LINE_BREAK = /\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/;

// The quoted strings in text, in order ('...' literal, "..." with \ escapes); a `#`
// outside quotes comments out the rest of its line.
function quotedStrings(text) {
  const found = [];
  for (let index = 0; index < text.length; index += 1) {
    const quote = text[index];
    if (quote === '#') {
      index = text.indexOf('\n', index);
      if (index < 0) break;
    } else if (quote === "'" || quote === '"') {
      let end = index + 1;
      let value = '';
      while (end < text.length && text[end] !== quote) {
        if (quote === '"' && text[end] === '\\' && end + 1 < text.length) end += 1;
        value += text[end];
        end += 1;
      }
      found.push(value);
      index = end;
    }
  }
  return found;
}

// [first, last] line numbers of the top-level `workspace = [...]`, or null.
function span(lines) {
  for (let number = 0; number < lines.length; number += 1) {
    const stripped = lines[number].trim();
    if (stripped.startsWith('[')) return null; // a table: the key is top-level only
    const equals = stripped.indexOf('=');
    if (equals < 0 || stripped.slice(0, equals).trim() !== KEY) continue;
    const value = stripped.slice(equals + 1).split('#', 1)[0];
    const depth = (code) => code.split('[').length - code.split(']').length;
    let last = number;
    let open = depth(value);
    while (open > 0 && last + 1 < lines.length) {
      last += 1;
      open += depth(lines[last].split('#', 1)[0]);
    }
    return [number, last];
  }
  return null;
}

// The strings of `workspace = [...]` in text (a config file's).
function parseList(text) {
  const lines = text.split(LINE_BREAK);
  if (lines.length && lines[lines.length - 1] === '') lines.pop();
  const found = span(lines);
  if (found === null) return [];
  const joined = lines.slice(found[0], found[1] + 1).join('\n');
  return quotedStrings(joined.slice(joined.indexOf('=') + 1));
}

// path: a string, or a Buffer for a latin1 path of ours.
function readList(path) {
  try {
    // Most projects have no such file: a missing one must not cost an exception.
    if (!lstatSync(path, { throwIfNoEntry: false })) return [];
    return parseList(readFileSync(path, 'utf8'));
  } catch {
    return [];
  }
}

// The roots `safedel workspace add --scope session` stored for session.
function readSession(stateDir, session) {
  let fd;
  try {
    fd = openUnder(stateDir, ['workspaces', digest(session) + '.json'], O_RDONLY, false);
    const record = JSON.parse(readFileSync(fd, 'utf8'));
    const roots = record && typeof record === 'object' ? record.roots : null;
    return Array.isArray(roots) ? roots.filter((r) => typeof r === 'string') : [];
  } catch {
    return [];
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function latin1(text) {
  return Buffer.from(text, 'utf8').toString('latin1');
}

// Every configured root as { path, scope }, then warnings about entries ignored. start
// and project are real latin1 paths; real(text) resolves one as the kernel would.
function collect(env, { start, project, stateDir, session, configPath, real }) {
  const home = env.HOME || os.homedir();
  const resolve = (entry, base) => {
    if (entry === '~' || entry.startsWith('~/')) entry = home + entry.slice(1);
    return real(nativePath.resolve(base, latin1(entry)));
  };
  const found = [];
  const warnings = [];
  for (const entry of (env.SAFEDEL_WORKSPACE || '').split(nativePath.delimiter)) {
    if (entry) found.push({ path: resolve(entry, start), scope: 'session' });
  }
  for (const entry of readSession(stateDir, session)) {
    found.push({ path: resolve(entry, start), scope: 'session' });
  }
  const bytes = (text) => Buffer.from(text, 'latin1');
  for (const entry of readList(bytes(nativePath.join(project, LOCAL_FILE)))) {
    found.push({ path: resolve(entry, project), scope: 'local' });
  }
  const shared = nativePath.join(project, PROJECT_FILE);
  for (const entry of readList(bytes(shared))) {
    const path = resolve(entry, project);
    if (path === project || path.startsWith(project === '/' ? '/' : project + '/')) {
      found.push({ path, scope: 'project' });
    } else {
      const shown = Buffer.from(shared, 'latin1').toString();
      const where = Buffer.from(project, 'latin1').toString();
      warnings.push(
        `${shown}: ignoring workspace root ${pyRepr(entry)}: a project's own config ` +
          `may only name folders inside ${where}`
      );
    }
  }
  for (const entry of readList(configPath)) {
    found.push({ path: resolve(entry, start), scope: 'user' });
  }
  if (!found.length) found.push({ path: project, scope: 'default' });
  const seen = new Set();
  return { roots: found.filter((r) => !seen.has(r.path) && seen.add(r.path)), warnings };
}

// How Python's repr() shows a plain string, so that the warning reads the same.
function pyRepr(value) {
  const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
  const escaped = value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\t/g, '\\t');
  return quote + (quote === "'" ? escaped.replace(/'/g, "\\'") : escaped) + quote;
}

module.exports = { parseList, collect };
