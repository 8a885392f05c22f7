import { z } from 'zod';

const nonEmpty = z.string().min(1);
const stringRecord = z.record(z.string(), z.string());
const timeoutMs = z.number().int().min(0).max(2_147_483_647);
const toolFilter = z.array(nonEmpty);

// Options of the bridge a config may set beside the `.mcp.json` fields. Claude Code ignores keys
// it does not know, so a `.mcp.json` extended with these still loads there.
const bridgeOptions = {
  timeoutMs: timeoutMs.optional(),
  maxTotalTimeoutMs: timeoutMs.optional(),
  startupTimeoutMs: timeoutMs.optional(),
  trust: z.boolean().optional(),
  include: toolFilter.optional(),
  exclude: toolFilter.optional(),
};

/** One stdio entry of `mcpServers` (the `.mcp.json` shape plus the bridge options). */
export const stdioServerSchema = z.strictObject({
  type: z.literal('stdio').optional(),
  command: nonEmpty,
  args: z.array(z.string()).optional(),
  env: stringRecord.optional(),
  cwd: nonEmpty.optional(),
  ...bridgeOptions,
});

/** One Streamable HTTP entry of `mcpServers`. */
export const httpServerSchema = z.strictObject({
  type: z.literal('http'),
  url: z.url({ protocol: /^https?$/ }),
  headers: stringRecord.optional(),
  ...bridgeOptions,
});

// `Tool`, `Tool(specifier)`, `mcp__server`, `mcp__server__tool`: Claude Code's rule syntax.
const permissionRule = z
  .string()
  .regex(
    /^[A-Za-z0-9_*-]+(\(.*\))?$/s,
    'expected a rule like "Read", "Bash(npm test:*)" or "mcp__server__tool"',
  );

const permissionMode = z.enum(['default', 'acceptEdits', 'plan', 'dontAsk', 'bypassPermissions']);

const permissionsSchema = z.strictObject({
  allow: z.array(permissionRule).optional(),
  ask: z.array(permissionRule).optional(),
  deny: z.array(permissionRule).optional(),
  defaultMode: permissionMode.optional(),
  additionalDirectories: z.array(nonEmpty).optional(),
});

const sandboxSchema = z.strictObject({
  mode: z.enum(['read-only', 'workspace-write', 'full-access']),
  cwd: nonEmpty.optional(),
  roots: z.array(nonEmpty).optional(),
  denyRead: z.array(nonEmpty).optional(),
  denyWrite: z.array(nonEmpty).optional(),
  network: z.boolean().optional(),
  allowUnsandboxed: z.boolean().optional(),
  bwrapPath: z.string().startsWith('/', 'expected an absolute path to bwrap').optional(),
});

const hookCommandSchema = z.strictObject({
  type: z.literal('command'),
  command: nonEmpty,
  timeout: z.number().positive().max(86_400).optional(),
  onError: z.enum(['block', 'allow']).optional(),
});

const hookMatcherSchema = z.strictObject({
  matcher: z.string().optional(),
  hooks: z.array(hookCommandSchema),
});

/** Claude Code's hook events that are not about a tool call: accepted, ignored, warned about. */
export const NON_TOOL_HOOK_EVENTS = new Set([
  'Notification',
  'UserPromptSubmit',
  'Stop',
  'SubagentStop',
  'PreCompact',
  'SessionStart',
  'SessionEnd',
]);

const hooksSchema = z
  .object({
    PreToolUse: z.array(hookMatcherSchema).optional(),
    PostToolUse: z.array(hookMatcherSchema).optional(),
  })
  .catchall(z.unknown());

const exampleToolsSchema = z.union([
  z.boolean(),
  z.strictObject({ cwd: nonEmpty.optional(), writable: z.boolean().optional() }),
]);

/** A limit: calls a minute, calls at once. */
const limitRuleSchema = z.strictObject({
  callsPerMinute: z.number().int().min(1).max(1_000_000).optional(),
  concurrent: z.number().int().min(1).max(100_000).optional(),
});

/** Limits per client, and per tool pattern for each client's calls of those tools. */
const limitsSchema = limitRuleSchema.extend({
  tools: z.record(nonEmpty, limitRuleSchema).optional(),
});

/** One client of `serve --http`: its name, its token (as a hash, or a file), what it may use. */
const clientSchema = z
  .strictObject({
    name: z
      .string()
      .regex(/^[A-Za-z0-9_.@-]{1,64}$/, 'expected 1-64 letters, digits, "_", ".", "@" or "-"'),
    tokenSha256: z
      .string()
      .regex(
        /^[0-9a-fA-F]{64}$/,
        'expected the SHA-256 of the token as 64 hex digits (printf %s "$TOKEN" | sha256sum)',
      )
      .optional(),
    tokenFile: nonEmpty.optional(),
    tools: z.array(nonEmpty).optional(),
    mode: permissionMode.optional(),
    limits: limitsSchema.optional(),
  })
  .refine((c) => c.tokenSha256 === undefined || c.tokenFile === undefined, {
    message: 'give one of "tokenSha256" and "tokenFile", not both',
  });

/** `serve --http` as an OAuth resource server: whose access tokens it accepts, and for what. */
const oauthSchema = z.strictObject({
  issuer: z.url(),
  resource: z.url().optional(),
  jwksUri: z.url().optional(),
  scopes: z.array(nonEmpty).optional(),
  identityClaim: nonEmpty.optional(),
  algorithms: z.array(nonEmpty).min(1).optional(),
  clockToleranceSec: z.number().int().min(0).max(600).optional(),
  clientsOnly: z.boolean().optional(),
});

/**
 * Where the state several replicas share lives (sessions, questions, grants, pins, limits): a
 * Redis server. Absent: each process keeps its own, in memory and in the files beside the config.
 */
const stateSchema = z.strictObject({
  // Checked again once `${VAR}` references are expanded.
  redis: z
    .string()
    .regex(
      /^(rediss?:\/\/\S+|\$\{[A-Za-z_][A-Za-z0-9_]*(:-[^}]*)?\}.*)$/,
      'expected a Redis URL: redis://[user:password@]host:port[/db], or an environment variable naming one',
    ),
  prefix: z
    .string()
    .regex(/^[A-Za-z0-9_.:-]{1,64}$/, 'expected 1-64 letters, digits, "_", ".", ":" or "-"')
    .optional(),
  deadlineMs: z.number().int().min(50).max(60_000).optional(),
});

/** Where the audit trail goes: one hash-chained JSON line per call (see `audit-log.ts`). */
const auditSchema = z.strictObject({
  file: z.string().min(1),
  maxBytes: z.number().int().min(0).optional(),
  fsync: z.enum(['always', 'interval', 'never']).optional(),
});

/**
 * The top level of a config file. `mcpServers` entries are checked one by one by `parseConfig`,
 * so that each names its own field and transport.
 */
export const configSchema = z.strictObject({
  $schema: z.string().optional(),
  mcpServers: z.record(z.string(), z.unknown()).optional(),
  exampleTools: exampleToolsSchema.optional(),
  permissions: permissionsSchema.optional(),
  sandbox: sandboxSchema.optional(),
  hooks: hooksSchema.optional(),
  clients: z.array(clientSchema).min(1).optional(),
  audit: auditSchema.optional(),
  oauth: oauthSchema.optional(),
  pins: z.enum(['tofu', 'strict', 'off']).optional(),
  limits: limitsSchema.optional(),
  state: stateSchema.optional(),
  telemetry: z.strictObject({ otlpEndpoint: z.url() }).optional(),
});

/** A server started as a child process speaking MCP on stdio (the `.mcp.json` shape). */
export type StdioServerEntry = z.infer<typeof stdioServerSchema>;
/** A server reached over Streamable HTTP (`"type": "http"` in `.mcp.json`). */
export type HttpServerEntry = z.infer<typeof httpServerSchema>;
/** One entry of `mcpServers`. */
export type McpServerEntry = StdioServerEntry | HttpServerEntry;
/** Claude Code's `permissions` settings. */
export type PermissionsConfig = z.infer<typeof permissionsSchema>;
/** The sandbox interceptor's options, as a config file holds them. */
export type SandboxConfig = z.infer<typeof sandboxSchema>;
/** Claude Code's `hooks` settings (only `PreToolUse` and `PostToolUse` run). */
export type HooksConfig = z.infer<typeof hooksSchema>;
/** Whether the built-in example tools are registered, and on which directory. */
export type ExampleToolsConfig = z.infer<typeof exampleToolsSchema>;

/** One client of `serve --http` (see the README's "Run it for a team"). */
export type ClientConfig = z.infer<typeof clientSchema>;
/** The `limits` section (and a client's own `limits`). */
export type LimitsConfig = z.infer<typeof limitsSchema>;
/** The `state` section (see the README's "Run it on several machines"). */
export type StateConfig = z.infer<typeof stateSchema>;
/** The `audit` section. */
export type AuditConfig = z.infer<typeof auditSchema>;
/** The `oauth` section (see the README's "Run it for a team"). */
export type OAuthConfig = z.infer<typeof oauthSchema>;

/** A validated config: what `dsh-tools` runs. */
export interface DshToolsConfig {
  readonly mcpServers: Readonly<Record<string, McpServerEntry>>;
  readonly exampleTools?: ExampleToolsConfig;
  readonly permissions?: PermissionsConfig;
  readonly sandbox?: SandboxConfig;
  readonly hooks?: HooksConfig;
  /** The clients of `serve --http`, each with its own token; absent: one token for all. */
  readonly clients?: readonly ClientConfig[];
  /** The audit trail: one hash-chained JSON line per call (`dsh-tools audit verify` checks it). */
  readonly audit?: AuditConfig;
  /**
   * Tool pins (default `tofu`): an upstream tool is pinned in `dsh-tools.lock.json` when first
   * seen (`strict`: held until approved), and held back when its server changes it.
   */
  readonly pins?: 'tofu' | 'strict' | 'off';
  /** Calls a minute and at once, per client (each client its own), and per tool pattern. */
  readonly limits?: LimitsConfig;
  /** Where the state shared by several replicas of `serve` lives (Redis); absent: in process. */
  readonly state?: StateConfig;
  /** `serve --http` accepts OAuth access tokens issued for it by this authorization server. */
  readonly oauth?: OAuthConfig;
  /** Where to export traces over OTLP/HTTP (the standard OTEL_* variables work too). */
  readonly telemetry?: { readonly otlpEndpoint: string };
}
