import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  connectMcpServer,
  type McpServerHandle,
  type McpStatusEvent,
  type McpStdioServerConfig,
  type McpToolsChangeEvent,
} from '../src/index';
import { call, FAULT_SERVER, isGone, newRegistry, text, until } from './helpers';

const handles: McpServerHandle[] = [];
const scratch = mkdtempSync(join(tmpdir(), 'mcp-bridge-test-'));

afterEach(async () => {
  await Promise.all(handles.splice(0).map((h) => h.close()));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function fault(
  extra: Partial<McpStdioServerConfig> & { env?: Record<string, string> } = {},
): McpStdioServerConfig {
  return {
    name: 'fault',
    command: process.execPath,
    args: [FAULT_SERVER, 'stdio'],
    reconnect: { initialDelayMs: 10, maxDelayMs: 50 },
    onError: () => {},
    ...extra,
  };
}

async function connect(registry = newRegistry(), config = fault()) {
  const handle = await connectMcpServer(registry, config);
  handles.push(handle);
  return { registry, handle };
}

describe('discovery', () => {
  it('registers every tool as mcp__<server>__<tool> with its schema minus $schema', async () => {
    const { registry, handle } = await connect();
    expect(handle.status).toBe('connected');
    const echo = registry.get('mcp__fault__echo');
    expect(echo).toBeDefined();
    expect(echo?.parameters).toEqual({
      type: 'object',
      properties: { text: { type: 'string' } },
      required: ['text'],
    });
    expect(echo?.source).toEqual({ kind: 'mcp', server: 'fault', tool: 'echo' });
    expect(echo?.timeoutMs).toBe(0);
    // Untrusted by default: the server's annotations do not become hints.
    expect(echo?.hints).toEqual({});
    expect(handle.tools.map((t) => t.tool)).toContain('all-content');
    expect(registry.schemas().map((s) => s.name)).toEqual(handle.tools.map((t) => t.name));
  });

  it('believes annotations only when trust is on', async () => {
    const { registry } = await connect(newRegistry(), fault({ trust: true }));
    expect(registry.get('mcp__fault__echo')?.hints).toEqual({
      readOnly: true,
      idempotent: true,
      openWorld: false,
      concurrencySafe: true,
    });
    expect(registry.get('mcp__fault__fail')?.hints).toEqual({ destructive: true });
  });

  it("never turns an untrusted server's annotations into hints, whatever it claims", async () => {
    for (const trust of [undefined, false] as const) {
      const registry = newRegistry();
      await connect(registry, fault(trust === undefined ? {} : { trust }));
      const schemas = registry.schemas();
      expect(schemas.length).toBeGreaterThan(10);
      for (const { name } of schemas) expect(registry.get(name)?.hints).toEqual({});
    }
  });

  it('rejects a trust that is not a boolean, so "false" from a JSON file cannot trust', async () => {
    for (const trust of ['false', 'true', 1, 0, null, {}]) {
      const error = await connectMcpServer(
        newRegistry(),
        fault({ trust: trust as unknown as boolean }),
      ).catch((e) => e);
      expect(error).toBeInstanceOf(TypeError);
      expect(error.message).toContain('"trust" must be true or false');
    }
  });

  it('applies include and exclude (exact names, globs and RegExps)', async () => {
    const { handle } = await connect(
      newRegistry(),
      fault({ include: ['echo', 'st*', /^fail$/], exclude: ['stats'] }),
    );
    expect(handle.tools.map((t) => t.tool).sort()).toEqual(['echo', 'fail', 'storm', 'structured']);
  });

  it('gives names that clash once normalized distinct valid names that map back', async () => {
    const { registry, handle } = await connect(
      newRegistry(),
      fault({ env: { FAULT_WEIRD_NAMES: '1' } }),
    );
    const weird = ['a.b', 'a_b', 'a b', 'x'.repeat(100), `${'x'.repeat(99)}y`, 'ünïcödé'];
    const names = weird.map((tool) => handle.tools.find((t) => t.tool === tool)?.name);
    expect(new Set(names).size).toBe(weird.length);
    for (const name of names) {
      expect(name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
      expect(registry.get(name!)).toBeDefined();
    }
    const long = await call(registry, names[3]!, {});
    expect(text(long)).toBe(`${'x'.repeat(100)}:{}`);
  });

  it('skips malformed tools one by one and keeps the rest', async () => {
    const errors: Error[] = [];
    const { registry, handle } = await connect(
      newRegistry(),
      fault({ env: { FAULT_HOSTILE: '1' }, onError: (e) => errors.push(e) }),
    );
    const messages = errors.map((e) => e.message).join('\n');
    expect(messages).toContain('listed tool "echo" twice');
    expect(messages).toContain('"string-schema" whose inputSchema is of type "string"');
    expect(messages).toContain('refused tool "mcp__fault__deep"');
    expect(messages).toContain('"bad-properties" whose inputSchema has "properties" that is not');
    expect(messages).toContain('"bad-required" whose inputSchema has "required" that is not');
    expect(registry.get('mcp__fault__bad-properties')).toBeUndefined();
    expect(registry.get('mcp__fault__bad-required')).toBeUndefined();
    expect(registry.get('mcp__fault__string-schema')).toBeUndefined();
    expect(registry.get('mcp__fault__deep')).toBeUndefined();
    expect(registry.get('mcp__fault__echo')?.description).toBe('Echoes its text.');
    expect(registry.get('mcp__fault__huge-description')?.description.length).toBeLessThanOrEqual(
      16_385,
    );
    expect(registry.get('mcp__fault__no-description')?.description).toBe(
      'Tool "no-description" of MCP server "fault".',
    );
    expect(handle.tools.map((t) => t.tool)).toContain('all-content');
  });

  it('walks every page of a 1,000-tool list, past the SDK aggregator cap of 64 pages', async () => {
    const { registry, handle } = await connect(
      newRegistry(),
      fault({ env: { FAULT_EXTRA_TOOLS: '1000', FAULT_PAGE_SIZE: '7' } }),
    );
    expect(handle.tools.filter((t) => /^t\d{4}$/.test(t.tool))).toHaveLength(1000);
    expect(registry.get('mcp__fault__t0999')).toBeDefined();
    expect(text(await call(registry, 'mcp__fault__t0500', { value: 'v' }))).toBe(
      't0500:{"value":"v"}',
    );
  });

  it('survives non-JSON lines on stdout before the handshake', async () => {
    const { registry } = await connect(newRegistry(), fault({ env: { FAULT_START: 'garbage' } }));
    expect(text(await call(registry, 'mcp__fault__echo', { text: 'ok' }))).toBe('ok');
  });
});

describe('calls', () => {
  it('maps every content type one to one', async () => {
    const { registry } = await connect();
    const result = await call(registry, 'mcp__fault__all-content');
    expect(result.isError).toBe(false);
    expect(result.content.map((b) => b.type)).toEqual([
      'text',
      'image',
      'audio',
      'resource_link',
      'resource',
      'resource',
    ]);
    expect(result.content[0]).toEqual({
      type: 'text',
      text: 'hello',
      annotations: { audience: ['user'], priority: 0.5 },
    });
    expect(result.content[3]).toMatchObject({ uri: 'file:///tmp/a.txt', name: 'a.txt', size: 3 });
    expect(result.content[4]).toEqual({
      type: 'resource',
      resource: { uri: 'mem://t', mimeType: 'text/plain', text: 'abc' },
    });
    expect(result.content[5]).toEqual({
      type: 'resource',
      resource: { uri: 'mem://b', mimeType: 'application/octet-stream', blob: 'AAEC' },
    });
  });

  it('keeps structuredContent and renders it as text when the tool sent none', async () => {
    const { registry } = await connect();
    const result = await call(registry, 'mcp__fault__structured', { n: 2 });
    expect(result.structuredContent).toEqual({ n: 2, ok: true });
    expect(result.content).toEqual([{ type: 'text', text: '{"n":2,"ok":true}' }]);
  });

  it('turns isError into MCP_ERROR with the server text, and a JSON-RPC error too', async () => {
    const { registry } = await connect();
    const failed = await call(registry, 'mcp__fault__fail');
    expect(failed.isError).toBe(true);
    expect(failed.error?.code).toBe('MCP_ERROR');
    expect(failed.error?.message).toBe('disk is full');
    const refused = await call(registry, 'mcp__fault__protocol-error');
    expect(refused.error?.code).toBe('MCP_ERROR');
    expect(refused.error?.message).toContain('the server refuses this call');
  });

  it('survives garbage printed on stdout mid-session', async () => {
    const { registry } = await connect();
    expect(text(await call(registry, 'mcp__fault__garbage'))).toBe('survived');
    expect(text(await call(registry, 'mcp__fault__echo', { text: 'still here' }))).toBe(
      'still here',
    );
  });

  it('times out a hung call, and the server is told to cancel', async () => {
    const { registry } = await connect(newRegistry(), fault({ timeoutMs: 300 }));
    const result = await call(registry, 'mcp__fault__hang');
    expect(result.error?.code).toBe('TIMEOUT');
    expect(result.error?.message).toContain('"hang"');
    expect(result.error?.message).toContain('timeoutMs');
    const stats = await call(registry, 'mcp__fault__stats');
    expect((stats.structuredContent as { cancelled: number }).cancelled).toBe(1);
  });

  it('lets a call that reports progress run past timeoutMs, and reports the progress', async () => {
    const progress: number[] = [];
    const { registry } = await connect(
      newRegistry(),
      fault({ timeoutMs: 1000, onProgress: (e) => progress.push(e.progress) }),
    );
    // 10 steps of 250 ms: 2.5 s in all, never 1 s without progress.
    const result = await call(registry, 'mcp__fault__progress', { steps: 10, intervalMs: 250 });
    expect(result.isError).toBe(false);
    expect(text(result)).toBe('done after 10 steps, token=true');
    // The last notification races the result itself: the SDK may drop it once the call is done.
    expect(progress.slice(0, 9)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    // Without progress, the same wait is a timeout.
    const silent = await call(registry, 'mcp__fault__progress', { steps: 1, intervalMs: 2500 });
    expect(silent.error?.code).toBe('TIMEOUT');
  });

  it('stops a call that keeps reporting progress at maxTotalTimeoutMs', async () => {
    const { registry } = await connect(
      newRegistry(),
      fault({ timeoutMs: 1000, maxTotalTimeoutMs: 600 }),
    );
    const result = await call(registry, 'mcp__fault__progress', { steps: 20, intervalMs: 100 });
    expect(result.error?.code).toBe('TIMEOUT');
    expect(result.error?.message).toContain('maxTotalTimeoutMs');
  });

  it('forwards the caller abort as a cancellation', async () => {
    const { registry } = await connect();
    const controller = new AbortController();
    const pending = call(registry, 'mcp__fault__hang', {}, controller.signal);
    setTimeout(() => controller.abort(), 100);
    const result = await pending;
    expect(result.error?.code).toBe('ABORTED');
    const stats = await call(registry, 'mcp__fault__stats');
    expect((stats.structuredContent as { cancelled: number }).cancelled).toBe(1);
  });
});

describe('crashes and reconnection', () => {
  it('resolves every pending call with UNAVAILABLE when the server crashes, then reconnects', async () => {
    const statuses: McpStatusEvent[] = [];
    const { registry, handle } = await connect();
    handle.on('status', (e) => statuses.push(e));
    const firstPid = handle.pid!;
    const echo = registry.get('mcp__fault__echo');
    const hung = [call(registry, 'mcp__fault__hang'), call(registry, 'mcp__fault__hang')];
    const crash = await call(registry, 'mcp__fault__crash');
    expect(crash.error?.code).toBe('UNAVAILABLE');
    expect(crash.error?.message).toContain('code 7');
    expect(crash.error?.message).toContain('segmentation fault (simulated)');
    for (const result of await Promise.all(hung)) expect(result.error?.code).toBe('UNAVAILABLE');
    // The tools stay registered through the outage.
    expect(registry.get('mcp__fault__echo')).toBeDefined();
    await until(() => handle.status === 'connected');
    expect(statuses.map((e) => e.status)).toEqual(['reconnecting', 'connected']);
    expect(handle.pid).not.toBe(firstPid);
    expect(isGone(firstPid)).toBe(true);
    expect(text(await call(registry, 'mcp__fault__echo', { text: 'back' }))).toBe('back');
    // The same tools came back, so the registry saw no churn at all.
    expect(registry.get('mcp__fault__echo')).toBe(echo);
  });

  it('fails fast during an outage, saying the server is reconnecting', async () => {
    const { registry, handle } = await connect(
      newRegistry(),
      fault({ reconnect: { initialDelayMs: 400, maxDelayMs: 400 } }),
    );
    await call(registry, 'mcp__fault__crash');
    expect(handle.status).toBe('reconnecting');
    const during = await call(registry, 'mcp__fault__echo', { text: 'x' });
    expect(during.error?.code).toBe('UNAVAILABLE');
    expect(during.error?.message).toContain('reconnecting');
    await until(() => handle.status === 'connected');
  });

  it('gives up after the attempts of its policy, then reconnect() starts again', async () => {
    const flag = join(scratch, 'down');
    const { registry, handle } = await connect(
      newRegistry(),
      fault({
        env: { FAULT_EXIT_IF_FILE: flag },
        reconnect: { maxAttempts: 3, initialDelayMs: 10, maxDelayMs: 20 },
      }),
    );
    const attempts: number[] = [];
    handle.on('status', (e) => {
      if (e.status === 'reconnecting') attempts.push(e.attempt ?? 0);
    });
    writeFileSync(flag, '');
    await call(registry, 'mcp__fault__crash');
    await until(() => handle.status === 'failed');
    expect(attempts).toEqual([1, 2, 3]);
    const down = await call(registry, 'mcp__fault__echo', { text: 'x' });
    expect(down.error?.code).toBe('UNAVAILABLE');
    expect(down.error?.message).toContain('gave up');
    expect(registry.get('mcp__fault__echo')).toBeDefined();
    rmSync(flag);
    await handle.reconnect();
    expect(handle.status).toBe('connected');
    expect(text(await call(registry, 'mcp__fault__echo', { text: 'up' }))).toBe('up');
  });

  it('with reconnect: false, a crash leaves the server failed', async () => {
    const { registry, handle } = await connect(newRegistry(), fault({ reconnect: false }));
    await call(registry, 'mcp__fault__crash');
    await until(() => handle.status === 'failed');
    expect((await call(registry, 'mcp__fault__echo', { text: 'x' })).error?.code).toBe(
      'UNAVAILABLE',
    );
  });
});

describe('listing limits', () => {
  it('bounds a whole listing by startupTimeoutMs, not each page, and says what to do', async () => {
    const error = await connectMcpServer(
      newRegistry(),
      fault({
        env: { FAULT_ENDLESS_PAGES: '1', FAULT_LIST_DELAY_MS: '100' },
        startupTimeoutMs: 1000,
      }),
    ).catch((e) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toContain('MCP server "fault"');
    expect(error.message).toContain('tools/list did not finish within 1000 ms');
    expect(error.message).toContain('startupTimeoutMs');
    expect(error.message).toMatch(/\d+ pages/);
  });

  it('detects a server that repeats its cursor', async () => {
    const error = await connectMcpServer(
      newRegistry(),
      fault({ env: { FAULT_REPEAT_CURSOR: '1' } }),
    ).catch((e) => e);
    expect(error.message).toContain('repeated the cursor "same"');
  });

  it('refuses a 200,000-tool page with a clear error instead of a RangeError', async () => {
    const error = await connectMcpServer(
      newRegistry(),
      fault({ env: { FAULT_BIG_PAGE: '200000' } }),
    ).catch((e) => e);
    expect(error).not.toBeInstanceOf(RangeError);
    expect(error.message).toContain('MCP server "fault"');
    expect(error.message).toContain('more than 10000 tools');
  });
});

describe('tools/list_changed', () => {
  it('follows a change announced during the first listing', async () => {
    const { registry, handle } = await connect(
      newRegistry(),
      fault({ env: { FAULT_CHANGE_DURING_LIST: '1' } }),
    );
    const early = `mcp__fault__early-${handle.pid}`;
    await until(() => registry.get(early) !== undefined);
  });

  it('follows a change announced during the listing after a reconnect', async () => {
    const { registry, handle } = await connect(
      newRegistry(),
      fault({ env: { FAULT_CHANGE_DURING_LIST: '1' } }),
    );
    const firstPid = handle.pid!;
    await until(() => registry.get(`mcp__fault__early-${firstPid}`) !== undefined);
    await call(registry, 'mcp__fault__crash');
    await until(() => handle.status === 'connected' && handle.pid !== firstPid);
    const secondPid = handle.pid!;
    await until(() => registry.get(`mcp__fault__early-${secondPid}`) !== undefined);
    expect(registry.get(`mcp__fault__early-${firstPid}`)).toBeUndefined();
  });

  it('ends refresh() even when the server announces a change during every listing', async () => {
    const errors: Error[] = [];
    const { handle } = await connect(
      newRegistry(),
      // Each listing outlasts the 50 ms throttle, so its own notification lands inside it.
      fault({
        env: { FAULT_NOTIFY_ON_LIST: '1', FAULT_LIST_DELAY_MS: '100' },
        onError: (e) => errors.push(e),
      }),
    );
    // Without a bound on follow-ups this never settles (the test's timeout catches that).
    await handle.refresh();
    await handle.refresh();
    await handle.close();
    // Let anything close() aborted settle, then make sure none of it was reported.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(errors).toEqual([]);
  });

  it('reports a failed refresh once per listing, not once per notification it absorbed', async () => {
    const errors: Error[] = [];
    const { registry } = await connect(
      newRegistry(),
      fault({
        env: { FAULT_LIST_DELAY_MS: '300' },
        listChangedDebounceMs: 10,
        onError: (e) => errors.push(e),
      }),
    );
    await call(registry, 'mcp__fault__fail-lists');
    const before = (await call(registry, 'mcp__fault__stats')).structuredContent as {
      toolsList: number;
    };
    // Notifications every 20 ms for 1 s: many arrive while each 300 ms listing is in flight.
    await call(registry, 'mcp__fault__notify', { count: 50, intervalMs: 20 });
    await until(() => errors.length > 0);
    // Let the last listing finish.
    await new Promise((resolve) => setTimeout(resolve, 800));
    const after = (await call(registry, 'mcp__fault__stats')).structuredContent as {
      toolsList: number;
    };
    const listings = after.toolsList - before.toolsList;
    expect(listings).toBeGreaterThan(0);
    expect(errors.length).toBeLessThanOrEqual(listings);
    for (const error of errors) expect(error.message).toContain('failing on purpose');
  });

  it('registers and disposes only what changed', async () => {
    const changes: McpToolsChangeEvent[] = [];
    const { registry, handle } = await connect();
    handle.on('tools', (e) => changes.push(e));
    await call(registry, 'mcp__fault__set-tools', { add: ['dyn1', 'dyn2'] });
    await until(() => registry.get('mcp__fault__dyn2') !== undefined);
    expect(changes).toEqual([
      { added: ['mcp__fault__dyn1', 'mcp__fault__dyn2'], removed: [], changed: [] },
    ]);
    const echo = registry.get('mcp__fault__echo');
    await call(registry, 'mcp__fault__set-tools', { remove: ['dyn1'] });
    await until(() => registry.get('mcp__fault__dyn1') === undefined);
    expect(changes[1]).toEqual({ added: [], removed: ['mcp__fault__dyn1'], changed: [] });
    // Unchanged tools were left alone: the very same definition is registered.
    expect(registry.get('mcp__fault__echo')).toBe(echo);
    expect(text(await call(registry, 'mcp__fault__dyn2'))).toBe('dyn2:{}');
  });

  it('coalesces a storm of notifications into a few listings', async () => {
    const { registry, handle } = await connect();
    const before = (await call(registry, 'mcp__fault__stats')).structuredContent as {
      listings: number;
    };
    await call(registry, 'mcp__fault__storm', { count: 300 });
    await until(() => registry.get('mcp__fault__storm-299') !== undefined);
    // Let any straggling refresh finish before counting.
    await handle.refresh();
    const after = (await call(registry, 'mcp__fault__stats')).structuredContent as {
      listings: number;
    };
    // 300 notifications; one debounced listing, perhaps one follow-up, and the explicit refresh.
    expect(after.listings - before.listings).toBeLessThanOrEqual(3);
    expect(handle.tools.filter((t) => t.tool.startsWith('storm-'))).toHaveLength(300);
  });

  it('keeps the previous set when a refresh fails', async () => {
    const errors: Error[] = [];
    const { registry, handle } = await connect(
      newRegistry(),
      fault({ onError: (e) => errors.push(e) }),
    );
    const before = registry.schemas().map((s) => s.name);
    await call(registry, 'mcp__fault__fail-lists');
    await call(registry, 'mcp__fault__set-tools', { add: ['never'] });
    await until(() => errors.length > 0);
    expect(errors[0]?.message).toContain('previous');
    expect(registry.schemas().map((s) => s.name)).toEqual(before);
    await expect(handle.refresh()).rejects.toThrow(/failing on purpose/);
    expect(registry.schemas().map((s) => s.name)).toEqual(before);
  });

  it('never applies half a listing: a page that fails keeps the previous set', async () => {
    const errors: Error[] = [];
    const { registry, handle } = await connect(
      newRegistry(),
      fault({
        env: { FAULT_EXTRA_TOOLS: '300', FAULT_PAGE_SIZE: '100' },
        onError: (e) => errors.push(e),
      }),
    );
    const before = registry.schemas().map((s) => s.name);
    await call(registry, 'mcp__fault__fail-next-page');
    await call(registry, 'mcp__fault__set-tools', { add: ['fresh'] });
    await until(() => errors.length > 0);
    expect(errors[0]?.message).toContain('a later page of tools/list failed on purpose');
    expect(registry.schemas().map((s) => s.name)).toEqual(before);
    await handle.refresh();
    expect(registry.get('mcp__fault__fresh')).toBeDefined();
  });

  it('leaves out a tool the registry refuses, applies the rest, and says so', async () => {
    const errors: Error[] = [];
    const registry = newRegistry();
    registry.register({
      name: 'mcp__fault__dyn-b',
      description: 'a local tool that happens to hold the name',
      parameters: { type: 'object' },
      execute: () => [{ type: 'text', text: 'local' }],
    });
    await connect(registry, fault({ onError: (e) => errors.push(e) }));
    await call(registry, 'mcp__fault__set-tools', { add: ['dyn-a', 'dyn-b'], remove: [] });
    await until(() => registry.get('mcp__fault__dyn-a') !== undefined);
    expect(text(await call(registry, 'mcp__fault__dyn-b'))).toBe('local');
    expect(errors.map((e) => e.message).join('\n')).toContain('refused tool "mcp__fault__dyn-b"');
  });
});

describe('startup failures', () => {
  it('reports a server that exits at start with the tail of its stderr', async () => {
    const registry = newRegistry();
    const error = await connectMcpServer(registry, fault({ env: { FAULT_START: 'exit' } })).catch(
      (e) => e,
    );
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toContain('MCP server "fault"');
    expect(error.message).toContain('exit code 3');
    expect(error.message).toContain('cannot open database /nonexistent/db.sqlite');
    expect(registry.schemas()).toHaveLength(0);
  });

  it('reports the real cause of a failure after the handshake, not the SIGTERM of cleanup', async () => {
    const error = await connectMcpServer(
      newRegistry(),
      fault({ env: { FAULT_LIST_FAIL_AFTER: '0' } }),
    ).catch((e) => e);
    expect(error.message).toContain('MCP server "fault"');
    expect(error.message).toContain('listing its tools failed');
    expect(error.message).toContain('tools/list is failing on purpose');
    expect(error.message).not.toContain('SIGTERM');
  });

  it('times out a server that never answers the handshake, and kills it', async () => {
    const error = await connectMcpServer(
      newRegistry(),
      fault({ env: { FAULT_START: 'silent' }, startupTimeoutMs: 300 }),
    ).catch((e) => e);
    expect(error.message).toContain('did not finish starting within 300 ms');
  });

  it('says so when the command does not exist', async () => {
    const error = await connectMcpServer(
      newRegistry(),
      fault({ command: join(scratch, 'no-such-server') }),
    ).catch((e) => e);
    expect(error.message).toContain('command not found');
  });

  it('rejects malformed and hostile configs with a message naming the field', async () => {
    const registry = newRegistry();
    const bad: unknown[] = [
      null,
      {},
      { name: '', command: 'x' },
      { name: 'x'.repeat(300), command: 'x' },
      { name: 's' },
      { name: 's', command: 'x', url: 'http://127.0.0.1:1/mcp' },
      { name: 's', command: 'x', args: 'a b' },
      { name: 's', command: 'x', env: { A: 1 } },
      { name: 's', url: 'not a url' },
      { name: 's', url: 'file:///etc/passwd' },
      { name: 's', command: 'x', timeoutMs: -1 },
      { name: 's', command: 'x', include: [42] },
      { name: 's', command: 'x', trust: 'false' },
      { name: 's', command: 'x', reconnect: true },
      { name: 's', command: 'x', reconnect: 'never' },
      { name: 's', command: 'x', reconnect: { maxAttempts: -1 } },
      { name: 's', command: 'x', reconnect: { maxAttempts: 1.5 } },
      { name: 's', command: 'x', reconnect: { initialDelayMs: '250' } },
      { name: 's', command: 'x', reconnect: { factor: 0.5 } },
      { name: 's', command: 'x', reconnect: { budgetMs: Number.NaN } },
      { name: 's', command: 'x', reconnect: { maxAttempt: 3 } },
      { name: 's', command: 'x', onError: 'log' },
    ];
    for (const config of bad) {
      await expect(connectMcpServer(registry, config as McpStdioServerConfig)).rejects.toThrow(
        TypeError,
      );
    }
    await expect(
      connectMcpServer(registry, {
        name: 's',
        command: 'x',
        reconnect: { maxAttempt: 3 },
      } as never),
    ).rejects.toThrow(/unknown field "maxAttempt"/);
    await expect(
      connectMcpServer(registry, { name: 's', command: 'x', reconnect: { factor: 0.5 } }),
    ).rejects.toThrow(/"reconnect.factor" must be a number >= 1 \(got 0.5\)/);
  });
});

describe('close()', () => {
  it('aborts a reconnect attempt hung in its handshake and kills that process at once', async () => {
    const flag = join(scratch, 'hang-on-restart');
    const { registry, handle } = await connect(
      newRegistry(),
      fault({
        env: { FAULT_SILENT_IF_FILE: flag },
        // Far longer than the test may take: close() waiting it out fails the test.
        startupTimeoutMs: 120_000,
      }),
    );
    const firstPid = handle.pid!;
    writeFileSync(flag, '');
    try {
      await call(registry, 'mcp__fault__crash');
      // The attempt's process is up and silent: the handshake waits.
      await until(() => handle.pid !== undefined && handle.pid !== firstPid);
      const attemptPid = handle.pid!;
      expect(handle.status).toBe('reconnecting');
      await handle.close();
      expect(handle.status).toBe('closed');
      await until(() => isGone(attemptPid));
    } finally {
      rmSync(flag, { force: true });
    }
  });

  it('kills the process group (no strays), unregisters the tools, and is idempotent', async () => {
    const { registry, handle } = await connect();
    const serverPid = handle.pid!;
    const grandchild = Number(text(await call(registry, 'mcp__fault__spawn-grandchild')));
    expect(isGone(grandchild)).toBe(false);
    const removed: string[][] = [];
    handle.on('tools', (e) => removed.push([...e.removed]));
    await Promise.all([handle.close(), handle.close()]);
    expect(handle.status).toBe('closed');
    expect(registry.schemas()).toHaveLength(0);
    expect(removed).toHaveLength(1);
    await until(() => isGone(serverPid) && isGone(grandchild));
    const after = await call(registry, 'mcp__fault__echo', { text: 'x' });
    expect(after.error?.code).toBe('UNKNOWN_TOOL');
    expect(() => handle.on('nope' as 'status', () => {})).toThrow(/unknown event/);
  });
});
