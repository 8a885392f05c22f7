import { createReadStream } from 'node:fs';
import { basename } from 'node:path';
import { createInterface } from 'node:readline';
import { GENESIS, lineHash } from './audit-log';

/** Where a chain breaks: the file, the line (1-based) and what is wrong there. */
export interface AuditBreak {
  readonly file: string;
  readonly line: number;
  readonly reason: string;
}

export interface AuditVerification {
  /** True when every line of every file chains to the one before it. */
  readonly ok: boolean;
  /** Lines checked (recovery and rotate lines included). */
  readonly lines: number;
  /** The first break, when `ok` is false. */
  readonly broken?: AuditBreak;
  /** The hash of the last line: keep it elsewhere to notice a later truncation. */
  readonly head?: string;
  /** What verified but deserves a word: a crash's partial line, a chain continued from a file not given. */
  readonly notes: readonly string[];
}

interface Parsed {
  readonly seq?: unknown;
  readonly prev?: unknown;
  readonly kind?: unknown;
  readonly from?: unknown;
  readonly tornBytes?: unknown;
  readonly tornHash?: unknown;
}

const NOT_OURS = 'not a line of the audit trail (changed, or written by something else)';

function parse(text: string): Parsed | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Parsed)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Checks an audit trail's hash chain across `files`, given oldest first (a rotated file, then the
 * one that rotated it away). A line that a crash left partial verifies only when the recovery line
 * after it names its exact hash and length; anything else that is not a line of the chain — an
 * edited, removed, inserted or reordered line — is a break, reported with its file and line.
 * A hash chain cannot see lines removed from the end: compare `head` with one kept elsewhere.
 */
export async function verifyAuditFiles(files: readonly string[]): Promise<AuditVerification> {
  let expectedPrev: string | undefined;
  let expectedSeq: number | undefined;
  let lines = 0;
  const notes: string[] = [];
  const broken = (file: string, line: number, reason: string): AuditVerification => ({
    ok: false,
    lines,
    broken: { file, line, reason },
    notes,
  });

  for (const [index, file] of files.entries()) {
    let number = 0;
    /** A line that is not JSON: a crash's partial line if a recovery line names it next. */
    let torn: { text: string; line: number } | undefined;
    let first = true;
    const input = createInterface({
      input: createReadStream(file),
      crlfDelay: Number.POSITIVE_INFINITY,
    });
    try {
      for await (const text of input) {
        number++;
        const line = parse(text);
        const chained =
          line !== undefined && typeof line.prev === 'string' && typeof line.seq === 'number';
        if (!chained) {
          // Not a line of the chain: a crash's partial line only if a recovery line names it next.
          if (torn) return broken(file, torn.line, NOT_OURS);
          if (text === '') return broken(file, number, 'an empty line');
          torn = { text, line: number };
          continue;
        }
        if (torn) {
          const bytes = Buffer.byteLength(torn.text);
          if (
            line.kind !== 'recovery' ||
            line.tornHash !== lineHash(torn.text) ||
            line.tornBytes !== bytes
          ) {
            return broken(file, torn.line, NOT_OURS);
          }
          notes.push(
            `${file}:${torn.line}: a partial line (${bytes} bytes) left by a crash while writing; the recovery line after it names it.`,
          );
          torn = undefined;
        }
        if (first && line.kind === 'rotate') {
          const previous = files[index - 1];
          if (previous === undefined) {
            notes.push(
              `${file}:1: continues the chain of ${String(line.from)}, which was not given: checked from here on.`,
            );
            expectedPrev = line.prev as string;
            expectedSeq = line.seq as number;
          } else if (line.from !== basename(previous)) {
            return broken(
              file,
              number,
              `the rotate line names ${String(line.from)}, but the file before it is ${basename(previous)}: give the files oldest first`,
            );
          }
        }
        const want = expectedPrev ?? GENESIS;
        if (line.prev !== want) {
          return broken(
            file,
            number,
            `its "prev" is not the hash of the line before it: that line was changed, a line between them was removed or inserted, or this one was changed (expected ${want.slice(0, 16)}…, found ${String(line.prev).slice(0, 16)}…)`,
          );
        }
        if (expectedSeq !== undefined && line.seq !== expectedSeq) {
          return broken(file, number, `"seq" is ${String(line.seq)}, expected ${expectedSeq}`);
        }
        expectedPrev = lineHash(text);
        expectedSeq = (line.seq as number) + 1;
        lines++;
        first = false;
      }
    } catch (error) {
      return broken(file, number, `cannot be read: ${(error as Error).message}`);
    } finally {
      input.close();
    }
    if (torn) {
      if (index < files.length - 1) return broken(file, torn.line, NOT_OURS);
      notes.push(
        `${file}:${torn.line}: its last line is partial (a crash while writing it); every line before it verifies. The next writer adds a recovery line.`,
      );
    }
  }
  return { ok: true, lines, ...(expectedPrev ? { head: expectedPrev } : {}), notes };
}
