import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXAMPLE_SERVER_VARIABLE, parseConfig } from './config';
import { exampleServerPath } from './example-server-path';

const withVariable = {
  mcpServers: { notes: { command: 'node', args: [`\${${EXAMPLE_SERVER_VARIABLE}}`] } },
};

describe('the DSH_TOOLS_EXAMPLE_SERVER variable', () => {
  it('names the example server shipped in this package, by absolute path', () => {
    const { config } = parseConfig(withVariable, '/anywhere/dsh-tools.json', { env: {} });
    const notes = config.mcpServers.notes as { args: string[] };
    expect(notes.args).toEqual([exampleServerPath()]);
    expect(notes.args[0]).toMatch(/example-server\.mjs$/);
    expect(notes.args[0]?.startsWith('/')).toBe(true);
  });

  it('the environment may point it elsewhere', () => {
    const elsewhere = join('/opt', 'example-server.mjs');
    const { config } = parseConfig(withVariable, '/anywhere/dsh-tools.json', {
      env: { [EXAMPLE_SERVER_VARIABLE]: elsewhere },
    });
    expect((config.mcpServers.notes as { args: string[] }).args).toEqual([elsewhere]);
  });
});
