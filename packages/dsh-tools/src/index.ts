/**
 * Every public export of the dsh-tools packages, unchanged, so a host app has one import. The
 * cordis service lives in the `dsh-tools/cordis` entry: this one never loads cordis.
 */
export * from '@dsh-tools/define-tool';
export * from '@dsh-tools/mcp-bridge';
export * from '@dsh-tools/protocol';
export * from '@dsh-tools/registry';
export * from '@dsh-tools/waterfall';
