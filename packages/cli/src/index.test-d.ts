import type { Approver, Interceptor } from '@dsh-tools/protocol';
import type { ToolRegistry } from '@dsh-tools/registry';
import { describe, expectTypeOf, it } from 'vitest';
import {
  type BuildGatewayOptions,
  buildGateway,
  type CheckReport,
  type CheckStep,
  type CheckVerdict,
  type ConfigIssue,
  checkCall,
  DEFAULT_POLICIES,
  type DemoCallReport,
  type DemoReport,
  type DemoTurn,
  type DshToolsConfig,
  demoTranscript,
  EXIT,
  type Gateway,
  type HttpGateway,
  type LoadedConfig,
  loadConfig,
  type McpServerEntry,
  type OAuthOptions,
  type OAuthSetupError,
  openSharedState,
  type PolicyFactories,
  type PolicyLayer,
  parseConfig,
  runDemo,
  type SharedState,
  type StateOptions,
  type StateUnavailableError,
  serveGatewayHttp,
  type serveSharedGatewayHttp,
  type TrailStep,
} from './index';

describe('public types', () => {
  it('loadConfig resolves a LoadedConfig; parseConfig returns the config and warnings', () => {
    expectTypeOf(loadConfig).returns.resolves.toEqualTypeOf<LoadedConfig>();
    expectTypeOf(parseConfig).returns.toEqualTypeOf<{
      config: DshToolsConfig;
      warnings: string[];
    }>();
    expectTypeOf<ConfigIssue>().toEqualTypeOf<{
      readonly path: string;
      readonly message: string;
    }>();
  });

  it('a server entry is stdio (command) or http (type + url)', () => {
    expectTypeOf<{ command: string }>().toExtend<McpServerEntry>();
    expectTypeOf<{ type: 'http'; url: string }>().toExtend<McpServerEntry>();
    expectTypeOf<{ url: string }>().not.toExtend<McpServerEntry>();
  });

  it('the policy seam: one factory per section, each returning an Interceptor', () => {
    expectTypeOf<PolicyLayer>().toEqualTypeOf<'hooks' | 'sandbox' | 'permission'>();
    expectTypeOf<NonNullable<PolicyFactories['permission']>>().returns.toEqualTypeOf<Interceptor>();
    expectTypeOf<NonNullable<PolicyFactories['hooks']>>()
      .parameter(1)
      .toHaveProperty('approver')
      .toEqualTypeOf<Approver | undefined>();
    expectTypeOf(DEFAULT_POLICIES).toEqualTypeOf<PolicyFactories>();
  });

  it('buildGateway resolves a Gateway whose registry is the full registry', () => {
    expectTypeOf(buildGateway).returns.resolves.toEqualTypeOf<Gateway>();
    expectTypeOf<Gateway['registry']>().toEqualTypeOf<ToolRegistry>();
    expectTypeOf<Gateway['close']>().returns.toEqualTypeOf<Promise<void>>();
    expectTypeOf<TrailStep['outcome']>().toEqualTypeOf<
      'passed' | 'rewrote' | 'vetoed' | 'ran' | 'failed' | 'refused'
    >();
  });

  it('serveGatewayHttp needs a token and resolves an HttpGateway', () => {
    expectTypeOf(serveGatewayHttp).parameter(1).toHaveProperty('token').toEqualTypeOf<string>();
    expectTypeOf(serveGatewayHttp).returns.resolves.toEqualTypeOf<HttpGateway>();
  });

  it('checkCall resolves a report whose verdict is allow, deny or ask', () => {
    expectTypeOf(checkCall).returns.resolves.toHaveProperty('report').toEqualTypeOf<CheckReport>();
    expectTypeOf<CheckReport['verdict']>().toEqualTypeOf<CheckVerdict>();
    expectTypeOf<CheckVerdict>().toEqualTypeOf<'allow' | 'deny' | 'ask'>();
    expectTypeOf<CheckReport['decidedBy']>().toEqualTypeOf<CheckStep | null>();
  });

  it('runDemo resolves a DemoReport; each call says whether it ended as scripted', () => {
    expectTypeOf(runDemo).returns.resolves.toEqualTypeOf<DemoReport>();
    expectTypeOf<DemoCallReport['met']>().toEqualTypeOf<boolean>();
    expectTypeOf(demoTranscript).returns.toEqualTypeOf<DemoTurn[]>();
  });

  it('exit codes are literal numbers', () => {
    expectTypeOf(EXIT.CHECK_ASK).toEqualTypeOf<6>();
    expectTypeOf(EXIT.TOOL_ERROR).toEqualTypeOf<1>();
    expectTypeOf(EXIT.CONFIG).toEqualTypeOf<3>();
  });

  it('serveSharedGatewayHttp takes clients, an oauth section, or both; not a shared token', () => {
    type Options = Parameters<typeof serveSharedGatewayHttp>[1];
    expectTypeOf<{ oauth: OAuthOptions }>().toExtend<Options>();
    expectTypeOf<{ clients: [{ name: 'a' }]; oauth: { issuer: string } }>().toExtend<Options>();
    expectTypeOf<{ token: string; oauth: OAuthOptions }>().not.toExtend<Options>();
    expectTypeOf<OAuthOptions['issuer']>().toEqualTypeOf<string>();
    expectTypeOf<OAuthSetupError>().toExtend<Error>();
    expectTypeOf<NonNullable<DshToolsConfig['oauth']>['issuer']>().toEqualTypeOf<string>();
  });

  it('a state store is opened from its options and handed to buildGateway', () => {
    expectTypeOf(openSharedState).parameter(0).toEqualTypeOf<StateOptions>();
    expectTypeOf(openSharedState).returns.resolves.toEqualTypeOf<SharedState>();
    expectTypeOf<SharedState>().toExtend<NonNullable<BuildGatewayOptions['state']>>();
    expectTypeOf<{ redis: string }>().toExtend<StateOptions>();
    expectTypeOf<{ prefix: string }>().not.toExtend<StateOptions>();
    expectTypeOf<StateUnavailableError>().toExtend<Error>();
    // ioredis is an optional peer: no public type may name it (a user without it must typecheck).
    expectTypeOf<SharedState>().not.toHaveProperty('redis');
    expectTypeOf<NonNullable<DshToolsConfig['state']>['redis']>().toEqualTypeOf<string>();
  });
});
