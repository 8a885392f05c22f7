import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkConfig } from './check-config';
import type { McpServerConfig } from './types';

const check = (config: unknown) => () => checkConfig(config as McpServerConfig);

/** Valid names, the 256-character limit included. */
const validName = fc.oneof(
  fc.string({ minLength: 1, maxLength: 256 }).filter((s) => s.trim() !== ''),
  fc.constantFrom('x'.repeat(255), 'x'.repeat(256)),
);

const stdio = fc.record(
  {
    name: validName,
    command: fc.string({ minLength: 1 }),
    args: fc.array(fc.string()),
    env: fc.dictionary(fc.string(), fc.string()),
  },
  { requiredKeys: ['name', 'command'] },
);

const http = fc.record(
  {
    name: validName,
    url: fc.webUrl(),
    headers: fc.dictionary(fc.string(), fc.string()),
  },
  { requiredKeys: ['name', 'url'] },
);

/** A number of milliseconds at and around the bound of 0. */
const ms = fc.oneof(
  fc.constantFrom(0, -0, 1, Number.MIN_VALUE, 1e12),
  fc.double({ min: 0, noNaN: true, noDefaultInfinity: true }),
);

describe('checkConfig', () => {
  it('accepts every well-formed config unchanged', () => {
    fc.assert(
      fc.property(
        fc.oneof(stdio, http),
        fc.record(
          {
            timeoutMs: ms,
            maxTotalTimeoutMs: ms,
            startupTimeoutMs: ms,
            listChangedDebounceMs: ms,
            trust: fc.boolean(),
            include: fc.array(fc.oneof(fc.string(), fc.constant(/x/g))),
            exclude: fc.array(fc.string()),
            reconnect: fc.oneof(
              fc.constant(false as const),
              fc.record(
                {
                  maxAttempts: fc.nat(),
                  initialDelayMs: ms,
                  maxDelayMs: ms,
                  factor: fc.oneof(fc.constant(1), fc.double({ min: 1, noNaN: true, max: 1e6 })),
                  budgetMs: ms,
                },
                { requiredKeys: [] },
              ),
            ),
          },
          { requiredKeys: [] },
        ),
        (base, extra) => {
          const config = { ...base, ...extra } as McpServerConfig;
          expect(checkConfig(config)).toBe(config);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('refuses a name that is empty, blank, too long (257 and up) or not a string', () => {
    for (const name of ['', '   ', 'x'.repeat(257), 'x'.repeat(1_000_000), 42, null, undefined]) {
      expect(check({ name, command: 'x' })).toThrow(
        /"name" must be a non-empty string of at most 256/,
      );
    }
    // The message quotes at most 60 characters of a huge name.
    expect(check({ name: 'y'.repeat(1_000_000), command: 'x' })).toThrow(/"y{60}…"/);
  });

  it('refuses a negative, infinite or non-number time, naming the server and the field', () => {
    const bad = fc.oneof(
      fc.constantFrom(-Number.MIN_VALUE, -1, Number.NaN, Number.POSITIVE_INFINITY, '5', null, true),
      fc.double({ max: -Number.MIN_VALUE, noNaN: true }),
    );
    const field = fc.constantFrom(
      'timeoutMs',
      'maxTotalTimeoutMs',
      'startupTimeoutMs',
      'listChangedDebounceMs',
    );
    fc.assert(
      fc.property(field, bad, (key, value) => {
        expect(check({ name: 'srv', command: 'x', [key]: value })).toThrow(
          new RegExp(`server "srv": "${key}" must be a number >= 0`),
        );
      }),
    );
  });

  it('refuses reconnect fields below their minimum, fractional attempts and unknown fields', () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ maxAttempts: -1 }, /"reconnect.maxAttempts" must be an integer >= 0 \(got -1\)/],
      [{ maxAttempts: 1.5 }, /"reconnect.maxAttempts" must be an integer >= 0/],
      [{ factor: 0.999 }, /"reconnect.factor" must be a number >= 1 \(got 0.999\)/],
      [{ initialDelayMs: -Number.MIN_VALUE }, /"reconnect.initialDelayMs" must be a number >= 0/],
      [{ budgetMs: Number.POSITIVE_INFINITY }, /"reconnect.budgetMs"/],
      [{ maxDelayMs: '10' }, /"reconnect.maxDelayMs" must be a number >= 0 \(got "10"\)/],
      [{ retries: 3 }, /unknown field "retries"; the fields are maxAttempts, /],
      // From a JSON file: an own "__proto__" key is a field like any other, and unknown.
      [JSON.parse('{"__proto__": 1}'), /unknown field "__proto__"/],
      [{ toString: 1 }, /unknown field "toString"/],
    ];
    for (const [reconnect, message] of cases) {
      expect(check({ name: 'srv', command: 'x', reconnect })).toThrow(message);
    }
    for (const reconnect of [true, null, [], 'false', 0]) {
      expect(check({ name: 'srv', command: 'x', reconnect })).toThrow(
        /"reconnect" must be false or an object/,
      );
    }
    expect(
      checkConfig({ name: 's', command: 'x', reconnect: { maxAttempts: 0, factor: 1 } }),
    ).toBeTruthy();
  });

  it('refuses a transport that is missing, doubled or malformed', () => {
    expect(check({ name: 's' })).toThrow(/exactly one of "command" \(stdio\) or "url"/);
    expect(check({ name: 's', command: 'x', url: 'http://h' })).toThrow(/exactly one of/);
    expect(check({ name: 's', command: '' })).toThrow(/"command" must be a non-empty string/);
    expect(check({ name: 's', command: 'x', args: ['a', 1] })).toThrow(
      /"args" must be an array of strings/,
    );
    expect(check({ name: 's', command: 'x', args: 'a b' })).toThrow(/"args"/);
    expect(check({ name: 's', command: 'x', env: { A: 1 } })).toThrow(
      /"env" must map names to strings/,
    );
    expect(check({ name: 's', url: 'not a url' })).toThrow(
      /"url" is not a URL \(got "not a url"\)/,
    );
    expect(check({ name: 's', url: 'file:///etc/passwd' })).toThrow(
      /must be http: or https: \(got file:\)/,
    );
    expect(check({ name: 's', url: 'http://h', headers: { a: ['b'] } })).toThrow(
      /"headers" must map/,
    );
  });

  it('refuses a trust that is not a boolean, callbacks that are not functions and bad filters', () => {
    for (const trust of ['false', 'true', 1, 0, null]) {
      expect(check({ name: 's', command: 'x', trust })).toThrow(/"trust" must be true or false/);
    }
    expect(check({ name: 's', command: 'x', onError: 'log' })).toThrow(
      /"onError" must be a function \(got "log"\)/,
    );
    expect(check({ name: 's', command: 'x', onProgress: {} })).toThrow(
      /"onProgress" must be a function/,
    );
    expect(check({ name: 's', command: 'x', include: 'read_*' })).toThrow(
      /"include" must be an array/,
    );
    expect(check({ name: 's', command: 'x', exclude: [1] })).toThrow(/"exclude" must be an array/);
  });

  it('never throws anything but a TypeError, whatever it is given', () => {
    fc.assert(
      fc.property(
        fc.anything({ withNullPrototype: true, withMap: true, withBigInt: true }),
        (value) => {
          try {
            checkConfig(value as McpServerConfig);
          } catch (error) {
            expect(error).toBeInstanceOf(TypeError);
            expect((error as Error).message).toMatch(/^connectMcpServer: /);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
