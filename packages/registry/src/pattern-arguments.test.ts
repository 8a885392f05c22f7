import { describe, expect, it } from 'vitest';
import { call, expectFailure, readFile } from '../test/helpers';
import { createToolRegistry } from './index';

// The linear-time engine itself is tested in @dsh-tools/schema (schema-regex.test.ts); this is
// the registry's side of it: a hostile argument against a catastrophic pattern returns.
describe('patterns run on the linear-time engine', () => {
  it('gives the registry a pattern check that returns on a hostile argument, with INVALID_ARGS', async () => {
    const registry = createToolRegistry();
    registry.register(
      readFile({
        parameters: {
          type: 'object',
          properties: { path: { type: 'string', pattern: '^(a+)+$' } },
        },
      }),
    );
    const result = await registry.execute(call('read_file', { path: `${'a'.repeat(40)}!` }));
    expectFailure(result, 'INVALID_ARGS');
    expect(result.error?.message).toMatch(/argument "path" must match pattern/);
  });
});
