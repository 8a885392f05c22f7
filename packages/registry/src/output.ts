import {
  type ContentBlock,
  errorResult,
  isContentBlock,
  ToolError,
  ToolErrorCode,
  type ToolExecutionResult,
} from '@dsh-tools/protocol';
import { copyJson } from '@dsh-tools/schema';
import { boundOutput, DEFAULT_MAX_OUTPUT_BYTES } from './bound-output';
import { isRecord, kindOf, messageOf, quote } from './describe';

/**
 * The content blocks and `structuredContent` of a result, copied and deep-frozen (a body that kept
 * a reference cannot change what the interceptors, the observers and the caller read), or what is
 * not JSON in them, with its path (`BigInt`, a cycle, an accessor, a function: anything
 * `JSON.stringify` would throw on or silently change).
 */
const copyOutput = (
  blocks: unknown,
  structured: unknown,
): { content: ContentBlock[]; structured: unknown } | { problem: string } => {
  // Without structuredContent (the common case) the blocks are copied alone, not inside an object
  // made only to be copied: their paths are then prefixed as if they had been.
  const alone = structured === undefined;
  const copied = copyJson(alone ? blocks : { content: blocks, structuredContent: structured });
  if (!copied.ok) {
    const first = copied.violations[0];
    const more = copied.violations.length - 1 + copied.more;
    return {
      problem: `not JSON at ${first ? `"${alone ? '/content' : ''}${first.path}": ${first.message}` : 'an unknown place'}${more > 0 ? ` (and ${more} more)` : ''}`,
    };
  }
  if (alone) return { content: copied.value as ContentBlock[], structured: undefined };
  const value = copied.value as { content: ContentBlock[]; structuredContent?: unknown };
  return { content: value.content, structured: value.structuredContent };
};

/**
 * Turns what a tool body returned into a result: content blocks, or `{ content,
 * structuredContent }`, copied and deep-frozen, then bounded to `maxOutputBytes`. Anything else
 * (or anything that is not JSON) is `INVALID_OUTPUT`, naming the tool and the bad block or path,
 * so the author finds the bug; the model is told it was not its fault.
 */
export const resultFromOutput = (
  tool: string,
  callId: string,
  output: unknown,
  maxOutputBytes: number = DEFAULT_MAX_OUTPUT_BYTES,
): ToolExecutionResult => {
  const invalid = (what: string): ToolExecutionResult =>
    errorResult(
      callId,
      ToolErrorCode.INVALID_OUTPUT,
      `Tool "${tool}" ${what}. This is a bug in the tool, not in the call.`,
    );
  try {
    let blocks: unknown;
    let structured: unknown;
    if (Array.isArray(output)) blocks = output;
    else if (isRecord(output) && Array.isArray(output.content)) {
      blocks = output.content;
      structured = output.structuredContent;
    } else {
      return invalid(
        `returned ${kindOf(output)}; a tool returns an array of content blocks or { content, structuredContent }`,
      );
    }
    const copied = copyOutput(blocks, structured);
    if ('problem' in copied) return invalid(`returned output that is ${copied.problem}`);
    const { content } = copied;
    for (let i = 0; i < content.length; i++) {
      if (!isContentBlock(content[i])) {
        return invalid(
          `returned an invalid content block at index ${i} (${describeBlock(content[i])})`,
        );
      }
    }
    structured = copied.structured;
    if (structured !== undefined && !isRecord(structured)) {
      return invalid(`returned structuredContent that is ${kindOf(structured)}, not an object`);
    }
    return boundOutput(
      tool,
      {
        callId,
        content,
        isError: false,
        ...(structured !== undefined && {
          structuredContent: structured as Record<string, unknown>,
        }),
      },
      maxOutputBytes,
    );
  } catch (error) {
    return invalid(`returned output that could not be read (${messageOf(error)})`);
  }
};

/** Whether a thrown value asks for a specific error code (a `ToolError`, from any copy of protocol). */
export const asToolError = (
  error: unknown,
): { code: ToolErrorCode; message: string; details?: unknown } | undefined => {
  try {
    if (
      error instanceof ToolError ||
      (isRecord(error) &&
        error.name === 'ToolError' &&
        typeof error.code === 'string' &&
        Object.hasOwn(ToolErrorCode, error.code))
    ) {
      const e = error as ToolError;
      return e.details === undefined
        ? { code: e.code, message: messageOf(e) }
        : { code: e.code, message: messageOf(e), details: e.details };
    }
  } catch {
    // A hostile error object (throwing getters) is just an error without a code.
  }
  return undefined;
};

/** Why a content block is not one, for a message: its kind, or the type it claims. */
const describeBlock = (block: unknown): string => {
  const type = isRecord(block) ? (block as { type?: unknown }).type : undefined;
  return typeof type === 'string'
    ? `a "${type.slice(0, 40)}" block missing a required field or with an unknown type`
    : `got ${kindOf(block)}`;
};

/**
 * A fresh copy of what an interceptor returned if it is a well-formed result, else what is wrong
 * with it (for the `INTERCEPTOR_ERROR` message, after "returned"). The registry then owns (and
 * freezes) every result it hands out, a hostile object (a Proxy, throwing getters) is read exactly
 * once, here, and a malformed result fails closed instead of reaching the model: every content
 * block is checked, the error code must be a {@link ToolErrorCode}, and `isError` must agree with
 * `error`.
 */
export const copyResult = (
  value: unknown,
): { readonly result: ToolExecutionResult } | { readonly problem: string } => {
  try {
    if (!isRecord(value)) return { problem: `${kindOf(value)} instead of a result` };
    const { callId, isError, content, error, structuredContent, arguments: args } = value;
    if (typeof callId !== 'string' || typeof isError !== 'boolean' || !Array.isArray(content)) {
      return {
        problem:
          'an object that is not a result (it needs a string callId, a content array and a boolean isError)',
      };
    }
    const copied = copyOutput(content, structuredContent);
    if ('problem' in copied) return { problem: `a result whose output is ${copied.problem}` };
    const blocks = copied.content;
    for (let i = 0; i < blocks.length; i++) {
      if (!isContentBlock(blocks[i])) {
        return {
          problem: `a result whose content block ${i} is not a content block (${describeBlock(blocks[i])})`,
        };
      }
    }
    if (isError && error === undefined)
      return { problem: 'a result with isError: true and no error' };
    if (!isError && error !== undefined)
      return { problem: 'a result with isError: false and an error' };
    let copiedError: ToolExecutionResult['error'];
    if (error !== undefined) {
      if (!isRecord(error))
        return { problem: `a result whose error is ${kindOf(error)}, not { code, message }` };
      const { code, message, details } = error;
      if (typeof code !== 'string' || !Object.hasOwn(ToolErrorCode, code)) {
        return {
          problem: `a result whose error code ${typeof code === 'string' ? quote(code) : kindOf(code)} is not a ToolErrorCode`,
        };
      }
      if (typeof message !== 'string') {
        return { problem: `a result whose error message is ${kindOf(message)}, not a string` };
      }
      copiedError = Object.freeze({
        code: code as ToolErrorCode,
        message,
        ...(details !== undefined && { details }),
      });
    }
    const structured = copied.structured;
    if (structured !== undefined && !isRecord(structured)) {
      return {
        problem: `a result whose structuredContent is ${kindOf(structured)}, not an object`,
      };
    }
    return {
      result: {
        callId,
        content: blocks as ContentBlock[],
        isError,
        ...(copiedError !== undefined && { error: copiedError }),
        ...(structured !== undefined && {
          structuredContent: structured as Record<string, unknown>,
        }),
        ...(isRecord(args) && { arguments: args as ToolExecutionResult['arguments'] & object }),
      },
    };
  } catch (error) {
    return { problem: `a result that could not be read (${messageOf(error)})` };
  }
};
