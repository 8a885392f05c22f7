import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('./implied-bumps.mjs', import.meta.url));
const CONFIG = fileURLToPath(new URL('../.changeset/config.json', import.meta.url));

type Bump = 'patch' | 'minor' | 'major';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * A workspace shaped like ours, in a temp dir, with built declarations saying how each package
 * uses the others: `protocol` and `schema` alone; `registry` exposes protocol's types and
 * re-exports one function of schema; `cli` uses the registry without exposing it; `dsh-tools`
 * re-exports protocol and registry whole. The repository's own .changeset/config.json is used,
 * without a changelog (the temp dir cannot resolve one).
 */
function workspace(
  changesets: Record<string, Partial<Record<string, Bump>>>,
  version = '0.1.0',
): string {
  const root = mkdtempSync(join(tmpdir(), 'implied-bumps-'));
  dirs.push(root);
  const write = (path: string, text: string) => {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  const pkg = (dir: string, name: string, deps: string[], declarations: string) => {
    write(
      `packages/${dir}/package.json`,
      JSON.stringify({
        name,
        version,
        dependencies: Object.fromEntries(deps.map((d) => [d, 'workspace:^'])),
      }),
    );
    write(`packages/${dir}/dist/index.d.mts`, declarations);
  };
  write('package.json', JSON.stringify({ name: 'root', private: true }));
  write('pnpm-workspace.yaml', 'packages:\n  - packages/*\n');
  const config = JSON.parse(readFileSync(CONFIG, 'utf8'));
  write(
    '.changeset/config.json',
    JSON.stringify({ ...config, changelog: false, ignore: [], $schema: undefined }),
  );
  pkg('protocol', '@dsh-tools/protocol', [], 'export interface Tool {}\n');
  pkg('schema', '@dsh-tools/schema', [], 'export declare function compileSchema(): void;\n');
  pkg(
    'registry',
    '@dsh-tools/registry',
    ['@dsh-tools/protocol', '@dsh-tools/schema'],
    "export { compileSchema } from '@dsh-tools/schema';\nimport { Tool } from '@dsh-tools/protocol';\nexport declare function register(tool: Tool): void;\n",
  );
  pkg('cli', '@dsh-tools/cli', ['@dsh-tools/registry'], 'export declare function main(): void;\n');
  pkg(
    'dsh-tools',
    'dsh-tools',
    ['@dsh-tools/protocol', '@dsh-tools/registry'],
    "export * from '@dsh-tools/protocol';\nexport * from '@dsh-tools/registry';\n",
  );
  for (const [id, releases] of Object.entries(changesets)) {
    const lines = Object.entries(releases).map(([name, bump]) => `'${name}': ${bump}`);
    write(`.changeset/${id}.md`, `---\n${lines.join('\n')}\n---\n\nA change.\n`);
  }
  return root;
}

function run(root: string, ...flags: string[]): { status: number | null; output: string } {
  const r = spawnSync(process.execPath, [SCRIPT, '--cwd', root, ...flags], { encoding: 'utf8' });
  return { status: r.status, output: r.stdout + r.stderr };
}

const versionOf = (root: string, dir: string): string =>
  JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8')).version;

/** Runs `changeset version` as the release does (through --version) and reads every version. */
function versionAll(root: string): Record<string, string> {
  const { status, output } = run(root, '--version');
  expect(status, output).toBe(0);
  return Object.fromEntries(
    ['protocol', 'schema', 'registry', 'cli', 'dsh-tools'].map((d) => [d, versionOf(root, d)]),
  );
}

describe('implied-bumps', () => {
  it('below 1.0, a breaking minor of protocol is a minor of every package exposing it, not of the cli', () => {
    const root = workspace({ change: { '@dsh-tools/protocol': 'minor' } });
    const { status, output } = run(root);
    expect(status).toBe(1);
    expect(output).toContain('dsh-tools: minor needed, patch planned');
    expect(output).toContain('@dsh-tools/registry: minor needed, patch planned');
    expect(output).toContain('@dsh-tools/protocol minor (0.1.0 → 0.2.0, breaking)');
    // The cli does not expose the registry's types: changesets' patch is its due.
    expect(output).not.toContain('@dsh-tools/cli:');
    expect(versionAll(root)).toEqual({
      protocol: '0.2.0',
      schema: '0.1.0',
      registry: '0.2.0',
      cli: '0.1.1',
      'dsh-tools': '0.2.0',
    });
  });

  it('plain `changeset version` gives the dependents only a patch: the gap this closes', () => {
    const root = workspace({ change: { '@dsh-tools/protocol': 'minor' } });
    const bin = join(fileURLToPath(new URL('.', import.meta.url)), '..', 'node_modules', '.bin');
    const r = spawnSync(join(bin, 'changeset'), ['version'], { cwd: root, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(versionOf(root, 'dsh-tools')).toBe('0.1.1');
    expect(versionOf(root, 'registry')).toBe('0.1.1');
  });

  it('from 1.0, a major is a major of the exposing packages; a feature a minor of the re-exporter only', () => {
    expect(versionAll(workspace({ change: { '@dsh-tools/protocol': 'major' } }, '1.2.0'))).toEqual({
      protocol: '2.0.0',
      schema: '1.2.0',
      registry: '2.0.0',
      cli: '1.2.1',
      'dsh-tools': '2.0.0',
    });
    expect(versionAll(workspace({ change: { '@dsh-tools/protocol': 'minor' } }, '1.2.0'))).toEqual({
      protocol: '1.3.0',
      schema: '1.2.0',
      registry: '1.2.0',
      cli: '1.2.0',
      'dsh-tools': '1.3.0',
    });
  });

  it('carries a breaking change through: schema → registry (which re-exports part of it) → dsh-tools', () => {
    const root = workspace({ change: { '@dsh-tools/schema': 'major' } }, '1.0.0');
    const { status, output } = run(root);
    expect(status).toBe(1);
    expect(output).toContain('@dsh-tools/registry: major needed');
    expect(output).toContain('dsh-tools: major needed');
    expect(output).toContain('@dsh-tools/registry major (1.0.0 → 2.0.0, breaking)');
  });

  it('asks nothing when the changesets already say enough, for patches, or with none', () => {
    expect(
      run(
        workspace({
          change: { '@dsh-tools/protocol': 'minor', '@dsh-tools/registry': 'minor' },
          meta: { 'dsh-tools': 'minor' },
        }),
      ),
    ).toMatchObject({ status: 0 });
    expect(run(workspace({ fix: { '@dsh-tools/protocol': 'patch' } }, '1.0.0'))).toMatchObject({
      status: 0,
    });
    expect(run(workspace({}))).toMatchObject({ status: 0 });
  });

  it('--write adds changesets that say why, after which the check passes', () => {
    const root = workspace({ change: { '@dsh-tools/protocol': 'minor' } });
    expect(run(root, '--write')).toMatchObject({ status: 0 });
    const written = readFileSync(join(root, '.changeset', 'implied-dsh-tools.md'), 'utf8');
    expect(written).toContain('"dsh-tools": minor');
    expect(written).toContain('Follows @dsh-tools/protocol minor (0.1.0 → 0.2.0, breaking)');
    expect(run(root)).toMatchObject({ status: 0 });
  });

  it('takes a package without declarations as exposing its dependencies, and says so', () => {
    const root = workspace({ change: { '@dsh-tools/registry': 'minor' } });
    rmSync(join(root, 'packages', 'cli', 'dist'), { recursive: true });
    const { status, output } = run(root);
    expect(status).toBe(1);
    expect(output).toContain('@dsh-tools/cli has no built declarations');
    expect(output).toContain('@dsh-tools/cli: minor needed');
  });

  it('cannot tell with a malformed changeset, and says so (exit 2)', () => {
    const root = workspace({});
    writeFileSync(join(root, '.changeset/broken.md'), '---\nnot yaml: [\n---\n');
    const { status, output } = run(root);
    expect(status).toBe(2);
    expect(output).toContain('could not read the workspace and its pending changesets');
  });
});
