import type * as ClientSdk from '@modelcontextprotocol/client';

/**
 * The parts of the MCP client SDK the bridge uses at run time. The SDK (and the zod it is built
 * on) takes longer to load than the rest of the bridge and everything it imports together, so it is
 * loaded at the first connect, never at import: a host that never connects a server never pays
 * for it. Everything else refers to the SDK by type only.
 */
export type McpClientSdk = Pick<
  typeof ClientSdk,
  | 'Client'
  | 'ProtocolError'
  | 'SdkError'
  | 'SdkErrorCode'
  | 'SdkHttpError'
  | 'StreamableHTTPClientTransport'
>;

let loaded: McpClientSdk | undefined;
let loading: Promise<McpClientSdk> | undefined;

/** Loads the SDK once per process; a failed load is retried by the next connect. */
export function loadSdk(): Promise<McpClientSdk> {
  if (loaded) return Promise.resolve(loaded);
  loading ??= import('@modelcontextprotocol/client').then(
    (sdk) => {
      loaded = sdk;
      return sdk;
    },
    (error: unknown) => {
      loading = undefined;
      throw new Error(
        `@dsh-tools/mcp-bridge could not load the MCP client SDK (@modelcontextprotocol/client): ${error instanceof Error ? error.message : String(error)}. Reinstall the package's dependencies.`,
        { cause: error },
      );
    },
  );
  return loading;
}

/**
 * The SDK if a connect has loaded it, else `undefined`. An error can only be one of the SDK's
 * once the SDK is loaded, so the error predicates need no load of their own.
 */
export const loadedSdk = (): McpClientSdk | undefined => loaded;
