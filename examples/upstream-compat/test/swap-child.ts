/**
 * Runs the agent-loop script in a process where `@deepseek-ai/dsh-tools` is this repository's
 * `dsh-tools/harness` (see swap-hooks.mjs): the harness's own composition, untouched, with our
 * package standing in. Prints the transcript as JSON.
 */
import { runScript } from './agent-loop';

const transcript = await runScript('upstream');
process.stdout.write(JSON.stringify(transcript));
