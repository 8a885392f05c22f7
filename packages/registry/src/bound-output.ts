import type { ContentBlock, ToolExecutionResult } from '@dsh-tools/protocol';
import { formatBytes, utf8Bytes } from './describe';

/** The default `maxOutputBytes`: 1 MiB, far above a useful answer, far below a flooded context. */
export const DEFAULT_MAX_OUTPUT_BYTES = 1_048_576;

/**
 * The longest prefix of `text` whose UTF-8 form fits in `budget` bytes, never splitting a
 * surrogate pair (the cut text stays valid Unicode).
 */
const cutToBytes = (text: string, budget: number): string => {
  if (budget <= 0) return '';
  // A prefix of `budget / 3` code units always fits; search upwards from there.
  let low = Math.min(text.length, Math.floor(budget / 3));
  let high = Math.min(text.length, budget);
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (utf8Bytes(text.slice(0, mid)) <= budget) low = mid;
    else high = mid - 1;
  }
  const last = text.charCodeAt(low - 1);
  if (low > 0 && last >= 0xd800 && last <= 0xdbff) low--;
  return text.slice(0, low);
};

/** What a block carries to the model: its text, or its base64 data; `""` for a link. */
const payloadOf = (block: ContentBlock): string => {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      return block.data;
    case 'resource':
      return 'text' in block.resource ? block.resource.text : block.resource.blob;
    default:
      return '';
  }
};

/** Whether the payload is base64 data (counted by its length, never cut) rather than text. */
const isBinary = (block: ContentBlock): boolean =>
  block.type === 'image' ||
  block.type === 'audio' ||
  (block.type === 'resource' && !('text' in block.resource));

/** A text block, or a text resource, with its text replaced. */
const withText = (block: ContentBlock, text: string): ContentBlock =>
  block.type === 'resource'
    ? Object.freeze({ ...block, resource: Object.freeze({ ...block.resource, text }) })
    : Object.freeze({ ...(block as ContentBlock & { type: 'text' }), text });

/** Whether every block surely fits (a UTF-16 unit is at most 3 UTF-8 bytes): the cheap check every result passes first. */
const surelyFits = (content: readonly ContentBlock[], max: number): boolean => {
  let upper = 0;
  for (const block of content) {
    const length = payloadOf(block).length;
    upper += isBinary(block) ? length : length * 3;
    if (upper > max) return false;
  }
  return true;
};

/** Size of a JSON value as JSON text, counting no further than `limit`. */
const jsonBytes = (value: unknown, limit: number): number => {
  let total = 0;
  const walk = (v: unknown): void => {
    if (total > limit) return;
    if (typeof v === 'string') total += utf8Bytes(v) + 2;
    else if (typeof v === 'number' || typeof v === 'boolean' || v === null) total += 8;
    else if (Array.isArray(v)) {
      total += 2;
      for (const item of v) walk(item);
    } else if (typeof v === 'object') {
      total += 2;
      for (const key of Object.keys(v as object)) {
        total += key.length + 3;
        walk((v as Record<string, unknown>)[key]);
      }
    }
  };
  walk(value);
  return total;
};

/**
 * A result cut to `max` bytes for the model (`maxOutputBytes`), or the same object when it fits
 * (the common case costs a pass over the block lengths). Blocks are kept in order while they fit;
 * a text block that crosses the budget is cut, ending with a marker that says how much was cut
 * and by which limit; a binary block that does not fit is replaced by a short text note (a cut
 * image is no image); `structuredContent` that does not fit is left out, with a note. The model
 * always learns that something was cut, so that it can ask for less.
 */
export function boundOutput(
  tool: string,
  result: ToolExecutionResult,
  max: number,
): ToolExecutionResult {
  const structured = result.structuredContent;
  if (surelyFits(result.content, max) && structured === undefined) return result;
  let left = max;
  let cutText = 0;
  let totalText = 0;
  const content: ContentBlock[] = [];
  const notes: string[] = [];
  for (const block of result.content) {
    const payload = payloadOf(block);
    const binary = isBinary(block);
    const bytes = binary ? payload.length : utf8Bytes(payload);
    if (!binary) totalText += bytes;
    if (bytes <= left) {
      content.push(block);
      left -= bytes;
      continue;
    }
    if (binary) {
      const kind =
        block.type === 'resource' ? 'blob resource' : `${(block as { type: string }).type}`;
      const mime = (block as { mimeType?: string }).mimeType;
      notes.push(
        `[a ${kind}${mime ? ` (${mime})` : ''} of ${formatBytes(bytes)} bytes was left out: over the output limit of ${formatBytes(max)} bytes (maxOutputBytes) of tool "${tool}"]`,
      );
      continue;
    }
    // Text is cut where the budget ends, and nothing after the cut is kept: the model reads a
    // prefix of the output, never a text with a hole in it.
    const kept = cutToBytes(payload, left);
    cutText += bytes - utf8Bytes(kept);
    if (kept.length > 0) content.push(withText(block, kept));
    left = 0;
  }
  if (cutText > 0) {
    notes.unshift(
      `[output truncated: ${formatBytes(cutText)} of ${formatBytes(totalText)} bytes of text were cut at the output limit of ${formatBytes(max)} bytes (maxOutputBytes) of tool "${tool}"; ask for a smaller part]`,
    );
  }
  const structuredFits = structured === undefined || jsonBytes(structured, left) <= left;
  if (!structuredFits) {
    notes.push(
      `[structuredContent of more than ${formatBytes(left)} bytes was left out: over the output limit of ${formatBytes(max)} bytes (maxOutputBytes) of tool "${tool}"]`,
    );
  }
  // The cheap check was only an upper bound: a result that fits after all stays the same object.
  if (notes.length === 0) return result;
  for (const text of notes) content.push(Object.freeze({ type: 'text', text }));
  const { structuredContent: _dropped, ...rest } = result;
  return {
    ...rest,
    content: Object.freeze(content),
    ...(structuredFits && structured !== undefined && { structuredContent: structured }),
  };
}
