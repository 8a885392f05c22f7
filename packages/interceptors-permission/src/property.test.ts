import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { bash, makeProject, propertySeed } from '../test/helpers';
import { type PermissionInterceptor, PermissionRuleError, permissionInterceptor } from './index';
import { analyzeShell } from './shell/analyze';

/** One seed for every property here, printed so that a failure replays (`FC_SEED=<seed>`). */
const SEED = propertySeed('permission properties');

let strict: PermissionInterceptor;
let open: PermissionInterceptor;
let root: string;
let home: string;

beforeAll(async () => {
  ({ root, home } = makeProject());
  const rules = {
    allow: ['Bash(npm test:*)', 'Bash(git status)', 'Bash(ls:*)', 'Bash(echo:*)', 'Bash(cat:*)'],
    deny: ['Bash(rm:*)', 'Bash(curl:*)', 'Bash(git push:*)', 'Read(./.env)'],
  };
  strict = permissionInterceptor({ cwd: root, home, rules });
  open = permissionInterceptor({ cwd: root, home });
  await Promise.all([strict.ready, open.ready]);
});

const denied = fc.constantFrom(
  'rm -rf /',
  'rm x',
  '/bin/rm -f y',
  'curl evil.example',
  'git push origin main',
  'cat .env',
);
const ok = fc.constantFrom('npm test', 'git status', 'ls -la', 'echo hi', 'cat README.md');
type Wrap = (c: string, ok: string) => string;
// Quoting that keeps the inner command whole, so every wrapping really runs it.
const single = (c: string) => `'${c.replace(/'/g, "'\\''")}'`;
const double = (c: string) => `"${c.replace(/[\\"$`]/g, (x) => `\\${x}`)}"`;
const backticked = (c: string) => `\`${c.replace(/[\\`$]/g, (x) => `\\${x}`)}\``;
const wraps: Wrap[] = [
  (c, k) => `${k} && ${c}`,
  (c, k) => `${c}; ${k}`,
  (c, k) => `${k} | ${c}`,
  (c, k) => `${k} || ${c}`,
  (c, k) => `${k} |& ${c}`,
  (c, k) => `${k} & ${c}`,
  (c, k) => `${k}\n${c}`,
  (c) => `$(${c})`,
  (c, k) => `${k} $(${c})`,
  (c, k) => `${k} ${backticked(c)}`,
  (c) => `bash -c ${single(c)}`,
  (c) => `sh -c ${double(c)}`,
  (c) => `eval ${double(c)}`,
  (c) => `(${c})`,
  (c) => `{ ${c}; }`,
  (c) => `timeout 5 ${c}`,
  (c) => `env X=1 ${c}`,
  (c) => `nice -n 5 ${c}`,
  (c) => `sudo ${c}`,
  (c) => `nohup ${c}`,
  (c) => `FOO=bar ${c}`,
  (c, k) => `if ${k}; then ${c}; fi`,
  (c, k) => `for x in a; do ${k}; ${c}; done`,
  (c, k) => `${k} <(${c})`,
  (c) => `f() { ${c}; }; f`,
];

describe('properties', () => {
  it('a denied command stays denied inside any nesting of compounds, substitutions and wrappers', async () => {
    await fc.assert(
      fc.asyncProperty(
        denied,
        ok,
        fc.array(fc.integer({ min: 0, max: wraps.length - 1 }), { minLength: 1, maxLength: 3 }),
        async (c, k, path) => {
          const line = path.reduce<string>((acc, i) => (wraps[i] as Wrap)(acc, k), c);
          const d = await strict.explain(bash(line));
          expect(d.behavior, `${JSON.stringify(line)}: ${d.reason}`).not.toBe('allow');
        },
      ),
      { seed: SEED, numRuns: 400 },
    );
  });

  it('a single wrapping of a denied command is denied outright (not merely asked)', async () => {
    await fc.assert(
      fc.asyncProperty(
        denied,
        ok,
        fc.integer({ min: 0, max: wraps.length - 1 }),
        async (c, k, i) => {
          const line = (wraps[i] as Wrap)(c, k);
          const d = await strict.explain(bash(line));
          expect(d.behavior, `${JSON.stringify(line)}: ${d.reason}`).toBe('deny');
        },
      ),
      { seed: SEED, numRuns: 300 },
    );
  });

  const pieces = fc.constantFrom(
    'rm',
    'ls',
    'cat',
    'echo',
    ' ',
    ' ',
    '\n',
    '\t',
    '$',
    '(',
    ')',
    '`',
    "'",
    '"',
    '\\',
    '|',
    '&',
    ';',
    '<',
    '>',
    '*',
    '?',
    '[',
    ']',
    '{',
    '}',
    '#',
    '=',
    '~',
    '!',
    '-',
    '.env',
    'x',
    'ｒ',
    '\u200d',
    'м',
    '\u0000',
    '$(',
    '<<',
  );
  const garbage = fc.oneof(
    fc.string({ unit: pieces, maxLength: 40 }),
    fc.string({ maxLength: 60 }),
    fc.string({ unit: 'binary', maxLength: 60 }),
  );
  const NEUTRAL = new Set(['cd', 'pushd', 'popd', 'true', 'false', ':', '[', 'test']);

  it('a neutral builtin is allowed by its own name only: a path to a file of that name runs the file', async () => {
    for (const line of ['true', ':', 'cd src', 'test -n x', '[ -n x ]']) {
      expect((await open.explain(bash(line))).behavior, line).toBe('allow');
    }
    for (const line of ['./true', '/:', 'x/:', './cd src', 'bin/test -n x', '/tmp/[ -n x ]']) {
      expect((await open.explain(bash(line))).behavior, line).not.toBe('allow');
    }
  });

  it('garbage never throws, and with no allow rule is never allowed unless it runs nothing', async () => {
    await fc.assert(
      fc.asyncProperty(garbage, async (line) => {
        const d = await open.explain(bash(line));
        if (d.behavior !== 'allow') return;
        const analysis = analyzeShell(line, root, home);
        expect(analysis.problems).toEqual([]);
        for (const cmd of analysis.commands)
          expect(NEUTRAL.has(cmd.argv[0]?.value ?? '')).toBe(true);
      }),
      { seed: SEED, numRuns: 500 },
    );
  });

  it('garbage around a denied command never makes it allowed', async () => {
    await fc.assert(
      fc.asyncProperty(garbage, denied, async (g, c) => {
        // Garbage before it may swallow it (`npm test \` continues the line), so it comes after.
        const d = await strict.explain(bash(`npm test; ${c} ${g}`));
        expect(d.behavior).not.toBe('allow');
      }),
      { seed: SEED, numRuns: 300 },
    );
  });

  it('any rule string either loads or fails with a PermissionRuleError that quotes it', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 30 }),
          fc.string({ unit: pieces, maxLength: 12 }).map((s) => `Bash(${s})`),
        ),
        (rule) => {
          try {
            permissionInterceptor({ rules: { deny: [rule] } });
          } catch (error) {
            expect(error).toBeInstanceOf(PermissionRuleError);
            expect((error as Error).message).toContain(JSON.stringify(rule));
          }
        },
      ),
      { seed: SEED, numRuns: 500 },
    );
  });
});
