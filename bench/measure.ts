/** The p-th percentile of an ascending array. */
export const percentile = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

export interface CorpusTiming {
  /** Each input's median over its repetitions, ascending (µs). */
  readonly perInput: number[];
  /** Every call, ascending (µs). */
  readonly allCalls: number[];
  readonly mean: number;
}

/** Times `fn` on every input `reps` times; per-input medians keep GC pauses from landing on one input by chance. */
export async function timeCorpus<T>(inputs: readonly T[], reps: number, fn: (input: T) => Promise<unknown>): Promise<CorpusTiming> {
  const perInput: number[] = [];
  const allCalls: number[] = [];
  for (const input of inputs) {
    const runs: number[] = [];
    for (let r = 0; r < reps; r++) {
      const t0 = process.hrtime.bigint();
      await fn(input);
      runs.push(Number(process.hrtime.bigint() - t0) / 1000);
    }
    allCalls.push(...runs);
    runs.sort((a, b) => a - b);
    perInput.push(percentile(runs, 50));
  }
  perInput.sort((a, b) => a - b);
  allCalls.sort((a, b) => a - b);
  return { perInput, allCalls, mean: allCalls.reduce((s, x) => s + x, 0) / allCalls.length };
}

export function describeTiming(t: CorpusTiming, unit: string, reps: number): string {
  return `per ${unit} (median of ${reps} runs): p50 ${percentile(t.perInput, 50).toFixed(1)} µs, p99 ${percentile(t.perInput, 99).toFixed(1)} µs; ` +
    `all ${t.allCalls.length} calls: p50 ${percentile(t.allCalls, 50).toFixed(1)} µs, p99 ${percentile(t.allCalls, 99).toFixed(1)} µs, mean ${t.mean.toFixed(1)} µs`;
}
