import type { ContentBlock, ToolOutput } from '@dsh-tools/protocol';
import { quoteValue } from './format';

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): v is string => typeof v === 'string';

/** Adds the optional fields every block may carry, when they have the right shape. */
function withBase<T extends Obj>(out: T, block: Obj): T {
  if (block.annotations !== undefined && isObj(block.annotations)) {
    (out as Obj).annotations = block.annotations;
  }
  if (block._meta !== undefined && isObj(block._meta)) (out as Obj)._meta = block._meta;
  return out;
}

function pick(from: Obj, keys: readonly string[], out: Obj, test: (v: unknown) => boolean): void {
  for (const key of keys) if (test(from[key])) out[key] = from[key];
}

/** What a known block type needs, for the note that replaces a malformed one. */
const NEEDS: Readonly<Record<string, string>> = {
  text: 'a string "text"',
  image: 'string "data" and "mimeType"',
  audio: 'string "data" and "mimeType"',
  resource_link: 'string "uri" and "name"',
  resource: 'a "resource" with a string "uri" and a string "text" or "blob"',
};

/**
 * One MCP content block as one protocol {@link ContentBlock}. The protocol's blocks are MCP's, so
 * this is a copy that keeps only known fields. A block of a type this version does not know (a
 * newer protocol's, a vendor's) or a malformed one becomes a short text note naming its type,
 * rather than failing the whole result or being dropped: the model still sees that something
 * came back, without the block's (possibly huge) body.
 */
export function mapContentBlock(block: unknown): ContentBlock {
  if (!isObj(block)) {
    return {
      type: 'text',
      text: `[the server sent a content block that is not an object (${Array.isArray(block) ? 'array' : quoteValue(block)}); left out]`,
    };
  }
  switch (block.type) {
    case 'text':
      if (str(block.text)) return withBase({ type: 'text' as const, text: block.text }, block);
      break;
    case 'image':
    case 'audio':
      if (str(block.data) && str(block.mimeType)) {
        const type = block.type as 'image' | 'audio';
        return withBase({ type, data: block.data, mimeType: block.mimeType }, block);
      }
      break;
    case 'resource_link':
      if (str(block.uri) && str(block.name)) {
        const out = withBase<Obj>(
          { type: 'resource_link', uri: block.uri, name: block.name },
          block,
        );
        pick(block, ['title', 'description', 'mimeType'], out, str);
        pick(block, ['size'], out, (v) => typeof v === 'number');
        return out as unknown as ContentBlock;
      }
      break;
    case 'resource': {
      const r = block.resource;
      if (isObj(r) && str(r.uri) && (str(r.text) || str(r.blob))) {
        const resource: Obj = { uri: r.uri };
        if (str(r.mimeType)) resource.mimeType = r.mimeType;
        if (str(r.text)) resource.text = r.text;
        else resource.blob = r.blob;
        if (isObj(r._meta)) resource._meta = r._meta;
        return withBase<Obj>({ type: 'resource', resource }, block) as unknown as ContentBlock;
      }
      break;
    }
    default:
      return {
        type: 'text',
        text: `[the server sent a content block of type ${quoteValue(block.type)}, which this bridge does not know; left out]`,
      };
  }
  return {
    type: 'text',
    text: `[the server sent a malformed ${quoteValue(block.type)} content block (it needs ${NEEDS[block.type as string]}); left out]`,
  };
}

/**
 * A successful `tools/call` result as the tool body's return value. `structuredContent` stays on
 * the result (when it is a JSON object, as the protocol's result holds), and when the tool sent no
 * text at all it is also rendered as JSON text, because a model reads text blocks only.
 */
export function mapCallResult(result: {
  content?: unknown;
  structuredContent?: unknown;
}): ToolOutput {
  const content = Array.isArray(result.content)
    ? result.content.map(mapContentBlock)
    : result.content === undefined
      ? []
      : [
          {
            type: 'text' as const,
            text: `[the server sent "content" that is not a list (${quoteValue(result.content)}); left out]`,
          },
        ];
  const structured = result.structuredContent;
  if (structured === undefined) return { content };
  if (!content.some((block) => block.type === 'text')) {
    content.push({ type: 'text', text: safeJsonFull(structured) });
  }
  return isObj(structured) ? { content, structuredContent: structured } : { content };
}

function safeJsonFull(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch {
    return String(value);
  }
}

/** The text of an `isError` result, for the error message. */
export function errorText(result: { content?: unknown }): string {
  if (!Array.isArray(result.content)) return '';
  return result.content
    .filter(
      (b): b is { type: 'text'; text: string } => isObj(b) && b.type === 'text' && str(b.text),
    )
    .map((b) => b.text)
    .join('\n')
    .trim();
}
