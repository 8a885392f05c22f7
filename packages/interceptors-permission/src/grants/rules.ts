import type { InterceptedExecution } from '@dsh-tools/protocol';
import { type ParsedRule, parseRule } from '../decide/rules';
import { analyzeShell } from '../shell/analyze';
import type { PermissionDecision, PermissionGrant } from '../types';
import { ruleText } from './approval';

/**
 * A grant read as the allow rule it stands for, its origin naming the grant. It comes from no
 * settings file, so it has no root: its relative paths resolve against the policy's `cwd` when
 * matched (see `patternsOf`), like a rule given in options.
 */
export const grantOrigin = (g: PermissionGrant): ParsedRule =>
  parseRule(g.rule, 'allow', { list: 'allow', index: 0, source: `grant ${g.id}` }, '', '');

/** Escapes one word for a rule specifier (backslash before anything the rule reader treats specially). */
const escapeSpecWord = (word: string): string => word.replace(/[\\'"*\s()]/g, (c) => `\\${c}`);

/** The rule a grant without one covers: the asking rule, else this exact command, else the tool. */
export const defaultGrantRule = (
  exec: InterceptedExecution,
  decision: PermissionDecision,
  cwd: string,
  home: string,
): string | undefined => {
  const rule = ruleText(decision);
  if (
    rule !== undefined &&
    decision.decidedBy.kind === 'rule' &&
    decision.decidedBy.origin.list === 'ask'
  )
    return rule;
  const commandArg = exec.tool.hints.command;
  if (commandArg === undefined) return exec.name;
  const line = exec.arguments[commandArg];
  if (typeof line !== 'string') return undefined;
  const analysis = analyzeShell(line, cwd, home);
  const only = analysis.commands[0];
  // A grant for "this tool" would allow every command; a shell grant covers exactly this one.
  if (
    analysis.problems.length > 0 ||
    analysis.commands.length !== 1 ||
    analysis.redirects.length > 0 ||
    !only ||
    only.via.length > 0
  )
    return undefined;
  if (!only.argv.every((w) => w.literal && !w.glob)) return undefined;
  return `${exec.name}(${only.argv.map((w) => escapeSpecWord(w.value)).join(' ')})`;
};
