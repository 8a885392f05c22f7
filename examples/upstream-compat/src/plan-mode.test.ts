/**
 * `@deepseek-ai/dsh-plan-mode` on both tools services: its `exit_plan_mode` tool (a harness-shaped
 * definition: a JSON value checked against `output.schema`, rendered by `output.render`) reads the
 * calling agent's session, puts the plan to the person through `ctx.userQuestions`, and on
 * approval queues leaving plan mode. The agent object travels on the call untouched.
 */
import PlanMode from '@deepseek-ai/dsh-plan-mode';
import UserQuestionService from '@deepseek-ai/dsh-user-questions';
import { Permission } from 'dsh-tools/cordis';
import { afterEach, describe, expect, it } from 'vitest';
import { boot, HOSTS, type Host, type HostName, liveAgent } from '../test/hosts';

const hosts: Host[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.close();
});

const PLAN = '# Add a cache\n\n1. Measure.\n2. Cache the hot path.';

type Review = { selected: string[]; custom?: string };

/** One host: plan mode on or off, the person answering the review with `review`. */
async function scenario(
  name: HostName,
  options: { active: boolean; review: Review; plan?: string },
) {
  const host = await boot(name);
  hosts.push(host);
  await host.root.plugin(UserQuestionService);
  await host.root.plugin(PlanMode, { section: 'You are in plan mode.' });
  const questions: unknown[] = [];
  // The person, answering through the UI provider the seam expects.
  (
    host.root as unknown as { userQuestions: { registerProvider(p: unknown): void } }
  ).userQuestions.registerProvider({
    ask: async (request: { questions: { id: string }[] }) => {
      questions.push(request);
      return { answers: [{ id: 'plan-review', ...options.review }] };
    },
  });
  const agent = liveAgent(host.root);
  if (options.active) agent.session.append('plan/mode', { active: true } as never);
  const result = await host.call('exit_plan_mode', { plan: options.plan ?? PLAN }, agent);
  const planMode = (host.root as unknown as { planMode: { get(a: unknown): unknown } }).planMode;
  return {
    result,
    state: planMode.get(agent),
    asked: questions.length,
    schemas: host.tools.schemas(),
  };
}

describe('dsh-plan-mode', () => {
  it('registers exit_plan_mode with the same schema on both services', async () => {
    const [upstream, ours] = await Promise.all(
      HOSTS.map((h) => scenario(h, { active: false, review: { selected: [] } })),
    );
    expect(ours?.schemas).toEqual(upstream?.schemas);
    expect(ours?.schemas.map((s) => s.name)).toEqual(['exit_plan_mode']);
  });

  it('leaves plan mode when the person approves the plan, on both services', async () => {
    for (const name of HOSTS) {
      const run = await scenario(name, { active: true, review: { selected: ['Approve'] } });
      expect(run.result, name).toEqual({
        isError: false,
        text: 'Plan approved — plan mode exited; carry out the plan starting with your next step.',
        code: undefined,
      });
      expect(run.asked, name).toBe(1);
      expect(run.state, name).toEqual({ active: true, pending: false });
    }
  });

  it('stays in plan mode with the feedback when the person keeps planning, on both services', async () => {
    const outcomes = [];
    for (const name of HOSTS) {
      const run = await scenario(name, {
        active: true,
        review: { selected: ['Keep planning'], custom: 'measure first' },
      });
      expect(run.result.isError, name).toBe(true);
      expect(run.result.text, name).toContain('their feedback: measure first');
      expect(run.state, name).toEqual({ active: true });
      outcomes.push(run.result);
    }
    // A harness tool's own failure reads the same on both: its message, as the harness renders it.
    expect(outcomes[0]?.text).toBe(
      'Error: The user chose to keep planning; their feedback: measure first',
    );
    expect(outcomes[1]?.text).toBe(outcomes[0]?.text);
  });

  it('refuses outside plan mode and a plan without a heading, never asking, on both services', async () => {
    for (const name of HOSTS) {
      const off = await scenario(name, { active: false, review: { selected: ['Approve'] } });
      expect(off.result.isError, name).toBe(true);
      expect(off.result.text, name).toContain('only available in plan mode');
      const headless = await scenario(name, {
        active: true,
        review: { selected: ['Approve'] },
        plan: 'no heading',
      });
      expect(headless.result.text, name).toContain('starting with a # heading');
      expect(off.asked + headless.asked, name).toBe(0);
    }
  });

  it('keeps presentCall on the definition for UIs, on both services', async () => {
    for (const name of HOSTS) {
      const host = await boot(name);
      hosts.push(host);
      await host.root.plugin(PlanMode, { section: 'plan' });
      const definition = host.tools.get('exit_plan_mode') as {
        presentCall(args: unknown): unknown;
      };
      expect(definition.presentCall({ plan: PLAN }), name).toEqual({
        card: 'generic',
        title: 'Add a cache',
        kind: 'other',
        content: [{ type: 'text', text: PLAN }],
      });
    }
  });

  it('stays under our own interceptors on ours: a Permission deny rule stops exit_plan_mode', async () => {
    const host = await boot('ours');
    hosts.push(host);
    await host.root.plugin(UserQuestionService);
    await host.root.plugin(PlanMode, { section: 'plan' });
    await host.root.plugin(Permission, { rules: { deny: ['exit_plan_mode'] } });
    const agent = liveAgent(host.root);
    agent.session.append('plan/mode', { active: true } as never);
    const result = await host.call('exit_plan_mode', { plan: PLAN }, agent);
    expect(result.isError).toBe(true);
    expect(result.code).toBe('DENIED');
    expect(result.text).toContain('exit_plan_mode');
  });
});
