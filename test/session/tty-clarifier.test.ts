import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ttyClarifier } from '../../src/session/tty-clarifier.ts';
import { buildContext } from '../../src/tools/context.ts';

function terminal() {
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = '';
  output.on('data', (d: Buffer) => (shown += d.toString()));
  const asked = async () => {
    while (!shown.includes('Answer')) await new Promise((r) => setTimeout(r, 5));
  };
  return { input, output, shown: () => shown, asked };
}

const within = <T>(p: Promise<T>, ms: number) => Promise.race([p, new Promise<'still waiting'>((r) => setTimeout(() => r('still waiting'), ms))]);

describe('clarify on the terminal of echo-agent run', () => {
  it('a line typed before the question was shown is not its answer', async () => {
    const t = terminal();
    t.input.write('2\n'); // meant for something else, typed while nothing asked
    const pending = ttyClarifier({ ...t, typeAheadMs: 100 }).ask('Which colour?', ['red', 'blue'], buildContext(), new AbortController().signal);
    await t.asked();
    expect(await within(pending, 200)).toBe('still waiting');
    expect(t.shown()).toContain('what was typed before this question is ignored');
    t.input.write('1\n');
    expect(await pending).toBe('red');
  });

  it('input that ended earlier in the session (Ctrl-D) gives no answer at once, rather than a wait for the timeout', async () => {
    const t = terminal();
    t.input.end();
    t.input.resume();
    await new Promise((r) => setTimeout(r, 20));
    expect(await within(ttyClarifier({ ...t, typeAheadMs: 100 }).ask('Proceed?', [], buildContext(), new AbortController().signal), 1_000)).toBeNull();
  });
});
