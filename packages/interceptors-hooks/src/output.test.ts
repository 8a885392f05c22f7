import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { interpretHookRun } from './output';
import type { RawHookRun } from './run-hook';

const run = (overrides: Partial<RawHookRun>): RawHookRun => ({
  exitCode: 0,
  exitSignal: null,
  stdout: '',
  stderr: '',
  durationMs: 1,
  ...overrides,
});

describe('interpretHookRun', () => {
  it('reads exit 0 with no output, plain output and JSON', () => {
    expect(interpretHookRun('PreToolUse', run({}))).toEqual({ status: 'ok' });
    expect(interpretHookRun('PreToolUse', run({ stdout: 'hello\n' }))).toEqual({
      status: 'ok',
      plainOutput: 'hello',
    });
    expect(
      interpretHookRun(
        'PreToolUse',
        run({
          stdout: JSON.stringify({
            continue: true,
            suppressOutput: true,
            systemMessage: 'note',
            hookSpecificOutput: {
              hookEventName: 'PreToolUse',
              permissionDecision: 'ask',
              permissionDecisionReason: 'why',
              updatedInput: { a: 1 },
              additionalContext: 'ctx',
            },
          }),
        }),
      ),
    ).toEqual({
      status: 'ok',
      decision: 'ask',
      reason: 'why',
      updatedInput: { a: 1 },
      additionalContext: 'ctx',
      systemMessage: 'note',
      suppressOutput: true,
    });
  });

  it('lets permissionDecision win over the legacy decision', () => {
    const out = interpretHookRun(
      'PreToolUse',
      run({
        stdout: JSON.stringify({
          decision: 'approve',
          reason: 'legacy',
          hookSpecificOutput: { permissionDecision: 'deny', permissionDecisionReason: 'new' },
        }),
      }),
    );
    expect(out).toMatchObject({ decision: 'deny', reason: 'new' });
  });

  it('exit 2 blocks with stderr, or a default reason when stderr is empty', () => {
    expect(interpretHookRun('PreToolUse', run({ exitCode: 2, stderr: ' no \n' }))).toEqual({
      status: 'blocked',
      decision: 'deny',
      reason: 'no',
    });
    expect(interpretHookRun('PostToolUse', run({ exitCode: 2 }))).toMatchObject({
      status: 'blocked',
      decision: 'block',
      reason: expect.stringContaining('exit code 2'),
    });
  });

  it('fails on other exit codes, signals, and JSON it cannot act on', () => {
    expect(interpretHookRun('PreToolUse', run({ exitCode: 1 })).status).toBe('failed');
    expect(
      interpretHookRun('PreToolUse', run({ exitCode: null, exitSignal: 'SIGSEGV' })).failure,
    ).toContain('SIGSEGV');
    for (const stdout of [
      '{',
      '{"decision":"maybe"}',
      '{"hookSpecificOutput":[]}',
      '{"hookSpecificOutput":{"hookEventName":"PostToolUse"}}',
      '{"hookSpecificOutput":{"updatedInput":"rm -rf /"}}',
      '{"continue":"no"}',
      '{"systemMessage":7}',
    ]) {
      expect(interpretHookRun('PreToolUse', run({ stdout })).status, stdout).toBe('failed');
    }
    expect(interpretHookRun('PostToolUse', run({ stdout: '{"decision":"approve"}' })).status).toBe(
      'failed',
    );
  });

  it('property: arbitrary stdout and stderr never throw, and exit 0 is ok or failed', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.json(),
          fc.jsonValue().map((v) => JSON.stringify(v)),
        ),
        fc.string(),
        fc.constantFrom<number | null>(0, 1, 2, 127, null),
        fc.constantFrom('PreToolUse' as const, 'PostToolUse' as const),
        (stdout, stderr, exitCode, event) => {
          const out = interpretHookRun(event, run({ stdout, stderr, exitCode }));
          if (exitCode === 0) expect(['ok', 'failed']).toContain(out.status);
          if (exitCode === 2) expect(out.status).toBe('blocked');
          if (exitCode !== 0 && exitCode !== 2) expect(out.status).toBe('failed');
          if (out.status === 'ok' && out.decision !== undefined) {
            expect(event === 'PreToolUse' ? ['allow', 'deny', 'ask'] : ['block']).toContain(
              out.decision,
            );
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('property: JSON-looking output that does not parse is never "no objection"', () => {
    fc.assert(
      fc.property(fc.string(), (tail) => {
        const stdout = `{${tail}`;
        let parses = true;
        try {
          JSON.parse(stdout);
        } catch {
          parses = false;
        }
        if (!parses) expect(interpretHookRun('PreToolUse', run({ stdout })).status).toBe('failed');
      }),
    );
  });
});
