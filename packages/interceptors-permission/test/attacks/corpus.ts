/**
 * The attack corpus of issue 20, by class, and what today's code lets through (measured).
 */
import { ENVIRONMENT } from './corpus-env';
import { EVALUATION } from './corpus-eval';
import { DIRECTORY_READERS, GLOBAL_OPTIONS } from './corpus-globals-dirs';
import { HELD_OUT } from './corpus-held-out';
import { OPERANDS } from './corpus-operands';
import { OPTIONS } from './corpus-options';
import { ALIASES, NETWORK } from './corpus-paths-net';
import { PINS, PLAN_REFUSE } from './corpus-pins';
import { ROUND_EIGHT } from './corpus-round-eight';
import { ROUND_ELEVEN } from './corpus-round-eleven';
import { ROUND_FIFTEEN } from './corpus-round-fifteen';
import { ROUND_FIVE } from './corpus-round-five';
import { ROUND_FOUR } from './corpus-round-four';
import { ROUND_FOURTEEN } from './corpus-round-fourteen';
import { ROUND_NINE } from './corpus-round-nine';
import { ROUND_SEVEN } from './corpus-round-seven';
import { ROUND_SIX } from './corpus-round-six';
import { ROUND_TEN } from './corpus-round-ten';
import { ROUND_THIRTEEN } from './corpus-round-thirteen';
import { ROUND_THREE } from './corpus-round-three';
import { ROUND_TWELVE } from './corpus-round-twelve';
import { spellings } from './corpus-spellings';
import type { AttackEntry } from './entry';

export { PLAN_RUN } from './corpus-pins';
export { type AttackClass, type AttackEntry, type Effect, ISSUE_RULES } from './entry';

export const ATTACKS: readonly AttackEntry[] = [
  ...OPTIONS,
  ...spellings(OPTIONS),
  ...OPERANDS,
  ...ENVIRONMENT,
  ...EVALUATION,
  ...ALIASES,
  ...NETWORK,
  ...GLOBAL_OPTIONS,
  ...DIRECTORY_READERS,
  ...HELD_OUT,
  ...ROUND_THREE,
  ...ROUND_FOUR,
  ...ROUND_FIVE,
  ...ROUND_SIX,
  ...ROUND_SEVEN,
  ...ROUND_EIGHT,
  ...ROUND_NINE,
  ...ROUND_TEN,
  ...ROUND_ELEVEN,
  ...ROUND_TWELVE,
  ...ROUND_THIRTEEN,
  ...ROUND_FOURTEEN,
  ...ROUND_FIFTEEN,
  ...PINS,
  ...PLAN_REFUSE,
];

/** Why an id may still be a bypass. */
export const NOT_FIXED = 'issue 20: not fixed yet';

/**
 * Attacks that get through today (allowed with no question, or asked where a deny rule applies),
 * by id. The attack test fails on any other bypass, and on an id here that no longer gets through,
 * so this list only shrinks.
 */
export const KNOWN_BYPASSES: Readonly<Record<string, typeof NOT_FIXED>> = {};

/** Read-only commands that plan mode refuses today although it should run them. */
export const KNOWN_PLAN_GAPS: Readonly<Record<string, typeof NOT_FIXED>> = {};
