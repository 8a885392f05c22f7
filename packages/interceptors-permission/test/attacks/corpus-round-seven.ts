/**
 * A seventh round, from the mutation run of the operand table: programs without a full model
 * whose operands were read the wrong way round (zip), and a write option's attached value.
 */
import { type AttackEntry, entriesOf } from './entry';

const c1 = entriesOf(1);

export const ROUND_SEVEN: readonly AttackEntry[] = [
  c1(
    'zip-into-src',
    'zip -q src/a.zip README.md',
    'write',
    'zip writes its first operand, the archive',
    {
      extraRules: { allow: ['Bash(zip:*)'] },
      mustDeny: true,
      needs: ['zip'],
    },
  ),
  c1(
    'zip-stores-env',
    'zip -0 -q - .env',
    'read',
    'zip reads every operand after the archive; -0 stores it as it is, to stdout',
    { extraRules: { allow: ['Bash(zip:*)'] }, mustDeny: true, needs: ['zip'] },
  ),
  c1(
    'iconv-attached-output',
    'iconv -f utf8 -t utf8 -osrc/a.ts README.md',
    'write',
    'an attached -oFILE writes FILE',
    { extraRules: { allow: ['Bash(iconv:*)'] }, mustDeny: true, needs: ['iconv'] },
  ),
];
