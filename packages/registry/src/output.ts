import {
  type ContentBlock,
  errorResult,
  isContentBlock,
  ToolError,
  ToolErrorCode,
  type ToolExecutionResult,
} from '@dsh-tools/protocol';
import { isRecord, kindOf, messageOf } from './describe';

/**
 * Turns what a tool body returned into a result: content blocks, or `{ content,
 * structuredContent }`. Anything else is `INVALID_OUTPUT`, naming the tool and the bad block, so
 * the author finds the bug; the model is told it was not its fault.
 */
export const resultFromOutput = (
  tool: string,
  callId: string,
  output: unknown,
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
    const content = Array.from(blocks as readonly unknown[]);
    for (let i = 0; i < content.length; i++) {
      if (!isContentBlock(content[i])) {
        const type = isRecord(content[i]) ? (content[i] as { type?: unknown }).type : undefined;
        return invalid(
          `returned an invalid content block at index ${i} (${
            typeof type === 'string'
              ? `a "${type.slice(0, 40)}" block missing a required field or with an unknown type`
              : `got ${kindOf(content[i])}`
          })`,
        );
      }
    }
    if (structured !== undefined && !isRecord(structured)) {
      return invalid(`returned structuredContent that is ${kindOf(structured)}, not an object`);
    }
    return {
      callId,
      content: Object.freeze(content as ContentBlock[]),
      isError: false,
      ...(structured !== undefined && { structuredContent: structured as Record<string, unknown> }),
    };
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

/**
 * A fresh copy of what an interceptor returned, if it is a result: the registry then owns (and
 * freezes) every result it hands out, and a hostile object (a Proxy, throwing getters) is read
 * exactly once, here.
 */
export const copyResult = (value: unknown): ToolExecutionResult | undefined => {
  try {
    if (!isRecord(value)) return undefined;
    const { callId, isError, content, error, structuredContent, arguments: args } = value;
    if (typeof callId !== 'string' || typeof isError !== 'boolean' || !Array.isArray(content)) {
      return undefined;
    }
    let copiedError: ToolExecutionResult['error'];
    if (error !== undefined) {
      if (!isRecord(error) || typeof error.code !== 'string' || typeof error.message !== 'string') {
        return undefined;
      }
      copiedError = Object.freeze({
        code: error.code as ToolErrorCode,
        message: error.message,
        ...(error.details !== undefined && { details: error.details }),
      });
    }
    return {
      callId,
      content: Array.from(content as ContentBlock[]),
      isError,
      ...(copiedError !== undefined && { error: copiedError }),
      ...(isRecord(structuredContent) && { structuredContent }),
      ...(isRecord(args) && { arguments: args as ToolExecutionResult['arguments'] & object }),
    };
  } catch {
    return undefined;
  }
};
