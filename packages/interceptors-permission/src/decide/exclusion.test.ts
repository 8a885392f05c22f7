/**
 * Directory readers: a search tool that promises to leave out what the call's exclusion covers
 * (`honoursExclude`) is given the Read deny rules as `exec.exclude` instead of a question, and a
 * real walk of a real project with it never returns a denied file, by name, by link or by parent.
 */
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import type { BodyExecution, PathExclusion, ToolHints } from '@dsh-tools/protocol';
import { textContent } from '@dsh-tools/protocol';
import { createToolRegistry } from '@dsh-tools/registry';
import { describe, expect, it } from 'vitest';
import { call, makeProject } from '../../test/helpers';
import { permissionInterceptor } from '../index';
import { joinExclusions } from './exclusion';

const HONOURS: ToolHints = {
  readOnly: true,
  paths: [{ arg: 'path', access: 'read', honoursExclude: true }],
};
const PLAIN: ToolHints = { readOnly: true, paths: [{ arg: 'path', access: 'read' }] };

const RULES = {
  allow: ['Read(./**)', 'Search', 'Plain'],
  deny: ['Read(./.env)', 'Read(./secrets/**)'],
};

/** Every file under `dir` a walk reaches, leaving out what `exclude` covers (links followed as files). */
function walk(dir: string, exclude: PathExclusion | undefined): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (exclude?.covers(full)) continue;
    if (entry.isDirectory()) out.push(...walk(full, exclude));
    // A link is read where it leads when that is a file (as grep -r does), never walked into.
    else if (statSync(full, { throwIfNoEntry: false })?.isFile())
      out.push(`${full}=${readFileSync(full, 'utf8').trim()}`);
  }
  return out;
}

function setup(rules: { allow?: string[]; ask?: string[]; deny?: string[] } = RULES) {
  const { root, home } = makeProject();
  // The `escape` link leads out of the project; a walk must not loop through it.
  writeFileSync(join(root, 'escape-target'), '');
  const questions: string[] = [];
  const policy = permissionInterceptor({
    cwd: root,
    home,
    rules,
    approve: (request) => {
      questions.push(request.reason);
      return { kind: 'deny', reason: 'test answers deny' };
    },
  });
  const registry = createToolRegistry();
  const seen: (PathExclusion | undefined)[] = [];
  const searchTool = (name: string, hints: ToolHints) => ({
    name,
    description: 'Lists every file under a directory with its content.',
    parameters: { type: 'object' as const, properties: { path: { type: 'string' } } },
    hints,
    execute: (args: Record<string, unknown>, exec: BodyExecution) => {
      seen.push(exec.exclude);
      const dir = resolve(root, String(args.path ?? '.'));
      const files = walk(dir, exec.exclude).filter((f) => !f.includes('/escape'));
      return [textContent(files.join('\n'))];
    },
  });
  registry.register(searchTool('Search', HONOURS));
  registry.register(searchTool('Plain', PLAIN));
  registry.use(policy, { name: 'permission' });
  const run = (name: string, path?: string) =>
    registry.execute({ callId: 'c', name, arguments: path === undefined ? {} : { path } });
  return { root, home, policy, questions, seen, run };
}

const text = (result: { content: readonly { type: string; text?: string }[] }) =>
  result.content.map((b) => b.text ?? '').join('\n');

describe('a directory reader that honours the exclusion', () => {
  it('runs on a directory holding denied files without a question, and never returns them', async () => {
    const { root, questions, run } = setup();
    for (const path of ['.', undefined, root, 'src/..', './']) {
      const result = await run('Search', path);
      expect(result.isError, text(result)).toBe(false);
      const out = text(result);
      expect(out).toContain('README.md=# x');
      expect(out).toContain('src/a.ts=export {};');
      // Neither by name nor through the links src/env-link → .env and src/secrets-link → secrets.
      expect(out).not.toContain('TOKEN=1');
      expect(out).not.toMatch(/secrets\/key|secrets-link\/key|=k$/m);
      expect(out).not.toContain('env-link');
    }
    expect(questions).toEqual([]);
  });

  it('the same walk without the exclusion returns the secrets (the harm it prevents)', () => {
    const { root } = setup();
    const out = walk(root, undefined)
      .filter((f) => !f.includes('/escape'))
      .join('\n');
    expect(out).toContain('TOKEN=1');
    expect(out).toContain('secrets/key=k');
    expect(out).toContain('src/env-link=TOKEN=1');
  });

  it('a reader that does not promise it is still asked, and gets no exclusion', async () => {
    const { questions, run, seen } = setup();
    const result = await run('Plain', '.');
    expect(result.error?.code).toBe('DENIED');
    expect(questions).toHaveLength(1);
    expect(questions[0]).toContain('holds paths rule');
    expect(seen).toEqual([]);
  });

  it('a directory a deny rule covers is still denied outright, exclusion or not', async () => {
    const { run, questions } = setup();
    expect((await run('Search', 'secrets')).error?.code).toBe('DENIED');
    expect(questions).toEqual([]);
  });

  it('an ask rule inside the directory still asks: excluding it would answer the question', async () => {
    const { run, questions } = setup({ ...RULES, ask: ['Read(./src/**)'] });
    expect((await run('Search', '.')).error?.code).toBe('DENIED');
    expect(questions).toHaveLength(1);
  });

  it('the tool gets the exclusion only when a deny rule applies; its globs name the rules', async () => {
    const none = setup({ allow: ['Search'] });
    await none.run('Search', '.');
    expect(none.seen).toEqual([undefined]);
    const some = setup();
    await some.run('Search', '.');
    const exclusion = some.seen[0];
    expect(exclusion?.by).toBe('permission rules');
    expect(exclusion?.globs).toEqual(
      expect.arrayContaining([`${some.root}/.env`, `${some.root}/secrets/**`]),
    );
    expect(exclusion?.covers(join(some.root, 'secrets'))).toBe(true);
    expect(exclusion?.covers(join(some.root, 'secrets', 'deeper', 'x'))).toBe(true);
    expect(exclusion?.covers('.env')).toBe(true);
    expect(exclusion?.covers(join(some.root, 'src', 'env-link'))).toBe(true);
    expect(exclusion?.covers(join(some.root, '.env.example'))).toBe(false);
    expect(exclusion?.covers(join(some.root, 'README.md'))).toBe(false);
    // What cannot name a path is left out.
    for (const bad of ['', 'a\u0000b', 3 as unknown as string])
      expect(exclusion?.covers(bad)).toBe(true);
  });

  it("the tool's own path deny rules are excluded too", async () => {
    const { run, root } = setup({ allow: ['Search', 'Read(./**)'], deny: ['Search(./src/**)'] });
    mkdirSync(join(root, 'docs'));
    writeFileSync(join(root, 'docs', 'd.md'), 'doc');
    const out = text(await run('Search', '.'));
    expect(out).toContain('docs/d.md=doc');
    expect(out).not.toContain('src/a.ts');
  });

  it('a link created later to a denied file is covered where it leads', async () => {
    const { root, seen, run } = setup();
    await run('Search', '.');
    symlinkSync(join(root, 'secrets', 'key'), join(root, 'innocent.txt'));
    expect(seen[0]?.covers(join(root, 'innocent.txt'))).toBe(true);
  });
});

describe('joinExclusions', () => {
  const own: PathExclusion = { covers: (p) => p === '/a', globs: ['/a'], by: 'inner' };
  it('covers what either covers, and keeps both globs and names', () => {
    const outer: PathExclusion = { covers: (p) => p === '/b', globs: ['/b'], by: 'outer' };
    const joined = joinExclusions(outer, own);
    expect(['/a', '/b', '/c'].map((p) => joined.covers(p))).toEqual([true, true, false]);
    expect(joined.globs).toEqual(['/b', '/a']);
    expect(joined.by).toBe('outer, inner');
    expect(joinExclusions(undefined, own)).toBe(own);
  });
  it('an outer exclusion it cannot read leaves nothing to read (fail closed)', () => {
    for (const broken of [{}, { covers: 'x' }, null, 3]) {
      const joined = joinExclusions(broken as never, own);
      expect(joined.covers('/anything')).toBe(true);
    }
  });
});

describe('explain', () => {
  it('allows the honouring reader on the project and asks for the plain one', async () => {
    const { policy } = setup();
    expect((await policy.explain(call('Search', { path: '.' }, HONOURS))).behavior).toBe('allow');
    expect((await policy.explain(call('Plain', { path: '.' }, PLAIN))).behavior).toBe('ask');
  });

  it('says what else holds the call once it runs: the sandbox narrowing and the exclusion', async () => {
    const { policy, root } = setup();
    const allowed = await policy.explain(call('Search', { path: '.' }, HONOURS));
    expect(allowed.enforced?.sandbox).toMatchObject({
      denyRead: expect.arrayContaining([`${root}/.env`, `${root}/secrets/**`]),
      network: false,
      by: 'permission rules',
    });
    expect(allowed.enforced?.exclude).toEqual(expect.arrayContaining([`${root}/.env`]));
    // A reader that does not honour exclusions gets the narrowing only.
    const asked = await policy.explain(call('Plain', { path: '.' }, PLAIN));
    expect(asked.enforced?.sandbox.network).toBe(false);
    expect(asked.enforced?.exclude).toBeUndefined();
    // A denied call runs under nothing: there is nothing to say.
    expect(
      (await policy.explain(call('Search', { path: 'secrets' }, HONOURS))).enforced,
    ).toBeUndefined();
  });
});
