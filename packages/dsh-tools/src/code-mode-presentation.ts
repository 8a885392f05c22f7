/**
 * How each agent's model is shown its tools (the harness's `mode`, per agent with `presentAs`):
 * `native` function definitions, `code` (only `run_code`, a generated SDK in the prompt, and no
 * direct call of any other tool), or `both`. The state lives on the listener adapter, so that the
 * call path (`runCall`) and the prompt feed read the same answer.
 */
import type { Context } from '@deepseek-ai/cordis';
import type { ToolSchema } from '@dsh-tools/protocol';
import { compileSchema } from '@dsh-tools/registry';
import {
  type CodeModeHost,
  type CodeRuntimeLike,
  createRunCodeTool,
  RUN_CODE_FLAVORS,
  RUN_CODE_NAME,
} from './code-mode';
import { renderToolsSdk, type ToolSdkSchema } from './code-mode-sdk';
import { renderToolsSdkPy } from './code-mode-sdk-py';
import { adaptHarnessDefinition } from './harness-definition';
import { scopeChain } from './harness-scope';
import { isRecord } from './values';

/** How the model is shown the tools (the harness's `mode`). */
export type ToolPresentationMode = 'native' | 'code' | 'both';

/** The SDK renderer of each language this package presents Code Mode in. */
const RENDERERS: Readonly<
  Record<keyof typeof RUN_CODE_FLAVORS, (schemas: readonly ToolSdkSchema[]) => string>
> = { typescript: renderToolsSdk, python: renderToolsSdkPy };
const LANGUAGES = Object.keys(RENDERERS);

type Language = keyof typeof RENDERERS;
/** A runtime's language, once `requireCodeRuntime` has checked that it has a renderer. */
const languageOf = (runtime: CodeRuntimeLike): Language => runtime.language as Language;

/** The presentation state of one service. */
export interface Presentation {
  /** The service's `mode`, for agents that declared none. */
  readonly defaultMode: ToolPresentationMode;
  /** What agents declared with `presentAs`, by scope key. */
  readonly modes: Map<object, ToolPresentationMode>;
  /** Whether `run_code` is registered (from the first code presentation on). */
  installed: boolean;
}

/** A fresh state; `mode` is checked here, where a config error belongs. */
export function createPresentation(mode: unknown = 'native'): Presentation {
  if (mode !== 'native' && mode !== 'code' && mode !== 'both') {
    throw new TypeError(
      `ToolRegistry: option "mode" must be "native", "code" or "both" (got ${JSON.stringify(mode)}).`,
    );
  }
  return { defaultMode: mode, modes: new Map(), installed: false };
}

/** The presentation of an agent (or scope key): the nearest declaration, else the default. */
export function modeFor(presentation: Presentation, agent: unknown): ToolPresentationMode {
  if (presentation.modes.size === 0) return presentation.defaultMode;
  for (const scope of scopeChain(agent)) {
    const mode = presentation.modes.get(scope);
    if (mode !== undefined) return mode;
  }
  return presentation.defaultMode;
}

/**
 * The loaded code runtime, or the error a misconfigured Code Mode deserves: none loaded, or one
 * whose language this package has no SDK for.
 */
export function requireCodeRuntime(ctx: Context, mode: ToolPresentationMode): CodeRuntimeLike {
  const runtime = ctx.get('codeRuntime' as never) as CodeRuntimeLike | undefined;
  if (runtime === undefined || runtime === null) {
    throw new Error(
      `dsh-tools: mode "${mode}" requires a code runtime — load a ctx.codeRuntime implementation (e.g. @deepseek-ai/dsh-code-runtime-worker-thread) or set tools mode to "native"`,
    );
  }
  const language: unknown = runtime.language;
  if (typeof language !== 'string' || !Object.hasOwn(RENDERERS, language)) {
    throw new Error(
      `dsh-tools: no Code Mode SDK for runtime language ${JSON.stringify(language)} (this package renders ${LANGUAGES.map((l) => JSON.stringify(l)).join(', ')}); load a TypeScript or Python code runtime or set tools mode to "native".`,
    );
  }
  return runtime;
}

/** The error for a tool named like the transport. */
export function assertNotReserved(name: unknown, where: string): void {
  if (name === RUN_CODE_NAME) {
    throw new Error(
      `${where}: tool name "${RUN_CODE_NAME}" is reserved for Code Mode's transport; register the tool under another name.`,
    );
  }
}

/** Registers `run_code` in the global layer, once: from then on the name is the transport's. */
export function installRunCode(
  presentation: Presentation,
  register: (definition: ReturnType<typeof adaptHarnessDefinition>) => void,
  host: CodeModeHost,
): void {
  if (presentation.installed) return;
  register(adaptHarnessDefinition(createRunCodeTool(host), (schema) => compileSchema(schema)));
  presentation.installed = true;
}

/**
 * `run_code`'s schema worded for the runtime's language: the model reads which language `code`
 * is in from the tool itself, not only from the SDK section.
 */
function inLanguage(runCode: ToolSchema, language: Language): ToolSchema {
  if (language === 'typescript') return runCode;
  const flavor = RUN_CODE_FLAVORS[language];
  const parameters = runCode.parameters as { properties?: Record<string, object> };
  const code = parameters.properties?.code;
  return {
    ...runCode,
    description: flavor.description,
    parameters: {
      ...runCode.parameters,
      properties: {
        ...parameters.properties,
        code: { ...code, description: flavor.codeDescription },
      },
    } as ToolSchema['parameters'],
  };
}

/** What the system-prompt service is given for one agent: its schemas and the names it knows. */
export function presentTools(
  ctx: Context,
  presentation: Presentation,
  scope: unknown,
  native: () => { schemas: readonly ToolSchema[]; knownNames?: readonly string[] },
  transport: () => ToolSchema | undefined,
): { schemas: readonly ToolSchema[]; knownNames?: readonly string[] } {
  const mode = modeFor(presentation, scope);
  const view = native();
  if (mode === 'native') return view;
  const language = languageOf(requireCodeRuntime(ctx, mode));
  const registered = transport();
  if (registered === undefined)
    throw new Error(`dsh-tools: mode "${mode}": run_code is not registered.`);
  const runCode = inLanguage(registered, language);
  if (mode === 'code') return { schemas: [runCode], knownNames: [RUN_CODE_NAME] };
  const known = view.knownNames ?? view.schemas.map((s) => s.name);
  return { schemas: [...view.schemas, runCode], knownNames: [...known, RUN_CODE_NAME] };
}

/** The statement of the `code` rule: only `run_code` may be called directly. */
const CODE_ONLY = `\`${RUN_CODE_NAME}\` is the only tool you can call directly: a call of any other tool fails. Call the tools declared below from inside a \`${RUN_CODE_NAME}\` program.`;

/**
 * The two prompt sections Code Mode adds where it is in effect: the `code` rule (before the
 * tools' own guidance, order 99) and the SDK (order 150). Each renders for the assembling agent,
 * and empty where that agent presents natively (an empty section is dropped).
 */
export function codeSections(
  ctx: Context,
  presentation: Presentation,
  sdk: (scope: unknown) => readonly ToolSdkSchema[],
): { name: string; order: number; text: (context: unknown) => string }[] {
  const scopeOf = (context: unknown) => (isRecord(context) ? context.scope : undefined);
  return [
    {
      name: 'tools:code-only',
      order: 99,
      text: (context) => (modeFor(presentation, scopeOf(context)) === 'code' ? CODE_ONLY : ''),
    },
    {
      name: 'tools:sdk',
      order: 150,
      text: (context) => {
        const scope = scopeOf(context);
        const mode = modeFor(presentation, scope);
        if (mode === 'native') return '';
        return RENDERERS[languageOf(requireCodeRuntime(ctx, mode))](sdk(scope));
      },
    },
  ];
}

/**
 * The refusal of a direct call under `code`, in the harness's words, naming the way that works
 * (the prompt declared the tool, so a bare "unknown tool" would read as a broken deployment).
 */
export const codeOnlyMessage = (name: string): string =>
  `unknown tool "${name}": only \`${RUN_CODE_NAME}\` is callable directly — call \`${name}\` from inside a \`${RUN_CODE_NAME}\` program instead`;
