import { ToolError } from '@dsh-tools/protocol';
import { ProtocolError, SdkError, SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type FailedCall,
  isConnectionError,
  isSessionLost,
  isTimeout,
  mapCallError,
  toolReportedError,
  unavailableError,
} from './call-errors';
import { loadSdk } from './sdk';

// The bridge loads the SDK at its first connect and knows the SDK's errors from then on (sdk.ts):
// these errors are made by hand, so the SDK is loaded here as a connect would.
beforeAll(async () => {
  await loadSdk();
});

const call = (over: Partial<FailedCall> = {}): FailedCall => ({
  server: 'srv',
  tool: 'echo',
  aborted: false,
  timeoutMs: 1234,
  connectionDead: false,
  reconnectDisabled: false,
  ...over,
});

const http = (status: number, text?: string, statusText?: string) =>
  new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, `HTTP ${status}`, {
    status,
    ...(statusText ? { statusText } : {}),
    ...(text ? { text } : {}),
  });

const timeout = (data?: unknown) =>
  new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out', data);

/** Whatever a call can throw: the SDK's errors of every kind, and anything at all. */
const thrown = fc.oneof(
  fc.anything(),
  fc.constantFrom(
    timeout(),
    timeout({ maxTotalTimeout: 5 }),
    new SdkError(SdkErrorCode.ConnectionClosed, 'closed'),
    new SdkError(SdkErrorCode.NotConnected, 'not connected'),
    new SdkError(SdkErrorCode.SendFailed, 'send failed'),
    new ProtocolError(-32602, 'bad params', { field: 'x' }),
    Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } }),
    new TypeError('not a network error'),
  ),
  fc.integer({ min: 100, max: 599 }).map((status) => http(status)),
);

describe('mapCallError', () => {
  it('always gives a ToolError naming the server and the tool, whatever was thrown', () => {
    fc.assert(
      fc.property(
        thrown,
        fc.record({
          aborted: fc.boolean(),
          connectionDead: fc.boolean(),
          reconnectDisabled: fc.boolean(),
          server: fc.string({ minLength: 1, maxLength: 20 }),
          tool: fc.string({ minLength: 1, maxLength: 20 }),
        }),
        (error, over) => {
          const mapped = mapCallError(error, call(over));
          expect(mapped).toBeInstanceOf(ToolError);
          expect(mapped.message).toContain(`"${over.server}"`);
          expect(mapped.message).toContain(`"${over.tool}"`);
          if (over.aborted) expect(mapped.code).toBe('ABORTED');
          else if (isTimeout(error)) expect(mapped.code).toBe('TIMEOUT');
          else if (over.connectionDead || isConnectionError(error))
            expect(mapped.code).toBe('UNAVAILABLE');
          else expect(['UNAVAILABLE', 'MCP_ERROR']).toContain(mapped.code);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('maps a thrown value that cannot be made a string (found by the property above)', () => {
    const hostile = [
      { toString: undefined },
      Object.create(null),
      {
        toString() {
          throw new Error('no');
        },
      },
    ];
    for (const value of hostile) {
      const mapped = mapCallError(value, call());
      expect(mapped.code).toBe('MCP_ERROR');
      expect(mapped.message).toBe('The call to "echo" of MCP server "srv" failed: [object Object]');
    }
  });

  it("puts the caller's abort before everything, a timeout before a lost connection", () => {
    expect(mapCallError(timeout(), call({ aborted: true, connectionDead: true })).code).toBe(
      'ABORTED',
    );
    expect(mapCallError(timeout(), call({ connectionDead: true })).code).toBe('TIMEOUT');
  });

  it('says which limit a timeout ran into', () => {
    expect(mapCallError(timeout(), call()).message).toBe(
      'Tool "echo" of MCP server "srv" did not answer within 1234 ms and reported no progress meanwhile; the call was cancelled. Retry, or raise "timeoutMs" for this server if it is just slow.',
    );
    expect(mapCallError(timeout({ maxTotalTimeout: 9000 }), call()).message).toContain(
      'still running after 9000 ms (its "maxTotalTimeoutMs")',
    );
  });

  it('tells a lost connection: the exit, the last five lines of stderr, whether it reconnects', () => {
    const lines = Array.from({ length: 8 }, (_, i) => `line ${i}`).join('\n');
    const mapped = mapCallError(new SdkError(SdkErrorCode.ConnectionClosed, 'closed'), {
      ...call(),
      exit: { code: 3, signal: null },
      stderrTail: `${lines}\n`,
    });
    expect(mapped.code).toBe('UNAVAILABLE');
    expect(mapped.message).toContain(
      'went away during the call to "echo" (the server process exited, code 3)',
    );
    expect(mapped.message).toContain('retry in a few seconds');
    expect(mapped.message).toMatch(/stderr:\n {2}line 3\n(.|\n)* {2}line 7$/);
    expect(mapped.message).not.toContain('line 2');
    const killed = mapCallError(new Error('x'), {
      ...call({ connectionDead: true, reconnectDisabled: true }),
      exit: { code: null, signal: 'SIGKILL' },
    });
    expect(killed.message).toContain('(the server process exited, signal SIGKILL)');
    expect(killed.message).toContain('Reconnecting is disabled.');
  });

  it('splits HTTP answers at 500: 499 refused the call (MCP_ERROR), 500 failed it (UNAVAILABLE)', () => {
    expect(mapCallError(http(499), call()).code).toBe('MCP_ERROR');
    expect(mapCallError(http(500, undefined, 'Internal Server Error'), call()).code).toBe(
      'UNAVAILABLE',
    );
    expect(mapCallError(http(500, undefined, 'Internal Server Error'), call()).message).toContain(
      'with HTTP 500 Internal Server Error',
    );
    expect(mapCallError(http(403), call()).details).toEqual({
      server: 'srv',
      tool: 'echo',
      status: 403,
    });
  });

  it('keeps a JSON-RPC error answer with its code and data', () => {
    const mapped = mapCallError(new ProtocolError(-32602, 'bad params', { field: 'x' }), call());
    expect(mapped.code).toBe('MCP_ERROR');
    expect(mapped.message).toBe('MCP server "srv" refused the call to "echo": bad params');
    expect(mapped.details).toEqual({
      server: 'srv',
      tool: 'echo',
      code: -32602,
      data: { field: 'x' },
    });
  });
});

describe('what counts as what', () => {
  it('knows a lost session: 404, or 400 that names the session', () => {
    expect(isSessionLost(http(404))).toBe(true);
    expect(isSessionLost(http(400, 'Bad Request: No valid session ID provided'))).toBe(true);
    expect(isSessionLost(http(400, 'Bad Request: malformed body'))).toBe(false);
    expect(isSessionLost(http(401))).toBe(false);
    expect(isSessionLost(new Error('404'))).toBe(false);
  });

  it('knows a connection error: closed, not connected, send failed, or fetch failing outright', () => {
    for (const code of [
      SdkErrorCode.ConnectionClosed,
      SdkErrorCode.NotConnected,
      SdkErrorCode.SendFailed,
    ]) {
      expect(isConnectionError(new SdkError(code, 'x'))).toBe(true);
    }
    expect(isConnectionError(timeout())).toBe(false);
    expect(isConnectionError(http(502))).toBe(false);
    expect(
      isConnectionError(
        Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNRESET' } }),
      ),
    ).toBe(true);
    expect(isConnectionError(new TypeError('fetch failed'))).toBe(false);
    expect(isConnectionError(undefined)).toBe(false);
  });
});

describe('unavailableError and toolReportedError', () => {
  it('says why the server is away, for every status', () => {
    const why = {
      connecting: 'is not connected yet; retry in a moment',
      connected: 'is not connected yet; retry in a moment',
      reconnecting: 'is reconnecting after losing its connection; retry in a few seconds',
      failed: 'gave up reconnecting; restart it (handle.reconnect())',
      closed: 'was closed',
    } as const;
    for (const [status, text] of Object.entries(why)) {
      const error = unavailableError('srv', 'echo', status as keyof typeof why);
      expect(error.code).toBe('UNAVAILABLE');
      expect(error.message).toContain('Tool "echo" is unavailable: MCP server "srv" ');
      expect(error.message).toContain(text);
      expect(error.details).toEqual({ server: 'srv', tool: 'echo', status });
    }
  });

  it("carries the server's text, or says there was none", () => {
    expect(toolReportedError('srv', 'echo', 'disk full', []).message).toBe('disk full');
    expect(toolReportedError('srv', 'echo', '', []).message).toBe(
      'MCP server "srv" reported an error from tool "echo" without a message.',
    );
  });
});

describe('mapCallError on a validation dump', () => {
  it('summarises any SDK message to a few hundred characters', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 0, maxLength: 20_000 }), (dump) => {
        for (const error of [
          new SdkError(SdkErrorCode.InvalidResult, dump),
          new ProtocolError(-32602, dump),
          new Error(dump),
        ]) {
          expect(mapCallError(error, call()).message.length).toBeLessThan(600);
        }
      }),
      { numRuns: 100 },
    );
    const long = mapCallError(new Error('y'.repeat(12_000)), call()).message;
    expect(long).toContain('(12000 characters in all)');
  });
});
