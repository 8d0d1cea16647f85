'use strict';
// A Worker started with an env of its own (`env: {}`) reads NODE_OPTIONS from that env,
// so the preload would not load in it and it would delete for real. When the program
// loads worker_threads, its Worker gets the preload added to such a worker's execArgv;
// in the worker the preload then takes protection from the state the process started
// with (inherit.cjs). Requiring worker_threads up front would cost ~2 ms per start, so
// this waits for the program's own require; an ESM-only `import` of worker_threads is
// not seen (docs/coverage.md's table says so).

const Module = require('module');

function carry(preload) {
  const load = Module._load;
  let done = false;
  Module._load = function _load(request) {
    const exported = Reflect.apply(load, this, arguments);
    if (!done && (request === 'worker_threads' || request === 'node:worker_threads')) {
      done = true;
      try {
        patchWorker(exported, preload);
      } catch {
        // Workers stay as Node made them: protected when their env says so.
      }
    }
    return exported;
  };
}

function ownEnv(options) {
  const env = options && options.env;
  return typeof env === 'object' && env !== null && env !== process.env && env.SAFEDEL_ACTIVE !== '1';
}

function patchWorker(threads, preload) {
  const Original = threads.Worker;
  function Worker(filename, options) {
    const target = new.target || Worker;
    if (!ownEnv(options)) return Reflect.construct(Original, arguments, target);
    const execArgv = (options.execArgv || process.execArgv).concat(['--require', preload]);
    try {
      return Reflect.construct(Original, [filename, { ...options, execArgv }], target);
    } catch (err) {
      // An execArgv a Worker may not take (a process-wide flag): Node's own outcome.
      if (err && err.code === 'ERR_WORKER_INVALID_EXEC_ARGV') {
        return Reflect.construct(Original, arguments, target);
      }
      throw err;
    }
  }
  Object.setPrototypeOf(Worker, Original);
  Worker.prototype = Original.prototype;
  Object.defineProperty(Worker, 'name', { value: Original.name });
  Object.defineProperty(Worker, 'length', { value: Original.length });
  threads.Worker = Worker;
  Module.syncBuiltinESMExports();
}

module.exports = { carry };
