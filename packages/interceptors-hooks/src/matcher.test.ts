import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileMatcher } from './matcher';

const toolName = fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/);

describe('compileMatcher', () => {
  it('matches everything for *, empty, blank and absent', () => {
    for (const m of [undefined, '', '   ', '*', ' * ']) {
      const matches = compileMatcher(m);
      expect(matches('Bash')).toBe(true);
      expect(matches('mcp__fs__read_file')).toBe(true);
    }
  });

  it('matches a plain name exactly (no substring, case-sensitive)', () => {
    const matches = compileMatcher('Edit');
    expect(matches('Edit')).toBe(true);
    expect(matches('MultiEdit')).toBe(false);
    expect(matches('edit')).toBe(false);
    expect(matches('Edit2')).toBe(false);
  });

  it('matches A|B lists exactly, ignoring spaces around names', () => {
    const matches = compileMatcher('Edit | Write|mcp__fs__write-file');
    expect(['Edit', 'Write', 'mcp__fs__write-file'].map(matches)).toEqual([true, true, true]);
    expect(['MultiEdit', 'Writer', 'Read'].map(matches)).toEqual([false, false, false]);
  });

  it('tests a regular expression unanchored, as Claude Code does', () => {
    const matches = compileMatcher('mcp__github__.*');
    expect(matches('mcp__github__create_issue')).toBe(true);
    expect(matches('mcp__gitlab__create_issue')).toBe(false);
    expect(compileMatcher('^Notebook.*$')('NotebookEdit')).toBe(true);
    expect(compileMatcher('^Notebook.*$')('MyNotebookEdit')).toBe(false);
  });

  it('refuses a list that names no tool ("|", " | ", "||")', () => {
    for (const m of ['|', ' | ', '||', '\t|\t']) {
      expect(() => compileMatcher(m), JSON.stringify(m)).toThrow(/names no tool/);
    }
  });

  it('refuses an invalid regular expression with a SyntaxError quoting it', () => {
    expect(() => compileMatcher('Bash(')).toThrow(SyntaxError);
    expect(() => compileMatcher('[a-')).toThrow(/matcher "\[a-" is not a valid regular expression/);
  });

  it('property: a list of names matches exactly its members', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(toolName, { minLength: 1, maxLength: 6 }),
        toolName,
        (names, other) => {
          const matches = compileMatcher(names.join('|'));
          for (const name of names) expect(matches(name)).toBe(true);
          expect(matches(other)).toBe(names.includes(other));
        },
      ),
    );
  });

  it('property: any string either compiles to a total predicate or throws a SyntaxError', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 40 }),
        fc.array(toolName, { maxLength: 5 }),
        (m, names) => {
          let matches: ((name: string) => boolean) | undefined;
          try {
            matches = compileMatcher(m);
          } catch (error) {
            expect(error).toBeInstanceOf(SyntaxError);
            // Refused only for a regex that does not compile, or a list that names no tool.
            if (!/^[\s|]*\|[\s|]*$/.test(m)) expect(() => new RegExp(m)).toThrow();
            return;
          }
          for (const name of names) {
            const hit = matches(name);
            expect(typeof hit).toBe('boolean');
            // Asking twice (the cached path) gives the same answer.
            expect(matches(name)).toBe(hit);
          }
        },
      ),
    );
  });

  it('property: a regex matcher agrees with RegExp#test', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('.*', 'a.', '^B', 'sh$', '[0-9]+', '(Read|Write)File', '_{2}'),
        toolName,
        (m, name) => {
          expect(compileMatcher(m)(name)).toBe(new RegExp(m).test(name));
        },
      ),
    );
  });
});
