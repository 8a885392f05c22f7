/**
 * Every public export of the protocol, waterfall, define-tool, registry, mcp-bridge and
 * interceptor (permission, sandbox, hooks) packages, unchanged, so a host app has one import. The
 * cordis service and plugins live in the `dsh-tools/cordis` entry: this one never loads cordis.
 */
export * from '@dsh-tools/define-tool';
export * from '@dsh-tools/interceptors-hooks';
export * from '@dsh-tools/interceptors-permission';
export * from '@dsh-tools/interceptors-sandbox';
export * from '@dsh-tools/mcp-bridge';
export * from '@dsh-tools/protocol';
export * from '@dsh-tools/registry';
export * from '@dsh-tools/waterfall';
export * from '@dsh-tools/waterfall/emitter';
