import { verifyAuditFiles } from './audit-verify';
import { cOut, out } from './cli-io';

const say = (line: string) => out.write(`${line}\n`);

import { EXIT } from './exit-codes';

/**
 * `dsh-tools audit verify <files...>`: checks an audit trail's hash chain (rotated files oldest
 * first, then the current one) and says where it breaks. Exit 0 when it holds, 1 when it breaks
 * (or a file cannot be read).
 */
export async function auditVerifyCommand(
  files: readonly string[],
  options: { json?: boolean },
): Promise<number> {
  const result = await verifyAuditFiles(files);
  if (options.json) {
    say(JSON.stringify(result));
    return result.ok ? EXIT.OK : EXIT.CHECK_DENY;
  }
  const c = cOut;
  for (const note of result.notes) say(c.yellow(`note: ${note}`));
  if (result.ok) {
    say(
      `${c.green('ok')}  ${result.lines} lines chain from the first to the last${
        result.head ? `; head ${result.head}` : ''
      }`,
    );
    say(
      c.dim(
        'Keep the head elsewhere: a later run that shows a different one lost lines at the end.',
      ),
    );
    return EXIT.OK;
  }
  const broken = result.broken;
  say(
    `${c.red('broken')}  ${broken?.file}:${broken?.line}: ${broken?.reason}. The ${result.lines} lines before it verify; from there on nothing does.`,
  );
  return EXIT.CHECK_DENY;
}
