import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { ProcessTransport } from './process-transport';

const open: ProcessTransport[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((t) => t.close()));
});

/** A transport around `node -e <script>`, with its messages, errors and close collected. */
function run(script: string, options: { maxLineBytes?: number; killGraceMs?: number } = {}) {
  const transport = new ProcessTransport({
    command: process.execPath,
    args: ['-e', script],
    ...options,
  });
  open.push(transport);
  const messages: JSONRPCMessage[] = [];
  const errors: Error[] = [];
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
  });
  transport.onmessage = (m) => messages.push(m);
  transport.onerror = (e) => errors.push(e);
  return { transport, messages, errors, closed };
}

const isGone = (pid: number) => {
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
};

describe('ProcessTransport', () => {
  it('delivers JSON-RPC lines and skips everything else, split across chunks or not', async () => {
    const { transport, messages, closed } = run(`
      const w = (s) => process.stdout.write(s);
      w('banner\\n{"jsonrpc":"2.0","method":"a"}\\r\\n[1,2]\\n{"jsonrpc":"1.0","id":1,"result":{}}\\n');
      w('{"jsonrpc":"2.0","id":2,');
      setTimeout(() => { w('"result":{}}\\n\\n{"jsonrpc":"2.0","id":3}\\nnull\\n'); process.exit(0); }, 50);
    `);
    await transport.start();
    await closed;
    expect(messages).toEqual([
      { jsonrpc: '2.0', method: 'a' },
      { jsonrpc: '2.0', id: 2, result: {} },
    ]);
    expect(transport.skippedLines).toBe(5);
    expect(transport.exit).toEqual({ code: 0, signal: null });
  });

  it('keeps the tail of stderr, bounded', async () => {
    const r = run(
      `for (let i = 0; i < 2000; i++) require('node:fs').writeSync(2, 'line ' + i + '\\n'); process.exit(2);`,
    );
    await r.transport.start();
    await r.closed;
    expect(r.transport.stderrTail.length).toBeLessThanOrEqual(4096);
    expect(r.transport.stderrTail.trimEnd().endsWith('line 1999')).toBe(true);
    expect(r.transport.exit?.code).toBe(2);
  });

  it('ends the connection on a line longer than maxLineBytes', async () => {
    const r = run(`process.stdout.write('x'.repeat(200000)); setInterval(() => {}, 1000);`, {
      maxLineBytes: 10_000,
    });
    await r.transport.start();
    await r.closed;
    expect(r.errors[0]?.message).toContain('longer than 10000 bytes');
    expect(isGone(r.transport.pid!)).toBe(true);
  });

  it('escalates to SIGKILL when the server ignores SIGTERM', async () => {
    const r = run(
      `process.on('SIGTERM', () => {}); setInterval(() => {}, 1000); console.error('ready');`,
      {
        killGraceMs: 200,
      },
    );
    await r.transport.start();
    await new Promise((resolve) => setTimeout(resolve, 300));
    await r.transport.close();
    expect(r.transport.exit?.signal).toBe('SIGKILL');
    await r.closed;
  });

  it('reports the close when the server exits although a child of it holds stdout', async () => {
    const r = run(`
      require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: ['ignore', 'inherit', 'ignore'] });
      setTimeout(() => process.exit(5), 100);
    `);
    await r.transport.start();
    await r.closed;
    expect(r.transport.exit?.code).toBe(5);
  });

  it('rejects start() for a missing command and send() once the process is gone', async () => {
    const missing = new ProcessTransport({ command: '/nonexistent/mcp-server' });
    await expect(missing.start()).rejects.toThrow(/ENOENT/);
    const r = run('process.exit(0)');
    await r.transport.start();
    await r.closed;
    await expect(r.transport.send({ jsonrpc: '2.0', method: 'ping' })).rejects.toThrow(
      /not running/,
    );
  });
});
