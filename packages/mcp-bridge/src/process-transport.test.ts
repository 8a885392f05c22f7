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
    expect(r.errors[0]?.message).toContain('longer than the limit of 10000 bytes');
    expect(r.transport.failure).toBe(r.errors[0]);
    expect(isGone(r.transport.pid!)).toBe(true);
  });

  it('accepts a line of exactly maxLineBytes and ends the connection at one byte more', async () => {
    // The line arrives without its newline first, so it waits in the buffer at its full length.
    const line = (bytes: number) => {
      const head = '{"jsonrpc":"2.0","method":"a","params":{"p":"';
      const tail = '"}}';
      return `${head}${'x'.repeat(bytes - head.length - tail.length)}${tail}`;
    };
    const script = (text: string) =>
      `process.stdout.write(${JSON.stringify(text)}); setTimeout(() => { process.stdout.write('\\n'); setTimeout(() => process.exit(0), 50); }, 100);`;
    const exact = run(script(line(5000)), { maxLineBytes: 5000 });
    await exact.transport.start();
    await exact.closed;
    expect(exact.errors).toEqual([]);
    expect(exact.messages).toHaveLength(1);
    const over = run(script(line(5001)), { maxLineBytes: 5000 });
    await over.transport.start();
    await over.closed;
    expect(over.messages).toEqual([]);
    expect(over.errors[0]?.message).toContain('longer than the limit of 5000 bytes');
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

/** A message far larger than a pipe holds: its send waits for a drain. */
const big = {
  jsonrpc: '2.0',
  method: 'x',
  params: { p: 'y'.repeat(4 * 1024 * 1024) },
} as unknown as JSONRPCMessage;

describe('ProcessTransport sends', () => {
  it('settles a send blocked on a server that never reads stdin once the server is gone', async () => {
    const r = run('setInterval(() => {}, 1000);', { killGraceMs: 200 });
    await r.transport.start();
    // The pipe holds far less than 4 MiB: this send waits for a drain the server never allows.
    const sent = r.transport.send(big).then(
      () => 'sent',
      (error: Error) => error.message,
    );
    await r.transport.close();
    expect(await sent).toMatch(/not running|stopped reading/);
  });

  it('fails a blocked send only once the exit of a server that closed its stdin is known', async () => {
    // The server closes its stdin, then exits with code 3 a moment later: the send's error must
    // come after the exit is recorded, so a startup error can name the exit code.
    const r = run(
      'process.stdin.destroy(); setTimeout(() => process.exit(3), 100); setInterval(() => {}, 1000);',
    );
    await r.transport.start();
    const sent = r.transport.send(big).then(
      () => 'sent',
      (error: Error) => ({ message: error.message, exit: r.transport.exit }),
    );
    const outcome = await sent;
    expect(outcome).toMatchObject({ exit: { code: 3 } });
  });
});
