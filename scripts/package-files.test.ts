import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ESM script without declarations.
import { plainEnv, workspacePackages } from './local-registry.mjs';

interface Workspace {
  readonly dir: string;
  readonly manifest: { readonly name: string; readonly private?: boolean };
}

const published = [...(workspacePackages() as Map<string, Workspace>).values()].filter(
  (p) => p.manifest.private !== true,
);

/** The paths npm would put in the package's tarball (without building or packing it). */
function tarballPaths(dir: string): string[] {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: dir,
    env: plainEnv(),
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return (JSON.parse(out) as { files: { path: string }[] }[])[0]?.files.map((f) => f.path) ?? [];
}

describe("every published package's tarball", () => {
  it('there are packages to check', () => {
    expect(published.length).toBeGreaterThanOrEqual(10);
  });

  it.each(published.map((p) => [p.manifest.name, p.dir]))(
    '%s ships its CHANGELOG.md, README.md and LICENSE beside dist/',
    (_name, dir) => {
      const paths = tarballPaths(dir);
      for (const file of ['CHANGELOG.md', 'README.md', 'LICENSE', 'package.json']) {
        expect(paths).toContain(file);
      }
      // Nothing but those, and what the build put in dist/: no sources, tests or configs.
      expect(
        paths.filter(
          (p) =>
            !p.startsWith('dist/') &&
            !['CHANGELOG.md', 'README.md', 'LICENSE', 'package.json'].includes(p),
        ),
      ).toEqual([]);
    },
    60_000,
  );
});
