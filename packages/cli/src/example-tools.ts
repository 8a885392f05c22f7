import { lstat, mkdir, open, readdir, realpath, rename, rm } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { type ToolDefinition, ToolError, textContent } from '@dsh-tools/protocol';

/** Bytes `read_file` returns at most; the rest is cut, saying so. */
const MAX_READ_BYTES = 256 * 1024;
/** Entries `list_dir` returns at most. */
const MAX_ENTRIES = 1000;
/** Bytes `write_file` accepts at most. */
const MAX_WRITE_BYTES = 1024 * 1024;

/** Options of {@link createExampleTools}. */
export interface ExampleToolsOptions {
  /** The directory the tools work in; paths outside it are refused. */
  readonly root: string;
  /** Whether `write_file` is registered (default true). */
  readonly writable?: boolean;
}

function isInside(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/**
 * Resolves `path` inside `root`, following symlinks of every existing part, so that neither
 * `../x` nor a link pointing out of the workspace reaches a file outside it.
 */
async function confine(tool: string, root: string, path: string): Promise<string> {
  if (path.includes('\0')) {
    throw new ToolError(
      'INVALID_ARGS',
      `Tool "${tool}": argument "path" contains a NUL byte. Pass a plain path.`,
    );
  }
  const realRoot = await realpath(root);
  const target = resolve(realRoot, path);
  const outside = () =>
    new ToolError(
      'SANDBOX_VIOLATION',
      `Tool "${tool}": path "${path}" is outside the workspace ${realRoot}. Use a path inside it.`,
    );
  if (!isInside(realRoot, target)) throw outside();
  // The deepest existing ancestor decides where the path really leads.
  let existing = target;
  const missing: string[] = [];
  for (;;) {
    try {
      existing = await realpath(existing);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      const parent = dirname(existing);
      if (parent === existing) throw outside();
      missing.unshift(existing.slice(parent.length + (parent.endsWith(sep) ? 0 : 1)));
      existing = parent;
    }
  }
  const real = missing.length > 0 ? join(existing, ...missing) : existing;
  if (!isInside(realRoot, real)) throw outside();
  return real;
}

function fsError(tool: string, path: string, error: unknown): ToolError {
  const code = (error as NodeJS.ErrnoException).code;
  if (error instanceof ToolError) return error;
  const why =
    code === 'ENOENT'
      ? 'does not exist; list the directory to see what is there'
      : code === 'EISDIR'
        ? 'is a directory; use list_dir'
        : code === 'ENOTDIR'
          ? 'is not a directory; use read_file'
          : code === 'EACCES' || code === 'EPERM'
            ? 'is not accessible (permission denied)'
            : `could not be accessed (${code ?? String(error)})`;
  return new ToolError('TOOL_ERROR', `Tool "${tool}": "${path}" ${why}.`);
}

/**
 * The example tools of the embedded default config: `read_file`, `list_dir` and `write_file`,
 * confined to one directory. They are real tools (a newcomer can point them at a project), and
 * they carry the path hints that sandbox and permission policies read.
 */
export function createExampleTools(options: ExampleToolsOptions): ToolDefinition[] {
  const root = resolve(options.root);
  const source = { kind: 'local', plugin: 'examples' } as const;
  /** read_file and list_dir only read the path they are given. */
  const readHints = {
    readOnly: true,
    concurrencySafe: true,
    idempotent: true,
    paths: [{ arg: 'path', access: 'read' }],
  } as const;

  const readFileTool: ToolDefinition<{ path: string; offset?: number; limit?: number }> = {
    name: 'read_file',
    description: `Reads a UTF-8 text file of the workspace (${root}). Returns at most ${MAX_READ_BYTES / 1024} KB; use offset and limit (lines) for more.`,
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'File path, relative to the workspace', minLength: 1 },
        offset: { type: 'integer', minimum: 0, description: 'First line to return (0-based)' },
        limit: { type: 'integer', minimum: 1, description: 'Number of lines to return' },
      },
      required: ['path'],
      additionalProperties: false,
    },
    hints: readHints,
    source,
    async execute({ path, offset, limit }) {
      let handle: Awaited<ReturnType<typeof open>> | undefined;
      try {
        const real = await confine('read_file', root, path);
        handle = await open(real, 'r');
        const stat = await handle.stat();
        if (stat.isDirectory()) throw Object.assign(new Error('dir'), { code: 'EISDIR' });
        const size = Math.min(stat.size, MAX_READ_BYTES);
        const buffer = Buffer.alloc(size);
        const { bytesRead } = await handle.read(buffer, 0, size, 0);
        let text = buffer.subarray(0, bytesRead).toString('utf8');
        if (offset !== undefined || limit !== undefined) {
          const lines = text.split('\n').slice(offset ?? 0);
          text = lines.slice(0, limit ?? lines.length).join('\n');
        }
        const cut =
          stat.size > MAX_READ_BYTES
            ? `\n[… cut: the file has ${stat.size} bytes, ${MAX_READ_BYTES} shown]`
            : '';
        return [textContent(text + cut)];
      } catch (error) {
        throw fsError('read_file', path, error);
      } finally {
        await handle?.close();
      }
    },
  };

  const listDirTool: ToolDefinition<{ path?: string }> = {
    name: 'list_dir',
    description: `Lists a directory of the workspace (${root}): one entry a line, directories end with "/".`,
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'Directory, relative to the workspace (default ".")' },
      },
      additionalProperties: false,
    },
    // It lists a directory's names: what a policy excludes (`exec.exclude`) is left out, so a
    // permission rule denying `.env` need not ask about listing the directory that holds it.
    hints: { ...readHints, paths: [{ arg: 'path', access: 'read', honoursExclude: true }] },
    source,
    async execute({ path = '.' }, exec) {
      try {
        const real = await confine('list_dir', root, path);
        const exclude = exec.exclude;
        const entries = (await readdir(real, { withFileTypes: true })).filter(
          (e) => exclude === undefined || !exclude.covers(join(real, e.name)),
        );
        entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
        const lines = entries
          .slice(0, MAX_ENTRIES)
          .map((e) =>
            e.isDirectory() ? `${e.name}/` : e.isSymbolicLink() ? `${e.name}@` : e.name,
          );
        if (entries.length > MAX_ENTRIES)
          lines.push(`[… ${entries.length - MAX_ENTRIES} more entries]`);
        return [textContent(lines.length > 0 ? lines.join('\n') : '(empty directory)')];
      } catch (error) {
        throw fsError('list_dir', path, error);
      }
    },
  };

  const writeFileTool: ToolDefinition<{ path: string; content: string }> = {
    name: 'write_file',
    description: `Writes a UTF-8 text file in the workspace (${root}), creating parent directories; replaces an existing file.`,
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'File path, relative to the workspace', minLength: 1 },
        content: { type: 'string', description: 'The whole new content of the file' },
      },
      required: ['path', 'content'],
      additionalProperties: false,
    },
    hints: { destructive: true, idempotent: true, paths: [{ arg: 'path', access: 'write' }] },
    source,
    async execute({ path, content }) {
      const bytes = Buffer.byteLength(content, 'utf8');
      if (bytes > MAX_WRITE_BYTES) {
        throw new ToolError(
          'INVALID_ARGS',
          `Tool "write_file": argument "content" is ${bytes} bytes; at most ${MAX_WRITE_BYTES} are written at once.`,
        );
      }
      try {
        const real = await confine('write_file', root, path);
        const existing = await lstat(real).catch(() => undefined);
        if (existing?.isDirectory()) throw Object.assign(new Error('dir'), { code: 'EISDIR' });
        await mkdir(dirname(real), { recursive: true });
        // Write beside, then rename: a reader never sees half a file.
        const temp = `${real}.dsh-tools-${process.pid}-${Date.now()}.tmp`;
        const handle = await open(temp, 'wx');
        try {
          await handle.writeFile(content, 'utf8');
        } finally {
          await handle.close();
        }
        try {
          await rename(temp, real);
        } catch (error) {
          await rm(temp, { force: true });
          throw error;
        }
        return [textContent(`Wrote ${bytes} bytes to ${relative(root, real) || real}.`)];
      } catch (error) {
        throw fsError('write_file', path, error);
      }
    },
  };

  const tools: ToolDefinition[] = [readFileTool as ToolDefinition, listDirTool as ToolDefinition];
  if (options.writable !== false) tools.push(writeFileTool as ToolDefinition);
  return tools;
}
