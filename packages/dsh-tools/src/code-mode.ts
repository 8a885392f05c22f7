/**
 * Code Mode's transport, `run_code`: the model writes one program, a code runtime
 * (`ctx.codeRuntime`, the seam of `@deepseek-ai/dsh-code-runtime`) runs it, and every tool the
 * program calls is one more call through this service's pipeline, staged by the same scheduler the
 * harness's agent loop drives: validation, `tools/pre-execute`, guards and approvals (in the order
 * the program made the calls), the `tools/execute` listeners and our interceptors (hooks, sandbox,
 * permission), the body, `tools/post-execute` and `tools/result`. A call any of them refuses is
 * refused to the program (a `ToolCallError` it can catch); nothing a program does reaches a tool
 * another way. The runtime only ever holds one function per tool that asks us.
 */
import type { ContentBlock, ToolSchema } from '@dsh-tools/protocol';
import type { HarnessShapedResult } from './harness-call';
import type { HarnessToolDefinition } from './harness-contract';
import { parameterSchemaSpecToJsonSchema } from './harness-define-tool';
import { copyJson } from './harness-definition';
import type { ScheduledExecution, ToolRuntimeScheduler } from './harness-scheduler';
import { isRecord, messageOf } from './values';

/** The name of the Code Mode tool, reserved in every mode (any agent may present in code). */
export const RUN_CODE_NAME = 'run_code';

/** How `run_code` describes itself and its `code` to a model, per code runtime language. */
export interface RunCodeFlavor {
  readonly description: string;
  readonly codeDescription: string;
}

/** The languages this package presents Code Mode in, each with its `run_code` wording. */
export const RUN_CODE_FLAVORS: Readonly<Record<'typescript' | 'python', RunCodeFlavor>> = {
  typescript: {
    description:
      'Run a TypeScript program that calls the tools declared in the system prompt (`await tools.name(args)`). `code` is the body of an async function: top-level `await` and `return` work. Only what it prints or returns comes back (and the images its tool calls returned), so return just what you need.',
    codeDescription: 'The program: the body of an async TypeScript function.',
  },
  python: {
    description:
      'Run a Python program that calls the tools declared in the system prompt (`await tools.name(args)`). `code` is the body of an async function: top-level `await` and `return` work. Only what it prints (`print`) or returns comes back (and the images its tool calls returned), so return just what you need.',
    codeDescription: 'The program: the body of an async Python function.',
  },
};

/** The part of a code runtime (`@deepseek-ai/dsh-code-runtime`'s `CodeRuntime`) used here. */
export interface CodeRuntimeLike {
  readonly language: string;
  run(request: {
    program: string;
    bindings: {
      global: string;
      functions: Record<string, (args: unknown) => Promise<unknown>>;
      errorClass?: { name: string; memberNameProperty: string };
    }[];
    signal?: AbortSignal;
  }): Promise<{
    value?: unknown;
    logs: string[];
    error?: { kind: string; message: string };
  }>;
}

/** One settled sub-call, as `tools/code-dispatch-log` listeners see it before it is logged. */
export interface CodeDispatchLog {
  /** The `run_code` call. */
  readonly exec: ScheduledExecution;
  readonly agent?: unknown;
  /** `<run_code callId>:code:<n>`, numbered in the order the program made its calls. */
  readonly subCallId: string;
  readonly name: string;
  readonly isError: boolean;
  readonly content: readonly ContentBlock[];
}

/** What the transport needs of the service. */
export interface CodeModeHost {
  /** The loaded code runtime, or the error that says none is (or which language is missing). */
  requireRuntime(): CodeRuntimeLike;
  readonly scheduler: ToolRuntimeScheduler;
  executionMode(exec: unknown): { readonly kind: 'parallel' | 'exclusive' };
  /** The tools the calling agent sees, `run_code` excluded: one binding each. */
  tools(agent: unknown): readonly ToolSchema[];
  /** How many concurrency-safe sub-calls may overlap. */
  readonly maxParallel: number;
  /** The content a sub-call's log event carries (the `tools/code-dispatch-log` listeners'). */
  shapeDispatchLog(dispatch: CodeDispatchLog): Promise<readonly ContentBlock[]>;
}

/**
 * Why a run failed (the program threw, a budget ran out, it was aborted, the runtime died), as
 * the harness reports it: code `CODE_RUN_FAILED` at `error.info`, the kind and the captured
 * output in the message the model reads.
 */
export class CodeRunFailedError extends Error {
  readonly code = 'CODE_RUN_FAILED';
  constructor(message: string) {
    super(message);
    this.name = 'CodeRunFailedError';
  }
}

/** What a sub-call resolves to in the program: a harness tool's value, else ours as JSON. */
const programValue = (result: HarnessShapedResult): unknown => {
  if ('value' in result) return result.value;
  if (result.structuredContent !== undefined) return result.structuredContent;
  return result.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
};

/**
 * One run's lane: calls are admitted in the order the program made them; concurrency-safe ones
 * overlap up to `max`, any other runs alone and holds back every later one (the loop's rule).
 */
const createLane = (max: number) => {
  const waiting: { exclusive: boolean; grant(): void; deny(error: Error): void }[] = [];
  let active = 0;
  let alone = false;
  let closed: Error | undefined;
  const pump = (): void => {
    for (let head = waiting[0]; head !== undefined; head = waiting[0]) {
      if (alone || (head.exclusive ? active > 0 : active >= max)) return;
      waiting.shift();
      active++;
      alone = head.exclusive;
      head.grant();
    }
  };
  return {
    acquire(exclusive: boolean): Promise<() => void> {
      if (closed) return Promise.reject(closed);
      return new Promise((resolve, reject) => {
        let released = false;
        const release = () => {
          if (released) return;
          released = true;
          active--;
          if (exclusive) alone = false;
          pump();
        };
        waiting.push({ exclusive, grant: () => resolve(release), deny: reject });
        pump();
      });
    },
    close(error: Error): void {
      closed = error;
      for (const entry of waiting.splice(0)) entry.deny(error);
    },
  };
};

/** Freezes a JSON tree all the way down (a context is shared by everyone who reads it). */
const deepFreeze = <T>(value: T): T => {
  const stack: unknown[] = [value];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (typeof node !== 'object' || node === null || Object.isFrozen(node)) continue;
    Object.freeze(node);
    stack.push(...Object.values(node));
  }
  return value;
};

/**
 * The context that carries a sub-call's image to the model after the run, as the harness words
 * it: a user message with the call's whole content, from the `tools-code-mode` plugin. Without
 * it a program could look at a screenshot for the model and the model would never see it.
 */
const imageContext = (content: readonly ContentBlock[]): object =>
  deepFreeze(
    structuredClone({
      content,
      source: { kind: 'plugin', plugin: 'tools-code-mode' },
      role: 'user',
      id: crypto.randomUUID(),
    }),
  );

const appendTo = (agent: unknown, type: string, data: object): void => {
  const session = isRecord(agent) ? agent.session : undefined;
  if (!isRecord(session) || typeof session.append !== 'function') return;
  (session.append as (type: string, data: object) => unknown).call(session, type, data);
};

const renderValue = (value: unknown): string =>
  typeof value === 'string' ? value : (JSON.stringify(value, null, 2) ?? String(value));

/**
 * The `run_code` tool, in the harness's definition shape (a JSON value and its rendering), so the
 * registry validates its arguments and output and the pipeline runs it like any other tool.
 */
export function createRunCodeTool(host: CodeModeHost): HarnessToolDefinition {
  return {
    name: RUN_CODE_NAME,
    // The TypeScript wording; the prompt feed rewords it for the loaded runtime's language.
    description: RUN_CODE_FLAVORS.typescript.description,
    parameters: parameterSchemaSpecToJsonSchema({
      code: {
        type: 'string',
        required: true,
        description: RUN_CODE_FLAVORS.typescript.codeDescription,
      },
      description: {
        type: 'string',
        required: true,
        description: 'What the program does, in a few words (shown to the user).',
      },
    }) as ToolSchema['parameters'],
    output: {
      schema: {
        type: 'object',
        additionalProperties: false,
        required: ['logs'],
        properties: { logs: { type: 'array', items: { type: 'string' } }, result: {} },
      },
      render(_args, value) {
        const { logs, result } = value as { logs: string[]; result?: unknown };
        const parts = [logs.join('\n'), result === undefined ? '' : renderValue(result)];
        const text = parts.filter((part) => part !== '').join('\n');
        return [{ type: 'text', text: text === '' ? '(run_code completed with no output)' : text }];
      },
    },
    execute: (args: { code: string; description: string }, exec: ScheduledExecution) =>
      runProgram(host, args, exec),
    presentCall: (args) => {
      const { code, description } = (isRecord(args) ? args : {}) as Record<string, unknown>;
      return { card: 'generic', title: String(description), kind: 'execute', rawInput: code };
    },
  };
}

async function runProgram(
  host: CodeModeHost,
  args: { code: string; description: string },
  exec: ScheduledExecution,
): Promise<{ logs: string[]; result?: unknown }> {
  if (args.description.trim() === '') {
    throw new Error('run_code: "description" is empty; say in a few words what the program does.');
  }
  const runtime = host.requireRuntime();
  const run = new AbortController();
  const onAbort = () => run.abort(exec.signal.reason);
  if (exec.signal.aborted) onAbort();
  else exec.signal.addEventListener('abort', onAbort, { once: true });
  const lane = createLane(host.maxParallel);
  const calls = new Set<Promise<unknown>>();
  const logs = new Set<Promise<void>>();
  let count = 0;
  let prepared: Promise<unknown> = Promise.resolve();
  let committed: Promise<unknown> = Promise.resolve();
  const over = (what: string) =>
    new Error(`run_code: the run is over (${String(run.signal.reason)}); ${what}`);

  const call = async (name: string, raw: unknown): Promise<unknown> => {
    if (run.signal.aborted) throw over(`${name} was not called`);
    const copied = copyJson(raw);
    if ('problem' in copied) {
      throw new Error(
        `arguments of ${name} are ${copied.problem}; pass a JSON object, e.g. tools.${name}({}).`,
      );
    }
    const subCallId = `${exec.callId}:code:${++count}`;
    const input = {
      callId: subCallId,
      rootCallId: exec.rootCallId,
      name,
      arguments: copied.json,
      ...(exec.agent !== undefined && { agent: exec.agent }),
      parent: exec.token,
      signal: run.signal,
    };
    const exclusive = host.executionMode(input).kind !== 'parallel';
    const release = await lane.acquire(exclusive);
    // Admitted in program order: the policy stage runs in that order, the bodies overlap, and
    // results are committed (post-execute, observers) in that order again.
    const after = committed;
    let done!: () => void;
    committed = new Promise<void>((resolve) => {
      done = resolve;
    });
    const logged = { rootCallId: exec.rootCallId, parentCallId: exec.callId, subCallId, name };
    let result: HarnessShapedResult;
    try {
      appendTo(exec.agent, 'tool/code-dispatch-start', { ...logged, arguments: copied.json });
      const stage = prepared.then(() => host.scheduler.prepare(input));
      prepared = stage.catch(() => undefined);
      const ready = await stage;
      const ran =
        ready.kind === 'dispatch'
          ? { exec: ready.exec, ...(await host.scheduler.dispatch(ready.exec)) }
          : ready;
      if (!exclusive) release();
      await after;
      result =
        ran.kind === 'post-result'
          ? await host.scheduler.finalize(ran.exec, ran.result)
          : host.scheduler.finish(ran.exec, ran.result);
    } finally {
      done();
      release();
    }
    // In the order the program's calls were committed, as the harness defers them: the image
    // first, then what post-execute added.
    if (!result.isError && result.content.some((block) => block.type === 'image')) {
      exec.deferContext(imageContext(result.content));
    }
    for (const context of result.additionalContexts ?? []) exec.deferContext(context);
    if (result.concludesTurn) exec.concludeTurn();
    const log = host
      .shapeDispatchLog({
        exec,
        ...(exec.agent !== undefined && { agent: exec.agent }),
        subCallId,
        name,
        isError: result.isError,
        content: result.content,
      })
      .then((content) => {
        const entry = { ...logged, arguments: copied.json, isError: result.isError, content };
        appendTo(exec.agent, 'tool/code-dispatch', entry);
      })
      .catch(() => undefined)
      .finally(() => logs.delete(log));
    logs.add(log);
    if (run.signal.aborted) throw over(`the result of ${name} was discarded`);
    // The program learns what the model would: the message. Codes and content stay here.
    if (result.isError) throw new Error(result.error?.message ?? `${name} failed`);
    return programValue(result);
  };

  const functions: Record<string, (args: unknown) => Promise<unknown>> = Object.create(null);
  for (const { name } of host.tools(exec.agent)) {
    if (name === RUN_CODE_NAME) continue;
    Object.defineProperty(functions, name, {
      enumerable: true,
      value: (raw: unknown) => {
        const pending = call(name, raw);
        const tracked = pending.catch(() => undefined).finally(() => calls.delete(tracked));
        calls.add(tracked);
        return pending;
      },
    });
  }
  try {
    let outcome: Awaited<ReturnType<CodeRuntimeLike['run']>>;
    try {
      outcome = await runtime.run({
        program: args.code,
        bindings: [
          {
            global: 'tools',
            functions,
            errorClass: { name: 'ToolCallError', memberNameProperty: 'toolName' },
          },
        ],
        signal: run.signal,
      });
    } finally {
      // Whatever ended the run, nothing it started outlives it: calls still queued are refused,
      // running ones see the abort, and every one is logged before `run_code` returns.
      run.abort('run_code settled');
      lane.close(over('the call was not started'));
      while (calls.size > 0) await Promise.all([...calls]);
      while (logs.size > 0) await Promise.all([...logs]);
    }
    if (outcome.error) {
      const output =
        outcome.logs.length > 0 ? `\nCaptured output:\n${outcome.logs.join('\n')}` : '';
      throw new CodeRunFailedError(
        `code run failed (${outcome.error.kind}): ${outcome.error.message}${output}`,
      );
    }
    return { logs: outcome.logs, ...(outcome.value !== undefined && { result: outcome.value }) };
  } catch (error) {
    if (error instanceof CodeRunFailedError) throw error;
    // A runtime that rejects was misused (its contract): say so, with its words.
    throw new CodeRunFailedError(`code run failed (runtime): ${messageOf(error)}`);
  } finally {
    exec.signal.removeEventListener('abort', onAbort);
  }
}
