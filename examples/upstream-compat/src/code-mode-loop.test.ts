/**
 * Code Mode in the harness's real agent loop: the scripted model writes one `run_code` program
 * that reads two files together, edits one, tries a shell command the policy denies and writes a
 * file a person approves; run on upstream's service and on ours, with the worker-thread runtime.
 */
import { describe, expect, it } from 'vitest';
import { runScript, type ScriptStep, type Transcript } from '../test/agent-loop';

const PROGRAM = `
const [a, b] = await Promise.all([
  tools.read({ file_path: 'a.txt' }),
  tools.read({ file_path: 'b.txt' }),
]);
await tools.edit({ file_path: 'a.txt', old_string: 'one', new_string: 'ONE' });
try {
  await tools.bash({ command: 'rm -rf /', description: 'clean up' });
} catch (e) {
  console.log(e.name + ' ' + e.toolName + ': ' + e.message);
}
await tools.write({ file_path: 'c.txt', content: 'approved\\n' });
return { read: [typeof a, typeof b] };`;

const SCRIPT: ScriptStep[] = [
  {
    calls: [{ id: 'k1', name: 'run_code', args: { description: 'tidy the files', code: PROGRAM } }],
  },
  { calls: [{ id: 'k2', name: 'read', args: { file_path: 'a.txt' } }] },
  { text: 'All done.' },
];

/** The transcript without what each service words its own way (the prompt's Code Mode prose). */
const comparable = (t: Transcript) => ({
  ...t,
  events: t.events.filter((e) => e.type !== 'request/header'),
});

const UPSTREAM_DENIAL = 'no shell in this session';
const OURS_DENIAL =
  'tool \\"bash\\" was denied by plugin \\"scenario\\" (tools/pre-execute): no shell in this session';

describe('Code Mode in the agent loop, with the worker-thread code runtime', () => {
  it('runs the same program to the same transcript on both services, but where documented', async () => {
    const upstream = await runScript('upstream', { parent: SCRIPT, codeMode: true });
    const ours = await runScript('ours', { parent: SCRIPT, codeMode: true });
    // The model is offered run_code alone, and the program did what it says.
    expect(ours.offered[0]).toEqual(['run_code']);
    expect(ours.files).toEqual({
      'a.txt': 'ONE\ntwo\n',
      'b.txt': 'bee\n',
      'c.txt': 'approved\n',
      'd.txt': null,
    });
    // The write inside the program was asked about, as its own call.
    expect(ours.asked).toEqual(['write:k1:code:5']);
    // Each sub-call was logged to the session (start, then its content); the two reads overlap.
    const logged = ours.events.filter((e) => e.type.startsWith('tool/code-dispatch'));
    expect(logged.map((e) => `${e.type} ${(e.data as { subCallId: string }).subCallId}`)).toEqual([
      'tool/code-dispatch-start k1:code:1',
      'tool/code-dispatch-start k1:code:2',
      'tool/code-dispatch k1:code:1',
      'tool/code-dispatch k1:code:2',
      ...[3, 4, 5].flatMap((n) => [
        `tool/code-dispatch-start k1:code:${n}`,
        `tool/code-dispatch k1:code:${n}`,
      ]),
    ]);
    // A direct call of another tool is refused, in the harness's words.
    const direct = JSON.stringify(ours.results[1]);
    expect(direct).toContain('only `run_code` is callable directly — call `read` from inside');
    expect(ours.violations).toEqual([]);

    // Documented differences: a denial names the plugin that decided, inside a program too, and
    // it is final (no tools/post-execute for it).
    expect(JSON.stringify(upstream.events)).not.toContain(OURS_DENIAL);
    expect(JSON.stringify(ours.events)).toContain(OURS_DENIAL);
    expect(upstream.dispatches.filter((d) => !ours.dispatches.includes(d))).toEqual([
      'tools/post-execute k1:code:4',
    ]);
    const patched = JSON.parse(
      JSON.stringify({ ...comparable(ours), dispatches: upstream.dispatches }).replaceAll(
        OURS_DENIAL,
        UPSTREAM_DENIAL,
      ),
    );
    expect(patched).toEqual(comparable(upstream));
  });
});
