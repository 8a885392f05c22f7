/**
 * Code Mode as the `tools` service offers it: `run_code` registered on first need, the prompt
 * feed and sections per agent, and the transport's access to the service (the scheduler, the
 * agent's tools, the dispatch log). Plain functions over the adapter, so the service class only
 * calls them.
 */
import type { Context } from '@deepseek-ai/cordis';
import type { ToolSchema } from '@dsh-tools/protocol';
import type { CodeModeHost } from './code-mode';
import {
  codeSections,
  installRunCode,
  type Presentation,
  presentTools,
  requireCodeRuntime,
  type ToolPresentationMode,
} from './code-mode-presentation';
import type { ToolRuntimeScheduler } from './harness-scheduler';
import {
  knownNamesFor,
  modeOf,
  nativeSchemasFor,
  runCodeSchema,
  sdkSchemasFor,
} from './harness-service';
import type { ListenerAdapter } from './listener-adapter';
import type { SystemPromptLike } from './types';

/** The harness's default cap on a program's overlapping sub-calls. */
const DEFAULT_MAX_PARALLEL = 10;

/** What the service calls. */
export interface CodeMode {
  readonly presentation: Presentation;
  /** Registers `run_code` (once); called when a code presentation first appears. */
  install(): void;
  /** The prompt feed for one assembly (`context.scope`: the agent, if any). */
  feed(context: unknown): { schemas: readonly ToolSchema[]; knownNames?: readonly string[] };
  /** Registers the Code Mode prompt sections from `ctx` (its scope), when a prompt is loaded. */
  addSections(ctx: Context): (() => void) | undefined;
}

/** Checks `maxParallelSubCalls` as the harness does: a positive integer, 10 by default. */
function maxParallelOf(value: unknown): number {
  if (value === undefined) return DEFAULT_MAX_PARALLEL;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new TypeError(
      `ToolRegistry: option "maxParallelSubCalls" must be a positive integer (got ${JSON.stringify(value)}); 1 runs a program's tool calls one at a time.`,
    );
  }
  return value;
}

/** Wires Code Mode into one service. */
export function createCodeMode(
  ctx: Context,
  adapter: ListenerAdapter,
  scheduler: ToolRuntimeScheduler,
  maxParallelSubCalls: unknown,
): CodeMode {
  const { presentation } = adapter;
  const maxParallel = maxParallelOf(maxParallelSubCalls);
  const mode = (): ToolPresentationMode =>
    presentation.defaultMode === 'native' ? 'code' : presentation.defaultMode;
  const host: CodeModeHost = {
    requireRuntime: () => requireCodeRuntime(ctx, mode()),
    scheduler,
    executionMode: (exec) => modeOf(adapter, exec),
    tools: (agent) => nativeSchemasFor(adapter, agent),
    maxParallel,
    shapeDispatchLog: (dispatch) => adapter.shapeDispatchLog(dispatch),
  };
  const scopeOf = (context: unknown): unknown =>
    typeof context === 'object' && context !== null
      ? (context as { scope?: unknown }).scope
      : undefined;
  return {
    presentation,
    install: () =>
      installRunCode(
        presentation,
        ({ definition, tool }) => {
          adapter.registry.register(definition);
          adapter.harnessTools.set(definition, tool);
        },
        host,
      ),
    feed(context) {
      const scope = scopeOf(context);
      return presentTools(
        ctx,
        presentation,
        scope,
        () => {
          const knownNames = knownNamesFor(adapter, scope);
          return {
            schemas: nativeSchemasFor(adapter, scope),
            ...(knownNames !== undefined && { knownNames }),
          };
        },
        () => runCodeSchema(adapter),
      );
    },
    addSections(caller) {
      const systemPrompt = caller.get('systemPrompt') as
        | (SystemPromptLike & { section?(section: object): () => void })
        | undefined;
      if (typeof systemPrompt?.section !== 'function') return undefined;
      const disposers = codeSections(ctx, presentation, (scope) =>
        sdkSchemasFor(adapter, scope),
      ).map((section) => systemPrompt.section?.(section));
      return () => {
        for (const dispose of disposers) dispose?.();
      };
    },
  };
}
