/**
 * A fourteenth round: words bash turns into other words. A brace in a file operand
 * (`cat {docs/guide.md,secrets/token.json}`: read as one glob, its `/` inside the braces hid the
 * path) and a brace in an option word (`xargs -a{docs/guide.md,.env}` is `-adocs/guide.md -a.env`
 * to xargs, and the last one counts). Each shape does its harm when nothing stops it.
 */
import { type AttackEntry, entriesOf } from './entry';

const c1 = entriesOf(1);
const c2 = entriesOf(2);

/** Reads of .env or secrets/ through braces in an operand: [id, command, program]. */
const OPERANDS: readonly [id: string, command: string, program: string][] = [
  ['cat-list', 'cat {docs/guide.md,secrets/token.json}', 'cat'],
  ['head-list', 'head -n 3 {README.md,.env}', 'head'],
  ['tail-empty-part', 'tail -n 1 docs{,/../.env}', 'tail'],
  ['cat-nested', 'cat {README.md,{docs/guide.md,secrets/token.json}}', 'cat'],
  ['cat-prefix', 'cat s{ecrets/token.json,x}', 'cat'],
];

export const ROUND_FOURTEEN: readonly AttackEntry[] = [
  ...OPERANDS.map(([id, command, program]) =>
    c2(`braces-${id}`, command, 'read', `bash makes a protected path of ${program}'s braces`, {
      mustDeny: true,
      extraRules: { allow: [`Bash(${program}:*)`] },
    }),
  ),
  c1(
    'braces-xargs-a',
    'xargs -a{docs/guide.md,.env} echo',
    'read',
    'xargs takes the last -a: .env, its words echoed',
    { extraRules: { allow: ['Bash(xargs:*)'] } },
  ),
  c1(
    'braces-sort-o',
    'sort -o{src/x.ts,src/x.ts} README.md',
    'write',
    'sort -o names src/x.ts twice; the model read one output named by the whole word',
    { mustDeny: true },
  ),
  c1(
    'braces-hexdump-f',
    'hexdump -f{.env,.env} README.md',
    'read',
    'hexdump reads its format from .env (twice), and shows it in its complaint',
    { mustDeny: true, extraRules: { allow: ['Bash(hexdump:*)'] }, needs: ['hexdump'] },
  ),
];
