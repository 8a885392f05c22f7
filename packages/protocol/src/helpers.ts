import type { ContentBlock, TextContent } from './content';
import type { ToolErrorCode } from './errors';
import type { ToolExecutionResult } from './tool';

/** A text block. */
export const textContent = (text: string): TextContent => ({ type: 'text', text });

/** A successful result. */
export const successResult = (
  callId: string,
  content: readonly ContentBlock[],
): ToolExecutionResult => ({ callId, content, isError: false });

/** A failed result: one text block `Error: <message>`, with `error.code` set. */
export const errorResult = (
  callId: string,
  code: ToolErrorCode,
  message: string,
  details?: unknown,
): ToolExecutionResult => ({
  callId,
  content: [textContent(`Error: ${message}`)],
  isError: true,
  error: details === undefined ? { code, message } : { code, message, details },
});

const str = (v: unknown): v is string => typeof v === 'string';

/** Whether a value is a well-formed {@link ContentBlock}. */
export const isContentBlock = (value: unknown): value is ContentBlock => {
  if (typeof value !== 'object' || value === null) return false;
  const b = value as Record<string, unknown>;
  switch (b.type) {
    case 'text':
      return str(b.text);
    case 'image':
    case 'audio':
      return str(b.data) && str(b.mimeType);
    case 'resource_link':
      return str(b.uri) && str(b.name);
    case 'resource': {
      const r = b.resource as Record<string, unknown> | null;
      return typeof r === 'object' && r !== null && str(r.uri) && (str(r.text) || str(r.blob));
    }
    default:
      return false;
  }
};

/** Whether a value has the shape of a {@link ToolExecutionResult}. */
export const isToolExecutionResult = (value: unknown): value is ToolExecutionResult => {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Record<string, unknown>;
  return str(r.callId) && typeof r.isError === 'boolean' && Array.isArray(r.content);
};
