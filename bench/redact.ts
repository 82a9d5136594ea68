import { redactText } from '../src/util/redact.ts';

/** Text shapes that once made a pattern rescan from every position: each should cost about twice as much at twice the length. */
const SHAPES: Record<string, string> = {
  'base64-like letters after a colon': 'x',
  'name characters (a-a-a-…)': 'a-',
  'repeated --password': '--password',
  'repeated api_key=': 'api_key=',
  'repeated mysql ': 'mysql ',
  'repeated sshpass ': 'sshpass ',
  'ordinary prose with key: value': 'the key: value of it ',
};

function timeOf(unit: string, length: number): number {
  const text = `a:${unit.repeat(Math.ceil(length / unit.length))}`.slice(0, length);
  const runs: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    redactText(text);
    runs.push(performance.now() - t);
  }
  return runs.sort((a, b) => a - b)[2]!;
}

export async function benchRedact(): Promise<void> {
  process.stdout.write('redactText, median of 5, ms at 64 KiB and 128 KiB (linear: ratio about 2)\n');
  for (const [name, unit] of Object.entries(SHAPES)) {
    const a = timeOf(unit, 64 * 1024);
    const b = timeOf(unit, 128 * 1024);
    process.stdout.write(`  ${name.padEnd(36)} ${a.toFixed(1).padStart(8)} ${b.toFixed(1).padStart(8)}  ratio ${(b / a).toFixed(1)}\n`);
  }
}
