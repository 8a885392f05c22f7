import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { failedServersNote, load, openGateway } from './cli-gateway';
import { CliFailure, err } from './cli-io';
import type { LoadedConfig } from './config';
import { resolveFromConfig } from './config';
import { EXIT } from './exit-codes';
import type { Gateway } from './gateway';
import type { HttpGateway } from './http';
import { isLoopbackHost } from './http-defaults';
import { type GatewayClient, tokenSha256 } from './http-identities';
import { createElicitationApprovals, serveGatewayStdio } from './serve';

async function resolveToken(
  options: { tokenEnv: string; tokenFile?: string },
  host: string,
): Promise<{ token: string; generated: boolean }> {
  let token: string | undefined;
  let from = '';
  if (options.tokenFile) {
    try {
      token = (await readFile(options.tokenFile, 'utf8')).trim();
      from = `the file ${options.tokenFile}`;
    } catch (error) {
      throw new CliFailure(
        `Cannot read the token file ${options.tokenFile} (${(error as NodeJS.ErrnoException).code ?? String(error)}).`,
        EXIT.SERVE_FAILED,
      );
    }
  } else if (process.env[options.tokenEnv]) {
    token = process.env[options.tokenEnv]?.trim();
    from = `the environment variable ${options.tokenEnv}`;
  }
  if (token !== undefined && token !== '') {
    if (token.length < 16) {
      throw new CliFailure(
        `The bearer token from ${from} is ${token.length} characters; use at least 16 (openssl rand -hex 32).`,
        EXIT.SERVE_FAILED,
      );
    }
    return { token, generated: false };
  }
  if (!isLoopbackHost(host)) {
    throw new CliFailure(
      `Refusing to serve on ${host} without a bearer token: set ${options.tokenEnv} (or pass --token-file) to a secret of at least 16 characters, or bind a loopback address.`,
      EXIT.SERVE_FAILED,
    );
  }
  return { token: randomBytes(24).toString('base64url'), generated: true };
}

/**
 * The clients of the config's `clients` section, each token as its SHA-256: a `tokenFile` (relative
 * to the config's folder) is read and hashed here, and the token itself is not kept.
 */
async function clientsOf(loaded: LoadedConfig): Promise<GatewayClient[] | undefined> {
  const clients = loaded.config.clients;
  if (!clients) return undefined;
  return Promise.all(
    clients.map(async (client, i) => {
      let digest = client.tokenSha256?.toLowerCase();
      if (client.tokenFile !== undefined) {
        const file = resolveFromConfig(loaded, client.tokenFile);
        let token: string;
        try {
          token = (await readFile(file, 'utf8')).trim();
        } catch (error) {
          throw new CliFailure(
            `Cannot read the token file of client "${client.name}" (clients[${i}].tokenFile: ${file}, ${(error as NodeJS.ErrnoException).code ?? String(error)}).`,
            EXIT.SERVE_FAILED,
          );
        }
        if (token.length < 16) {
          throw new CliFailure(
            `The token of client "${client.name}" in ${file} is ${token.length} characters; use at least 16 (openssl rand -hex 32).`,
            EXIT.SERVE_FAILED,
          );
        }
        digest = tokenSha256(token);
      }
      return {
        name: client.name,
        ...(digest !== undefined ? { tokenSha256: digest } : {}),
        ...(client.tools ? { tools: client.tools } : {}),
        ...(client.mode ? { mode: client.mode } : {}),
      };
    }),
  );
}

/** The options of `dsh-tools serve`, as commander parses them. */
export interface ServeOptions {
  config?: string;
  http?: { host: string; port: number };
  tokenEnv: string;
  tokenFile?: string;
  allowOrigin?: string[];
  allowHost?: string[];
  maxBodyBytes: number;
  maxSessions: number;
  allowPartial?: boolean;
}

/** `dsh-tools serve`: serves the gateway over stdio or HTTP until stopped; resolves with the exit code. */
export async function serveCommand(options: ServeOptions): Promise<number> {
  // Every check that can refuse comes before a server process starts.
  const loaded = await load(options.config);
  const clients = options.http ? await clientsOf(loaded) : undefined;
  const oauth = options.http ? loaded.config.oauth : undefined;
  const tokenInfo =
    options.http && !clients && !oauth ? await resolveToken(options, options.http.host) : undefined;
  // The HTTP stack (the SDK's Streamable HTTP transport, hono's Node adapter) only for --http,
  // loaded before any server process starts so that a failure leaves nothing running.
  const httpModule = options.http ? await import('./http') : undefined;
  const approvals = createElicitationApprovals();
  const modes = new Map(clients?.map((c) => [c.name, c.mode]));
  const accepted = openGateway(loaded, false, approvals.approver, undefined, {
    askScope: (exec) => approvals.scopeOf(exec.callId),
    pins: { watch: true },
    // A pin that could not be written or re-read (a lockfile, the state store): said, not dropped.
    onError: (error) =>
      err.write(`dsh-tools serve: ${error instanceof Error ? error.message : String(error)}\n`),
    ...(clients ? { modeOf: (exec) => modes.get(approvals.identityOf(exec.callId) ?? '') } : {}),
  }).then(async (gateway) => {
    if (gateway.failures.length > 0 && !options.allowPartial) {
      await gateway.close();
      throw new CliFailure(
        `Not serving: ${failedServersNote(gateway)} failed to start (see above). Fix the config, or pass --allow-partial to serve the others.`,
        EXIT.SERVER_FAILED,
      );
    }
    return gateway;
  });
  // Over stdio the handshake is answered while the servers start (tool requests wait for them):
  // a client may give a server only a second to answer (the AI SDK's protocol discovery does).
  const early = options.http ? undefined : await serveGatewayStdio(accepted, { approvals });
  let gateway: Gateway;
  try {
    gateway = await accepted;
  } catch (error) {
    await early?.stop();
    throw error;
  }
  const tools = gateway.registry.schemas().length;
  let stop: () => Promise<void>;
  let done: Promise<void>;
  if (options.http && httpModule && (tokenInfo || clients || oauth)) {
    const { serveGatewayHttp, serveSharedGatewayHttp } = httpModule;
    const common = {
      host: options.http.host,
      port: options.http.port,
      ...(options.allowOrigin ? { allowedOrigins: options.allowOrigin } : {}),
      ...(options.allowHost ? { allowedHosts: options.allowHost } : {}),
      maxBodyBytes: options.maxBodyBytes,
      maxSessions: options.maxSessions,
      approvals,
    };
    let http: HttpGateway;
    try {
      http =
        clients || oauth
          ? await serveSharedGatewayHttp(gateway, {
              ...common,
              ...(clients ? { clients } : {}),
              ...(oauth ? { oauth } : {}),
            })
          : await serveGatewayHttp(gateway, { ...common, token: tokenInfo?.token as string });
    } catch (error) {
      await gateway.close();
      if (error instanceof httpModule.OAuthSetupError) {
        throw new CliFailure(`Not serving: ${error.message}`, EXIT.SERVE_FAILED);
      }
      const code = (error as NodeJS.ErrnoException).code;
      throw new CliFailure(
        code === 'EADDRINUSE'
          ? `Port ${options.http.port} on ${options.http.host} is in use: pick another with --http ${options.http.host}:<port> (0 picks a free one).`
          : `Cannot listen on ${options.http.host}:${options.http.port}: ${(error as Error).message}`,
        EXIT.SERVE_FAILED,
      );
    }
    err.write(`dsh-tools serve: ${tools} tools on ${http.url} (Streamable HTTP)\n`);
    if (clients) {
      const own = clients.filter((c) => c.tokenSha256 !== undefined).map((c) => c.name);
      if (own.length > 0) err.write(`clients: ${own.join(', ')} (each with its own token)\n`);
    }
    if (oauth) {
      err.write(
        `OAuth: access tokens from ${oauth.issuer} for ${oauth.resource ?? http.url} (metadata at /.well-known/oauth-protected-resource)\n`,
      );
    }
    if (tokenInfo?.generated) {
      err.write(
        `bearer token (generated; set ${options.tokenEnv} to choose one): ${tokenInfo.token}\n`,
      );
    }
    let resolveDone: () => void = () => {};
    done = new Promise((resolve) => {
      resolveDone = resolve;
    });
    stop = async () => {
      await http.close();
      resolveDone();
    };
  } else {
    const stdio = early ?? (await serveGatewayStdio(gateway, { approvals }));
    err.write(`dsh-tools serve: ${tools} tools over stdio\n`);
    stop = stdio.stop;
    done = stdio.done;
  }
  const onSignal = () => void stop();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  await done;
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  await gateway.close();
  return EXIT.OK;
}
