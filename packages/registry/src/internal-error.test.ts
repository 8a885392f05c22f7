import type { ToolExecutionResult } from '@dsh-tools/protocol';
import { expect, it, vi } from 'vitest';
import { call, readFile } from '../test/helpers';
import { createToolRegistry } from './index';

// A mock, because nothing real can make the registry fail internally any more (every hostile
// input is contained where it is read): this injects a fault into the unknown-tool suggestions
// to prove that the last-resort path keeps the callId and still tells the result observers.
vi.mock('./suggest', () => ({
  closestNames: () => {
    throw new Error('injected fault');
  },
}));

it('answers an internal failure with the callId, tells observers, and never rejects', async () => {
  const registry = createToolRegistry();
  registry.register(readFile({ hints: { concurrencySafe: true } }));
  const observed: [string, string][] = [];
  registry.on('result', (result, exec) => {
    observed.push([result.callId, exec.callId]);
  });
  const one = await registry.execute(call('nope'));
  expect(one).toMatchObject({ callId: 'c-nope', isError: true, error: { code: 'TOOL_ERROR' } });
  expect(one.error?.message).toMatch(
    /^execute\(\): internal error in the registry \(tool "nope"\): injected fault\..*report this bug/,
  );
  expect(observed).toEqual([['c-nope', 'c-nope']]);

  observed.length = 0;
  const turn: ToolExecutionResult[] = await registry.executeAll([
    { ...call('read_file', { path: 'a' }), callId: 'a' },
    { ...call('nope'), callId: 'b' },
    { ...call('read_file', { path: 'c' }), callId: 'c' },
  ]);
  expect(turn.map((r) => [r.callId, r.error?.code])).toEqual([
    ['a', undefined],
    ['b', 'TOOL_ERROR'],
    ['c', undefined],
  ]);
  expect(observed.map(([id]) => id).sort()).toEqual(['a', 'b', 'c']);
});
