export * from '@dsh-tools/protocol';
export * from '@dsh-tools/waterfall';
