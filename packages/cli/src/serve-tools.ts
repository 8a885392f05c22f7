import { type McpToolMetadata, mcpToolMetadata } from '@dsh-tools/mcp-bridge';
import { isRecord } from '@dsh-tools/policy-kit';
import type { ToolExecutionResult, ToolHints } from '@dsh-tools/protocol';
import { compileSchema, type SchemaValidator, type ToolRegistry } from '@dsh-tools/registry';
import type { CallToolResult, Tool, ToolAnnotations } from '@modelcontextprotocol/server';

/**
 * The `_meta` key that says a tool's annotations come from a server the gateway's config does not
 * trust: MCP tells clients to treat annotations as untrusted unless they come from a trusted
 * server, and to a client the gateway is that server.
 */
export const UNTRUSTED_ANNOTATIONS_META = 'dsh-tools/annotationsTrusted';

/** A local tool's hints as MCP annotations (they are ours, so they are vouched for). */
function annotationsOf(hints: ToolHints | undefined): ToolAnnotations | undefined {
  if (!hints) return undefined;
  const out: ToolAnnotations = {};
  if (hints.readOnly !== undefined) out.readOnlyHint = hints.readOnly;
  if (hints.destructive !== undefined) out.destructiveHint = hints.destructive;
  if (hints.idempotent !== undefined) out.idempotentHint = hints.idempotent;
  if (hints.openWorld !== undefined) out.openWorldHint = hints.openWorld;
  return Object.keys(out).length > 0 ? out : undefined;
}

const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

/** A server's annotations in the shape MCP defines (other keys and wrong types left out). */
function serverAnnotations(sent: Record<string, unknown>): ToolAnnotations | undefined {
  const out: Record<string, unknown> = {};
  if (typeof sent.title === 'string') out.title = sent.title;
  for (const hint of HINTS) if (typeof sent[hint] === 'boolean') out[hint] = sent[hint];
  return Object.keys(out).length > 0 ? (out as ToolAnnotations) : undefined;
}

/** Icons in the shape MCP defines; one that is not is left out rather than failing the list. */
function iconsOf(icons: McpToolMetadata['icons']): Tool['icons'] {
  const kept = (icons ?? []).filter(
    (icon) =>
      (icon.mimeType === undefined || typeof icon.mimeType === 'string') &&
      (icon.sizes === undefined ||
        (Array.isArray(icon.sizes) && icon.sizes.every((s) => typeof s === 'string'))) &&
      (icon.theme === undefined || icon.theme === 'light' || icon.theme === 'dark'),
  );
  return kept.length > 0 ? (kept as Tool['icons']) : undefined;
}

/** A tool's `structuredContent` checker: its output schema compiled once, or why it cannot be. */
type OutputCheck = { readonly validator: SchemaValidator } | { readonly refused: string };

/**
 * The gateway's tools as MCP describes them: the registry's schemas, and for a bridged tool what
 * its server said (title, output schema, icons, `_meta`, annotations; see the README for what is
 * left out and why). Cached while the registry's tool list is unchanged.
 */
export class GatewayTools {
  readonly #registry: ToolRegistry;
  #cache: { schemas: unknown; tools: Tool[] } | undefined;
  readonly #outputChecks = new Map<string, { schema: unknown; check: OutputCheck }>();

  constructor(registry: ToolRegistry) {
    this.#registry = registry;
  }

  /** The `tools` of a `tools/list` answer. */
  list(): Tool[] {
    const schemas = this.#registry.schemas();
    // schemas() returns the same array while nothing changed; so does this.
    if (this.#cache?.schemas === schemas) return this.#cache.tools;
    const tools = schemas.map((schema) => {
      const definition = this.#registry.get(schema.name);
      const tool: Tool = {
        name: schema.name,
        description: schema.description,
        inputSchema: schema.parameters as Tool['inputSchema'],
      };
      const meta = mcpToolMetadata(definition);
      if (!meta) {
        const annotations = annotationsOf(definition?.hints);
        return annotations ? { ...tool, annotations } : tool;
      }
      return this.#describe(tool, meta);
    });
    this.#cache = { schemas, tools };
    return tools;
  }

  #describe(tool: Tool, meta: McpToolMetadata): Tool {
    const out: Tool = { ...tool };
    if (meta.title !== undefined) out.title = meta.title;
    if (meta.outputSchema !== undefined && 'validator' in this.#outputCheck(tool.name, meta)) {
      out.outputSchema = meta.outputSchema as Tool['outputSchema'];
    }
    const icons = iconsOf(meta.icons);
    if (icons) out.icons = icons;
    const annotations = meta.annotations && serverAnnotations(meta.annotations);
    if (annotations) out.annotations = annotations;
    const _meta: Record<string, unknown> = { ...meta._meta };
    if (annotations && !meta.trusted) _meta[UNTRUSTED_ANNOTATIONS_META] = false;
    if (Object.keys(_meta).length > 0) out._meta = _meta;
    return out;
  }

  #outputCheck(name: string, meta: McpToolMetadata): OutputCheck {
    const held = this.#outputChecks.get(name);
    if (held && held.schema === meta.outputSchema) return held.check;
    let check: OutputCheck;
    try {
      check = { validator: compileSchema(meta.outputSchema) };
    } catch (error) {
      check = { refused: error instanceof Error ? error.message : String(error) };
    }
    this.#outputChecks.set(name, { schema: meta.outputSchema, check });
    return check;
  }

  /**
   * A call's result for the wire. A bridged tool that declares an output schema must answer a
   * success with `structuredContent` that conforms to it (MCP's rule, which clients enforce);
   * one that does not becomes an error naming the tool and what is wrong.
   */
  toCallResult(name: string, result: ToolExecutionResult): CallToolResult {
    const wire: CallToolResult = {
      content: result.content as CallToolResult['content'],
      isError: result.isError,
      ...(result.structuredContent
        ? { structuredContent: result.structuredContent as Record<string, unknown> }
        : {}),
    };
    if (result.isError) return wire;
    const meta = mcpToolMetadata(this.#registry.get(name));
    if (meta?.outputSchema === undefined) return wire;
    const check = this.#outputCheck(name, meta);
    // A schema we cannot enforce was not listed, so a client has nothing to check against.
    if (!('validator' in check)) return wire;
    const structured = result.structuredContent;
    const problem = !isRecord(structured)
      ? 'it returned no structuredContent (or one over the output limit, maxOutputBytes, which was left out)'
      : check.validator.validate(structured);
    if (problem === undefined) return wire;
    const message = `Tool ${JSON.stringify(name)} (tool "${meta.tool}" of MCP server "${meta.server}") declares an outputSchema, but its result does not conform: ${problem}. The server's result was withheld; report it to the server's maintainers, or call another tool.`;
    return { content: [{ type: 'text', text: `Error: ${message}` }], isError: true };
  }
}
