import { colorsFor } from './output';

/** Where results go: stdout, so that they can be piped. */
export const out = process.stdout;
/** Where progress, warnings and errors go: stderr, so that they never mix with results. */
export const err = process.stderr;
/** Colours for {@link out} (none when it is not a terminal, or with `NO_COLOR`). */
export const cOut = colorsFor(out);
/** Colours for {@link err}. */
export const cErr = colorsFor(err);

/** A failure that ends the command with a message and an exit code. */
export class CliFailure extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode: number) {
    super(message);
    this.exitCode = exitCode;
  }
}

/** Writes a warning line on stderr. */
export function warn(message: string): void {
  err.write(`${cErr.yellow('warning')} ${message}\n`);
}
