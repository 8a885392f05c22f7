import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ToolHints, ToolSchema, ToolSource } from '@dsh-tools/protocol';
import type { Gateway } from './gateway';

// The folder of this module in either build (CJS has __dirname; ESM has import.meta.url).
const here: string =
  typeof __dirname === 'string' ? __dirname : dirname(fileURLToPath(import.meta.url));

/** One tool as `dsh-tools inspect` shows it. */
export interface InspectedTool extends ToolSchema {
  /** Policy hints (never sent to the model); classifier functions are shown as `"classifier"`. */
  readonly hints: Record<string, unknown>;
  readonly source: ToolSource;
  /**
   * The size of `{ name, description, parameters }` as JSON, in o200k tokens (the tokenizer of
   * current OpenAI models): an estimate of what the tool costs in every request; other models'
   * tokenizers differ by some percent.
   */
  readonly tokens: number;
}

/** A configured server in the report. */
export interface InspectedServer {
  readonly name: string;
  readonly status: string;
  readonly tools: number;
  readonly error?: string;
}

/** What `dsh-tools inspect --json` prints. */
export interface InspectReport {
  /** The config file, or `null` for the embedded default. */
  readonly config: string | null;
  readonly policies: readonly string[];
  readonly servers: readonly InspectedServer[];
  readonly tools: readonly InspectedTool[];
  readonly totalTokens: number;
}

function plainHints(hints: ToolHints | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(hints ?? {})) {
    out[key] = typeof value === 'function' ? 'classifier' : value;
  }
  return out;
}

/**
 * Counts tokens of a text with the o200k encoding, loaded on first use (2.6 MB): the package's
 * own `dist/o200k.mjs`. From the sources (tests), where there is no build beside this module, the
 * same encoding comes from gpt-tokenizer, a development dependency. The specifier is computed so
 * that the library build neither bundles gpt-tokenizer nor imports it.
 */
export async function tokenCounter(): Promise<(text: string) => number> {
  const built = join(here, 'o200k.mjs');
  const specifier = existsSync(built)
    ? pathToFileURL(built).href
    : ['gpt-tokenizer', 'encoding', 'o200k_base'].join('/');
  const { countTokens } = (await import(specifier)) as typeof import('./o200k');
  return (text) => countTokens(text);
}

/** The report of `dsh-tools inspect`: every tool as the model sees it, plus what policies see. */
export async function inspectGateway(
  gateway: Gateway,
  configFile: string | undefined,
): Promise<InspectReport> {
  const count = await tokenCounter();
  const tools: InspectedTool[] = gateway.registry.schemas().map((schema) => {
    const definition = gateway.registry.get(schema.name);
    return {
      name: schema.name,
      description: schema.description,
      parameters: schema.parameters,
      hints: plainHints(definition?.hints),
      source: definition?.source ?? { kind: 'local' },
      tokens: count(
        JSON.stringify({
          name: schema.name,
          description: schema.description,
          parameters: schema.parameters,
        }),
      ),
    };
  });
  const servers: InspectedServer[] = [
    ...[...gateway.servers].map(([name, handle]) => ({
      name,
      status: handle.status,
      tools: handle.tools.length,
    })),
    ...gateway.failures.map((f) => ({
      name: f.server,
      status: 'failed',
      tools: 0,
      error: f.error.message,
    })),
  ].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return {
    config: configFile ?? null,
    policies: gateway.policies,
    servers,
    tools,
    totalTokens: tools.reduce((sum, t) => sum + t.tokens, 0),
  };
}
