import { describe, expect, it } from 'vitest';
import { isRecord, quoteValue } from './values';

describe('isRecord', () => {
  it('is a non-null object that is not an array', () => {
    expect(isRecord({})).toBe(true);
    expect(isRecord(Object.create(null))).toBe(true);
    expect(isRecord(new Map())).toBe(true);
    for (const value of [null, undefined, [], 'x', 1, () => {}])
      expect(isRecord(value)).toBe(false);
  });

  it('does not throw for a revoked proxy', () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    expect(isRecord(proxy)).toBe(true);
  });
});

describe('quoteValue', () => {
  it('quotes JSON, and names what JSON cannot show', () => {
    expect(quoteValue('x')).toBe('"x"');
    expect(quoteValue({ a: [1] })).toBe('{"a":[1]}');
    expect(quoteValue(null)).toBe('null');
    expect(quoteValue(undefined)).toBe('undefined');
    expect(quoteValue(() => 1)).toBe('a function');
    expect(quoteValue(12n)).toBe('12n');
    expect(quoteValue(Symbol('s'))).toBe('Symbol(s)');
  });

  it('cuts at max characters with an ellipsis, and keeps a value of exactly max whole', () => {
    expect(quoteValue('a'.repeat(10), 12)).toBe(`"${'a'.repeat(10)}"`);
    expect(quoteValue('a'.repeat(11), 12)).toBe(`"${'a'.repeat(11)}…`);
    expect(quoteValue('a'.repeat(300))).toHaveLength(201);
  });

  it('never throws: a cycle or a throwing toJSON is unreadable', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(quoteValue(cycle)).toBe('an unreadable object');
    const list: unknown[] = [];
    list.push(list);
    expect(quoteValue(list)).toBe('an unreadable array');
    const { proxy, revoke } = Proxy.revocable([], {});
    revoke();
    expect(quoteValue(proxy)).toBe('an unreadable object');
  });
});
