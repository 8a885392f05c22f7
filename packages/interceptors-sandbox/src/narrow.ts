import type { SandboxNarrowing } from '@dsh-tools/protocol';
import { type ParsedGlob, parseGlob } from './glob';
import type { SandboxConfig } from './options';
import type { SandboxDescription } from './types';

const KEYS = ['denyRead', 'denyWrite', 'network', 'by'];

/**
 * The configuration of a runner narrowed by a policy: the same rules, the narrowing's deny globs
 * added, the network taken away when it says so. Nothing in a narrowing can add a root, remove a
 * deny glob or turn the network on. Throws a `TypeError` naming the glob it cannot enforce.
 */
export function narrowConfig(
  config: SandboxConfig,
  narrowing: SandboxNarrowing,
  who: string,
): SandboxConfig {
  const fail = (message: string): never => {
    throw new TypeError(`${who}: sandbox.narrow ${message}`);
  };
  if (narrowing === null || typeof narrowing !== 'object' || Array.isArray(narrowing)) {
    fail('takes an object like { denyRead: ["./.env"], network: false }');
  }
  for (const key of Object.keys(narrowing)) {
    if (!KEYS.includes(key)) fail(`has no field "${key}" (known: ${KEYS.join(', ')})`);
  }
  if (narrowing.network !== undefined && narrowing.network !== false) {
    fail('can only take the network away (network: false)');
  }
  const by = typeof narrowing.by === 'string' ? ` (from ${narrowing.by})` : '';
  const globs = (name: 'denyRead' | 'denyWrite'): ParsedGlob[] => {
    const list = narrowing[name];
    if (list === undefined) return [];
    if (!Array.isArray(list)) return fail(`"${name}" must be an array of globs${by}`);
    return list.map((g, i) => {
      const parsed = parseGlob(g as string, config.cwd, config.home);
      if (typeof parsed === 'string') fail(`"${name}[${i}]" ${JSON.stringify(g)} ${parsed}${by}`);
      return parsed as ParsedGlob;
    });
  };
  return Object.freeze({
    ...config,
    denyRead: Object.freeze([...config.denyRead, ...globs('denyRead')]),
    denyWrite: Object.freeze([...config.denyWrite, ...globs('denyWrite')]),
    network: config.network && narrowing.network !== false,
    narrowedBy: Object.freeze([
      ...(config.narrowedBy ?? []),
      typeof narrowing.by === 'string' ? narrowing.by : 'a policy',
    ]),
  });
}

/** What a runner of this configuration runs its processes under, as {@link SandboxDescription}. */
export function describeConfig(config: SandboxConfig): SandboxDescription {
  return Object.freeze({
    mode: config.mode,
    cwd: config.cwd,
    writable: Object.freeze(
      config.mode === 'read-only' ? [] : config.mode === 'full-access' ? ['/'] : [...config.roots],
    ),
    denyRead: Object.freeze(config.denyRead.map((g) => g.source)),
    denyWrite: Object.freeze(config.denyWrite.map((g) => g.source)),
    network: config.network,
    limits: Object.freeze({ ...config.limits }),
    narrowedBy: Object.freeze([...(config.narrowedBy ?? [])]),
  });
}
