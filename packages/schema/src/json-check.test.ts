import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { copyJson } from './json-check';

describe('copyJson reads data, never code', () => {
  it("copies what a Proxy's descriptors say and never calls its get trap", () => {
    let gets = 0;
    const handler: ProxyHandler<object> = {
      get: () => {
        gets++;
        return 'evil';
      },
    };
    const object = new Proxy({ a: 'safe', n: 1 }, handler);
    const array = new Proxy(['safe'], handler);
    expect(copyJson({ object, array })).toEqual({
      ok: true,
      value: { object: { a: 'safe', n: 1 }, array: ['safe'] },
    });
    expect(copyJson(object)).toEqual({ ok: true, value: { a: 'safe', n: 1 } });
    expect(gets).toBe(0);
  });

  it('refuses an accessor however it is defined, without calling it', () => {
    let calls = 0;
    const get = () => {
      calls++;
      return 1;
    };
    const accessors: object[] = [
      Object.defineProperty({}, 'x', { get, enumerable: true }),
      Object.defineProperty({ y: 1 }, 'x', { set: get, enumerable: true }),
      Object.defineProperty([1], 0, { get, enumerable: true }),
      Object.defineProperty([1, 2], 1, { set: get, enumerable: true }),
      Object.defineProperty(Object.create(null), 'x', { get, enumerable: true }),
      // An own data property named like Object.prototype's accessor is data.
    ];
    for (const value of accessors) {
      expect(copyJson({ value }).ok, JSON.stringify(Object.keys(value))).toBe(false);
    }
    expect(calls).toBe(0);
    const own = Object.defineProperty({}, '__proto__', {
      value: 1,
      enumerable: true,
      configurable: true,
      writable: true,
    });
    const copied = copyJson(own);
    expect(copied.ok).toBe(true);
    expect(
      Object.getOwnPropertyDescriptor((copied as { value: object }).value, '__proto__'),
    ).toMatchObject({ value: 1 });
  });

  it('reads an array at the root as it reads one inside an object', () => {
    let calls = 0;
    const get = () => {
      calls++;
      return 1;
    };
    expect(copyJson(Object.defineProperty([1, 2], 1, { get, enumerable: true }))).toEqual({
      ok: false,
      violations: [{ path: '/1', message: 'is a getter; pass plain JSON data' }],
      more: 0,
    });
    // biome-ignore lint/suspicious/noSparseArray: the hole is the point
    expect(copyJson([1, , 3]).ok).toBe(false);
    expect(copyJson([1, undefined]).ok).toBe(false);
    let gets = 0;
    const proxy = new Proxy(['safe'], {
      get: () => {
        gets++;
        return 'evil';
      },
    });
    expect(copyJson(proxy)).toEqual({ ok: true, value: ['safe'] });
    const copied = copyJson([{ a: [1] }]);
    const value = copied.ok ? (copied.value as unknown[]) : [];
    expect(Object.isFrozen(value) && Object.isFrozen(value[0])).toBe(true);
    expect(value).toEqual([{ a: [1] }]);
    expect(calls + gets).toBe(0);
  });

  it('tells a data property holding undefined (left out) from a setter alone (refused)', () => {
    let calls = 0;
    const set = () => {
      calls++;
    };
    const value = Object.defineProperty({ a: undefined, b: 1 }, 'c', { set, enumerable: true });
    expect(copyJson(value)).toEqual({
      ok: false,
      violations: [{ path: '/c', message: 'is a setter; pass plain JSON data' }],
      more: 0,
    });
    const both = Object.defineProperty({ a: undefined }, 'c', {
      get: () => 1,
      set,
      enumerable: true,
    });
    expect(copyJson(both)).toMatchObject({
      ok: false,
      violations: [{ path: '/c', message: 'is a getter; pass plain JSON data' }],
    });
    expect(calls).toBe(0);
    expect(copyJson({ a: undefined, b: 1 })).toEqual({ ok: true, value: { b: 1 } });
  });

  it('copies any JSON value to an equal frozen value (property)', () => {
    const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
    console.log(`copyJson: fast-check seed ${seed} (FC_SEED=${seed} replays)`);
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const copied = copyJson(value);
        expect(copied.ok).toBe(true);
        const copy = (copied as { value: unknown }).value;
        // -0 is JSON's 0 once printed; compare as JSON sees it.
        expect(JSON.stringify(copy)).toBe(JSON.stringify(value));
        if (typeof copy === 'object' && copy !== null) expect(Object.isFrozen(copy)).toBe(true);
      }),
      { seed, numRuns: 300 },
    );
  });
});
