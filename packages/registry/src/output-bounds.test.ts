import { type ContentBlock, type ToolExecutionResult, textContent } from '@dsh-tools/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { call, expectFailure, readFile } from '../test/helpers';
import { createToolRegistry } from './index';

const byteLength = (text: string) => Buffer.byteLength(text, 'utf8');
const textOf = (result: ToolExecutionResult) =>
  result.content.map((b) => (b.type === 'text' ? b.text : `<${b.type}>`)).join('|');

describe('a result is copied and deep-frozen at the body boundary', () => {
  it('keeps what observers and the caller read when the body mutates its blocks afterwards', async () => {
    const registry = createToolRegistry();
    const block = { type: 'text' as const, text: 'clean', annotations: { audience: ['user'] } };
    const structured = { status: 'clean', nested: { list: [1, 2] } };
    registry.register(
      readFile({
        execute: () => {
          setTimeout(() => {
            block.text = 'tampered';
            block.annotations.audience.push('assistant');
            structured.status = 'tampered';
            structured.nested.list.push(3);
          }, 1);
          return { content: [block as ContentBlock], structuredContent: structured };
        },
      }),
    );
    const observed: ToolExecutionResult[] = [];
    registry.on('result', (result) => {
      observed.push(result);
    });
    const result = await registry.execute(call('read_file', { path: 'a' }));
    await new Promise((r) => setTimeout(r, 10));
    expect(result.content).toEqual([
      { type: 'text', text: 'clean', annotations: { audience: ['user'] } },
    ]);
    expect(result.structuredContent).toEqual({ status: 'clean', nested: { list: [1, 2] } });
    expect(observed[0]).toBe(result);
    expect(Object.isFrozen(result.content[0])).toBe(true);
    expect(Object.isFrozen((result.content[0] as { annotations: object }).annotations)).toBe(true);
    expect(Object.isFrozen((result.structuredContent as { nested: object }).nested)).toBe(true);
  });

  it('copies what an interceptor returns as well', async () => {
    const registry = createToolRegistry();
    registry.register(readFile());
    const block = { type: 'text' as const, text: 'policy' };
    registry.use(() => {
      setTimeout(() => {
        block.text = 'tampered';
      }, 1);
      return { callId: 'c-read_file', isError: false, content: [block] };
    });
    const result = await registry.execute(call('read_file', { path: 'a' }));
    await new Promise((r) => setTimeout(r, 10));
    expect(result.content).toEqual([textContent('policy')]);
  });

  const notJson: [string, () => unknown, RegExp][] = [
    [
      'a BigInt',
      () => ({ n: 10n }),
      /"\/structuredContent\/n": must be a JSON value \(got a bigint\)/,
    ],
    [
      'a cycle',
      () => {
        const o: Record<string, unknown> = {};
        o.self = o;
        return o;
      },
      /structuredContent\/self/,
    ],
    [
      'an accessor',
      () =>
        Object.defineProperty({}, 'secret', {
          get: () => 'x',
          enumerable: true,
        }),
      /structuredContent\/secret/,
    ],
    ['a function', () => ({ f: () => 1 }), /structuredContent\/f/],
    ['NaN', () => ({ n: Number.NaN }), /structuredContent\/n": must be a finite number/],
    ['a Map', () => ({ m: new Map() }), /structuredContent\/m/],
  ];
  for (const [what, make, message] of notJson) {
    it(`refuses structuredContent holding ${what} as INVALID_OUTPUT, naming the path`, async () => {
      const registry = createToolRegistry();
      registry.register(
        readFile({
          execute: () =>
            ({
              content: [textContent('x')],
              structuredContent: make(),
            }) as unknown as ContentBlock[],
        }),
      );
      const result = await registry.execute(call('read_file', { path: 'a' }));
      expectFailure(result, 'INVALID_OUTPUT');
      expect(result.error?.message).toMatch(message);
      expect(() => JSON.stringify(result)).not.toThrow();
    });
  }

  it('refuses a non-JSON value inside a content block too', async () => {
    const registry = createToolRegistry();
    registry.register(
      readFile({
        execute: () => [{ type: 'text', text: 'x', _meta: { at: 1n } } as unknown as ContentBlock],
      }),
    );
    const result = await registry.execute(call('read_file', { path: 'a' }));
    expectFailure(result, 'INVALID_OUTPUT');
    expect(result.error?.message).toMatch(/"\/content\/0\/_meta\/at"/);
  });

  it('answers every output either with a result JSON.stringify can write, or INVALID_OUTPUT (property)', async () => {
    const registry = createToolRegistry();
    let next: unknown;
    registry.register(readFile({ execute: () => next as ContentBlock[] }));
    await fc.assert(
      fc.asyncProperty(
        fc.anything({ withBigInt: true, withMap: true, withSet: true, withDate: true }),
        fc.boolean(),
        async (structured, asBlock) => {
          next = asBlock
            ? [{ type: 'text', text: 't', _meta: { v: structured } }]
            : { content: [textContent('t')], structuredContent: structured };
          const result = await registry.execute(call('read_file', { path: 'a' }));
          expect(() => JSON.stringify(result)).not.toThrow();
          if (result.isError) expect(result.error?.code).toBe('INVALID_OUTPUT');
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('maxOutputBytes', () => {
  it('cuts 100 MB of text to the default 1 MiB, saying how much was cut', async () => {
    const registry = createToolRegistry();
    const huge = 'x'.repeat(100 * 1024 * 1024);
    registry.register(readFile({ execute: () => [textContent(huge)] }));
    const result = await registry.execute(call('read_file', { path: 'a' }));
    expect(result.isError).toBe(false);
    const [kept, note] = result.content as { type: 'text'; text: string }[];
    expect(kept?.text.length).toBe(1_048_576);
    expect(note?.text).toMatch(
      /\[output truncated: 103,809,024 of 104,857,600 bytes of text were cut at the output limit of 1,048,576 bytes \(maxOutputBytes\) of tool "read_file"; ask for a smaller part\]/,
    );
  });

  it('keeps blocks in order while they fit, replaces a binary block that does not by a note', async () => {
    const registry = createToolRegistry({ maxOutputBytes: 100 });
    registry.register(
      readFile({
        execute: () => [
          textContent('a'.repeat(40)),
          { type: 'image', data: 'A'.repeat(80), mimeType: 'image/png' },
          textContent('b'.repeat(40)),
          textContent('c'.repeat(40)),
        ],
      }),
    );
    const result = await registry.execute(call('read_file', { path: 'a' }));
    expect(textOf(result)).toBe(
      [
        'a'.repeat(40),
        'b'.repeat(40),
        'c'.repeat(20),
        '[output truncated: 20 of 120 bytes of text were cut at the output limit of 100 bytes (maxOutputBytes) of tool "read_file"; ask for a smaller part]',
        '[a image (image/png) of 80 bytes was left out: over the output limit of 100 bytes (maxOutputBytes) of tool "read_file"]',
      ].join('|'),
    );
  });

  it('leaves structuredContent out, with a note, when it does not fit', async () => {
    const registry = createToolRegistry({ maxOutputBytes: 64 });
    registry.register(
      readFile({
        execute: () => ({
          content: [textContent('ok')],
          structuredContent: { rows: 'r'.repeat(200) },
        }),
      }),
    );
    const result = await registry.execute(call('read_file', { path: 'a' }));
    expect(result.structuredContent).toBeUndefined();
    expect(textOf(result)).toMatch(/^ok\|\[structuredContent of more than 62 bytes was left out/);
  });

  it('returns a result that fits unchanged, structuredContent included', async () => {
    const registry = createToolRegistry({ maxOutputBytes: 1000 });
    registry.register(
      readFile({ execute: () => ({ content: [textContent('ok')], structuredContent: { a: 1 } }) }),
    );
    const result = await registry.execute(call('read_file', { path: 'a' }));
    expect(result.content).toEqual([textContent('ok')]);
    expect(result.structuredContent).toEqual({ a: 1 });
  });

  it('lets a tool override the registry, and bounds what an interceptor returns', async () => {
    const registry = createToolRegistry({ maxOutputBytes: 10 });
    registry.register(
      readFile({ maxOutputBytes: 1000, execute: () => [textContent('y'.repeat(500))] }),
    );
    registry.register(readFile({ name: 'small' }));
    const big = await registry.execute(call('read_file', { path: 'a' }));
    expect(textOf(big)).toBe('y'.repeat(500));
    registry.use((exec, next) =>
      exec.name === 'small'
        ? { callId: exec.callId, isError: false, content: [textContent('z'.repeat(50))] }
        : next(),
    );
    const small = await registry.execute(call('small', { path: 'a' }));
    expect(textOf(small)).toMatch(/^z{10}\|\[output truncated: 40 of 50 bytes/);
  });

  it('never splits a character and never exceeds the budget (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.string({ unit: 'grapheme', maxLength: 60 }), { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 1, max: 200 }),
        async (texts, max) => {
          const registry = createToolRegistry({ maxOutputBytes: max });
          registry.register(readFile({ execute: () => texts.map((t) => textContent(t)) }));
          const result = await registry.execute(call('read_file', { path: 'a' }));
          const blocks = result.content as { type: 'text'; text: string }[];
          const notes = blocks.filter((b) => b.text.startsWith('[output truncated'));
          const kept = blocks.filter((b) => !b.text.startsWith('[output truncated'));
          const total = texts.reduce((n, t) => n + byteLength(t), 0);
          expect(kept.reduce((n, b) => n + byteLength(b.text), 0)).toBeLessThanOrEqual(max);
          expect(notes).toHaveLength(total > max ? 1 : 0);
          // A cut never leaves half a surrogate pair behind.
          for (const b of kept) expect(b.text).not.toMatch(/[\uD800-\uDBFF]$/);
          // What was kept is a prefix of what was sent, in order.
          expect(kept.map((b) => b.text).join('')).toBe(
            texts.join('').slice(0, kept.map((b) => b.text).join('').length),
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it('refuses a malformed maxOutputBytes, on the registry and on a tool', () => {
    for (const bad of [0, -1, Number.NaN, '5']) {
      expect(() => createToolRegistry({ maxOutputBytes: bad as number })).toThrow(/maxOutputBytes/);
      expect(() =>
        createToolRegistry().register(readFile({ maxOutputBytes: bad as number })),
      ).toThrow(/maxOutputBytes/);
    }
  });
});
