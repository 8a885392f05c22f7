import type { StandardSchemaV1 } from '@modelcontextprotocol/client';
import { isTimeout } from './call-errors';
import { quoteValue } from './format';
import { MAX_PAGES, MAX_TOOLS, NO_LIMIT } from './limits';
import type { ListedTool } from './types';

/**
 * One page of `tools/list`: asked for with the cursor (none for the first page) and the time left
 * for the whole walk, ms. The bridge's source is its client's request; a test's is a function.
 * A source signals running out of time by rejecting with the SDK's RequestTimeout error.
 */
export type ToolPageSource = (cursor: string | undefined, timeoutMs: number) => Promise<unknown>;

/** The bounds of one walk; `now` is injectable so that a test can move time without waiting. */
export interface ListingBounds {
  /** The whole walk's bound, ms (the server's `startupTimeoutMs`, or `NO_LIMIT`). */
  readonly boundMs: number;
  readonly maxPages?: number;
  readonly maxTools?: number;
  readonly now?: () => number;
}

/** Hands a result over unparsed; `tool-definitions.ts` checks each listed tool on its own. */
export const AS_IS: StandardSchemaV1 = {
  '~standard': { version: 1, vendor: 'dsh-tools', validate: (value: unknown) => ({ value }) },
};

const FIX =
  'Fix the server\'s tools/list pagination, bridge a smaller server, or raise "startupTimeoutMs" if it is just slow.';

/**
 * Every page of `tools/list`, walked here rather than by the SDK's aggregating `listTools()`,
 * which stops at 64 pages and rejects the whole list when one tool fails its schema. Each entry
 * is returned as listed (unchecked); the walk rejects on a malformed page, a cursor that is not a
 * string or repeats, more than `maxTools` tools or `maxPages` pages, and when the whole walk runs
 * past `boundMs`: one deadline for every page, not one per page, so that a server handing out
 * fresh cursors slowly cannot hold `connect()` or a refresh for pages × the timeout.
 */
export async function listAllTools(
  source: ToolPageSource,
  bounds: ListingBounds,
): Promise<ListedTool[]> {
  const { boundMs, maxPages = MAX_PAGES, maxTools = MAX_TOOLS, now = Date.now } = bounds;
  const tools: ListedTool[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  const deadline = now() + boundMs;
  for (let page = 0; page < maxPages; page++) {
    const left = deadline - now();
    if (left <= 0) throw listTimeout(boundMs, page, tools.length);
    let result: { tools?: unknown; nextCursor?: unknown } | null;
    try {
      result = (await source(cursor, Math.min(left, NO_LIMIT))) as {
        tools?: unknown;
        nextCursor?: unknown;
      } | null;
    } catch (error) {
      if (isTimeout(error)) throw listTimeout(boundMs, page, tools.length);
      throw error;
    }
    if (typeof result !== 'object' || result === null || !Array.isArray(result.tools)) {
      throw new Error('tools/list answered without a "tools" array');
    }
    const listed = result.tools as ListedTool[];
    if (tools.length + listed.length > maxTools) {
      throw new Error(
        `tools/list offered more than ${maxTools} tools (${tools.length + listed.length} by page ${page + 1}), the most the bridge takes from one server. Split the server into smaller ones; "include" cannot help, since it applies after listing.`,
      );
    }
    // One at a time: a spread of a huge page would overflow the call stack.
    for (const tool of listed) tools.push(tool);
    const next = result.nextCursor;
    if (next === undefined || next === null) return tools;
    if (typeof next !== 'string')
      throw new Error(
        `tools/list gave a cursor that is not a string (${quoteValue(next)}). ${FIX}`,
      );
    if (seen.has(next))
      throw new Error(
        `tools/list repeated the cursor ${quoteValue(next)}, so it would never end. ${FIX}`,
      );
    seen.add(next);
    cursor = next;
  }
  throw new Error(`tools/list did not end after ${maxPages} pages. ${FIX}`);
}

function listTimeout(bound: number, pages: number, tools: number): Error {
  return new Error(
    `tools/list did not finish within ${bound} ms ("startupTimeoutMs", the bound of a whole listing): ${pages} pages and ${tools} tools so far. ${FIX}`,
  );
}
