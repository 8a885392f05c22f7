import type { InterceptedExecution, ToolHints, ToolSource } from '@dsh-tools/protocol';
import type {
  PermissionDecision,
  PermissionExample,
  PermissionExamples,
  PermissionMode,
  RuleBehavior,
} from '../types';
import { decide } from './decide';
import type { Policy } from './policy';
import { PermissionRuleError } from './rules';

/**
 * Claude Code's own tools as they are, so that examples (and `explain` in a CLI) can name them
 * without declaring hints: `Bash` runs `command`, `Read` reads `file_path`, `Edit` writes it.
 */
export const CLAUDE_CODE_TOOL_HINTS: Readonly<Record<string, ToolHints>> = {
  Bash: { command: 'command' },
  Read: { readOnly: true, paths: [{ arg: 'file_path', access: 'read' }] },
  Edit: { paths: [{ arg: 'file_path', access: 'write' }] },
  MultiEdit: { paths: [{ arg: 'file_path', access: 'write' }] },
  Write: { paths: [{ arg: 'file_path', access: 'write' }] },
  NotebookEdit: { paths: [{ arg: 'notebook_path', access: 'write' }] },
  Glob: { readOnly: true, paths: [{ arg: 'path', access: 'read' }] },
  Grep: { readOnly: true, paths: [{ arg: 'path', access: 'read' }] },
  LS: { readOnly: true, paths: [{ arg: 'path', access: 'read' }] },
  WebFetch: { readOnly: true, openWorld: true },
  WebSearch: { readOnly: true, openWorld: true },
};

/** A tool's stock hints, or none: only an own entry counts (`constructor` names no tool). */
const hintsOf = (name: string): ToolHints =>
  Object.hasOwn(CLAUDE_CODE_TOOL_HINTS, name) ? (CLAUDE_CODE_TOOL_HINTS[name] as ToolHints) : {};

const sourceOf = (name: string): ToolSource => {
  const m = /^mcp__([^_].*?)__(.+)$/.exec(name);
  return m ? { kind: 'mcp', server: m[1] as string, tool: m[2] as string } : { kind: 'local' };
};

/** Builds the execution an example describes (compact `Tool(argument)` or an object). */
export function exampleExecution(example: PermissionExample): InterceptedExecution {
  let name: string;
  let args: Record<string, unknown>;
  let hints: ToolHints;
  if (typeof example === 'string') {
    const open = example.indexOf('(');
    name = open < 0 ? example : example.slice(0, open);
    hints = hintsOf(name);
    const argument =
      open < 0 ? undefined : example.endsWith(')') ? example.slice(open + 1, -1) : undefined;
    if (open >= 0 && argument === undefined)
      throw new Error(`example ${JSON.stringify(example)} opens "(" but does not end with ")"`);
    const key = hints.command ?? hints.paths?.[0]?.arg;
    if (argument !== undefined && key === undefined) {
      throw new Error(
        `example ${JSON.stringify(example)}: ${name} has no command or path argument; use the object form`,
      );
    }
    args = argument !== undefined && key !== undefined ? { [key]: argument } : {};
  } else {
    if (example === null || typeof example !== 'object' || typeof example.tool !== 'string') {
      throw new Error(
        `example ${JSON.stringify(example)} is neither "Tool(argument)" nor { tool, args }`,
      );
    }
    name = example.tool;
    args = { ...(example.args ?? {}) };
    hints = example.hints ?? hintsOf(name);
  }
  return {
    callId: 'policy-example',
    name,
    arguments: args,
    tool: { name, description: '', parameters: { type: 'object' }, hints, source: sourceOf(name) },
  };
}

/** Every example with the behaviour it expects. */
export function listExamples(
  examples: PermissionExamples | undefined,
): { expect: RuleBehavior; example: PermissionExample }[] {
  const out: { expect: RuleBehavior; example: PermissionExample }[] = [];
  for (const expect of ['allow', 'ask', 'deny'] as const) {
    const list = examples?.[expect];
    if (list === undefined) continue;
    if (!Array.isArray(list)) throw new Error(`examples.${expect} must be an array`);
    for (const example of list) out.push({ expect, example });
  }
  return out;
}

/**
 * Decides every example of a policy in `mode` and throws a {@link PermissionRuleError} listing
 * each one decided otherwise than listed (or that cannot be built).
 */
export function checkExamples(
  policy: Policy,
  examples: PermissionExamples | undefined,
  mode: PermissionMode,
): void {
  const failures: string[] = [];
  for (const { expect, example } of listExamples(examples)) {
    let got: PermissionDecision;
    try {
      got = decide(policy, exampleExecution(example), mode, []);
    } catch (error) {
      failures.push(`${JSON.stringify(example)}: ${(error as Error).message}`);
      continue;
    }
    if (got.behavior !== expect) {
      failures.push(
        `${JSON.stringify(example)} should be ${expect} but is ${got.behavior}: ${got.reason}`,
      );
    }
  }
  if (failures.length > 0) {
    throw new PermissionRuleError(
      `Permission policy examples fail (mode "${mode}"):\n- ${failures.join('\n- ')}`,
    );
  }
}
