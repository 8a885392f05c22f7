import type { ContentBlock, TextContent } from './content';
import type { ToolErrorCode } from './errors';
import type { ToolExecutionResult } from './tool';

/** A text block. */
export const textContent = (text: string): TextContent => ({ type: 'text', text });

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
  error: { code, message, ...(details !== undefined && { details }) },
});

const str = (v: unknown): v is string => typeof v === 'string';

/** Whether a value is a well-formed {@link ContentBlock}. */
// biome-ignore lint/suspicious/noExplicitAny: probed with optional chaining; see below
export const isContentBlock = (value: any): value is ContentBlock => {
  // Optional chaining instead of an object check (a primitive has no `type`) keeps this helper
  // inside the protocol's 0.5 KB runtime budget.
  const type = value?.type;
  const resource = value?.resource;
  return type === 'text'
    ? str(value.text)
    : type === 'image' || type === 'audio'
      ? str(value.data) && str(value.mimeType)
      : type === 'resource_link'
        ? str(value.uri) && str(value.name)
        : type === 'resource' && str(resource?.uri) && str(resource.text ?? resource.blob);
};
