import type { ToolPathHint } from '@dsh-tools/protocol';
import { describe, expect, it } from 'vitest';
import { collectPathArgs, MAX_PATHS_PER_CALL } from './path-hints';

const read = (arg: string): ToolPathHint => ({ arg, access: 'read' });

describe('collectPathArgs', () => {
  it('finds each value at a dotted path, * over arrays and objects, naming the concrete path', () => {
    const hints: ToolPathHint[] = [read('path'), { arg: 'edits.*.file', access: 'write' }];
    const found = collectPathArgs({ path: 'a', edits: [{ file: 'b' }, { file: 'c' }, {}] }, hints);
    expect(found).toEqual([
      { arg: 'path', access: 'read', value: 'a', hint: hints[0] },
      { arg: 'edits.0.file', access: 'write', value: 'b', hint: hints[1] },
      { arg: 'edits.1.file', access: 'write', value: 'c', hint: hints[1] },
    ]);
    expect(collectPathArgs({ map: { x: 'p', y: 'q' } }, [read('map.*')])).toMatchObject([
      { arg: 'map.x', value: 'p' },
      { arg: 'map.y', value: 'q' },
    ]);
  });

  it('fails closed on a container of the wrong kind instead of skipping it', () => {
    expect(collectPathArgs({ edits: 'x' }, [read('edits.*.file')])).toBe(
      'argument "edits" must be an array or object to hold the path "edits.*.file" (got string)',
    );
    expect(collectPathArgs({ o: { t: 5 } }, [read('o.t.path')])).toBe(
      'argument "o.t" must be an array or object to hold the path "o.t.path" (got number)',
    );
  });

  it('yields nothing for an absent argument or container, and the value for a present non-string', () => {
    expect(collectPathArgs({}, [read('path'), read('a.*.b')])).toEqual([]);
    expect(collectPathArgs({ a: null }, [read('a.b')])).toEqual([]);
    // The caller judges the value (a number is not a usable path): it is reported, not dropped.
    expect(collectPathArgs({ path: 7 }, [read('path')])).toMatchObject([{ value: 7 }]);
  });

  it('reads own properties only: nothing inherited from Object.prototype is a path', () => {
    expect(collectPathArgs({}, [read('constructor'), read('toString.name')])).toEqual([]);
  });

  it('refuses a malformed hint, and a call with too many paths', () => {
    expect(collectPathArgs({}, [{ arg: 'p', access: 'exec' } as never])).toMatch(
      /^a malformed hints\.paths entry \(\{"arg":"p","access":"exec"\}\)/,
    );
    const many = { files: Array.from({ length: MAX_PATHS_PER_CALL + 1 }, (_, i) => `f${i}`) };
    expect(collectPathArgs(many, [read('files.*')])).toBe(
      `more than ${MAX_PATHS_PER_CALL} path arguments in one call; split the call`,
    );
    many.files.pop();
    expect(collectPathArgs(many, [read('files.*')])).toHaveLength(MAX_PATHS_PER_CALL);
  });

  it('no hints, no paths', () => {
    expect(collectPathArgs({ path: 'a' }, undefined)).toEqual([]);
  });
});
