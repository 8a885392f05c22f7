import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { assertBuilt, cleanEnv, runCli, startServe, tempDir } from './helpers';

// Each test starts the built bin (and MCP servers); slow on a loaded machine.
vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });

beforeAll(() => assertBuilt());

const RECORDER = new URL('fixtures/record-loads.mjs', import.meta.url).href;

/** A fresh log file and the environment that makes the bin write every module it loads into it. */
function recording(): { log: string; env: NodeJS.ProcessEnv } {
  const log = join(tempDir('dsh-loads-'), 'loads.txt');
  return { log, env: cleanEnv({ NODE_OPTIONS: `--import=${RECORDER}`, DSH_LOAD_LOG: log }) };
}

/**
 * The packages (and the package's own tokenizer file) among the modules in `log`: the last
 * `node_modules/<name>` of a URL, a workspace folder as `@dsh-tools/<folder>`.
 */
function loaded(log: string): Set<string> {
  const names = new Set<string>();
  for (const url of readFileSync(log, 'utf8').split('\n')) {
    const inModules = /.*\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
    const inWorkspace = /\/packages\/([^/]+)\/(?:dist|src)\//.exec(url);
    if (inModules?.[1]) names.add(inModules[1]);
    else if (inWorkspace?.[1] && inWorkspace[1] !== 'cli')
      names.add(`@dsh-tools/${inWorkspace[1]}`);
    if (url.endsWith('/dist/o200k.mjs')) names.add('o200k');
  }
  return names;
}

/** What only `serve` needs: the MCP server SDK and the HTTP stack. */
const SERVER_SIDE = [
  '@modelcontextprotocol/server',
  '@modelcontextprotocol/node',
  'hono',
  '@hono/node-server',
];
/** What every command that opens a gateway needs, and --help never. */
const GATEWAY_SIDE = [
  'zod',
  '@dsh-tools/registry',
  '@dsh-tools/mcp-bridge',
  '@dsh-tools/interceptors-permission',
];

describe('each command loads only what it uses', () => {
  it.each([['--help'], ['--version']])(
    '%s loads no package besides the bin (commander and picocolors are bundled into it)',
    async (flag) => {
      const { log, env } = recording();
      const { code } = await runCli([flag], { env });
      expect(code).toBe(0);
      // The log saw the bin itself: an empty log would prove nothing.
      expect(readFileSync(log, 'utf8')).toContain('/dist/cli.mjs');
      expect([...loaded(log)]).toEqual([]);
    },
  );

  it('a usage error loads no more than --help', async () => {
    const { log, env } = recording();
    const { code } = await runCli(['no-such-command'], { env });
    expect(code).toBe(2);
    expect(readFileSync(log, 'utf8')).toContain('/dist/cli.mjs');
    expect([...loaded(log)]).toEqual([]);
  });

  it('inspect loads the gateway and the tokenizer, not the MCP server SDK or the HTTP stack', async () => {
    const { log, env } = recording();
    const { code } = await runCli(['inspect', '--json'], { env });
    expect(code).toBe(0);
    const names = loaded(log);
    for (const name of [...GATEWAY_SIDE, 'o200k']) expect(names).toContain(name);
    for (const name of SERVER_SIDE) expect(names).not.toContain(name);
  });

  it.each([['call'], ['check']])(
    '%s loads the gateway, not the tokenizer nor the server side',
    async (command) => {
      const { log, env } = recording();
      const { code } = await runCli([command, 'list_dir', '{"path":"."}', '--json'], { env });
      expect(code).toBe(0);
      const names = loaded(log);
      for (const name of GATEWAY_SIDE) expect(names).toContain(name);
      for (const name of [...SERVER_SIDE, 'o200k']) expect(names).not.toContain(name);
    },
  );

  it('serve over stdio loads the MCP server SDK, not the HTTP stack nor the tokenizer', async () => {
    const { log, env } = recording();
    // stdin ends at once: the stdio server starts, sees the end of its input and stops.
    const { code, stderr } = await runCli(['serve'], { env });
    expect(stderr).toContain('over stdio');
    expect(code).toBe(0);
    const names = loaded(log);
    expect(names).toContain('@modelcontextprotocol/server');
    for (const name of ['@modelcontextprotocol/node', 'hono', '@hono/node-server', 'o200k']) {
      expect(names).not.toContain(name);
    }
  });

  it('serve --http loads the HTTP stack too', async () => {
    const { log, env } = recording();
    const serve = await startServe([], { env });
    await serve.stop();
    const names = loaded(log);
    for (const name of ['@modelcontextprotocol/server', '@modelcontextprotocol/node']) {
      expect(names).toContain(name);
    }
    expect(names).not.toContain('o200k');
  });
});
