/**
 * Plan mode runs what a model proves read-only: echo and printf (without -v) print their words and
 * change nothing. Without echo's model (a mutant of round seven emptied it, `builtins.ts`), echo
 * would be a program with no model, which plan mode refuses.
 */
import { describe, expect, it } from 'vitest';
import { filePolicy, makeProject } from '../../../test/helpers';

const { root, home } = makeProject();
const { behaviorOf } = filePolicy({ cwd: root, home, mode: 'plan' });

describe('plan mode and the printers', () => {
  it.each(['echo hi', 'echo -n hi there', 'printf "%s\\n" hi'])('%s runs', async (line) => {
    expect(await behaviorOf(line)).toBe('allow');
  });
  it('a printer writing a file is refused', async () => {
    expect(await behaviorOf('echo hi > notes.txt')).toBe('deny');
  });
});
