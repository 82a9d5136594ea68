import { printable } from '../util/printable.ts';

/** Writes a value as pretty JSON on stdout. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** A plain aligned table; cells are stringified, columns padded to the widest cell. */
export function printTable(headers: readonly string[], rows: readonly (readonly unknown[])[]): void {
  // cells hold what models and callers wrote (tool names, arguments, reasons): a line break or an escape would forge rows
  const cells = [headers, ...rows.map((r) => r.map((c) => (c === undefined || c === null ? '' : printable(String(c)))))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  for (const row of cells) {
    process.stdout.write(`${row.map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')}\n`);
  }
}

/** A cell cut to `max` characters, with `…` so a reader knows there is more (--json has it all). */
export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export function warn(message: string): void {
  process.stderr.write(`warning: ${message}\n`);
}
