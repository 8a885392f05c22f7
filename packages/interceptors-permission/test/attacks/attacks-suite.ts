/**
 * Issue 20's proof: every attack is first run unguarded in a fresh world (and must do its harm),
 * then through the permission interceptor of the issue's policy with an approver that answers
 * deny. A bypass (ran with no question, or asked where a deny rule applies) fails the test unless
 * its id is in KNOWN_BYPASSES; an id there that no longer gets through fails it too. Used by
 * `attacks-*.test.ts`, which split the classes over three test files so that they run side by
 * side (each attack waits on the processes it starts).
 */
import { appendFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  ATTACKS,
  type AttackClass,
  type AttackEntry,
  KNOWN_BYPASSES,
  KNOWN_PLAN_GAPS,
  NOT_FIXED,
  PLAN_RUN,
} from './corpus';
import { createWorld, type World } from './fixture';
import {
  happened,
  isBypass,
  missingPrograms,
  type Outcome,
  runGuarded,
  runUnguarded,
  summaryLine,
} from './harness';

const CLASSES: readonly AttackClass[] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 'plan'];
/** The classes each of `attacks-1/2/3.test.ts` runs: about a third of the corpus's time each. */
export const SPLIT: readonly (readonly AttackClass[])[] = [[1], [2, 3, 4], [5, 6, 7, 8, 9, 'plan']];
const TIMEOUT = 40_000;
/** `ATTACK_REPORT=<file>` appends one JSON line per attack: what it did unguarded and guarded. */
const report = (line: Record<string, unknown>) => {
  if (process.env.ATTACK_REPORT)
    appendFileSync(process.env.ATTACK_REPORT, `${JSON.stringify(line)}\n`);
};

/** The corpus's own checks: enough shapes per class, unique ids and shapes. */
export function describeCorpus(): void {
  describe('the corpus', () => {
    test('has at least 20 distinct shapes in each of classes 1–8, and a pin per class-9 slip', () => {
      for (const cls of CLASSES.slice(0, 8)) {
        expect(
          ATTACKS.filter((entry) => entry.class === cls).length,
          `class ${cls}`,
        ).toBeGreaterThanOrEqual(20);
      }
      expect(ATTACKS.filter((entry) => entry.class === 9).length).toBeGreaterThanOrEqual(10);
      const ids = ATTACKS.map((entry) => entry.id);
      expect(new Set(ids).size).toBe(ids.length);
      // Plan mode repeats a few shapes of other classes on purpose: the mode is what differs.
      const shapes = ATTACKS.map(
        (entry) =>
          `${entry.mode ?? 'default'} ${entry.command ?? JSON.stringify([entry.tool, entry.args])}`,
      );
      expect(new Set(shapes).size).toBe(shapes.length);
    });
    test('the test files run every class, each once', () => {
      expect(SPLIT.flat().sort()).toEqual([...CLASSES].sort());
    });
    test('KNOWN_BYPASSES and KNOWN_PLAN_GAPS name only entries of the corpus', () => {
      const ids = new Set(ATTACKS.map((entry) => entry.id));
      expect(Object.keys(KNOWN_BYPASSES).filter((id) => !ids.has(id))).toEqual([]);
      expect(Object.keys(KNOWN_PLAN_GAPS).filter((command) => !PLAN_RUN.includes(command))).toEqual(
        [],
      );
    });
  });
}

/** One class of the corpus: each attack unguarded, then guarded. */
function describeClass(cls: AttackClass, entries: readonly AttackEntry[]) {
  describe(`class ${cls}`, () => {
    let world: World;
    const outcomes: Outcome[] = [];
    let skipped = 0;
    beforeAll(async () => {
      world = await createWorld();
    });
    afterAll(async () => {
      const bypasses = outcomes.filter(isBypass).map((outcome) => outcome.entry.id);
      console.log(
        `${summaryLine(String(cls), outcomes, skipped)}${bypasses.length ? `\n  bypass: ${bypasses.join(' ')}` : ''}`,
      );
      await world?.close();
    });
    test.for(entries)('$id ($effect)', { timeout: TIMEOUT }, async (entry, context) => {
      const missing = missingPrograms(entry);
      if (missing.length > 0) {
        skipped++;
        context.skip(`needs ${missing.join(', ')}`);
      }
      const proof = await runUnguarded(world, entry);
      const proven = happened(entry, proof.effects);
      if (!proven)
        report({ id: entry.id, proven, effects: proof.effects, text: proof.text.slice(0, 600) });
      expect(
        happened(entry, proof.effects),
        `unguarded, ${entry.id} must ${entry.effect} (${entry.note}); it printed:\n${proof.text}`,
      ).toBe(true);
      const outcome = await runGuarded(world, entry);
      outcomes.push(outcome);
      report({
        id: entry.id,
        proven,
        verdict: outcome.verdict,
        dodgedDeny: outcome.dodgedDeny,
        questions: outcome.questions,
        text: outcome.text.slice(0, 300),
      });
      const seen = `${outcome.verdict}${outcome.dodgedDeny ? ' (a deny rule applies)' : ''}: ${outcome.questions.join(' | ') || outcome.text.slice(0, 400)}`;
      if (isBypass(outcome)) {
        expect(KNOWN_BYPASSES[entry.id], `${entry.id} gets through: ${seen}`).toBe(NOT_FIXED);
      } else {
        expect(
          KNOWN_BYPASSES[entry.id],
          `${entry.id} no longer gets through (${seen}): remove it from KNOWN_BYPASSES`,
        ).toBeUndefined();
      }
    });
  });
}

/** The given classes of the corpus, each in a world of its own. */
export function describeClasses(classes: readonly AttackClass[]): void {
  for (const cls of classes) {
    describeClass(
      cls,
      ATTACKS.filter((entry) => entry.class === cls),
    );
  }
}

/** Plan mode runs the read-only commands of PLAN_RUN, but for the known gaps. */
export function describePlanRuns(): void {
  describe('plan mode runs read-only commands', () => {
    let world: World;
    const ran: string[] = [];
    beforeAll(async () => {
      world = await createWorld();
    });
    afterAll(async () => {
      console.log(
        `plan mode ran ${ran.length} of ${PLAN_RUN.length} read-only commands: ${ran.join(' | ')}`,
      );
      await world?.close();
    });
    test.each(PLAN_RUN)('%s', { timeout: TIMEOUT }, async (command) => {
      const entry: AttackEntry = {
        id: `plan-run:${command}`,
        class: 'plan',
        command,
        effect: 'read',
        note: '',
        mode: 'plan',
      };
      const outcome = await runGuarded(world, entry);
      const didRun = outcome.verdict === 'bypass';
      if (didRun) ran.push(command);
      if (didRun) {
        expect(
          KNOWN_PLAN_GAPS[command],
          `plan mode runs "${command}" now: remove it from KNOWN_PLAN_GAPS`,
        ).toBeUndefined();
      } else {
        expect(
          KNOWN_PLAN_GAPS[command],
          `plan mode refuses "${command}": ${outcome.text.slice(0, 300)}`,
        ).toBe(NOT_FIXED);
      }
    });
  });
}
