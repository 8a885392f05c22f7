import type { ToolDefinition } from '@dsh-tools/protocol';

/**
 * What a server said about one of its tools beyond the function-calling shape the model sees:
 * kept on the bridged definition so that a host re-serving the tool over MCP (the CLI's gateway)
 * can describe it as the server did. Each field is present only when the server sent it in the
 * shape MCP defines; anything else is left out.
 */
export interface McpToolMetadata {
  /** The server's name for the tool (before `mcp__<server>__`). */
  readonly tool: string;
  /** The configured server it comes from. */
  readonly server: string;
  /** The human-readable title. */
  readonly title?: string;
  /** The JSON Schema the tool's `structuredContent` conforms to (an object schema). */
  readonly outputSchema?: { readonly type: 'object'; readonly [keyword: string]: unknown };
  /** Icons for a client to show (`src`, `mimeType`, `sizes`, `theme`), as sent. */
  readonly icons?: readonly { readonly src: string; readonly [key: string]: unknown }[];
  /** The tool's `_meta`, as sent. */
  readonly _meta?: { readonly [key: string]: unknown };
  /** The tool's annotations, as sent (hints, and a `title`). */
  readonly annotations?: { readonly [key: string]: unknown };
  /**
   * Whether the host trusts the server (`trust: true`): only then did its annotations become the
   * tool's hints. A host that passes the annotations on must say when they are not vouched for.
   */
  readonly trusted: boolean;
}

/** Where the metadata sits on a bridged definition (a symbol: never sent, never a name clash). */
const METADATA = Symbol.for('@dsh-tools/mcp-bridge.metadata');

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The metadata of a listed tool, each field kept only in the shape MCP defines. */
export function readToolMetadata(listed: Obj, server: string, trusted: boolean): McpToolMetadata {
  const out: { -readonly [K in keyof McpToolMetadata]: McpToolMetadata[K] } = {
    tool: String(listed.name),
    server,
    trusted,
  };
  if (typeof listed.title === 'string' && listed.title !== '') out.title = listed.title;
  const schema = listed.outputSchema;
  if (isObj(schema) && (schema.type === 'object' || schema.type === undefined)) {
    out.outputSchema = { ...schema, type: 'object' } as NonNullable<
      McpToolMetadata['outputSchema']
    >;
  }
  if (Array.isArray(listed.icons)) {
    const icons = listed.icons.filter(
      (icon): icon is { src: string } => isObj(icon) && typeof icon.src === 'string',
    );
    if (icons.length > 0) out.icons = icons;
  }
  if (isObj(listed._meta)) out._meta = listed._meta;
  if (isObj(listed.annotations)) out.annotations = listed.annotations;
  return out;
}

/** Attaches `metadata` to a bridged definition (it reads back with {@link mcpToolMetadata}). */
export function withToolMetadata<T extends ToolDefinition>(
  definition: T,
  metadata: McpToolMetadata,
): T {
  Object.defineProperty(definition, METADATA, { value: metadata, enumerable: false });
  return definition;
}

/**
 * What the server said about a bridged tool beyond its schema (title, output schema, icons,
 * `_meta`, annotations), or `undefined` for a tool the bridge did not make. Pass it the
 * definition a registry holds (`registry.get(name)`).
 */
export function mcpToolMetadata(definition: unknown): McpToolMetadata | undefined {
  if (typeof definition !== 'object' || definition === null) return undefined;
  return (definition as { [METADATA]?: McpToolMetadata })[METADATA];
}
