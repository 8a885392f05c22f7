import { CommanderError } from 'commander';
import { CliFailure, cErr, err } from './cli-io';
import { buildProgram } from './cli-program';
import { ConfigError } from './config-error';
import { EXIT } from './exit-codes';
import { PolicyConfigError, PolicyUnavailableError } from './policies';
import { exportAskedFor, startTelemetry, stopTelemetry } from './telemetry';

/** Runs the command line; resolves with the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  let exitCode: number = EXIT.OK;
  const program = buildProgram((code) => {
    exitCode = code;
  });
  try {
    // Only when the OpenTelemetry variables ask for it: --help and every other command without
    // them load nothing of it.
    if (exportAskedFor(process.env)) await startTelemetry(process.env);
    await program.parseAsync([...argv]);
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end through here too, with exit code 0.
      return error.exitCode === 0 ? EXIT.OK : EXIT.USAGE;
    }
    if (
      error instanceof ConfigError ||
      error instanceof PolicyUnavailableError ||
      error instanceof PolicyConfigError ||
      // By name: the pins module (and the bridge it reads) loads only with a gateway, the state
      // store only with a `state` section.
      (error instanceof Error &&
        (error.name === 'PinsFileError' || error.name === 'StateUnavailableError'))
    ) {
      err.write(`${cErr.red('error')} ${error.message}\n`);
      return EXIT.CONFIG;
    }
    if (error instanceof CliFailure) {
      err.write(`${cErr.red('error')} ${error.message}\n`);
      return error.exitCode;
    }
    err.write(
      `${cErr.red('internal error')} ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return EXIT.INTERNAL;
  } finally {
    await stopTelemetry();
  }
}

// A reader that stops early (`dsh-tools inspect | head`) closes the pipe: stop quietly with the
// exit code so far, as other command lines do, instead of crashing on an unhandled EPIPE.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(typeof process.exitCode === 'number' ? process.exitCode : EXIT.OK);
  });
}

main(process.argv).then(
  (code) => {
    process.exitCode = code;
    // Bridged servers and sockets are closed by now; a stray handle must not keep the CLI alive.
    setTimeout(() => process.exit(code), 2000).unref();
  },
  (error: unknown) => {
    err.write(`internal error ${String(error)}\n`);
    process.exit(EXIT.INTERNAL);
  },
);
