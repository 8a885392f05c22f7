/**
 * The parser's edges (parser.ts): before it is loaded, and past the length limit. Each test fails
 * under a one-line change the mutation run (`pnpm mutate:permission`) found without coverage in
 * shell/parser.ts. Vitest loads modules afresh per test file, so the parser starts unloaded here.
 * (A tree deeper than the stack is not tested: where the stack runs out depends on the runner.)
 */
import { describe, expect, it } from 'vitest';
import { loadShellParser, MAX_COMMAND_LENGTH, parseShell, shellParserLoaded } from './parser';

describe('the shell parser', () => {
  it('refuses to parse before it is loaded, and parses after', async () => {
    expect(shellParserLoaded()).toBe(false);
    expect(parseShell('ls')).toEqual({ error: 'the shell parser is not loaded' });
    await loadShellParser();
    expect(shellParserLoaded()).toBe(true);
    expect(parseShell('ls')).toMatchObject({ source: 'ls', root: { type: 'program' } });
  });

  it('refuses a line longer than the limit, and parses one at it', async () => {
    await loadShellParser();
    expect(parseShell(`#${'a'.repeat(MAX_COMMAND_LENGTH)}`)).toEqual({
      error: `the command is longer than ${MAX_COMMAND_LENGTH} characters`,
    });
    expect(parseShell(`#${'a'.repeat(MAX_COMMAND_LENGTH - 1)}`)).toHaveProperty('root');
  });
});
