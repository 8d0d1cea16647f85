'use strict';
// What a refusal tells its reader to do (safedel/core/guard/remedy.py words it the same
// way). Under an agent host or a harness the reader is a model: it is told to ask its
// user, and no command or setting that would lift the guard. A person is told a command
// that works as written on their next command line.

const audit = require('./audit.cjs');

const FOR_A_MODEL = 'the user must approve it';
const SHELL_SESSION = 'shell-';

function readByAModel(env = process.env) {
  return env.SAFEDEL_HARNESS === '1' || audit.agentHost();
}

function quoted(value) {
  const shown = require('./refusal.cjs').printable(value);
  if (shown && /^[A-Za-z0-9\-_.:/@%+=,]+$/.test(shown)) return shown;
  return "'" + shown.replace(/'/g, "'\\''") + "'";
}

function approve(settings, option) {
  if (String(settings.session).startsWith(SHELL_SESSION) && !settings.run) {
    return `run \`safedel guard approve${option}\`, then run the command again`;
  }
  const where = `--session ${quoted(settings.session)} --turn ${quoted(settings.turn)}`;
  const again = settings.run ? `with \`safedel run ${where}\`` : 'in that turn';
  return `run \`safedel guard approve${option} ${where}\`, then run the command again ${again}`;
}

function bulk(settings) {
  return readByAModel() ? FOR_A_MODEL : 'to allow it, ' + approve(settings, '');
}

function outside(settings) {
  if (readByAModel()) return FOR_A_MODEL;
  return (
    'to allow it, ' +
    approve(settings, ' --outside-workspace') +
    ' (or add the folder with `safedel workspace add`)'
  );
}

module.exports = { FOR_A_MODEL, bulk, outside };
