import { createRequire } from 'node:module';

let load: NodeJS.Require | undefined;

/**
 * Loads a dependency synchronously on first use. Ajv (about half a second to load on a busy
 * machine) and the regex engine are needed only once a schema is compiled, and registration
 * compiles synchronously, so a dynamic `import()` would not do. `createRequire(import.meta.url)`
 * works in both builds: tsup's CommonJS output shims `import.meta.url` from `__filename` (a bare
 * `require` would not do in the ESM output, where the bundler replaces it with a stub that throws).
 */
export const loadModule = <T>(id: string): T => {
  load ??= createRequire(import.meta.url);
  return load(id) as T;
};

/** Where {@link loadModule} would load a dependency from (for a worker thread to load it). */
export const resolveModule = (id: string): string => {
  load ??= createRequire(import.meta.url);
  return load.resolve(id);
};
