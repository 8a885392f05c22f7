import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parsePlainGlob, plainGlobRegExp } from './plain-glob';

const seed = Number(process.env.FC_SEED ?? 23);
console.info(`policy-kit plain-glob property tests: fast-check seed ${seed}`);

const matches = (glob: string, path: string): boolean => {
  const parsed = parsePlainGlob(glob, '/cwd', '/home/u');
  if (typeof parsed === 'string') throw new Error(`${glob}: ${parsed}`);
  return plainGlobRegExp(parsed.prefix, parsed.rest).test(path);
};

describe('the plain glob dialect', () => {
  it.each([
    ['**/.env*', '/.env', true],
    ['**/.env*', '/w/deep/.env.local', true],
    ['**/.env*', '/w/.env/inside', false],
    ['~/.ssh/**', '/home/u/.ssh', true],
    ['~/.ssh/**', '/home/u/.sshx', false],
    ['secrets/?.key', '/cwd/secrets/\u{1F600}.key', true],
    ['secrets/?.key', '/cwd/secrets/ab.key', false],
    ['*.pem', '/cwd/.x.pem', true],
    ['/a+b/(c)', '/a+b/(c)', true],
    ['/a+b/(c)', '/aab/c', false],
  ] as const)('%s against %s: %s', (glob, path, expected) => {
    expect(matches(glob, path)).toBe(expected);
  });

  it('refuses what it would only half support', () => {
    expect(parsePlainGlob('a/[bc]', '/cwd', '/h')).toContain('brackets');
    expect(parsePlainGlob('{a,b}', '/cwd', '/h')).toContain('braces');
    expect(parsePlainGlob('!x', '/cwd', '/h')).toContain('negation');
    expect(parsePlainGlob('a/../b', '/cwd', '/h')).toContain('".."');
  });

  it('property: a literal glob matches exactly its own path', () => {
    fc.assert(
      fc.property(
        fc.array(fc.stringMatching(/^[^/*?[\]{}~!\0]{1,8}$/), { minLength: 1, maxLength: 5 }),
        (parts) => {
          fc.pre(parts.every((p) => p !== '.' && p !== '..'));
          const path = `/${parts.join('/')}`;
          expect(matches(path, path)).toBe(true);
          expect(matches(path, `${path}x`)).toBe(false);
          expect(matches(path, `${path}/x`)).toBe(false);
        },
      ),
      { seed },
    );
  });
});
