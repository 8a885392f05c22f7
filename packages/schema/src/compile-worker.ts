import { Script } from 'node:vm';
import { Worker, type Worker as WorkerThread } from 'node:worker_threads';
import type { ValidateFunction } from 'ajv';
import {
  type CompiledValidator,
  type CompileJob,
  compileRefusal,
  duplicateOf,
  PATTERN_CODE,
  refuseAsync,
} from './compile-schema';
import { messageOf } from './describe';
import { type FoundPattern, patternRefusal, SchemaRefusal } from './schema-check';
import { makeEngine } from './schema-engine';
import { linearFormats } from './schema-formats';
import { loadModule, resolveModule } from './schema-load';
import { linearPattern, re2Refusal } from './schema-regex';

/**
 * Compiling a big schema off the event loop.
 *
 * Ajv's compile time grows faster than a schema: a schema near the 64 KiB budget takes 100 ms or
 * more to compile, and no timer, call or I/O of the host runs meanwhile. Registration still checks
 * such a schema here, synchronously and fail closed (meta-schema, references, cycles, every
 * pattern on the linear-time engine: a tool it refuses is refused by `register`); the compile
 * itself runs on one worker thread, which sends back the validator as code
 * (`ajv/dist/standalone`), and the first call waits for it. The worker makes the same engine as
 * this thread ({@link makeEngine}, whose text it is given) with stand-ins for the functions the
 * code calls; the code names them `require("dsh:…")`, and {@link evaluate} gives it the real ones.
 */

/** One compile, as the worker gets it. */
interface WorkerJob {
  readonly id: number;
  readonly schema: unknown;
  readonly dialect: string;
  readonly own: boolean;
  readonly patterns: readonly FoundPattern[];
}

/** The worker's side. Like {@link makeEngine}, it refers to nothing outside itself. */
function workerMain(
  port: import('node:worker_threads').MessagePort,
  data: {
    readonly paths: Record<'ajv' | 'ajv2019' | 'ajv2020' | 'standalone' | 're2js', string>;
    readonly formats: readonly (readonly [string, true | { type?: string; compare: boolean }])[];
    readonly patternCode: string;
    readonly wrap: readonly [string, string];
    readonly filename: string;
  },
  engine: typeof makeEngine,
  load: (id: string) => never,
): void {
  const ajv = load(data.paths.ajv) as Record<string, unknown>;
  const classes: Record<string, unknown> = {
    '07': ajv.Ajv,
    '2019': (load(data.paths.ajv2019) as Record<string, unknown>).Ajv2019,
    '2020': (load(data.paths.ajv2020) as Record<string, unknown>).Ajv2020,
  };
  const standalone = (
    load(data.paths.standalone) as { default: (a: unknown, v: unknown) => string }
  ).default;
  const yes = () => true;
  const formats = data.formats.map(([name, shape]) => [
    name,
    shape === true
      ? true
      : { type: shape.type, validate: yes, ...(shape.compare ? { compare: () => 0 } : {}) },
  ]);
  const regExp = Object.assign(
    (pattern: string, flags: string) => ({ test: yes, toString: () => `/${pattern}/${flags}` }),
    { code: data.patternCode },
  );
  const vm = load('node:vm') as typeof import('node:vm');
  const runtimeDir = data.paths.ajv.replace(/[^/\\]+$/, 'runtime/');
  const noDuplicate = () => undefined;
  const stubs: Record<string, unknown> = {
    'dsh:pattern': regExp,
    'dsh:formats': Object.fromEntries(formats),
    'dsh:duplicateOf': noDuplicate,
  };
  const stubRequire = (id: string) =>
    id in stubs ? stubs[id] : load(runtimeDir + id.slice(id.lastIndexOf('/') + 1));
  /**
   * V8's code cache of the validator: the main thread then loads its compiled bytecode instead
   * of compiling a function of up to a megabyte of source (measured: 120 ms down to 4–12 ms for
   * the densest schema within budget). The validator runs once here so that its body is compiled
   * before the cache is made. No cache (an error here) only costs the main thread that compile.
   */
  const codeCache = (code: string): Uint8Array | undefined => {
    try {
      const script = new vm.Script(data.wrap[0] + code + data.wrap[1], { filename: data.filename });
      const module: { exports: { default?: (v: unknown) => unknown } } = { exports: {} };
      script.runInThisContext()(stubRequire, module, module.exports);
      module.exports.default?.({});
      return script.createCachedData();
    } catch {
      return undefined;
    }
  };
  let re2: { compile(pattern: string): unknown } | undefined;
  // Loaded: from here on, a worker that dies was killed by what it was compiling.
  port.postMessage({ ready: true });
  port.on('message', (job: WorkerJob) => {
    const warnings: string[] = [];
    // Patterns the checks only translated: RE2 must accept each before the schema is compiled.
    for (const found of job.patterns) {
      try {
        re2 ??= (load(data.paths.re2js) as { RE2JS: { compile(p: string): unknown } }).RE2JS;
        re2.compile(found.translated);
      } catch (error) {
        port.postMessage({
          id: job.id,
          error: error instanceof Error ? error.message : String(error),
          pattern: found,
        });
        return;
      }
    }
    try {
      const made = engine(classes[job.dialect] as never, ajv as never, {
        ownProperties: job.own,
        source: true,
        formats: formats as never,
        regExp,
        duplicateOf: noDuplicate,
        warn: (message) => {
          if (!warnings.includes(message)) warnings.push(message);
        },
      });
      const validate = made.compile(job.schema as object);
      const code = standalone(made, validate);
      port.postMessage({ id: job.id, code, cache: codeCache(code), warnings });
    } catch (error) {
      port.postMessage({
        id: job.id,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  });
}

/** The worker's program: {@link makeEngine} and {@link workerMain}, as text. */
const program = (): string =>
  `'use strict';
// A transpiler that keeps function names (tsx, esbuild's keepNames) wraps functions in __name().
const __name = (f) => f;
const { parentPort, workerData } = require('node:worker_threads');
const makeEngine = ${makeEngine.toString()};
(${workerMain.toString()})(parentPort, workerData, makeEngine, require);
`;

/** What a compiled validator's code may `require`: ours, and Ajv's runtime helpers. */
const RUNTIME = /^ajv\/dist\/runtime\/[a-z0-9_]+$/;
let formatsObject: Record<string, unknown> | undefined;
/** Patterns were all compiled by the checks already; here each compiles again on first use. */
const lazyPattern = (pattern: string, flags: string) => {
  let compiled: { test(input: string): boolean } | undefined;
  return {
    test: (input: string) => {
      compiled ??= linearPattern(pattern, flags);
      return compiled.test(input);
    },
    toString: () => `/${pattern}/${flags}`,
  };
};
const runtime = (id: string): unknown => {
  if (id === 'dsh:pattern') return lazyPattern;
  if (id === 'dsh:duplicateOf') return duplicateOf;
  if (id === 'dsh:formats') {
    formatsObject ??= Object.fromEntries(linearFormats());
    return formatsObject;
  }
  if (RUNTIME.test(id)) return loadModule(id);
  throw new Error(`the compiled validator asks for "${id}", which the registry does not provide`);
};

/** How a validator's module code is wrapped, the same on both threads (V8's cache checks the text). */
const WRAP = ['(function (require, module, exports) {\n', '\n})'] as const;
const FILENAME = 'dsh-tools-registry-validator.js';

/** Whether the main thread's V8 refused a worker's code cache (tests read it; it should not). */
export const codeCacheStats = { used: 0, rejected: 0 };

/**
 * Runs a validator's module code (from the worker) and returns its export; `cache` is V8's code
 * cache for it, made on the worker. The code is Ajv's, generated from a checked schema, and runs
 * as Ajv's own compile runs what it generates.
 */
export const evaluate = (code: string, cache?: Uint8Array): ValidateFunction => {
  const script = new Script(WRAP[0] + code + WRAP[1], {
    filename: FILENAME,
    ...(cache ? { cachedData: cache } : {}),
  });
  if (cache) {
    if (script.cachedDataRejected) codeCacheStats.rejected++;
    else codeCacheStats.used++;
  }
  const module: { exports: { default?: ValidateFunction } } = { exports: {} };
  script.runInThisContext()(runtime, module, module.exports);
  const validate = module.exports.default;
  if (typeof validate !== 'function') throw new Error('the compiled code exports no validator');
  return validate;
};

/** The worker's answer: the validator's code and its V8 code cache, or why it did not compile. */
interface Reply {
  readonly id: number;
  readonly code?: string;
  readonly cache?: Uint8Array;
  readonly error?: string;
  /** The pattern RE2 refused, when that is why. */
  readonly pattern?: FoundPattern;
  readonly warnings?: string[];
}

interface Job {
  readonly id: number;
  readonly job: CompileJob;
  readonly resolve: (compiled: CompiledValidator) => void;
  readonly reject: (error: Error) => void;
}

/**
 * The compiles waiting for the worker, oldest first. The worker gets one at a time, so that a
 * compile's deadline counts its own compile and nothing it waited behind, and so that a worker
 * that dies takes only the compile it was running with it.
 */
const queue: Job[] = [];
let worker: WorkerThread | undefined;
/** Whether `worker` has loaded (its first message): a worker that fails before cannot run here. */
let loaded = false;
let running: { readonly job: Job; readonly deadline: ReturnType<typeof setTimeout> } | undefined;
let stopTimer: ReturnType<typeof setTimeout> | undefined;
let nextId = 0;
/** A worker with nothing to do for this long is stopped (it holds Ajv: some megabytes). */
const IDLE_MS = 10_000;
/**
 * The worker's heap limit (a schema within budget needs a small fraction of it), and the longest
 * one compile may take on it (a schema within budget takes well under a second). Tests lower them.
 */
export const workerLimits = { heapMb: 256, deadlineMs: 20_000 };
/** A worker stopped on purpose ({@link stopCompileWorker}): what it was compiling is sent again. */
let stopped: WorkerThread | undefined;

/** The running compile ends: with its reply, or with a refusal (the worker died or overran). */
const finish = (): Job | undefined => {
  const current = running;
  if (!current) return undefined;
  running = undefined;
  clearTimeout(current.deadline);
  return current.job;
};

/** A worker is gone (it failed, exited, overran, or was stopped): what it had is settled. */
const lost = (gone: WorkerThread, why: string): void => {
  if (worker !== gone) return;
  worker = undefined;
  const job = finish();
  if (gone === stopped) {
    if (job) queue.unshift(job);
    pump();
    return;
  }
  if (!loaded) {
    // It never loaded: no worker can run here. Every compile falls back to this thread.
    for (const waiting of [job, ...queue.splice(0)]) {
      waiting?.reject(new Error(`the compiling worker could not start (${why})`));
    }
    return;
  }
  // It died compiling `job` (a heap limit, say): that schema is refused, not retried here, where
  // it would do the same to the host. The others go to a new worker.
  job?.reject(
    new SchemaRefusal('', `the compiling worker stopped while compiling it (${why})`, true),
  );
  pump();
};

const startWorker = (): WorkerThread => {
  const made = new Worker(program(), {
    eval: true,
    workerData: {
      paths: {
        ajv: resolveModule('ajv'),
        ajv2019: resolveModule('ajv/dist/2019.js'),
        ajv2020: resolveModule('ajv/dist/2020.js'),
        standalone: resolveModule('ajv/dist/standalone/index.js'),
        re2js: resolveModule('re2js'),
      },
      formats: [...linearFormats()].map(([name, def]) => [
        name,
        def === true ? true : { type: def.type, compare: def.compare !== undefined },
      ]),
      patternCode: PATTERN_CODE,
      wrap: WRAP,
      filename: FILENAME,
    },
    resourceLimits: { maxOldGenerationSizeMb: workerLimits.heapMb },
  });
  loaded = false;
  made.on('message', (reply: Reply | { ready: true }) => {
    if (worker !== made) return;
    if ('ready' in reply) {
      loaded = true;
      return;
    }
    if (running?.job.id !== reply.id) return;
    const job = finish()!;
    pump();
    if (reply.code === undefined) {
      job.reject(
        reply.pattern
          ? patternRefusal(
              reply.pattern.pattern,
              reply.pattern.path,
              re2Refusal(String(reply.error)),
            )
          : new SchemaRefusal('', `it could not be compiled (${reply.error})`),
      );
      return;
    }
    try {
      const validate = evaluate(reply.code, reply.cache);
      refuseAsync(validate);
      job.resolve({ validate, warnings: reply.warnings ?? [] });
    } catch (error) {
      job.reject(compileRefusal(error));
    }
  });
  made.on('error', (error) => lost(made, messageOf(error)));
  made.on('exit', (code) => lost(made, `exit code ${code}`));
  return made;
};

/** Sends the oldest waiting compile to the worker (starting one), or lets an idle worker go. */
const pump = (): void => {
  if (running) return;
  const next = queue.shift();
  if (!next) {
    idle();
    return;
  }
  let current: WorkerThread;
  try {
    worker ??= startWorker();
    current = worker;
  } catch (error) {
    next.reject(new Error(`no compiling worker (${messageOf(error)})`));
    pump();
    return;
  }
  clearTimeout(stopTimer);
  current.ref();
  const limit = workerLimits.deadlineMs;
  const deadline = setTimeout(() => {
    // Ajv should never take this long on a schema within budget: the worker is stopped and the
    // schema refused; what waited behind it goes to a new worker.
    const job = finish();
    job?.reject(new SchemaRefusal('', `compiling it took longer than ${limit} ms`, true));
    if (worker === current) worker = undefined;
    void current.terminate();
    pump();
  }, limit);
  deadline.unref();
  running = { job: next, deadline };
  try {
    current.postMessage({
      id: next.id,
      schema: next.job.schema,
      dialect: next.job.dialect,
      own: next.job.ownProperties,
      patterns: next.job.patterns,
    } satisfies WorkerJob);
  } catch (error) {
    finish();
    next.reject(
      new Error(`the schema could not be sent to the compiling worker (${messageOf(error)})`),
    );
    pump();
  }
};

/** With nothing to compile, the worker no longer keeps the process alive, and stops soon. */
const idle = (): void => {
  if (!worker) return;
  worker.unref();
  const current = worker;
  clearTimeout(stopTimer);
  stopTimer = setTimeout(() => {
    if (worker === current && !running && queue.length === 0) {
      worker = undefined;
      void current.terminate();
    }
  }, IDLE_MS);
  stopTimer.unref();
};

/**
 * Compiles a checked schema on the compiling worker. Rejects with {@link SchemaRefusal} when the
 * schema cannot be compiled (Ajv or RE2 refused it, it overran its deadline, or the worker died
 * compiling it), and with a plain `Error` when no worker can run here (the caller then compiles
 * on this thread, as it does small schemas).
 */
export const compileInWorker = (job: CompileJob): Promise<CompiledValidator> =>
  new Promise((resolve, reject) => {
    queue.push({ id: nextId++, job, resolve, reject });
    pump();
  });

/** Stops the compiling worker now (tests; a worker also stops by itself when idle). */
export const stopCompileWorker = async (): Promise<void> => {
  stopped = worker;
  await worker?.terminate();
};
