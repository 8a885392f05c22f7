import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_PAGES, MAX_TOOLS, NO_LIMIT } from './limits';
import { listAllTools, type ToolPageSource } from './list-tools';
import { loadSdk } from './sdk';
import type { ListedTool } from './types';

// The bridge loads the SDK at its first connect and knows the SDK's errors from then on (sdk.ts):
// these errors are made by hand, so the SDK is loaded here as a connect would.
beforeAll(async () => {
  await loadSdk();
});

/** A server's pages as a source: page i is answered for the cursor `c<i>`. */
function pagedSource(pages: readonly (readonly unknown[])[]): {
  source: ToolPageSource;
  asked: (string | undefined)[];
} {
  const asked: (string | undefined)[] = [];
  const source: ToolPageSource = async (cursor) => {
    asked.push(cursor);
    const index = cursor === undefined ? 0 : Number(cursor.slice(1));
    const tools = pages[index] ?? [];
    return index + 1 < pages.length ? { tools, nextCursor: `c${index + 1}` } : { tools };
  };
  return { source, asked };
}

const tool = (name: string): ListedTool => ({ name });

/** A clock a test moves by hand: no wall-clock time in a unit test. */
function manualClock(start = 1_000) {
  let now = start;
  return {
    now: () => now,
    advance: (ms: number): void => {
      now += ms;
    },
  };
}

describe('listAllTools', () => {
  it('returns every page in order, as listed, asking each cursor once', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.anything(), { maxLength: 5 }), { minLength: 1, maxLength: 12 }),
        async (pages) => {
          const { source, asked } = pagedSource(pages);
          const tools = await listAllTools(source, { boundMs: 1_000 });
          expect(tools).toEqual(pages.flat());
          expect(asked).toEqual(pages.map((_, i) => (i === 0 ? undefined : `c${i}`)));
        },
      ),
    );
  });

  it('takes exactly maxTools tools, and refuses one more (also across pages)', async () => {
    const page = (n: number, from = 0) => Array.from({ length: n }, (_, i) => tool(`t${from + i}`));
    expect(
      await listAllTools(pagedSource([page(MAX_TOOLS)]).source, { boundMs: 1e4 }),
    ).toHaveLength(MAX_TOOLS);
    await expect(
      listAllTools(pagedSource([page(MAX_TOOLS + 1)]).source, { boundMs: 1e4 }),
    ).rejects.toThrow(`more than ${MAX_TOOLS} tools (${MAX_TOOLS + 1} by page 1)`);
    // Split over two pages at every point: the cap counts tools, not pages.
    const split = fc
      .integer({ min: 1, max: 6 })
      .chain((limit) => fc.tuple(fc.constant(limit), fc.integer({ min: 0, max: limit })));
    await fc.assert(
      fc.asyncProperty(split, async ([limit, first]) => {
        const at = [page(first), page(limit - first, first)];
        const bounds = { boundMs: 1e4, maxTools: limit };
        expect(await listAllTools(pagedSource(at).source, bounds)).toHaveLength(limit);
        const over = [page(first), page(limit + 1 - first, first)];
        await expect(listAllTools(pagedSource(over).source, bounds)).rejects.toThrow(
          `more than ${limit} tools (${limit + 1} by page`,
        );
      }),
    );
  });

  it('walks exactly maxPages pages, and refuses a listing that would need one more', async () => {
    const pages = (n: number) => Array.from({ length: n }, (_, i) => [tool(`t${i}`)]);
    expect(await listAllTools(pagedSource(pages(MAX_PAGES)).source, { boundMs: 1e4 })).toHaveLength(
      MAX_PAGES,
    );
    await expect(
      listAllTools(pagedSource(pages(MAX_PAGES + 1)).source, { boundMs: 1e4 }),
    ).rejects.toThrow(`tools/list did not end after ${MAX_PAGES} pages`);
    for (const maxPages of [1, 2, 3]) {
      expect(
        await listAllTools(pagedSource(pages(maxPages)).source, { boundMs: 1e4, maxPages }),
      ).toHaveLength(maxPages);
      await expect(
        listAllTools(pagedSource(pages(maxPages + 1)).source, { boundMs: 1e4, maxPages }),
      ).rejects.toThrow(`did not end after ${maxPages} pages`);
    }
  });

  it('refuses a repeated cursor, a cursor that is not a string, and a page without tools', async () => {
    const repeat: ToolPageSource = async () => ({ tools: [tool('a')], nextCursor: 'same' });
    await expect(listAllTools(repeat, { boundMs: 1e4 })).rejects.toThrow(
      /repeated the cursor "same", so it would never end/,
    );
    for (const nextCursor of [1, {}, [], true]) {
      await expect(
        listAllTools(async () => ({ tools: [], nextCursor }), { boundMs: 1e4 }),
      ).rejects.toThrow(/a cursor that is not a string/);
    }
    for (const answer of [null, undefined, 'tools', { tools: {} }, { nextCursor: 'x' }]) {
      await expect(listAllTools(async () => answer, { boundMs: 1e4 })).rejects.toThrow(
        'tools/list answered without a "tools" array',
      );
    }
    // A null cursor ends the listing, like an absent one.
    expect(
      await listAllTools(async () => ({ tools: [tool('a')], nextCursor: null }), { boundMs: 1 }),
    ).toEqual([tool('a')]);
  });

  it('bounds the whole walk by one deadline: each page gets only the time left', async () => {
    const clock = manualClock();
    const given: number[] = [];
    let page = 0;
    const source: ToolPageSource = async (_cursor, timeoutMs) => {
      given.push(timeoutMs);
      clock.advance(30);
      page++;
      return { tools: [tool(`t${page}`)], nextCursor: `c${page}` };
    };
    await expect(listAllTools(source, { boundMs: 100, now: clock.now })).rejects.toThrow(
      'tools/list did not finish within 100 ms ("startupTimeoutMs", the bound of a whole listing): 4 pages and 4 tools so far.',
    );
    expect(given).toEqual([100, 70, 40, 10]);
  });

  it('runs out of time exactly at the deadline, not a moment later', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 1_000 }),
        fc.integer({ min: -2, max: 2 }),
        async (bound, off) => {
          const clock = manualClock();
          let page = 0;
          const source: ToolPageSource = async () => {
            clock.advance(page === 0 ? bound + off : 0);
            page++;
            return { tools: [tool(`t${page}`)], nextCursor: `c${page}` };
          };
          const answer = listAllTools(source, { boundMs: bound, now: clock.now, maxPages: 2 });
          // Time left after the first page: -off. None left (0 or less) is a timeout; any left asks again.
          await expect(answer).rejects.toThrow(
            off >= 0 ? /did not finish within/ : /did not end after 2 pages/,
          );
        },
      ),
    );
  });

  it("reports the SDK's request timeout as the listing's, and passes other errors on", async () => {
    const timeout = new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out');
    await expect(
      listAllTools(async () => Promise.reject(timeout), { boundMs: 5_000 }),
    ).rejects.toThrow(
      'did not finish within 5000 ms ("startupTimeoutMs", the bound of a whole listing): 0 pages and 0 tools so far.',
    );
    const other = new Error('connection reset');
    await expect(listAllTools(async () => Promise.reject(other), { boundMs: 5_000 })).rejects.toBe(
      other,
    );
  });

  it('never hands a page more than the longest timer Node can set', async () => {
    const given: number[] = [];
    await listAllTools(
      async (_cursor, timeoutMs) => {
        given.push(timeoutMs);
        return { tools: [] };
      },
      { boundMs: NO_LIMIT * 4 },
    );
    expect(given).toEqual([NO_LIMIT]);
  });
});
