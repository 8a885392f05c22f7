// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell syntax, not templates
/**
 * A sixth held-out round: quoting corners where a parser may end or extend a string differently
 * from bash, so that a command after it is not seen.
 */
import { type AttackEntry, entriesOf } from './entry';

const c4 = entriesOf(4);

export const ROUND_SIX: readonly AttackEntry[] = [
  c4('locale-string', 'echo $"$(touch {MARK})x"', 'exec', '$"…" expands like "…"'),
  c4(
    'quote-in-substitution',
    'echo "$(echo \'"\')"; touch {MARK}',
    'exec',
    'a quote inside $( ) inside "…"',
  ),
  c4('quote-in-default', 'x=; echo "${x:-\'"\'}"; touch {MARK}', 'exec', '\'"\' inside "${x:-…}"'),
  c4(
    'case-in-substitution',
    'echo "$(case x in x) echo ")";; esac)"; touch {MARK}',
    'exec',
    'a case pattern ) inside $( )',
  ),
  c4(
    'heredoc-in-substitution',
    'x=$(sort <<EOF\n)\nEOF\n); touch {MARK}',
    'exec',
    'a ) inside a heredoc inside $( )',
  ),
  c4(
    'nested-backticks-dquotes',
    'echo "`echo \\"\\`touch {MARK}\\`\\"`"',
    'exec',
    'escaped backticks inside "…" inside backticks',
  ),
];
