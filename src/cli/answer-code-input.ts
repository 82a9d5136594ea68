import { CliError } from './errors.ts';

/** What a shell reports for a command ended by Ctrl-C. */
const INTERRUPTED = 130;

/** A code is 24 characters; a line longer than this is not one, and reading stops there. */
const MAX_LINE = 1024;

/**
 * The answer code, never from the command line: every local process reads a command's arguments
 * (/proc/PID/cmdline, ps), and a tool process of the asking session that saw it could write its own answer.
 * On a terminal it is asked for without echo; otherwise it is the first line of standard input.
 */
export async function readAnswerCode(input: NodeJS.ReadStream = process.stdin, output: NodeJS.WriteStream = process.stderr): Promise<string> {
  return input.isTTY ? askHidden(input, output) : firstLine(input);
}

async function firstLine(input: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of input) {
    text += String(chunk);
    if (text.includes('\n') || text.length > MAX_LINE) break;
  }
  return text.split(/\r?\n/)[0]!.slice(0, MAX_LINE).trim();
}

/** A line typed without echo; Ctrl-C stops the command (130), Ctrl-D ends the line. */
function askHidden(input: NodeJS.ReadStream, output: NodeJS.WriteStream): Promise<string> {
  return new Promise((resolve, reject) => {
    let typed = '';
    const done = (result: () => void) => {
      input.off('data', onData);
      input.setRawMode(false);
      input.pause();
      output.write('\n');
      result();
    };
    const onData = (data: Buffer) => {
      for (const ch of data.toString('utf8')) {
        if (ch === '\u0003') return done(() => reject(new CliError('stopped (Ctrl-C): nothing was answered', INTERRUPTED)));
        if (ch === '\r' || ch === '\n' || ch === '\u0004') return done(() => resolve(typed.trim()));
        if (ch === '\u007f' || ch === '\b') typed = typed.slice(0, -1);
        else if (typed.length < MAX_LINE) typed += ch;
      }
    };
    // echo off before the prompt shows: a code typed or pasted the moment it appears must not be echoed
    input.setRawMode(true);
    input.resume();
    input.on('data', onData);
    output.write('the code shown where the request was asked (not echoed): ');
  });
}
