import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadsOfFreshProcess } from '../../../test-support/module-loads';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const entry = pathToFileURL(join(packageDir, 'src/index.ts')).href;

/**
 * Imports the package's entry, marks the moment, then connects a server that cannot start, which
 * must load the SDK: the second half proves that the log would have shown the SDK.
 */
const BODY = `
const bridge = await import(${JSON.stringify(entry)});
mark('imported');
const { createToolRegistry } = await import('@dsh-tools/registry');
const failed = await bridge
  .connectMcpServer(createToolRegistry(), { name: 'absent', command: '/nonexistent/dsh-tools-no-such-server' })
  .then(() => 'connected', (error) => error.message);
mark('connect: ' + failed);
`;

const SDK = /[\\/]@modelcontextprotocol[\\/]/;
const ZOD = /[\\/]zod[\\/]/;

describe('loading', () => {
  it('importing the package loads neither the MCP client SDK nor zod; the first connect loads the SDK', () => {
    const [imported, connected] = loadsOfFreshProcess(packageDir, BODY);
    const atImport = imported?.loads ?? [];
    const atConnect = connected?.loads ?? [];
    // The entry itself was loaded and seen by the log: an empty log would prove nothing.
    expect(atImport.some((l) => l.includes('/mcp-bridge/src/index.ts'))).toBe(true);
    expect(atImport.filter((l) => SDK.test(l) || ZOD.test(l))).toEqual([]);
    // The connect failed as it should (the command does not exist), after loading the SDK.
    expect(imported?.label).toBe('imported');
    expect(connected?.label).toMatch(/^connect: MCP server "absent".*could not be started/);
    expect(atConnect.some((l) => /[\\/]@modelcontextprotocol[\\/]client[\\/]/.test(l))).toBe(true);
  });
});
