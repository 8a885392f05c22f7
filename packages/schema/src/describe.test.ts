import { describe, expect, it } from 'vitest';
import { formatBytes, kindOf, messageOf, utf8Bytes } from './index';

// These words reach people through the schema engine's and the registry's messages; the values
// come from models and MCP servers, so each helper is total.
describe('the message helpers', () => {
  it('kindOf names a value as a message does, and survives a revoked Proxy', () => {
    expect([null, [], {}, 'x', 1, Number.NaN, -Infinity, undefined].map(kindOf)).toEqual([
      'null',
      'array',
      'object',
      'string',
      'number',
      'NaN',
      '-Infinity',
      'undefined',
    ]);
    const { proxy, revoke } = Proxy.revocable([], {});
    revoke();
    expect(kindOf(proxy)).toBe('an unreadable object');
  });

  it('messageOf reads a thrown value defensively', () => {
    expect(messageOf(new Error('boom'))).toBe('boom');
    expect(messageOf({ message: 'plain object' })).toBe('plain object');
    expect(messageOf('text')).toBe('text');
    expect(messageOf(new Error(''))).toBe('Error');
    expect(messageOf('')).toBe('unknown error');
    expect(messageOf(42)).toBe('42');
    const hostile = {
      get message(): string {
        throw new Error('trap');
      },
    };
    expect(messageOf(hostile)).toBe('an error that could not be read');
  });

  it('utf8Bytes counts encoded bytes and formatBytes groups thousands', () => {
    expect(utf8Bytes('aé😀')).toBe(1 + 2 + 4);
    expect(formatBytes(1_048_576)).toBe('1,048,576');
    expect(formatBytes(512)).toBe('512');
  });
});
