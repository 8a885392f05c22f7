import { type InterceptedExecution, ToolErrorCode, textContent } from '@dsh-tools/protocol';
import { HARNESS_INFO, harnessCallOf } from './harness-call';
import { isPlainObject, isRecord } from './values';

/** The harness's codes that have a different name here. */
const HARNESS_CODES: { readonly [code: string]: ToolErrorCode } = {
  TOOL_TIMEOUT: 'TIMEOUT',
  ABORTED_BEFORE_DISPATCH: 'ABORTED',
  TOOL_OUTPUT: 'INVALID_OUTPUT',
};

/** Our code for a harness failure's `error.info.code` (or `error.code`): same name, renamed, else `TOOL_ERROR`. */
const codeOf = (code: unknown): ToolErrorCode => {
  if (typeof code !== 'string') return 'TOOL_ERROR';
  if (Object.hasOwn(ToolErrorCode, code)) return code as ToolErrorCode;
  return HARNESS_CODES[code] ?? 'TOOL_ERROR';
};

/**
 * A result in the DeepSeek Harness's shape (`{ isError, error: { message, info? }, content }`,
 * no `callId`: the harness keeps call identity on the execution) returned by a `tools/execute`
 * listener, made one of ours: the call's `callId`, the message kept, the code taken from
 * `error.info.code` (or `error.code`) when it names one of ours or a harness equivalent
 * (`TOOL_TIMEOUT` → `TIMEOUT`, `ABORTED_BEFORE_DISPATCH` → `ABORTED`), `TOOL_ERROR` otherwise. A
 * success's object `value` becomes `structuredContent`. Anything else, including every result
 * that already has a `callId`, is returned as it is, for the registry to check as usual; reading a
 * field that throws leaves the value to that check as well.
 */
export function adoptHarnessResult(value: unknown, exec: InterceptedExecution): unknown {
  try {
    if (!isRecord(value) || value.callId !== undefined) return value;
    const isError: unknown = value.isError;
    const content: unknown = value.content;
    if (typeof isError !== 'boolean' || !Array.isArray(content)) return value;
    if (!isError) {
      const data: unknown = value.value;
      return {
        callId: exec.callId,
        isError: false,
        content,
        ...(isPlainObject(data) && { structuredContent: data }),
      };
    }
    const error: unknown = value.error;
    const failure = isRecord(error) ? error : {};
    const info: unknown = failure.info;
    const harness =
      isRecord(info) && typeof info.code === 'string' && typeof info.name === 'string'
        ? { name: info.name, code: info.code }
        : undefined;
    const call = harnessCallOf(exec);
    if (call !== undefined) call.info = harness ?? null;
    const message =
      typeof failure.message === 'string'
        ? failure.message
        : `tool "${exec.name}" failed in a tools/execute listener, which gave no message`;
    return {
      callId: exec.callId,
      isError: true,
      content: content.length > 0 ? content : [textContent(`Error: ${message}`)],
      error: {
        code: codeOf(isRecord(info) ? info.code : failure.code),
        message,
        // The harness's own code, kept where our results keep structured data: the tools
        // service shows it again at `error.info`.
        ...(harness !== undefined && { details: { [HARNESS_INFO]: harness } }),
      },
    };
  } catch {
    return value;
  }
}
