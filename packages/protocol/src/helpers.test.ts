import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ToolError, ToolErrorCode } from './errors';
import { errorResult, isContentBlock, textContent } from './helpers';

describe('textContent', () => {
  it('makes a text block', () => {
    expect(textContent('hi')).toEqual({ type: 'text', text: 'hi' });
  });
});

describe('errorResult', () => {
  it('is one text block "Error: <message>" with the code set', () => {
    expect(errorResult('c1', 'DENIED', 'no')).toStrictEqual({
      callId: 'c1',
      content: [{ type: 'text', text: 'Error: no' }],
      isError: true,
      error: { code: 'DENIED', message: 'no' },
    });
  });

  it('keeps details off the content and on the error', () => {
    const r = errorResult('c', 'INVALID_ARGS', 'bad', { violations: ['/x'] });
    expect(r.error).toStrictEqual({
      code: 'INVALID_ARGS',
      message: 'bad',
      details: { violations: ['/x'] },
    });
    expect(JSON.stringify(r.content)).not.toContain('violations');
  });
});

describe('isContentBlock', () => {
  const valid = [
    { type: 'text', text: '' },
    { type: 'image', data: 'AAAA', mimeType: 'image/png' },
    { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
    { type: 'resource_link', uri: 'file:///a', name: 'a' },
    { type: 'resource', resource: { uri: 'file:///a', text: 'x' } },
    { type: 'resource', resource: { uri: 'file:///a', blob: 'AAAA', mimeType: 'x/y' } },
  ];
  it.each(valid)('accepts %j', (block) => {
    expect(isContentBlock(block)).toBe(true);
  });

  const invalid: unknown[] = [
    null,
    undefined,
    0,
    'text',
    [],
    {},
    { type: 'text' },
    { type: 'text', text: 1 },
    { type: 'image', data: 'AAAA' },
    { type: 'audio', mimeType: 'audio/wav' },
    { type: 'resource_link', uri: 'x' },
    { type: 'resource' },
    { type: 'resource', resource: 'x' },
    { type: 'resource', resource: { uri: 'x' } },
    { type: 'resource', resource: { text: 'x' } },
    { type: 'video', data: 'x', mimeType: 'video/mp4' },
    { type: '__proto__' },
    { type: 'constructor' },
  ];
  it.each(invalid)('rejects %j', (value) => {
    expect(isContentBlock(value)).toBe(false);
  });

  it('never throws on arbitrary JSON-like values', () => {
    fc.assert(
      fc.property(fc.anything(), (value) => {
        expect(typeof isContentBlock(value)).toBe('boolean');
      }),
    );
  });
});

describe('ToolError', () => {
  it('carries its code, message, cause and details', () => {
    const cause = new Error('inner');
    const error = new ToolError('UNAVAILABLE', 'server down', { cause, details: { server: 's' } });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('ToolError');
    expect(error.code).toBe('UNAVAILABLE');
    expect(error.message).toBe('server down');
    expect(error.cause).toBe(cause);
    expect(error.details).toEqual({ server: 's' });
    expect(String(error)).toBe('ToolError: server down');
  });

  it('has no cause unless given one', () => {
    expect('cause' in new ToolError('DENIED', 'x')).toBe(false);
  });
});

describe('ToolErrorCode', () => {
  it('maps each code to itself, and lists exactly the contract codes', () => {
    expect(Object.keys(ToolErrorCode).sort()).toEqual(
      [
        'ABORTED',
        'DENIED',
        'INTERCEPTOR_ERROR',
        'INVALID_ARGS',
        'INVALID_OUTPUT',
        'MCP_ERROR',
        'SANDBOX_VIOLATION',
        'TIMEOUT',
        'TOOL_ERROR',
        'UNAVAILABLE',
        'UNKNOWN_TOOL',
      ].sort(),
    );
    for (const [key, value] of Object.entries(ToolErrorCode)) expect(value).toBe(key);
  });
});
