import type * as defineTool from '@dsh-tools/define-tool';
import type * as hooks from '@dsh-tools/interceptors-hooks';
import type * as permission from '@dsh-tools/interceptors-permission';
import type * as sandbox from '@dsh-tools/interceptors-sandbox';
import type * as mcpBridge from '@dsh-tools/mcp-bridge';
import type * as protocol from '@dsh-tools/protocol';
import type * as registry from '@dsh-tools/registry';
import type * as waterfall from '@dsh-tools/waterfall';
import { describe, expectTypeOf, it } from 'vitest';
import * as meta from './index';

describe('dsh-tools re-exports the types unchanged', () => {
  it('re-exports the contract types', () => {
    expectTypeOf<meta.ToolDefinition>().toEqualTypeOf<protocol.ToolDefinition>();
    expectTypeOf<meta.ToolExecutionResult>().toEqualTypeOf<protocol.ToolExecutionResult>();
    expectTypeOf<meta.Interceptor>().toEqualTypeOf<protocol.Interceptor>();
    expectTypeOf<meta.ToolErrorCode>().toEqualTypeOf<protocol.ToolErrorCode>();
  });

  it('re-exports the registry, the waterfall and defineTool types', () => {
    expectTypeOf<meta.ToolRegistry>().toEqualTypeOf<registry.ToolRegistry>();
    expectTypeOf<meta.ToolRegistryOptions>().toEqualTypeOf<registry.ToolRegistryOptions>();
    expectTypeOf<meta.Waterfall<[number], string>>().toEqualTypeOf<
      waterfall.Waterfall<[number], string>
    >();
    expectTypeOf<meta.SchemaSpec>().toEqualTypeOf<defineTool.SchemaSpec>();
    expectTypeOf<typeof meta.defineTool>().toEqualTypeOf<typeof defineTool.defineTool>();
  });

  it('re-exports the MCP bridge and its types', () => {
    expectTypeOf<typeof meta.connectMcpServer>().toEqualTypeOf<typeof mcpBridge.connectMcpServer>();
    expectTypeOf(meta.connectMcpServer).returns.toEqualTypeOf<Promise<meta.McpServerHandle>>();
    expectTypeOf<typeof meta.mcpToolName>().toEqualTypeOf<typeof mcpBridge.mcpToolName>();
    expectTypeOf<typeof meta.parseMcpToolName>().toEqualTypeOf<typeof mcpBridge.parseMcpToolName>();
    expectTypeOf<typeof meta.mapCallResult>().toEqualTypeOf<typeof mcpBridge.mapCallResult>();
    expectTypeOf<typeof meta.mapContentBlock>().toEqualTypeOf<typeof mcpBridge.mapContentBlock>();
    expectTypeOf<meta.ProcessTransport>().toEqualTypeOf<mcpBridge.ProcessTransport>();
    expectTypeOf<meta.McpServerConfig>().toEqualTypeOf<mcpBridge.McpServerConfig>();
    expectTypeOf<meta.McpStdioServerConfig>().toEqualTypeOf<mcpBridge.McpStdioServerConfig>();
    expectTypeOf<meta.McpHttpServerConfig>().toEqualTypeOf<mcpBridge.McpHttpServerConfig>();
    expectTypeOf<meta.McpServerConfigBase>().toEqualTypeOf<mcpBridge.McpServerConfigBase>();
    expectTypeOf<meta.McpServerHandle>().toEqualTypeOf<mcpBridge.McpServerHandle>();
    expectTypeOf<meta.McpServerStatus>().toEqualTypeOf<mcpBridge.McpServerStatus>();
    expectTypeOf<meta.McpStatusEvent>().toEqualTypeOf<mcpBridge.McpStatusEvent>();
    expectTypeOf<meta.McpToolsChangeEvent>().toEqualTypeOf<mcpBridge.McpToolsChangeEvent>();
    expectTypeOf<meta.McpBridgedTool>().toEqualTypeOf<mcpBridge.McpBridgedTool>();
    expectTypeOf<meta.McpReconnectPolicy>().toEqualTypeOf<mcpBridge.McpReconnectPolicy>();
    expectTypeOf<meta.McpProgressEvent>().toEqualTypeOf<mcpBridge.McpProgressEvent>();
    expectTypeOf<meta.McpToolFilter>().toEqualTypeOf<mcpBridge.McpToolFilter>();
    expectTypeOf<meta.ProcessExit>().toEqualTypeOf<mcpBridge.ProcessExit>();
    expectTypeOf<meta.ProcessTransportOptions>().toEqualTypeOf<mcpBridge.ProcessTransportOptions>();
  });

  it('re-exports the permission interceptor and its types', () => {
    expectTypeOf<typeof meta.permissionInterceptor>().toEqualTypeOf<
      typeof permission.permissionInterceptor
    >();
    expectTypeOf(meta.permissionInterceptor).returns.toEqualTypeOf<meta.PermissionInterceptor>();
    expectTypeOf<meta.PermissionOptions>().toEqualTypeOf<permission.PermissionOptions>();
    expectTypeOf<meta.PermissionInterceptor>().toEqualTypeOf<permission.PermissionInterceptor>();
    expectTypeOf<meta.PermissionMode>().toEqualTypeOf<permission.PermissionMode>();
    expectTypeOf<meta.PermissionDecision>().toEqualTypeOf<permission.PermissionDecision>();
    expectTypeOf<meta.PermissionGrant>().toEqualTypeOf<permission.PermissionGrant>();
    expectTypeOf<meta.PermissionRules>().toEqualTypeOf<permission.PermissionRules>();
    expectTypeOf<meta.PermissionRuleSet>().toEqualTypeOf<permission.PermissionRuleSet>();
    expectTypeOf<meta.PermissionExample>().toEqualTypeOf<permission.PermissionExample>();
    expectTypeOf<meta.PermissionExamples>().toEqualTypeOf<permission.PermissionExamples>();
    expectTypeOf<meta.GrantStore>().toEqualTypeOf<permission.GrantStore>();
    expectTypeOf<meta.GrantOrigin>().toEqualTypeOf<permission.GrantOrigin>();
    expectTypeOf<meta.DecidedBy>().toEqualTypeOf<permission.DecidedBy>();
    expectTypeOf<meta.RuleBehavior>().toEqualTypeOf<permission.RuleBehavior>();
    expectTypeOf<meta.RuleOrigin>().toEqualTypeOf<permission.RuleOrigin>();
    expectTypeOf<meta.TrailEntry>().toEqualTypeOf<permission.TrailEntry>();
    expectTypeOf<meta.ClaudeSettings>().toEqualTypeOf<permission.ClaudeSettings>();
    expectTypeOf<meta.ClaudeSettingsFile>().toEqualTypeOf<permission.ClaudeSettingsFile>();
    expectTypeOf<meta.ClaudeSettingsOptions>().toEqualTypeOf<permission.ClaudeSettingsOptions>();
    expectTypeOf<meta.ShellCommandAnalysis>().toEqualTypeOf<permission.ShellCommandAnalysis>();
  });

  it('re-exports the sandbox interceptor and its types', () => {
    expectTypeOf<typeof meta.sandboxInterceptor>().toEqualTypeOf<
      typeof sandbox.sandboxInterceptor
    >();
    expectTypeOf<typeof meta.requireSandbox>().toEqualTypeOf<typeof sandbox.requireSandbox>();
    expectTypeOf<meta.SandboxOptions>().toEqualTypeOf<sandbox.SandboxOptions>();
    expectTypeOf<meta.SandboxMode>().toEqualTypeOf<sandbox.SandboxMode>();
    expectTypeOf<meta.SandboxRunner>().toEqualTypeOf<sandbox.SandboxRunner>();
    expectTypeOf<meta.SandboxRunOptions>().toEqualTypeOf<sandbox.SandboxRunOptions>();
    expectTypeOf<meta.SandboxRunResult>().toEqualTypeOf<sandbox.SandboxRunResult>();
    expectTypeOf<meta.SandboxMaskScanOptions>().toEqualTypeOf<sandbox.SandboxMaskScanOptions>();
    expectTypeOf<meta.SandboxViolationDetails>().toEqualTypeOf<sandbox.SandboxViolationDetails>();
    expectTypeOf<meta.PathViolation>().toEqualTypeOf<sandbox.PathViolation>();
    // The augmentation of the contract travels with the re-export: bodies see `exec.sandbox`.
    expectTypeOf<meta.ToolExecution['sandbox']>().toEqualTypeOf<meta.SandboxRunner | undefined>();
  });

  it('re-exports the hooks interceptor and its types', () => {
    expectTypeOf<typeof meta.hooksInterceptor>().toEqualTypeOf<typeof hooks.hooksInterceptor>();
    expectTypeOf<typeof meta.loadClaudeCodeHooks>().toEqualTypeOf<
      typeof hooks.loadClaudeCodeHooks
    >();
    expectTypeOf<meta.HooksInterceptorOptions>().toEqualTypeOf<hooks.HooksInterceptorOptions>();
    expectTypeOf<meta.HooksConfig>().toEqualTypeOf<hooks.HooksConfig>();
    expectTypeOf<meta.HooksConfigSource>().toEqualTypeOf<hooks.HooksConfigSource>();
    expectTypeOf<meta.HookCommandConfig>().toEqualTypeOf<hooks.HookCommandConfig>();
    expectTypeOf<meta.HookMatcherConfig>().toEqualTypeOf<hooks.HookMatcherConfig>();
    expectTypeOf<meta.HookDecision>().toEqualTypeOf<hooks.HookDecision>();
    expectTypeOf<meta.HookDenialDetails>().toEqualTypeOf<hooks.HookDenialDetails>();
    expectTypeOf<meta.HookErrorPolicy>().toEqualTypeOf<hooks.HookErrorPolicy>();
    expectTypeOf<meta.HookEvent>().toEqualTypeOf<hooks.HookEvent>();
    expectTypeOf<meta.HookFeedbackMeta>().toEqualTypeOf<hooks.HookFeedbackMeta>();
    expectTypeOf<meta.HookIdentity>().toEqualTypeOf<hooks.HookIdentity>();
    expectTypeOf<meta.HookRunRecord>().toEqualTypeOf<hooks.HookRunRecord>();
    expectTypeOf<meta.HookRunStatus>().toEqualTypeOf<hooks.HookRunStatus>();
    expectTypeOf<meta.ToolMatcher>().toEqualTypeOf<hooks.ToolMatcher>();
    expectTypeOf<meta.ClaudeCodeSettingsPaths>().toEqualTypeOf<hooks.ClaudeCodeSettingsPaths>();
  });

  it('infers typed arguments through the meta-package', () => {
    const tool = meta.defineTool({
      name: 'read_file',
      description: 'Read a file.',
      parameters: { path: { type: 'string', required: true } },
      execute(args) {
        expectTypeOf(args.path).toEqualTypeOf<string>();
        return [meta.textContent(args.path)];
      },
    });
    expectTypeOf(tool).toExtend<meta.ToolDefinition<{ path: string }>>();
  });
});
