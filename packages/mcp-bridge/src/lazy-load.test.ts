import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const entry = pathToFileURL(join(packageDir, 'src/index.ts')).href;

/**
 * Logs every module a fresh Node process resolves, from the module loader's thread, on stderr
 * (writeSync: the lines land in the order things happened, among the script's own marks).
 */
const HOOK = `
import { writeSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  writeSync(2, 'LOAD ' + resolved.url + '\\n');
  return resolved;
}`;

/**
 * Imports the package's entry (its source, through tsx, so that an eager import added to any
 * source file shows here without a build), marks the moment, then connects a server that cannot
 * start, which must load the SDK: the second half proves that the log would have shown the SDK.
 */
const SCRIPT = `
import { register, createRequire } from 'node:module';
import { writeSync } from 'node:fs';
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOK)}));
const bridge = await import(${JSON.stringify(entry)});
const required = () => Object.keys(createRequire(import.meta.url).cache).map((f) => 'LOAD ' + f + '\\n').join('');
writeSync(2, required() + 'MARK imported\\n');
const { createToolRegistry } = await import('@dsh-tools/registry');
const failed = await bridge
  .connectMcpServer(createToolRegistry(), { name: 'absent', command: '/nonexistent/dsh-tools-no-such-server' })
  .then(() => 'connected', (error) => error.message);
writeSync(2, required() + 'MARK connect: ' + failed.split('\\n')[0] + '\\n');
`;

/** The modules a fresh process loaded before and after the first connect. */
function loadsOfFreshProcess(): { atImport: string[]; atConnect: string[]; connect: string } {
  const run = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '--eval', SCRIPT],
    // The package's own directory: tsx reads its tsconfig (sources of siblings by `paths`), and
    // bare specifiers resolve through its node_modules, as for a user of the package.
    { cwd: packageDir, encoding: 'utf8', timeout: 60_000 },
  );
  const lines = run.stderr.split('\n');
  const imported = lines.indexOf('MARK imported');
  const connected = lines.findIndex((l) => l.startsWith('MARK connect: '));
  if (run.status !== 0 || imported === -1 || connected === -1) {
    throw new Error(`the child process failed (status ${run.status}):\n${run.stderr}`);
  }
  const loads = (from: number, to: number) =>
    lines.slice(from, to).filter((l) => l.startsWith('LOAD '));
  return {
    atImport: loads(0, imported),
    atConnect: loads(imported + 1, connected),
    connect: lines[connected] ?? '',
  };
}

const SDK = /[\\/]@modelcontextprotocol[\\/]/;
const ZOD = /[\\/]zod[\\/]/;

describe('loading', () => {
  it('importing the package loads neither the MCP client SDK nor zod; the first connect loads the SDK', () => {
    const { atImport, atConnect, connect } = loadsOfFreshProcess();
    // The entry itself was loaded and seen by the log: an empty log would prove nothing.
    expect(atImport.some((l) => l.includes('/mcp-bridge/src/index.ts'))).toBe(true);
    expect(atImport.filter((l) => SDK.test(l) || ZOD.test(l))).toEqual([]);
    // The connect failed as it should (the command does not exist), after loading the SDK.
    expect(connect).toMatch(/MCP server "absent".*could not be started/);
    expect(atConnect.some((l) => /[\\/]@modelcontextprotocol[\\/]client[\\/]/.test(l))).toBe(true);
  });
});
