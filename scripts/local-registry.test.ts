import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ESM script without declarations.
import { internalClosure, serveRegistry, workspacePackages } from './local-registry.mjs';

interface Packument {
  readonly 'dist-tags': Record<string, string>;
  readonly versions: Record<
    string,
    { readonly name: string; readonly dist: { integrity: string; tarball: string } }
  >;
}

const dir = mkdtempSync(join(tmpdir(), 'dsh-local-registry-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('local registry', () => {
  it("the CLI's closure is every workspace package it depends on at run time, and no other", () => {
    const byName = workspacePackages();
    const closure: string[] = internalClosure('@dsh-tools/cli', byName);
    expect(closure).toContain('@dsh-tools/cli');
    // Reached through the registry, not named by the CLI itself.
    expect(closure).toContain('@dsh-tools/waterfall');
    expect(closure).toContain('@dsh-tools/schema');
    // The meta-package and define-tool are not run-time dependencies of the CLI.
    expect(closure).not.toContain('dsh-tools');
    expect(closure).not.toContain('@dsh-tools/define-tool');
    for (const name of closure) expect(byName.has(name)).toBe(true);
  });

  it('serves a packument npm can verify, the tarball byte for byte, and 404 for anything else', async () => {
    const bytes = randomBytes(4096);
    const file = join(dir, 'pkg.tgz');
    writeFileSync(file, bytes);
    const registry = await serveRegistry(
      new Map([['@dsh-tools/x', { file, manifest: { name: '@dsh-tools/x', version: '1.2.3' } }]]),
    );
    try {
      // npm asks for scoped names with the slash escaped.
      const doc = (await (await fetch(`${registry.url}@dsh-tools%2fx`)).json()) as Packument;
      expect(doc['dist-tags']).toEqual({ latest: '1.2.3' });
      const version = doc.versions['1.2.3'];
      if (!version) throw new Error('the packument has no version 1.2.3');
      expect(version.name).toBe('@dsh-tools/x');
      expect(version.dist.integrity).toBe(
        `sha512-${createHash('sha512').update(bytes).digest('base64')}`,
      );
      const tarball = Buffer.from(await (await fetch(version.dist.tarball)).arrayBuffer());
      expect(tarball.equals(bytes)).toBe(true);
      expect((await fetch(`${registry.url}zod`)).status).toBe(404);
    } finally {
      await registry.close();
    }
  });
});
