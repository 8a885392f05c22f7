import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { analyzeShell } from './analyze';
import { loadShellParser } from './parser';

/** What a command line runs, as the permission interceptor sees it. */
export interface ShellCommandAnalysis {
  /** Every simple command, wrappers seen through, with each word's value and whether it is known. */
  readonly commands: readonly {
    readonly argv: readonly {
      readonly value: string;
      readonly literal: boolean;
      readonly glob: boolean;
    }[];
    readonly via: readonly string[];
    readonly unknown?: string;
  }[];
  /** Redirections to and from files. */
  readonly redirects: readonly {
    readonly op: string;
    readonly target: string;
    readonly access: 'read' | 'write';
  }[];
  /** Why the line (or part of it) cannot be understood; non-empty = never allowed without asking. */
  readonly problems: readonly string[];
}

/**
 * Splits a command line into the commands it runs, as the policy judges them (for a CLI's `check`,
 * for logs, and to measure the parser's share of a decision). Loads the parser on first use.
 */
export async function analyzeShellCommand(
  line: string,
  options: { readonly cwd?: string; readonly home?: string } = {},
): Promise<ShellCommandAnalysis> {
  await loadShellParser();
  const a = analyzeShell(
    String(line),
    resolve(options.cwd ?? process.cwd()),
    options.home ?? homedir(),
  );
  return {
    commands: a.commands.map((c) => ({
      argv: c.argv.map((w) => ({ value: w.value, literal: w.literal, glob: w.glob })),
      via: c.via,
      ...(c.unknown !== undefined && { unknown: c.unknown }),
    })),
    redirects: a.redirects.map((r) => ({ op: r.op, target: r.target.value, access: r.access })),
    problems: a.problems,
  };
}
