import { createRequire } from 'node:module';

// mvdan-sh (mvdan/sh) has no types; only the wrapper fields read here are used.
interface ShNode { readonly Value?: string; readonly Parts?: ShNode[] }
interface ShWord { readonly Parts: ShNode[] }
interface ShStmt { readonly Cmd: ShNode & { readonly Args?: ShWord[]; readonly Assigns?: unknown[] } | null; readonly Redirs: unknown[]; readonly Background: boolean; readonly Negated: boolean; readonly Coprocess: boolean }
interface ShSyntax {
  NewParser(): { Parse(src: string, name: string): { Stmts: ShStmt[] } };
  NodeType(node: unknown): string;
}
const { syntax } = createRequire(import.meta.url)('mvdan-sh') as { syntax: ShSyntax };

export type CommandLine =
  | { readonly kind: 'argv'; readonly argv: string[] }
  | { readonly kind: 'shell'; readonly why: string }
  | { readonly kind: 'invalid'; readonly why: string };

const GLOB = /[*?[]/;

/**
 * A command line as argv, when it is one plain command: words of literals and
 * quotes only. Anything a shell would have to do (lists, pipes, redirections,
 * expansions, globs, assignments) means the caller must ask for a shell.
 */
export function splitCommandLine(line: string): CommandLine {
  let file;
  try {
    file = syntax.NewParser().Parse(line, 'command');
  } catch (err) {
    return { kind: 'invalid', why: `not a valid command line: ${parseMessage(err)}` };
  }
  if (file.Stmts.length === 0) return { kind: 'invalid', why: 'the command line is empty' };
  if (file.Stmts.length > 1) return { kind: 'shell', why: 'it has several commands' };
  const stmt = file.Stmts[0]!;
  if (stmt.Redirs.length > 0) return { kind: 'shell', why: 'it has redirections' };
  if (stmt.Background || stmt.Negated || stmt.Coprocess) return { kind: 'shell', why: 'it uses &, ! or coproc' };
  if (!stmt.Cmd || syntax.NodeType(stmt.Cmd) !== 'CallExpr') return { kind: 'shell', why: `it is a compound command${stmt.Cmd ? ` (${syntax.NodeType(stmt.Cmd)})` : ''}` };
  if ((stmt.Cmd.Assigns?.length ?? 0) > 0) return { kind: 'shell', why: 'it sets variables' };
  const argv: string[] = [];
  for (const word of stmt.Cmd.Args ?? []) {
    const text = wordText(word);
    if (typeof text !== 'string') return { kind: 'shell', why: text.why };
    argv.push(text);
  }
  return argv.length > 0 ? { kind: 'argv', argv } : { kind: 'invalid', why: 'the command line is empty' };
}

function wordText(word: ShWord): string | { why: string } {
  let out = '';
  for (const [i, part] of word.Parts.entries()) {
    const type = syntax.NodeType(part);
    if (type === 'Lit') {
      const raw = part.Value ?? '';
      if (GLOB.test(raw.replace(/\\./g, ''))) return { why: 'it has glob patterns' };
      if (i === 0 && raw.startsWith('~')) return { why: 'it uses ~ expansion' };
      out += raw.replace(/\\(.)/gs, '$1');
    } else if (type === 'SglQuoted') {
      out += part.Value ?? '';
    } else if (type === 'DblQuoted') {
      for (const inner of part.Parts ?? []) {
        if (syntax.NodeType(inner) !== 'Lit') return { why: 'it expands variables or commands' };
        // inside double quotes a backslash escapes only these
        out += (inner.Value ?? '').replace(/\\([$`"\\\n])/g, '$1');
      }
    } else {
      return { why: 'it expands variables or commands' };
    }
  }
  return out;
}

/** GopherJS errors carry their Go message behind Error(). */
function parseMessage(err: unknown): string {
  const e = err as { Error?: () => string; message?: string };
  const text = typeof e?.Error === 'function' ? e.Error() : e?.message ?? String(err);
  return text.replace(/^command:/, '');
}
