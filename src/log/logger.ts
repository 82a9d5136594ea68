import { pino, type Logger } from 'pino';
import { redact } from '../util/redact.ts';

export type { Logger };

/**
 * JSON logs on stdout (or the given stream). Every logged object passes
 * through redact(), so credentials never reach a log line (I11).
 */
export function createLogger(level: string = 'info', stream?: NodeJS.WritableStream): Logger {
  return pino({
    level,
    base: { service: 'echo-agent' },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }), log: (obj) => redact(obj) },
    hooks: {
      logMethod(args, method) {
        method.apply(this, args.map((a) => (typeof a === 'string' ? redact(a) : a)) as Parameters<typeof method>);
      },
    },
    // errors are made plain (type, message, code, stack, cause) by redact() in the log formatter
    serializers: { err: (err: unknown) => redact(err) },
  }, stream ?? process.stdout);
}

/** A logger that drops everything, for tests and dry CLI commands. */
export const silentLogger: Logger = pino({ level: 'silent' });
