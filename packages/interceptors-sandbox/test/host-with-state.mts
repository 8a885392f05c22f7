/**
 * A host process as a real agent host may be: started with descriptors it did not open (a
 * directory, a file, a pipe, without close-on-exec) and a session keyring holding a key. It runs
 * each command given, sandboxed or (to show the harm) with plain bash, and prints one JSON line
 * per command. Used by escapes-descriptors.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { createSandboxRunner } from '../src/index.js';

const { mode, cwd, commands, options } = JSON.parse(process.argv[2]!) as {
  mode: 'guarded' | 'unguarded';
  cwd: string;
  commands: string[];
  options?: Record<string, unknown>;
};
const runner = createSandboxRunner({ mode: 'workspace-write', cwd, ...options });
for (const command of commands) {
  if (mode === 'unguarded') {
    const r = spawnSync('bash', ['-c', command], { cwd, encoding: 'utf8', timeout: 20_000 });
    console.log(
      JSON.stringify({ command, stdout: r.stdout, stderr: r.stderr, exitCode: r.status }),
    );
  } else {
    try {
      const r = await runner.run(['bash', '-c', command], { timeoutMs: 20_000, rawOutput: true });
      console.log(
        JSON.stringify({ command, stdout: r.stdout, stderr: r.stderr, exitCode: r.exitCode }),
      );
    } catch (error) {
      console.log(JSON.stringify({ command, stdout: '', stderr: String(error), exitCode: -1 }));
    }
  }
}
