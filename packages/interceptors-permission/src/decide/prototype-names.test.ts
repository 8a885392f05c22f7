/**
 * A command, subcommand, option or variable may be named like a property every object inherits
 * (`constructor`, `__proto__`, `toString`, ...). A table looked up with such a name without an own
 * check answers the inherited function instead of "no entry": the decision threw
 * (`constructor x`: "function is not iterable") or read a function as a model. Every lookup keyed
 * by a word must find no entry, so these are programs with no model: their rules decide, plan mode
 * refuses them, and nothing throws.
 */
import { describe, expect, it } from 'vitest';
import { bash, filePolicy, makeProject } from '../../test/helpers';
import { permissionInterceptor } from '../index';

const NAMES = Object.getOwnPropertyNames(Object.prototype);

const { root, home } = makeProject();
const rules = filePolicy({
  cwd: root,
  home,
  rules: { allow: ['Bash(echo:*)', 'Bash(git log:*)', 'Bash(npm test:*)'], deny: ['Bash(rm:*)'] },
});
const plan = filePolicy({ cwd: root, home, mode: 'plan' });

const shapes = (name: string) => [
  `${name}`,
  `${name} x`,
  `${name} -o out.txt x`,
  `git ${name} x`,
  `npm ${name}`,
  `echo x | ${name}`,
  `${name}=1 echo x`,
  `export ${name}=1`,
  `echo \${${name}}`,
  `command ${name} x`,
  `sudo ${name}`,
  `xargs ${name} < list.txt`,
  `find . -exec ${name} {} \\;`,
  `git -c ${name}=x log`,
  `rm -${name}`,
  `sort --${name}=x`,
];

describe('names of Object.prototype', () => {
  it.each(NAMES)(
    '%s: no shape throws, none is allowed unasked, plan mode refuses what it cannot prove',
    async (name) => {
      for (const line of shapes(name)) {
        const decision = await rules.explain(line);
        // Only the shapes an allow rule covers by prefix, with the name as an inert word, may pass.
        if (decision.behavior === 'allow') {
          expect(line, `${line} allowed`).toMatch(
            /^(echo|git log|npm test)\b|^echo \$\{|^\w+=1 echo x$/,
          );
        }
        const planned = await plan.explain(line);
        if (planned.behavior === 'allow') {
          expect(line, `${line} allowed in plan mode`).toMatch(/^echo /);
        }
      }
    },
  );
});

describe('a program named like a prototype property', () => {
  it('is a program with no model: asked under rules, refused in plan mode', async () => {
    expect(await rules.behaviorOf('constructor x')).toBe('ask');
    expect(await plan.behaviorOf('constructor x')).toBe('deny');
    expect(await rules.behaviorOf('__proto__ x')).toBe('ask');
    expect(await rules.behaviorOf('toString x')).toBe('ask');
  });

  it('the interceptor fails closed through the registry too (no throw escapes)', async () => {
    const policy = permissionInterceptor({ cwd: root, home, mode: 'plan' });
    await policy.ready;
    const decision = await policy.explain(bash('constructor x'));
    expect(decision.behavior).toBe('deny');
  });
});

describe('rules and examples that name a prototype property', () => {
  it('an allow rule on such a program does not keep the network (and does not throw)', async () => {
    const { sandboxNarrowing } = await import('./narrowing');
    const { readOptions } = await import('./options');
    for (const name of NAMES) {
      const policy = readOptions({
        cwd: '/w',
        home: '/h',
        rules: { allow: [`Bash(${name}:*)`] },
      }).policy;
      expect(sandboxNarrowing(policy).network, name).toBe(false);
    }
  });

  it('an example naming such a tool has no stock hints: its argument names no command or path', async () => {
    const { exampleExecution } = await import('./examples');
    for (const name of NAMES) {
      expect(() => exampleExecution(`${name}(x)`), name).toThrow(
        `${name} has no command or path argument; use the object form`,
      );
    }
  });
});
