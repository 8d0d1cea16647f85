'use strict';
// The run's guard keeper, as a Node process under the run sees it (the same reading as
// safedel/core/guard/keeperview.py and keeperpost.py, which say why). Under `safedel run`
// or `safedel serve` the ledger is only the request queue: a take is appended, then the
// verdict is the one the run's keeper publishes once it has read that very line, from
// its own memory, which the command cannot reach. The keeper is the outermost ancestor
// whose main thread is named `sdkeep <inode>`; its publication is the memfd of that
// inode, which only the keeper can write, found at KEEPER_FD in this process or in the
// first ancestor that still holds it.

const { closeSync, fstatSync, openSync, readFileSync, readSync } = require('./originals.cjs');
const { digest } = require('./private.cjs');

const KEEPER_FD = 1000;
const NAME = 'sdkeep ';
const HEADER = 16;
const MAGIC = 'safedel-keeper 1 ';
const TAKE_DEADLINE_MS = 60000;
const SPINS = 200;
let found; // { pid, inode, chain } or null, once looked up: ancestors only die
let held = null; // a descriptor this process opened on the publication
const pause = new Int32Array(new SharedArrayBuffer(4));

// [parent pid, thread name] of pid from /proc/<pid>/stat, or null.
function procStat(pid) {
  try {
    const data = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const close = data.lastIndexOf(')');
    const name = data.slice(data.indexOf('(') + 1, close);
    return [Number(data.slice(close + 2).split(' ')[1]) || 0, name];
  } catch {
    return null;
  }
}

// This process's pid as /proc numbers it (keeperfind.py own_pid): in a pid namespace
// of its own process.pid is 1, while /proc, still the run's, leads up to the keeper.
function ownPid() {
  try {
    return Number(require('fs').readlinkSync('/proc/self')) || process.pid;
  } catch {
    return process.pid;
  }
}

// The outermost keeper among this process and its ancestors.
function find() {
  if (process.platform !== 'linux') return null;
  if (found !== undefined) return found;
  found = null;
  const chain = [];
  let pid = ownPid();
  while (pid > 0 && chain.length < 256) {
    const info = procStat(pid);
    if (info === null) break;
    chain.push(pid);
    if (info[1].startsWith(NAME) && /^[0-9a-f]+$/.test(info[1].slice(NAME.length))) {
      found = { pid, inode: parseInt(info[1].slice(NAME.length), 16), chain: chain.slice() };
    }
    pid = info[0];
  }
  return found;
}

function keeperPid() {
  const keeper = find();
  return keeper ? keeper.pid : null;
}

function isIt(fd, inode) {
  try {
    const st = fstatSync(fd);
    return st.ino === inode && st.nlink === 0;
  } catch {
    return false;
  }
}

// A descriptor on the keeper's memfd: our own inherited one, else one opened through
// an ancestor that still holds it (a program that closed its descriptors started us).
function publication(keeper) {
  if (held !== null && isIt(held, keeper.inode)) return held;
  if (isIt(KEEPER_FD, keeper.inode)) return KEEPER_FD;
  for (const pid of keeper.chain) {
    let fd;
    try {
      fd = openSync(`/proc/${pid}/fd/${KEEPER_FD}`, 'r');
    } catch {
      continue;
    }
    if (isIt(fd, keeper.inode)) return (held = fd);
    closeSync(fd);
  }
  throw guardError("cannot reach the run's guard keeper, so nothing was deleted");
}

function guardError(message) {
  const { GuardError } = require('./ledger.cjs');
  return new GuardError(message);
}

// The keeper to ask, null to decide from the ledger itself; throws for a process bound
// to a run whose keeper it cannot find.
function forSettings(settings) {
  const keeper = find();
  if (keeper === null && settings.bound && process.platform === 'linux') {
    throw guardError(
      "the run's guard keeper is not among this process's ancestors, so nothing was deleted"
    );
  }
  return keeper;
}

function lineAfter(data, head) {
  const at = data.indexOf('\n' + head);
  if (at < 0) return null;
  const start = at + 1 + head.length;
  const end = data.indexOf('\n', start);
  return data.slice(start, end < 0 ? data.length : end);
}

function readAt(fd, length, position) {
  const data = Buffer.alloc(length);
  let got = 0;
  while (got < length) {
    const n = readSync(fd, data, got, length - got, position + got);
    if (n === 0) break;
    got += n;
  }
  return data.subarray(0, got);
}

// The publication's text, read as a seqlock: again while the keeper is writing it.
function snapshot(keeper) {
  const fd = publication(keeper);
  for (let wait = 0; wait <= 2048; wait = wait * 2 || 0.1) {
    if (wait) Atomics.wait(pause, 0, 0, wait); // a keeper descheduled mid-write
    let head, data, again;
    try {
      head = readAt(fd, HEADER, 0);
      data = readAt(fd, Number(head.readBigUInt64LE(8)), HEADER);
      again = readAt(fd, 8, 0);
    } catch (err) {
      throw guardError(`cannot read the run's guard keeper: ${err.message}`);
    }
    if (again.equals(head.subarray(0, 8)) && !(head[0] & 1)) return data.toString('latin1');
  }
  throw guardError("the run's guard keeper never stops writing");
}

// { run id: [pointer name or '-', record text] } of the publication's record lines,
// which follow its first line (safedel/core/contract/keptrecord.py reads the same).
function published(data) {
  const found = {};
  let at = data.indexOf('\n') + 1;
  while (data.startsWith('r ', at)) {
    let end = data.indexOf('\n', at);
    if (end < 0) end = data.length;
    const line = data.slice(at, end);
    const first = line.indexOf(' ', 2);
    const second = first < 0 ? -1 : line.indexOf(' ', first + 1);
    if (second > 0) {
      found[line.slice(2, first)] = [line.slice(first + 1, second), line.slice(second + 1)];
    }
    at = end + 1;
  }
  return found;
}

function records(keeper) {
  return published(snapshot(keeper));
}

// What the keeper says about the settings' turn. Throws when the keeper is gone or
// keeps no such turn.
function read(keeper, settings) {
  return parse(snapshot(keeper), `${digest(settings.session)}/${digest(settings.turn)}`);
}

// The view of turn key in the publication's text: { ino, threshold, granted, mode,
// outside, canAsk, damaged, verdict(id), answer(id) }, the same as
// safedel/core/guard/keeperpost.py reads it (tests/vectors/keeper.json).
function parse(data, key) {
  if (!data.startsWith(MAGIC)) throw guardError("the run's guard keeper is not one");
  const fields = lineAfter(data, `t ${key} `);
  if (fields === null) {
    throw guardError("the run's guard keeper keeps no such turn, so nothing was deleted");
  }
  // INO HWM GRANTED MODE OUTSIDE CANASK DAMAGED THRESHOLD
  const words = fields.split(' ');
  const numbers = [0, 1, 2, 7].map((i) => Number(words[i]));
  if (words.length < 8 || !numbers.every(Number.isInteger)) {
    throw guardError("the run's guard keeper said what no keeper says");
  }
  const [ino, , granted, threshold] = numbers;
  return {
    ino,
    threshold,
    granted,
    mode: words[3],
    outside: words[4] === '1',
    canAsk: words[5] === '1',
    damaged: words[6] === '1' ? lineAfter(data, `w ${key} `) || 'found damaged by the run' : null,
    verdict(id) {
      const line = lineAfter(data, `v ${key} ${id} `);
      if (line === null) return null;
      const [verdict, count, n, t] = line.split(' ');
      return { verdict, count: Number(count), n: Number(n), t: Number(t) };
    },
    answer(id) {
      const line = lineAfter(data, `a ${key} ${id} `);
      return line === null ? null : { 1: true, 0: false }[line] ?? 'cannot';
    },
  };
}

function turnView(keeper, settings) {
  const view = read(keeper, settings);
  if (view.damaged !== null) throw require('./ledger.cjs').damaged(view.damaged);
  return view;
}

// The keeper's verdict on the take record (already appended): { verdict, count,
// threshold, id }, or null when the line was glued to a torn fragment (its writer takes
// again). A take the keeper read with another count or threshold was rewritten before it
// read it, and one appended to a ledger it does not read would never be answered: both
// fail closed.
function decide(keeper, settings, record, ledgerIno) {
  const { id } = record;
  const deadline = Date.now() + TAKE_DEADLINE_MS;
  let wait = 0.1;
  // The keeper usually answers within a fraction of a millisecond: the first looks come
  // straight after each other (a timed wait costs more than that), then the waits grow.
  for (let looks = 1; ; looks += 1) {
    const view = turnView(keeper, settings);
    if (view.ino !== 0 && view.ino !== ledgerIno) {
      throw guardError("this process writes to a ledger the run's keeper does not read");
    }
    const got = view.verdict(id);
    if (got !== null) {
      if (got.verdict === 'torn') return null;
      if (got.n !== record.n || got.t !== record.t) {
        throw require('./ledger.cjs').damaged("a take was rewritten before the run's keeper read it");
      }
      if (got.verdict === 'damaged') throw require('./ledger.cjs').damaged(view.damaged || '');
      const threshold = Math.min(got.t, view.threshold);
      return { verdict: got.verdict, count: got.count, threshold, id };
    }
    if (looks < SPINS) continue;
    if (Date.now() > deadline) {
      throw guardError("the run's guard keeper did not answer, so nothing was deleted");
    }
    Atomics.wait(pause, 0, 0, wait);
    wait = Math.min(wait * 2, 10);
  }
}

module.exports = {
  KEEPER_FD,
  keeperPid,
  find,
  forSettings,
  read,
  parse,
  published,
  records,
  turnView,
  decide,
};
