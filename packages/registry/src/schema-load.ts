import { createRequire } from 'node:module';

let load: NodeJS.Require | undefined;

/**
 * Loads a dependency synchronously on first use. Ajv (about half a second to load on a busy
 * machine) and the regex engine are needed only once a schema is compiled, and registration
 * compiles synchronously, so a dynamic `import()` would not do: the CommonJS build has `require`,
 * the ESM build makes one for this file.
 */
export const loadModule = <T>(id: string): T => {
  load ??= typeof require === 'function' ? require : createRequire(import.meta.url);
  return load(id) as T;
};
