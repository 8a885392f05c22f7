import { createRequire } from 'node:module';

export * from 'node:module';

const amaro = createRequire(import.meta.url)('amaro');

/** `node:module`'s `stripTypeScriptTypes` (Node >= 22.13), as Node implements it: amaro's strip-only mode. */
export function stripTypeScriptTypes(code) {
  return amaro.transformSync(code, { mode: 'strip-only' }).code;
}
