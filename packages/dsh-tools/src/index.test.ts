import { fileURLToPath } from 'node:url';
import * as defineTool from '@dsh-tools/define-tool';
import * as hooks from '@dsh-tools/interceptors-hooks';
import * as permission from '@dsh-tools/interceptors-permission';
import * as sandbox from '@dsh-tools/interceptors-sandbox';
import * as mcpBridge from '@dsh-tools/mcp-bridge';
import * as protocol from '@dsh-tools/protocol';
import * as registry from '@dsh-tools/registry';
import * as waterfall from '@dsh-tools/waterfall';
import * as emitter from '@dsh-tools/waterfall/emitter';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import * as meta from './index';

const packages: Record<string, object> = {
  'define-tool': defineTool,
  'interceptors-hooks': hooks,
  'interceptors-permission': permission,
  'interceptors-sandbox': sandbox,
  'mcp-bridge': mcpBridge,
  protocol,
  registry,
  waterfall,
  'waterfall/emitter': emitter,
};

describe('the dsh-tools entry', () => {
  it('re-exports every runtime export of every package, unchanged', () => {
    for (const [name, module] of Object.entries(packages)) {
      // A package with no runtime export would make this loop vacuous for it.
      expect(Object.keys(module).length, `@dsh-tools/${name}`).toBeGreaterThan(0);
      for (const [key, value] of Object.entries(module)) {
        expect((meta as Record<string, unknown>)[key], `@dsh-tools/${name}: ${key}`).toBe(value);
      }
    }
  });

  it('exports nothing of its own: every runtime export comes from one of the packages', () => {
    const known = new Set(Object.values(packages).flatMap((module) => Object.keys(module)));
    expect(Object.keys(meta).filter((key) => !known.has(key))).toEqual([]);
  });

  it('names each of the interceptor factories', () => {
    expect(meta.permissionInterceptor).toBe(permission.permissionInterceptor);
    expect(meta.sandboxInterceptor).toBe(sandbox.sandboxInterceptor);
    expect(meta.hooksInterceptor).toBe(hooks.hooksInterceptor);
  });

  it('never imports cordis, so apps without it can use the registry', async () => {
    const sources = fileURLToPath(new URL('../../', import.meta.url));
    const result = await build({
      entryPoints: [fileURLToPath(new URL('./index.ts', import.meta.url))],
      bundle: true,
      write: false,
      metafile: true,
      format: 'esm',
      platform: 'node',
      logLevel: 'silent',
      plugins: [
        {
          name: 'workspace-sources',
          setup(b) {
            // Our packages resolve to their sources (as in tests); everything else stays external,
            // and the externals are what a user's runtime would have to resolve.
            // A subpath (`@dsh-tools/waterfall/emitter`) is `src/<subpath>.ts` of its package.
            b.onResolve({ filter: /^@dsh-tools\// }, (args) => {
              const [name, subpath = 'index'] = args.path
                .slice('@dsh-tools/'.length)
                .split(/\/(.*)/);
              return { path: `${sources}${name}/src/${subpath}.ts` };
            });
            b.onResolve({ filter: /^[^./]/ }, (args) =>
              args.path.startsWith('/') ? undefined : { path: args.path, external: true },
            );
          },
        },
      ],
    });
    const externals = Object.values(result.metafile.outputs).flatMap((output) =>
      output.imports.filter((i) => i.external).map((i) => i.path),
    );
    expect(externals.filter((path) => path.includes('cordis'))).toEqual([]);
    const inputs = Object.keys(result.metafile.inputs);
    for (const name of Object.keys(packages)) {
      // `waterfall/emitter` is packages/waterfall/src/emitter.ts.
      const source = name.includes('/') ? `${name.replace('/', '/src/')}.ts` : `${name}/src`;
      expect(
        inputs.some((path) => path.includes(`packages/${source}`)),
        name,
      ).toBe(true);
    }
    expect(inputs.some((path) => path.includes('dsh-tools/src/cordis'))).toBe(false);
  });
});
