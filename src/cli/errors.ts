/** sysexits.h codes operators' tooling understands. */
export const EXIT = { ok: 0, failure: 1, wouldAsk: 2, usage: 64, dataErr: 65, noInput: 66, unavailable: 69, software: 70, cantCreate: 73, config: 78 } as const;

/** An error meant for the person at the terminal: printed as one line, no stack. */
export class CliError extends Error {
  /** `redacted`: the message went through redaction part by part already (a config's problems), so it is printed as it is. */
  constructor(message: string, readonly exitCode: number = EXIT.usage, readonly opts: { readonly redacted?: boolean } = {}) {
    super(message);
    this.name = 'CliError';
  }
}
