export { approvalQuestion, terminalApprover } from './approvers';
export {
  type AuditFsync,
  type AuditLine,
  AuditLog,
  type AuditLogOptions,
  GENESIS,
} from './audit-log';
export {
  type AuditOptions,
  argumentsDigest,
  attachAudit,
  type PermissionVerdict,
  redactArguments,
} from './audit-record';
export { type AuditBreak, type AuditVerification, verifyAuditFiles } from './audit-verify';
export {
  type CheckReport,
  type CheckStep,
  type CheckVerdict,
  checkCall,
  type MatchedHook,
  matchingPreToolUseHooks,
} from './check';
export {
  type ClientConfig,
  ConfigError,
  type ConfigIssue,
  DEFAULT_CONFIG_FILE,
  type DshToolsConfig,
  EXAMPLE_SERVER_VARIABLE,
  type ExampleToolsConfig,
  type HooksConfig,
  type HttpServerEntry,
  type LoadConfigOptions,
  type LoadedConfig,
  loadConfig,
  type McpServerEntry,
  type PermissionsConfig,
  parseConfig,
  resolveFromConfig,
  type SandboxConfig,
  type StdioServerEntry,
} from './config';
export { defaultConfig } from './default-config';
export { DEFAULT_POLICIES } from './default-policies';
export {
  DEMO_TIMEOUT_MS,
  type DemoAsk,
  type DemoCall,
  type DemoCallReport,
  type DemoExpectation,
  type DemoReport,
  DemoServerError,
  type DemoTurn,
  type DemoTurnReport,
  demoTranscript,
  type RunDemoOptions,
  runDemo,
  scriptedApprover,
  writeDemoWorkspace,
} from './demo';
export { exampleServerPath } from './example-server-path';
export { createExampleTools, type ExampleToolsOptions } from './example-tools';
export { EXIT } from './exit-codes';
export {
  type BuildGatewayOptions,
  buildGateway,
  type Gateway,
  type PermissionMode,
  type ServerFailure,
  type ServerProgressEvent,
} from './gateway';
export {
  type ClientMode,
  type GatewayClient,
  GatewayIdentities,
  HTTP_DEFAULTS,
  type HttpGateway,
  type HttpServeClientsOptions,
  type HttpServeOptions,
  isLoopbackHost,
  type OAuthOptions,
  OAuthSetupError,
  serveGatewayHttp,
  serveSharedGatewayHttp,
  tokenSha256,
} from './http';
export {
  type InspectedServer,
  type InspectedTool,
  type InspectReport,
  inspectGateway,
  tokenCounter,
} from './inspect';
export {
  POLICY_ORDER,
  PolicyConfigError,
  type PolicyContext,
  type PolicyFactories,
  type PolicyLayer,
  PolicyUnavailableError,
  TrailRecorder,
  type TrailStep,
} from './policies';
export {
  type AskChannel,
  createElicitationApprovals,
  createGatewayServerFactory,
  type ElicitationApprovals,
  GATEWAY_INFO,
  type GatewayServerFactory,
  type GatewayServerOptions,
  type ServeStdioOptions,
  serveGatewayStdio,
  UNTRUSTED_ANNOTATIONS_META,
} from './serve';
export { createRedisGrantStore, grantStoreOf } from './state-grants';
export {
  openSharedState,
  type SharedState,
  STATE_DEFAULTS,
  type StateOptions,
  StateUnavailableError,
} from './state-redis';
