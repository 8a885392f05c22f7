// Shared by the registry's tests; not part of the package (tsconfig.build.json builds src only).
import {
  type ToolDefinition,
  type ToolExecution,
  type ToolExecutionResult,
  textContent,
} from '@dsh-tools/protocol';
import { expect } from 'vitest';
import type { RegistryErrorInfo } from '../src/index';

/** A raw JSON-Schema definition, as an MCP server would send it. */
export const readFile = (overrides: Partial<ToolDefinition> = {}): ToolDefinition => ({
  name: 'read_file',
  description: 'Reads a file',
  parameters: {
    type: 'object',
    properties: { path: { type: 'string' }, limit: { type: 'integer', minimum: 1 } },
    required: ['path'],
    additionalProperties: false,
  },
  execute: (args) => [textContent(`read ${String(args.path)}`)],
  ...overrides,
});

export const call = (
  name: string,
  args: unknown = {},
  extra: Partial<ToolExecution> = {},
): ToolExecution => ({ callId: `c-${name}`, name, arguments: args, ...extra }) as ToolExecution;

export const quiet = () => {
  const errors: { error: unknown; info: RegistryErrorInfo }[] = [];
  return {
    errors,
    onError: (error: unknown, info: RegistryErrorInfo) => errors.push({ error, info }),
  };
};

export const deferred = <T = void>() => {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
};

export const expectFailure = (result: ToolExecutionResult, code: string) => {
  expect(result.isError).toBe(true);
  expect(result.error?.code).toBe(code);
  expect(result.content).toEqual([{ type: 'text', text: `Error: ${result.error?.message}` }]);
};
