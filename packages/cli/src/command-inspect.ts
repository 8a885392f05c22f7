import { failedServersNote, load, openGateway } from './cli-gateway';
import { cOut, out, warn } from './cli-io';
import { EXIT } from './exit-codes';
import { inspectGateway } from './inspect';
import { renderInspect } from './output';

/** `dsh-tools inspect`: prints the tools as the model sees them; resolves with the exit code. */
export async function inspectCommand(options: {
  config?: string;
  json?: boolean;
}): Promise<number> {
  const loaded = await load(options.config);
  const gateway = await openGateway(loaded, false, undefined, undefined, {
    pins: { record: false },
  });
  try {
    const report = await inspectGateway(gateway, loaded.file);
    out.write(
      options.json ? `${JSON.stringify(report, null, 2)}\n` : `${renderInspect(report, cOut)}\n`,
    );
    if (gateway.failures.length > 0) {
      warn(
        `the tools of ${failedServersNote(gateway)} are missing above: fix the server's entry in the config and run again.`,
      );
      return EXIT.SERVER_FAILED;
    }
    return EXIT.OK;
  } finally {
    await gateway.close();
  }
}
