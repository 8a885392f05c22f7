/**
 * Friction: everyday agent commands under the allow rules a user would write for them must run
 * (at most 3% asked, none denied), through the real registry in the attack world. The commands
 * asked today are listed (KNOWN_FRICTION) and so are the read-only ones plan mode refuses
 * (KNOWN_PLAN_REFUSALS): each list fails this test when it changes, so both only shrink.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { AttackEntry } from './corpus';
import {
  BENIGN_READ_ONLY,
  BENIGN_RULES,
  BENIGN_RUNS_CODE,
  KNOWN_FRICTION,
  KNOWN_PLAN_REFUSALS,
} from './corpus-benign';
import { createWorld, type World } from './fixture';
import { runGuarded, type Verdict } from './harness';

const ALL = [...BENIGN_READ_ONLY, ...BENIGN_RUNS_CODE];
const entry = (command: string, mode: 'default' | 'plan' = 'default'): AttackEntry => ({
  id: `benign:${command}`,
  class: 'plan',
  command,
  effect: 'read',
  note: 'benign',
  mode,
});

let world: World;
beforeAll(async () => {
  world = await createWorld();
});
afterAll(async () => {
  await world?.close();
});

async function decide(commands: readonly string[], mode: 'default' | 'plan') {
  const by: Record<Verdict, string[]> = { denied: [], asked: [], bypass: [] };
  const why = new Map<string, string>();
  for (const command of commands) {
    const outcome = await runGuarded(world, entry(command, mode), {
      rules: BENIGN_RULES,
      reset: false,
    });
    by[outcome.verdict].push(command);
    if (outcome.verdict !== 'bypass')
      why.set(command, outcome.questions[0] ?? outcome.text.slice(0, 200));
  }
  return { ran: by.bypass, asked: by.asked, denied: by.denied, why };
}

describe(`benign corpus (${ALL.length} commands)`, () => {
  test('has at least 100 distinct commands', () => {
    expect(ALL.length).toBeGreaterThanOrEqual(100);
    expect(new Set(ALL).size).toBe(ALL.length);
  });

  test('default mode: none denied, and the ones asked are exactly the known friction', {
    timeout: 180_000,
  }, async () => {
    const { ran, asked, denied, why } = await decide(ALL, 'default');
    console.log(
      `benign, default mode: ${ran.length} ran, ${asked.length} asked (${((100 * asked.length) / ALL.length).toFixed(1)}%), ${denied.length} denied of ${ALL.length}` +
        [...asked, ...denied]
          .map((command) => `\n  not run: ${command} — ${why.get(command)}`)
          .join(''),
    );
    expect(denied, 'denied benign commands').toEqual([]);
    expect(asked, 'asked (update KNOWN_FRICTION when this shrinks)').toEqual(KNOWN_FRICTION);
  });

  // Over the budget today: a known failure, until KNOWN_FRICTION is short enough.
  const overBudget = KNOWN_FRICTION.length / ALL.length > 0.03;
  (overBudget ? test.fails : test)(
    `at most 3% asked (today ${KNOWN_FRICTION.length} of ${ALL.length}${overBudget ? ': over budget, issue 20: not fixed yet' : ''})`,
    () => {
      expect(KNOWN_FRICTION.length / ALL.length).toBeLessThanOrEqual(0.03);
    },
  );

  test('plan mode: the read-only commands it refuses are exactly the known gaps', {
    timeout: 180_000,
  }, async () => {
    const { ran, asked, denied, why } = await decide(BENIGN_READ_ONLY, 'plan');
    console.log(
      `benign, plan mode: ${ran.length} of ${BENIGN_READ_ONLY.length} read-only commands ran` +
        denied
          .map((command) => `\n  refused: ${JSON.stringify(command)} — ${why.get(command)}`)
          .join(''),
    );
    expect(asked, 'plan mode never asks').toEqual([]);
    expect(denied, 'refused in plan mode (update KNOWN_PLAN_REFUSALS when this shrinks)').toEqual(
      KNOWN_PLAN_REFUSALS,
    );
  });
});
