import { createInterface } from 'node:readline/promises';
import type { Clarifier } from '../tools/catalog/clarify.ts';
import { discardTypeAhead } from './tty-approver.ts';

export interface TtyClarifierOptions {
  readonly input: NodeJS.ReadableStream;
  readonly output: NodeJS.WritableStream;
  /**
   * As the approval prompt's: input already waiting when the question is shown is read for this long and
   * thrown away, so a line typed while nothing asked answers nothing. 0 (the default) keeps it.
   */
  readonly typeAheadMs?: number;
}

/** The option a reply picks: its number (1-based) when it is one, else the reply as typed. */
export function pickOption(reply: string, options: readonly string[]): string {
  const n = /^\d+$/.test(reply) ? Number(reply) : NaN;
  return Number.isInteger(n) && n >= 1 && n <= options.length ? options[n - 1]! : reply;
}

/** clarify on a terminal: prints the question and numbered options, reads one line. EOF or cancel = no answer. */
export function ttyClarifier(opts: TtyClarifierOptions): Clarifier {
  return {
    async ask(question, options, _ctx, signal) {
      const lines = ['', `Question: ${question}`, ...options.map((o, i) => `  ${i + 1}) ${o}`)];
      opts.output.write(`${lines.join('\n')}\n`);
      // a line typed while nothing asked (for an approval that timed out, say) is no answer to this question
      const early = opts.typeAheadMs ? await discardTypeAhead(opts.input, opts.typeAheadMs, signal) : null;
      if (early && early.discarded.trim() !== '') opts.output.write('  (what was typed before this question is ignored)\n');
      // input that ended earlier (Ctrl-D) never closes a new reader: no answer, rather than a wait for the timeout
      if (early?.ended || (opts.input as { readableEnded?: boolean }).readableEnded || signal?.aborted) return null;
      const rl = createInterface({ input: opts.input, output: opts.output, terminal: false });
      const closed = new Promise<null>((resolve) => rl.once('close', () => resolve(null)));
      try {
        const prompt = options.length > 0 ? `Answer (1-${options.length} or text): ` : 'Answer: ';
        const reply = await Promise.race([rl.question(prompt, { signal }), closed]);
        if (reply === null) return null;
        const text = reply.trim();
        return text === '' ? null : pickOption(text, options);
      } catch {
        return null;
      } finally {
        rl.close();
      }
    },
  };
}
