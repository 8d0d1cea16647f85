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
// config file's root counts where a person confirmed it (confirmed.cjs); any other only
// inside the roots that count without it, or that were confirmed (with none, inside the
// project), and a confirmed root the file dropped comes back where the workspace would
// otherwise fall to the project: as core/policy/scopes.py does, with the same warnings.
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
  const within = (path, root) => path === root || path.startsWith(root === '/' ? '/' : root + '/');
  const local = fromFile('local', nativePath.join(project, LOCAL_FILE), project);
  found.push(...local.roots);
  const confirmed = [...local.kept];
  const shared = text(nativePath.join(project, PROJECT_FILE));
  const own = fromFile('project', nativePath.join(project, PROJECT_FILE), project);
  for (const root of own.roots) {
    if (within(root.path, project)) {
      found.push(root);
    } else {
      warnings.push(
        `${shared}: ignoring workspace root ${pyRepr(root.entry)}: a project's own config ` +
          `may only name folders inside ${text(project)}`
      );
    }
  }
  confirmed.push(...own.kept.filter((root) => within(root.path, project)));
  const user = fileRoots('user', configPath, configPath, start, stateDir, resolve);
  found.push(...user.roots);
  confirmed.push(...user.kept);
  const kept = narrow(found, confirmed, project, warnings, within);
  if (!kept.length) kept.push({ path: project, scope: 'default' });
  const seen = new Set();
  const roots = kept.filter((r) => !seen.has(r.path) && seen.add(r.path));
  return { roots: roots.map(({ path, scope }) => ({ path, scope })), warnings };
}

// found without each root that counts only where it narrows, or, when none is left, the
// confirmed roots the files dropped (so the workspace does not fall to the project).
function narrow(found, confirmed, project, warnings, within) {
  const { heldMessage } = require('./confirmed.cjs');
  const counted = found.filter((r) => r.counted).map((r) => r.path);
  const dropped = confirmed.filter((r) => !counted.includes(r.path));
  const counting = [...counted, ...dropped.map((r) => r.path)];
  if (!counting.length) counting.push(project);
  const kept = found.filter((root) => {
    if (root.counted || counting.some((c) => within(root.path, c))) return true;
    warnings.push(heldMessage(root.source, `workspace root ${pyRepr(root.entry)}`));
    return false;
  });
  if (kept.length) return kept;
  for (const root of dropped) {
    const what = `the change that drops workspace root ${pyRepr(root.entry)}`;
    warnings.push(heldMessage(root.source, what));
  }
  return dropped;
}

// { roots, kept } of the config file read at bytes and named path: the roots of its
// `workspace = [...]`, each counted when a person confirmed that root where it is now (a
// confirmed folder since replaced by a symlink to / is a new root, not theirs), and the
// roots a person confirmed for it.
function fileRoots(scope, bytes, path, base, stateDir, resolve) {
  const confirmed = require('./confirmed.cjs');
  const text = confirmed.readText(bytes);
  const entries = text === null ? [] : parseList(text);
  const { roots, relative } = confirmed.keptRoots(confirmed.kept(path, stateDir));
  // Recorded as Python names paths; a latin1 path of ours is its bytes.
  const kept = [...roots].map((r) => ({ path: latin1(r), scope, source: path, entry: r }));
  for (const entry of relative) {
    kept.push({ path: resolve(entry, base), scope, source: path, entry });
  }
  const found = entries.map((entry) => {
    const real = resolve(entry, base);
    const named = Buffer.from(real, 'latin1').toString();
    const counted = roots.has(named) || (scope === 'user' && relative.has(entry));
    return { path: real, scope, source: path, entry, counted };
  });
  return { roots: found, kept };
}

// How Python's repr() shows a plain string, so that the warning reads the same.
function pyRepr(value) {
  const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
  const escaped = value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\t/g, '\\t');
  return quote + (quote === "'" ? escaped.replace(/'/g, "\\'") : escaped) + quote;
}

module.exports = { parseList, collect };
