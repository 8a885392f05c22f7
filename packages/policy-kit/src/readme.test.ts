import { mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { collectPathArgs, resolvePath } from '@dsh-tools/policy-kit';
import { describe, expect, it } from 'vitest';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe('the README example', () => {
  it('gives what its comments say, through the package name', () => {
    const dir = realpathSync(mkdtempSync(`${tmpdir()}/kit-`));
    try {
      symlinkSync('/etc/not-there-yet', `${dir}/notes.txt`);
      expect(resolvePath('notes.txt', { cwd: dir, mode: 'real' })).toBe('/etc/not-there-yet');
      expect(resolvePath('notes.txt', { cwd: dir, mode: 'lexical' })).toBe(`${dir}/notes.txt`);
      const hints = [{ arg: 'edits.*.file', access: 'write' }] as const;
      expect(collectPathArgs({ edits: [{ file: 'a.ts' }] }, hints)).toMatchObject([
        { arg: 'edits.0.file', value: 'a.ts' },
      ]);
      expect(collectPathArgs({ edits: 'a.ts' }, hints)).toMatch(
        /^argument "edits" must be an array /,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is the code the README shows', () => {
    const usage = readme.slice(readme.indexOf('## Usage'), readme.indexOf('## API'));
    for (const line of [
      "import { collectPathArgs, resolvePath } from '@dsh-tools/policy-kit';",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the README's line, as text
      "symlinkSync('/etc/not-there-yet', `${dir}/notes.txt`); // a dangling link",
      "console.log(resolvePath('notes.txt', { cwd: dir, mode: 'real' })); // '/etc/not-there-yet'",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the README's line, as text
      "console.log(resolvePath('notes.txt', { cwd: dir, mode: 'lexical' })); // `${dir}/notes.txt`",
      "const hints = [{ arg: 'edits.*.file', access: 'write' }] as const;",
      "console.log(collectPathArgs({ edits: 'a.ts' }, hints)); // 'argument \"edits\" must be an array …'",
      'rmSync(dir, { recursive: true });',
    ]) {
      expect(usage).toContain(line);
    }
  });
});
