import type { ToolDefinition } from '@dsh-tools/protocol';
import { createToolRegistry, type ToolRegistry } from '@dsh-tools/registry';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyToolDiff } from './apply-tool-diff';
import type { ToolRecord } from './types';

const NAMES = ['a', 'b', 'c', 'd', 'e', 'f', 'g'] as const;

/**
 * A record as `tool-definitions.ts` builds one. A poisoned one has a description the real
 * registry refuses (a number), which is how a listing can hold a tool the registry cannot take.
 */
function record(name: string, key: string, tool = name, poisoned = false): ToolRecord {
  const definition = {
    name,
    description: poisoned ? (42 as unknown as string) : `v${key}`,
    parameters: { type: 'object', properties: {} },
    execute: () => [],
  } as ToolDefinition;
  return { tool, definition, key, dispose: () => {} };
}

/** One tool as a generator draws it: its key, its server name, and whether the registry refuses it. */
const drawn = fc.record({
  key: fc.constantFrom('k0', 'k1'),
  renamed: fc.boolean(),
  poisoned: fc.boolean(),
  /** For a tool also in `current` with the same key: reuse that very record object. */
  sameObject: fc.boolean(),
});

/** A current set (registered), a desired set, and names another plugin already holds. */
const scenario = fc.record({
  current: fc.dictionary(fc.constantFrom(...NAMES), fc.constantFrom('k0', 'k1'), { maxKeys: 7 }),
  desired: fc.dictionary(fc.constantFrom(...NAMES), drawn, { maxKeys: 7 }),
  foreign: fc.subarray([...NAMES]),
  allowPoison: fc.boolean(),
});

interface Built {
  readonly registry: ToolRegistry;
  readonly current: Map<string, ToolRecord>;
  readonly desired: Map<string, ToolRecord>;
  readonly foreign: Map<string, ToolDefinition>;
  readonly poisoned: Set<string>;
}

type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

function build(s: Scenario): Built {
  const registry = createToolRegistry({ onError: () => {} });
  const current = new Map<string, ToolRecord>();
  for (const [name, key] of Object.entries(s.current)) {
    const r = record(name, key);
    r.dispose = registry.register(r.definition);
    current.set(name, r);
  }
  const foreign = new Map<string, ToolDefinition>();
  for (const name of s.foreign) {
    if (current.has(name)) continue;
    const definition = record(name, 'foreign').definition;
    registry.register(definition);
    foreign.set(name, definition);
  }
  const desired = new Map<string, ToolRecord>();
  const poisoned = new Set<string>();
  for (const [name, d] of Object.entries(s.desired)) {
    const old = current.get(name);
    const poison = s.allowPoison && d.poisoned;
    if (old && d.sameObject && old.key === d.key && !d.renamed) {
      desired.set(name, old);
      continue;
    }
    if (poison) poisoned.add(name);
    desired.set(name, record(name, d.key, d.renamed ? `${name}-renamed` : name, poison));
  }
  return { registry, current, desired, foreign, poisoned };
}

const isChanged = (old: ToolRecord, next: ToolRecord) =>
  old !== next && (old.key !== next.key || old.tool !== next.tool);

describe('applyToolDiff', () => {
  it('makes the registry hold exactly what was asked for, minus what it refused, keeping the rest', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const { registry, current, desired, foreign, poisoned } = build(s);
        const reports: Error[] = [];
        const outcome = applyToolDiff(current, desired, {
          server: 'srv',
          registry,
          report: (e) => reports.push(e),
        });

        const expected = new Map<string, ToolRecord>();
        const refused: string[] = [];
        const added: string[] = [];
        const changed: string[] = [];
        for (const [name, next] of desired) {
          const old = current.get(name);
          if (old && !isChanged(old, next)) {
            // Untouched: the very record that was registered, not the listing's copy.
            expected.set(name, old);
          } else if (foreign.has(name) || poisoned.has(name)) {
            refused.push(name);
            if (old) expected.set(name, old);
          } else {
            expected.set(name, next);
            (old ? changed : added).push(name);
          }
        }
        const removed = [...current.keys()].filter((name) => !desired.has(name));
        // The event lists changed tools in the order they were registered, like `removed`.
        changed.sort((x, y) => [...current.keys()].indexOf(x) - [...current.keys()].indexOf(y));

        expect([...outcome.current.keys()]).toEqual([...expected.keys()]);
        for (const [name, r] of expected) {
          expect(outcome.current.get(name)).toBe(r);
          expect(registry.get(name)).toBe(r.definition);
        }
        for (const name of removed) {
          expect(registry.get(name)).toBe(foreign.get(name));
        }
        for (const [name, definition] of foreign) expect(registry.get(name)).toBe(definition);
        expect(registry.schemas().length).toBe(expected.size + foreign.size);
        expect(reports.map((e) => /refused tool "([^"]+)"/.exec(e.message)?.[1]).sort()).toEqual(
          refused.sort(),
        );
        if (added.length + removed.length + changed.length === 0) {
          expect(outcome.change).toBeUndefined();
        } else {
          expect(outcome.change).toEqual({ added, removed, changed });
        }
      }),
      { numRuns: 400 },
    );
  });

  it('applied again, changes nothing: the same records, no event, no registration', () => {
    // Without refusals: a refused tool is tried again by every listing, as it should be.
    const accepted = scenario.map((s) => ({ ...s, foreign: [], allowPoison: false }));
    fc.assert(
      fc.property(accepted, (s) => {
        const { registry, current, desired } = build(s);
        const target = { server: 'srv', registry, report: () => {} };
        const first = applyToolDiff(current, desired, target);
        const changes: unknown[] = [];
        registry.on('change', (e) => changes.push(e));
        const second = applyToolDiff(first.current, desired, target);
        expect(second.change).toBeUndefined();
        expect(changes).toEqual([]);
        expect([...second.current.entries()]).toEqual([...first.current.entries()]);
        for (const [name, r] of first.current) expect(second.current.get(name)).toBe(r);
      }),
      { numRuns: 200 },
    );
  });

  it('changes neither map it was given', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const { registry, current, desired } = build(s);
        const before = [[...current.entries()], [...desired.entries()]];
        applyToolDiff(current, desired, { server: 'srv', registry, report: () => {} });
        expect([[...current.entries()], [...desired.entries()]]).toEqual(before);
      }),
      { numRuns: 100 },
    );
  });

  it('leaves a refused tool out in the same pass: the rest is applied once, without restarts', () => {
    const registry = createToolRegistry({ onError: () => {} });
    const current = new Map<string, ToolRecord>();
    for (const name of ['keep', 'drop', 'change']) {
      const r = record(name, 'k0');
      r.dispose = registry.register(r.definition);
      current.set(name, r);
    }
    const desired = new Map<string, ToolRecord>([
      ['keep', current.get('keep') as ToolRecord],
      ['change', record('change', 'k1')],
      ['new', record('new', 'k0')],
      ['bad', record('bad', 'k0', 'bad', true)],
    ]);
    const seen: string[][] = [];
    registry.on('change', () => seen.push(registry.schemas().map((t) => t.name)));
    const reports: string[] = [];
    const outcome = applyToolDiff(current, desired, {
      server: 'srv',
      registry,
      report: (e) => reports.push(e.message),
    });
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatch(
      /MCP server "srv": the registry refused tool "bad" \(.+\); it is left out\./,
    );
    expect(outcome.change).toEqual({ added: ['new'], removed: ['drop'], changed: ['change'] });
    expect(
      registry
        .schemas()
        .map((t) => t.name)
        .sort(),
    ).toEqual(['change', 'keep', 'new']);
    expect(registry.get('change')).toBe(desired.get('change')?.definition);
    // Dispose "drop" and the old "change", register the new "change" and "new": nothing undone.
    expect(seen).toHaveLength(4);
  });

  it('stays linear when a hostile server lists 1,000 tools and every other one is refused', () => {
    const registry = createToolRegistry({ onError: () => {} });
    let registrations = 0;
    const counting = {
      register: (definition: ToolDefinition) => {
        registrations++;
        return registry.register(definition);
      },
    };
    const desired = new Map<string, ToolRecord>();
    for (let i = 0; i < 1000; i++)
      desired.set(`t${i}`, record(`t${i}`, 'k0', `t${i}`, i % 2 === 1));
    const reports: string[] = [];
    const outcome = applyToolDiff(new Map(), desired, {
      server: 'srv',
      registry: counting,
      report: (e) => reports.push(e.message),
    });
    expect(registrations).toBe(1000);
    expect(reports).toHaveLength(500);
    expect(outcome.current.size).toBe(500);
    expect(registry.schemas()).toHaveLength(500);
  });

  it('keeps the previous version of a changed tool the registry refuses', () => {
    const registry = createToolRegistry({ onError: () => {} });
    const old = record('t', 'k0');
    old.dispose = registry.register(old.definition);
    const reports: string[] = [];
    const outcome = applyToolDiff(
      new Map([['t', old]]),
      new Map([['t', record('t', 'k1', 't', true)]]),
      {
        server: 'srv',
        registry,
        report: (e) => reports.push(e.message),
      },
    );
    expect(outcome.change).toBeUndefined();
    expect(outcome.current.get('t')).toBe(old);
    expect(registry.get('t')).toBe(old.definition);
    expect(reports[0]).toContain('its previous version stays');
  });

  it('reports a disposer that throws, and does not take it for a refusal', () => {
    const registry = createToolRegistry({ onError: () => {} });
    const old = record('t', 'k0');
    const dispose = registry.register(old.definition);
    old.dispose = () => {
      dispose();
      throw new Error('disposer broke');
    };
    const reports: string[] = [];
    const outcome = applyToolDiff(new Map([['t', old]]), new Map(), {
      server: 'srv',
      registry,
      report: (e) => reports.push(e.message),
    });
    expect(reports).toEqual(['disposer broke']);
    expect(outcome.change).toEqual({ added: [], removed: ['t'], changed: [] });
    expect(registry.has('t')).toBe(false);
  });
});
