/**
 * The look-alike letters a deny rule sees through (match.ts's table): each one, alone in a name,
 * folds to the Latin letter it imitates, so `Bash(rm:*)` also denies `гm`. Each case fails when
 * its entry is dropped, which the mutation run (`pnpm mutate:permission`) tries one at a time.
 */
import { describe, expect, it } from 'vitest';
import { bash, makeProject } from '../../test/helpers';
import { permissionInterceptor } from '../index';
import { foldLookAlike } from './match';

const LOOK_ALIKES: readonly (readonly [string, string])[] = [
  ['\u0430', 'a'],
  ['\u0432', 'b'],
  ['\u0441', 'c'],
  ['\u0501', 'd'],
  ['\u0435', 'e'],
  ['\u04bb', 'h'],
  ['\u0456', 'i'],
  ['\u0458', 'j'],
  ['\u043a', 'k'],
  ['\u04cf', 'l'],
  ['\u043c', 'm'],
  ['\u043d', 'h'],
  ['\u043e', 'o'],
  ['\u0440', 'p'],
  ['\u051b', 'q'],
  ['\u0433', 'r'],
  ['\u0455', 's'],
  ['\u0442', 't'],
  ['\u0443', 'y'],
  ['\u0445', 'x'],
  ['\u051d', 'w'],
  ['\u044c', 'b'],
  ['\u043f', 'n'],
  ['\u043b', 'n'],
  ['\u03b1', 'a'],
  ['\u03b2', 'b'],
  ['\u03b5', 'e'],
  ['\u03b7', 'n'],
  ['\u03b9', 'i'],
  ['\u03ba', 'k'],
  ['\u03bd', 'v'],
  ['\u03bf', 'o'],
  ['\u03c1', 'p'],
  ['\u03c4', 't'],
  ['\u03c5', 'u'],
  ['\u03c7', 'x'],
  ['\u03bc', 'u'],
  ['\u0261', 'g'],
  ['\u0251', 'a'],
  ['\u0269', 'i'],
  ['\u0578', 'n'],
  ['\u057d', 'u'],
  ['\u0585', 'o'],
  ['\u1d0d', 'm'],
  ['\u0280', 'r'],
  ['\ua731', 's'],
];

describe('look-alike letters', () => {
  it.each(LOOK_ALIKES.map(([glyph, latin]) => [glyph.codePointAt(0)?.toString(16), glyph, latin]))(
    'U+%s folds to %s',
    (_, glyph, latin) => {
      // Not a letter NFKC or lower-casing would fold anyway: only the table does it.
      expect(glyph.normalize('NFKC').toLowerCase()).not.toBe(latin);
      expect(foldLookAlike(`x${glyph}x`)).toBe(`x${latin}x`);
    },
  );

  it('a deny rule catches a program spelled with them, and they never make an allow match', async () => {
    const { root, home } = makeProject();
    const policy = permissionInterceptor({
      cwd: root,
      home,
      rules: { allow: ['Bash(rm:*)'], deny: ['Bash(curl:*)', 'Bash(rm -rf:*)'] },
    });
    await policy.ready;
    expect((await policy.explain(bash('\u0441url http://x'))).behavior).toBe('deny');
    expect((await policy.explain(bash('\u0433m -rf src'))).behavior).toBe('deny');
    expect((await policy.explain(bash('\u0433m x'))).behavior).toBe('ask');
  });
});
