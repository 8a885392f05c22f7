import type { ContentBlock, ToolExecutionResult } from '@dsh-tools/protocol';

/** The default `maxOutputBytes`: 1 MiB, far above a useful answer, far below a flooded context. */
export const DEFAULT_MAX_OUTPUT_BYTES = 1_048_576;

/** UTF-8 size of a string (counted, not encoded). */
const utf8Bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

const formatBytes = (n: number): string => n.toLocaleString('en-US');

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
    if (Buffer.byteLength(text.slice(0, mid), 'utf8') <= budget) low = mid;
    else high = mid - 1;
  }
  const last = text.charCodeAt(low - 1);
  if (low > 0 && last >= 0xd800 && last <= 0xdbff) low--;
  return text.slice(0, low);
};

/** The block's size as the model is sent it, and which field holds it. */
const sizeOf = (block: ContentBlock): { bytes: number; binary: boolean } => {
  switch (block.type) {
    case 'text':
      return { bytes: utf8Bytes(block.text), binary: false };
    case 'image':
    case 'audio':
      return { bytes: block.data.length, binary: true };
    case 'resource': {
      const r = block.resource;
      return 'text' in r
        ? { bytes: utf8Bytes(r.text), binary: false }
        : { bytes: r.blob.length, binary: true };
    }
    default:
      return { bytes: 0, binary: false };
  }
};

/** Whether every block surely fits (a UTF-16 unit is at most 3 UTF-8 bytes): the cheap check every result passes first. */
const surelyFits = (content: readonly ContentBlock[], max: number): boolean => {
  let upper = 0;
  for (const block of content) {
    if (block.type === 'text') upper += block.text.length * 3;
    else if (block.type === 'image' || block.type === 'audio') upper += block.data.length;
    else if (block.type === 'resource') {
      const r = block.resource;
      upper += 'text' in r ? r.text.length * 3 : r.blob.length;
    }
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
    const { bytes, binary } = sizeOf(block);
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
    if (block.type === 'text') {
      const kept = cutToBytes(block.text, left);
      cutText += bytes - utf8Bytes(kept);
      if (kept.length > 0) content.push(Object.freeze({ ...block, text: kept }));
    } else if (block.type === 'resource' && 'text' in block.resource) {
      const kept = cutToBytes(block.resource.text, left);
      cutText += bytes - utf8Bytes(kept);
      if (kept.length > 0) {
        content.push(
          Object.freeze({ ...block, resource: Object.freeze({ ...block.resource, text: kept }) }),
        );
      }
    }
    left = 0;
  }
  if (cutText > 0) {
    notes.unshift(
      `[output truncated: ${formatBytes(cutText)} of ${formatBytes(totalText)} bytes of text were cut at the output limit of ${formatBytes(max)} bytes (maxOutputBytes) of tool "${tool}"; ask for a smaller part]`,
    );
  }
  let keepStructured = structured !== undefined;
  if (structured !== undefined) {
    const size = jsonBytes(structured, left);
    if (size > left) {
      keepStructured = false;
      notes.push(
        `[structuredContent of more than ${formatBytes(left)} bytes was left out: over the output limit of ${formatBytes(max)} bytes (maxOutputBytes) of tool "${tool}"]`,
      );
    } else if (notes.length === 0) {
      return result;
    }
  }
  for (const text of notes) content.push(Object.freeze({ type: 'text', text }));
  const { structuredContent: _dropped, ...rest } = result;
  return {
    ...rest,
    content: Object.freeze(content),
    ...(keepStructured && structured !== undefined && { structuredContent: structured }),
  };
}
