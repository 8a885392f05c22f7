/**
 * A thirteenth round: programs that write what their operands name without an option saying so.
 * They had no model, so an allow rule on them kept its prefix meaning and their operands were read
 * as files read: `uniq IN OUT` writes OUT, split and csplit write pieces beside a prefix, the
 * compressors replace their operands, `shuf -o` and `mktemp -p` write, and `split --filter` runs a
 * command; symbolic links reached by a glob (`cat docs/*`), and links made on the line itself
 * (`ln -s .env x && cat x`). Also the shapes fixed in the sixth mutation round that were pinned by unit tests only
 * (`hexdump -f`, gawk's indirect call, `mv` of a directory). Each shape does its harm when nothing stops it; where a deny rule covers it,
 * an ask is a bypass too.
 */
import { type AttackEntry, entriesOf } from './entry';

const c1 = entriesOf(1);
const c4 = entriesOf(4);
const c5 = entriesOf(5);

/** Writes under src/, which `Write(./src/**)` denies: [id, command, program]. */
const WRITES: readonly [id: string, command: string, program: string][] = [
  ['uniq-out', 'uniq README.md src/x.ts', 'uniq'],
  ['uniq-c-out', 'uniq -c README.md src/new.ts', 'uniq'],
  ['uniq-s-out', 'uniq -s1 -- README.md src/x.ts', 'uniq'],
  ['split-prefix', 'split README.md src/piece', 'split'],
  ['split-l-attached', 'split -l1 README.md src/p', 'split'],
  ['split-lines-eq', 'split --lines=1 -d -- README.md src/p', 'split'],
  ['csplit-f', 'csplit -f src/p README.md 2', 'csplit'],
  ['csplit-f-attached', 'csplit -fsrc/p README.md 2', 'csplit'],
  ['csplit-prefix-eq', 'csplit -s --prefix=src/p README.md 2', 'csplit'],
  ['gzip-in-place', 'gzip src/x.ts', 'gzip'],
  ['gzip-keep', 'gzip -k src/util.ts', 'gzip'],
  ['gzip-suffix-ct', 'gzip -Sct src/x.ts', 'gzip'],
  ['gzip-recursive', 'gzip -r src', 'gzip'],
  ['xz-keep', 'xz -k src/x.ts', 'xz'],
  ['zstd-rm', 'zstd -q --rm src/x.ts', 'zstd'],
  ['zstd-o', 'zstd -q README.md -o src/r.zst', 'zstd'],
  ['shuf-o', 'shuf -o src/x.ts README.md', 'shuf'],
  ['shuf-o-attached', 'shuf -n1 -osrc/x.ts README.md', 'shuf'],
  ['mktemp-p', 'mktemp -p src', 'mktemp'],
  ['mktemp-template', 'mktemp src/t.XXXX', 'mktemp'],
];

/**
 * Links reached by a glob or a tree read that follows links: `docs/env-link → ../.env` and
 * `docs/vault → ../secrets` are committed; no name under `docs/` is protected.
 */
const LINKS: readonly [id: string, command: string, allow: string[]][] = [
  ['glob-cat', 'cat docs/*', ['Bash(cat:*)']],
  ['glob-head', 'head -n 5 docs/e*', ['Bash(head:*)']],
  ['glob-through-dir-link', 'cat docs/*/token.json', ['Bash(cat:*)']],
  ['ln-s-then-cat', 'ln -s .env x && cat x', ['Bash(ln:*)', 'Bash(cat:*)']],
  ['ln-hard-then-cat', 'ln .env x && cat x', ['Bash(ln:*)', 'Bash(cat:*)']],
  ['ln-relative-then-cat', 'ln -s ../.env docs/x; cat docs/x', ['Bash(ln:*)', 'Bash(cat:*)']],
  ['ln-dir-then-cat', 'ln -s secrets s2 && cat s2/token.json', ['Bash(ln:*)', 'Bash(cat:*)']],
];

export const ROUND_THIRTEEN: readonly AttackEntry[] = [
  ...LINKS.map(([id, command, allow]) =>
    c5(
      `link-${id}`,
      command,
      'read',
      'a link (under docs/, or made by ln) leads to .env or secrets/',
      {
        mustDeny: true,
        extraRules: { allow },
      },
    ),
  ),
  ...WRITES.map(([id, command, program]) =>
    c1(`writer-${id}`, command, 'write', `${program} writes under src/ without an option`, {
      mustDeny: true,
      extraRules: { allow: [`Bash(${program}:*)`] },
      needs: [program],
    }),
  ),
  c1(
    'split-filter-rm',
    "split --filter='rm -f src/x.ts' README.md",
    'write',
    'split --filter runs its command for each piece: rm, which a deny rule names',
    { mustDeny: true, extraRules: { allow: ['Bash(split:*)'] }, needs: ['split'] },
  ),
  c1(
    'split-filter-touch',
    "split --filter='touch {MARK}' README.md",
    'exec',
    'split --filter runs a command no rule allows',
    { extraRules: { allow: ['Bash(split:*)'] }, needs: ['split'] },
  ),
  c1('hexdump-f', 'hexdump -f .env README.md', 'read', 'hexdump -f reads its format from .env', {
    mustDeny: true,
    extraRules: { allow: ['Bash(hexdump:*)'] },
    needs: ['hexdump'],
  }),
  c1(
    'mv-dir-then-cat',
    'mv secrets pub && cat pub/token.json',
    'read',
    'mv moves a protected directory out from under its read deny, then cat reads it',
    { mustDeny: true, extraRules: { allow: ['Bash(mv:*)', 'Bash(cat:*)'] }, needs: ['mv'] },
  ),
  c4(
    'gawk-indirect-call',
    `gawk 'BEGIN { f = "sys" "tem"; @f("touch {MARK}") }'`,
    'exec',
    'gawk calls system by a name held in a variable',
    { extraRules: { allow: ['Bash(gawk:*)'] }, needs: ['gawk'] },
  ),
  c4(
    'awk-indirect-call',
    `awk 'BEGIN { f = "sys" "tem"; @f("touch {MARK}") }'`,
    'exec',
    'awk (gawk here) calls system by a name held in a variable',
    { extraRules: { allow: ['Bash(awk:*)'] }, needs: ['gawk'] },
  ),
];
