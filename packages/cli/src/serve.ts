/**
 * `dsh-tools serve`: the gateway as an MCP server. The rooms, each importing only downward:
 * `serve-tools` (what `tools/list` says and how a result goes out), `serve-ask` (questions to the
 * client's user), `serve-factory` (the SDK servers over the registry), `serve-stdio-wire` and
 * `serve-lean-calls` (the stdio wire), `serve-stdio` (serving it over stdio); `http` serves it
 * over Streamable HTTP.
 */
export {
  type AskChannel,
  createElicitationApprovals,
  type ElicitationApprovals,
} from './serve-ask';
export {
  createGatewayServerFactory,
  GATEWAY_INFO,
  type GatewayServerFactory,
  type GatewayServerOptions,
  newSessionId,
} from './serve-factory';
export { type ServeStdioOptions, serveGatewayStdio } from './serve-stdio';
export { UNTRUSTED_ANNOTATIONS_META } from './serve-tools';
