import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('./check-release.mjs', import.meta.url));

type Bump = 'patch' | 'minor' | 'major';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * A pnpm workspace shaped like ours, in a temp dir: `dsh-tools` depending on (so re-exporting)
 * `@dsh-tools/registry` and `@dsh-tools/protocol`, and `@dsh-tools/cli`, which it does not
 * re-export, with one changeset file per entry of `changesets`.
 */
function workspace(
  changesets: Record<string, Partial<Record<string, Bump>>>,
  options: { version?: string; meta?: boolean } = {},
): string {
  const root = mkdtempSync(join(tmpdir(), 'check-release-'));
  dirs.push(root);
  const version = options.version ?? '0.1.0';
  const write = (path: string, text: string) => {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  const pkg = (dir: string, json: object) =>
    write(`packages/${dir}/package.json`, JSON.stringify({ version, ...json }));
  write('package.json', JSON.stringify({ name: 'root', private: true }));
  write('pnpm-workspace.yaml', 'packages:\n  - packages/*\n');
  write(
    '.changeset/config.json',
    JSON.stringify({ access: 'public', baseBranch: 'main', updateInternalDependencies: 'patch' }),
  );
  pkg('protocol', { name: '@dsh-tools/protocol' });
  pkg('registry', {
    name: '@dsh-tools/registry',
    dependencies: { '@dsh-tools/protocol': 'workspace:^' },
  });
  pkg('cli', { name: '@dsh-tools/cli', dependencies: { '@dsh-tools/registry': 'workspace:^' } });
  if (options.meta !== false) {
    pkg('dsh-tools', {
      name: 'dsh-tools',
      dependencies: {
        '@dsh-tools/protocol': 'workspace:^',
        '@dsh-tools/registry': 'workspace:^',
      },
    });
  }
  for (const [id, releases] of Object.entries(changesets)) {
    const lines = Object.entries(releases).map(([name, bump]) => `'${name}': ${bump}`);
    write(`.changeset/${id}.md`, `---\n${lines.join('\n')}\n---\n\nA change.\n`);
  }
  return root;
}

/** Runs the check on `root` as CI does: its exit code and what it printed. */
function check(root: string): { status: number | null; output: string } {
  const run = spawnSync(process.execPath, [SCRIPT, '--cwd', root], { encoding: 'utf8' });
  return { status: run.status, output: run.stdout + run.stderr };
}

describe('check-release', () => {
  it('fails when a re-exported package gets a minor and dsh-tools only the patch changesets gives a dependent', () => {
    const root = workspace({ 'registry-feature': { '@dsh-tools/registry': 'minor' } });
    const { status, output } = check(root);
    expect(status).toBe(1);
    expect(output).toContain('dsh-tools itself gets only a patch (0.1.0 → 0.1.1)');
    expect(output).toContain(
      '@dsh-tools/registry: minor, 0.1.0 → 0.2.0 (.changeset/registry-feature.md)',
    );
    expect(output).toContain("'dsh-tools': minor");
    expect(output).toContain('below 1.0, a minor is a breaking change');
  });

  it('passes once dsh-tools gets the same level, in the same changeset or another one', () => {
    const together = workspace({
      feature: { '@dsh-tools/registry': 'minor', 'dsh-tools': 'minor' },
    });
    expect(check(together)).toMatchObject({ status: 0 });
    const apart = workspace({
      feature: { '@dsh-tools/registry': 'minor' },
      meta: { 'dsh-tools': 'minor' },
    });
    const { status, output } = check(apart);
    expect(status).toBe(0);
    expect(output).toContain('dsh-tools gets a minor release');
  });

  it('requires a major of dsh-tools for a major of a re-exported package, a minor is not enough', () => {
    const root = workspace(
      { breaking: { '@dsh-tools/protocol': 'major' }, meta: { 'dsh-tools': 'minor' } },
      { version: '1.2.0' },
    );
    const { status, output } = check(root);
    expect(status).toBe(1);
    expect(output).toContain('@dsh-tools/protocol: major, 1.2.0 → 2.0.0 (.changeset/breaking.md)');
    expect(output).toContain("'dsh-tools': major");
    // At 1.x a minor is not breaking: the note about 0.x must not be said.
    expect(output).not.toContain('below 1.0');
  });

  it('asks nothing for patches, for packages dsh-tools does not re-export, or with no changesets', () => {
    expect(check(workspace({ fix: { '@dsh-tools/registry': 'patch' } }))).toMatchObject({
      status: 0,
    });
    expect(check(workspace({ cli: { '@dsh-tools/cli': 'minor' } }))).toMatchObject({ status: 0 });
    const { status, output } = check(workspace({}));
    expect(status).toBe(0);
    expect(output).toContain('no package dsh-tools re-exports gets a minor or major release');
  });

  it('cannot tell without a dsh-tools package or with a malformed changeset, and says so (exit 2)', () => {
    const noMeta = check(workspace({}, { meta: false }));
    expect(noMeta.status).toBe(2);
    expect(noMeta.output).toContain('no workspace package is named "dsh-tools"');
    const root = workspace({});
    writeFileSync(join(root, '.changeset/broken.md'), '---\nnot yaml: [\n---\n');
    const broken = check(root);
    expect(broken.status).toBe(2);
    expect(broken.output).toContain('could not read the workspace and its pending changesets');
  });
});
