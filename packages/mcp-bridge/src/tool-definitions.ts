import type {
  BodyExecution,
  ObjectJsonSchema,
  ToolArgs,
  ToolDefinition,
  ToolHints,
} from '@dsh-tools/protocol';
import { quoteValue } from './format';
import { MAX_DESCRIPTION } from './limits';
import { mcpToolName } from './naming';
import { readToolMetadata, withToolMetadata } from './tool-metadata';
import type { ListedTool, McpServerConfig, McpToolFilter, ToolRecord } from './types';

/** What a bridged tool's body does: call the server's tool (the bridge's call, or a test's). */
export type ToolCaller = (
  tool: string,
  args: ToolArgs,
  exec: BodyExecution,
) => ReturnType<ToolDefinition['execute']>;

/**
 * The tools a listing asks for, by public name, in the server's order: each listed entry checked
 * on its own (a malformed one, a duplicate, one filtered out by `include`/`exclude`, or one whose
 * public name another already took is skipped, and all but the filtered ones are reported), and
 * each kept one built into a {@link ToolRecord} whose body is `call`.
 *
 * Schemas are the registry's to judge: one over its budget (`maxSchemaBytes`, whatever the host
 * set it to) or one it cannot enforce (it fails closed at `register`) is refused there, and the
 * diff reports it and leaves it out.
 */
export function desiredTools(
  listed: readonly ListedTool[],
  config: Pick<McpServerConfig, 'name' | 'include' | 'exclude' | 'trust'>,
  call: ToolCaller,
  report: (error: Error) => void,
): Map<string, ToolRecord> {
  const { name: server, include, exclude } = config;
  const desired = new Map<string, ToolRecord>();
  const seenTools = new Set<string>();
  for (const tool of listed) {
    const problem = malformed(tool);
    if (problem) {
      report(new Error(`MCP server "${server}" listed ${problem}; that tool is skipped.`));
      continue;
    }
    const name = tool.name;
    if (include && !include.some((f) => matches(f, name))) continue;
    if (exclude?.some((f) => matches(f, name))) continue;
    if (seenTools.has(name)) {
      report(
        new Error(`MCP server "${server}" listed tool "${name}" twice; the first one is used.`),
      );
      continue;
    }
    seenTools.add(name);
    const publicName = mcpToolName(server, name);
    const clash = desired.get(publicName);
    if (clash) {
      report(
        new Error(
          `MCP server "${server}": tools "${clash.tool}" and "${name}" map to the same name "${publicName}"; "${name}" is skipped. Exclude one of them.`,
        ),
      );
      continue;
    }
    desired.set(publicName, toolRecord(publicName, tool, config, call));
  }
  return desired;
}

/** One checked listed tool as the definition the registry gets, and its change key. */
export function toolRecord(
  publicName: string,
  tool: ListedTool,
  config: Pick<McpServerConfig, 'name' | 'trust'>,
  call: ToolCaller,
): ToolRecord {
  const server = config.name;
  const toolName = tool.name;
  let description =
    (typeof tool.description === 'string' && tool.description.trim()) ||
    (typeof tool.title === 'string' && tool.title.trim()) ||
    `Tool "${toolName}" of MCP server "${server}".`;
  if (description.length > MAX_DESCRIPTION)
    description = `${description.slice(0, MAX_DESCRIPTION)}…`;
  const parameters = toParameters(tool.inputSchema);
  // Only a real `true`: a truthy non-boolean must never relax anyone's policies.
  const trusted = config.trust === true;
  const hints = trusted ? toHints(tool.annotations) : {};
  const metadata = readToolMetadata(tool as unknown as Record<string, unknown>, server, trusted);
  const definition: ToolDefinition = withToolMetadata(
    {
      name: publicName,
      description,
      parameters,
      hints,
      source: { kind: 'mcp', server, tool: toolName },
      // The bridge times calls out itself, resetting on progress; the registry must not.
      timeoutMs: 0,
      execute: (args, exec) => call(toolName, args, exec),
    },
    metadata,
  );
  return {
    tool: toolName,
    definition,
    // A changed title, output schema, icon or annotation is a changed tool too.
    key: JSON.stringify([description, parameters, hints, metadata]),
    dispose: () => {},
  };
}

/** Whether a server's tool name passes one `include`/`exclude` filter. */
export function matches(filter: McpToolFilter, name: string): boolean {
  if (filter instanceof RegExp) {
    filter.lastIndex = 0;
    return filter.test(name);
  }
  if (!filter.includes('*')) return filter === name;
  const pattern = filter.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${pattern.join('.*')}$`).test(name);
}

/** What is wrong with a listed tool, or undefined when it can be bridged. */
export function malformed(tool: unknown): string | undefined {
  if (typeof tool !== 'object' || tool === null || Array.isArray(tool)) {
    return `an entry that is not a tool (${quoteValue(tool)})`;
  }
  const t = tool as Record<string, unknown>;
  if (typeof t.name !== 'string' || t.name === '')
    return `a tool without a name (${quoteValue(t.name)})`;
  if (t.name.length > 1024) return `a tool whose name is ${t.name.length} characters long`;
  const schema = t.inputSchema;
  if (schema === undefined) return undefined;
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    return `tool "${t.name}" with an inputSchema that is not an object`;
  }
  const type = (schema as Record<string, unknown>).type;
  if (type !== undefined && type !== 'object') {
    return `tool "${t.name}" whose inputSchema is of type ${quoteValue(type)}, not "object" (function parameters must be an object)`;
  }
  const { properties, required } = schema as Record<string, unknown>;
  if (
    properties !== undefined &&
    (typeof properties !== 'object' || properties === null || Array.isArray(properties))
  ) {
    return `tool "${t.name}" whose inputSchema has "properties" that is not an object (${quoteValue(properties)})`;
  }
  if (
    required !== undefined &&
    (!Array.isArray(required) || required.some((r) => typeof r !== 'string'))
  ) {
    return `tool "${t.name}" whose inputSchema has "required" that is not an array of names (${quoteValue(required)})`;
  }
  return undefined;
}

/** The server's `inputSchema` as function parameters: an object schema without `$schema`. */
export function toParameters(inputSchema: unknown): ObjectJsonSchema {
  if (typeof inputSchema !== 'object' || inputSchema === null || Array.isArray(inputSchema)) {
    return { type: 'object', properties: {} };
  }
  // Providers reject `$schema` in function parameters; everything else is the server's to say.
  const { $schema: _dropped, ...rest } = inputSchema as Record<string, unknown>;
  return { ...rest, type: 'object' } as ObjectJsonSchema;
}

/** MCP annotations as hints; only called for trusted servers. */
export function toHints(value: unknown): ToolHints {
  if (typeof value !== 'object' || value === null) return {};
  const annotations = value as Record<string, unknown>;
  const hints: { -readonly [K in keyof ToolHints]: ToolHints[K] } = {};
  if (typeof annotations.readOnlyHint === 'boolean') hints.readOnly = annotations.readOnlyHint;
  if (typeof annotations.destructiveHint === 'boolean')
    hints.destructive = annotations.destructiveHint;
  if (typeof annotations.idempotentHint === 'boolean')
    hints.idempotent = annotations.idempotentHint;
  if (typeof annotations.openWorldHint === 'boolean') hints.openWorld = annotations.openWorldHint;
  // A tool that changes nothing may overlap the other calls of a turn.
  if (annotations.readOnlyHint === true) hints.concurrencySafe = true;
  return hints;
}
