import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { effectiveDecision, mergeDecisions } from './merge';
import type { HookDecision } from './types';

const decision = fc.constantFrom<HookDecision>('allow', 'deny', 'ask', 'none');

describe('mergeDecisions', () => {
  it('is none for no hooks, and picks the most restrictive', () => {
    expect(mergeDecisions([])).toBe('none');
    expect(mergeDecisions(['allow', 'none'])).toBe('allow');
    expect(mergeDecisions(['allow', 'ask'])).toBe('ask');
    expect(mergeDecisions(['ask', 'deny', 'allow'])).toBe('deny');
    expect(mergeDecisions(['none', 'block'])).toBe('block');
  });

  it('property: deny always wins, whatever else and in whatever order', () => {
    fc.assert(
      fc.property(fc.array(decision), fc.nat(), (others, at) => {
        const list = [...others];
        list.splice(at % (list.length + 1), 0, 'deny');
        expect(mergeDecisions(list)).toBe('deny');
      }),
    );
  });

  it('property: order never matters, and ask beats allow when nobody denies', () => {
    fc.assert(
      fc.property(fc.array(decision), (list) => {
        const merged = mergeDecisions(list);
        expect(mergeDecisions([...list].reverse())).toBe(merged);
        if (!list.includes('deny') && list.includes('ask')) expect(merged).toBe('ask');
        if (list.every((d) => d === 'allow' || d === 'none') && list.includes('allow')) {
          expect(merged).toBe('allow');
        }
      }),
    );
  });
});

describe('effectiveDecision', () => {
  it('applies the failure policy and continue: false', () => {
    const failed = { status: 'failed', failure: 'x' } as const;
    expect(effectiveDecision('PreToolUse', 'block', failed)).toBe('deny');
    expect(effectiveDecision('PreToolUse', 'allow', failed)).toBe('none');
    expect(effectiveDecision('PostToolUse', 'block', failed)).toBe('block');
    expect(effectiveDecision('PostToolUse', 'allow', failed)).toBe('none');
    expect(
      effectiveDecision('PreToolUse', 'block', { status: 'ok', decision: 'allow', stop: {} }),
    ).toBe('deny');
    expect(effectiveDecision('PostToolUse', 'block', { status: 'ok', stop: {} })).toBe('none');
    expect(effectiveDecision('PreToolUse', 'block', { status: 'ok' })).toBe('none');
    const aborted = { status: 'aborted', failure: 'x' } as const;
    expect(effectiveDecision('PreToolUse', 'block', aborted)).toBe('none');
    expect(effectiveDecision('PostToolUse', 'block', aborted)).toBe('none');
  });
});
