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
const { closeSync, readFileSync } = require('./originals.cjs');
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
// and project are real latin1 paths; real(text) resolves one as the kernel would. A
// config file's roots count in full while a person's confirmation holds for its content
// (confirmed.cjs); from any other version, a root the confirmed one named still counts,
// and any other only inside the roots that count without it (or, with none, inside the
// project): the rest is held back with a warning, as core/policy/scopes.py does.
function collect(env, { start, project, stateDir, session, configPath, real }) {
  const home = env.HOME || os.homedir();
  const resolve = (entry, base) => {
    if (entry === '~' || entry.startsWith('~/')) entry = home + entry.slice(1);
    return real(nativePath.resolve(base, latin1(entry)));
  };
  const found = [];
  const warnings = [];
  for (const entry of (env.SAFEDEL_WORKSPACE || '').split(nativePath.delimiter)) {
    if (entry) found.push({ path: resolve(entry, start), scope: 'session', counted: true });
  }
  for (const entry of readSession(stateDir, session)) {
    found.push({ path: resolve(entry, start), scope: 'session', counted: true });
  }
  const text = (latin) => Buffer.from(latin, 'latin1').toString();
  // A project's files are read by their bytes (its path need not be UTF-8), and named
  // (in the confirmations and warnings) as Python names them.
  const fromFile = (scope, latin, base) =>
    fileRoots(scope, Buffer.from(latin, 'latin1'), text(latin), base, stateDir, resolve);
  found.push(...fromFile('local', nativePath.join(project, LOCAL_FILE), project));
  const shared = text(nativePath.join(project, PROJECT_FILE));
  for (const root of fromFile('project', nativePath.join(project, PROJECT_FILE), project)) {
    if (root.path === project || root.path.startsWith(project === '/' ? '/' : project + '/')) {
      found.push(root);
    } else {
      warnings.push(
        `${shared}: ignoring workspace root ${pyRepr(root.entry)}: a project's own config ` +
          `may only name folders inside ${text(project)}`
      );
    }
  }
  found.push(...fileRoots('user', configPath, configPath, start, stateDir, resolve));
  const counting = found.filter((r) => r.counted).map((r) => r.path);
  if (!counting.length) counting.push(project);
  const within = (path, root) => path === root || path.startsWith(root === '/' ? '/' : root + '/');
  const { heldMessage } = require('./confirmed.cjs');
  const kept = found.filter((root) => {
    if (root.counted || counting.some((c) => within(root.path, c))) return true;
    warnings.push(heldMessage(root.source, `workspace root ${pyRepr(root.entry)}`));
    return false;
  });
  if (!kept.length) kept.push({ path: project, scope: 'default' });
  const seen = new Set();
  const roots = kept.filter((r) => !seen.has(r.path) && seen.add(r.path));
  return { roots: roots.map(({ path, scope }) => ({ path, scope })), warnings };
}

// The roots of `workspace = [...]` in the config file read at bytes and named path, each
// counted when a person confirmed that root where it is now: a confirmed folder since
// replaced by a symlink to / is a new root, not the one they saw.
function fileRoots(scope, bytes, path, base, stateDir, resolve) {
  const { readText, kept, keptRoots } = require('./confirmed.cjs');
  const text = readText(bytes);
  const entries = text === null ? [] : parseList(text);
  if (!entries.length) return []; // most projects have no such file: no record to read
  const { roots, relative } = keptRoots(kept(path, stateDir));
  return entries.map((entry) => {
    const real = resolve(entry, base);
    // Recorded as Python names paths; a latin1 path of ours is its bytes.
    const named = Buffer.from(real, 'latin1').toString();
    const counted = roots.has(named) || (scope === 'user' && relative.has(entry));
    return { path: real, scope, source: path, entry, counted };
  });
}

// How Python's repr() shows a plain string, so that the warning reads the same.
function pyRepr(value) {
  const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
  const escaped = value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\t/g, '\\t');
  return quote + (quote === "'" ? escaped.replace(/'/g, "\\'") : escaped) + quote;
}

module.exports = { parseList, collect };
