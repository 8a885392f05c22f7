import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { expect, it } from 'vitest';

// define-tool promises "any ES2022 runtime", and its types are this package's: they must typecheck
// in a project with the ES2022 lib alone (no DOM lib, no @types/node), where `AbortSignal` is not
// declared. A consumer file that uses every type naming a signal, compiled from the sources.
const consumer = `
import type { ApprovalRequest, InterceptedExecution, Interceptor, ToolExecution } from './index';
export type Uses = [ApprovalRequest['signal'], ToolExecution['signal'], InterceptedExecution['signal']];
export const pass: Interceptor = (exec, next) => next(exec);
`;

function diagnostics(lib: string[], types: string[]) {
  const dir = fileURLToPath(new URL('.', import.meta.url));
  const file = `${dir}consumer.ts`;
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib,
    types,
  };
  const host = ts.createCompilerHost(options);
  const read = host.readFile.bind(host);
  host.readFile = (name) => (name === file ? consumer : read(name));
  const exists = host.fileExists.bind(host);
  host.fileExists = (name) => name === file || exists(name);
  const program = ts.createProgram([file], options, host);
  return ts
    .getPreEmitDiagnostics(program)
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

it('typechecks with the ES2022 lib alone: AbortSignal needs no DOM lib and no @types/node', () => {
  expect(diagnostics(['lib.es2022.d.ts'], [])).toEqual([]);
});

it('still merges with the DOM lib and with @types/node', () => {
  expect(diagnostics(['lib.es2022.d.ts', 'lib.dom.d.ts'], [])).toEqual([]);
  expect(diagnostics(['lib.es2022.d.ts'], ['node'])).toEqual([]);
});
