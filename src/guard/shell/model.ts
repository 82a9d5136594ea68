import type { Canon } from './paths.ts';

/** What the guard knows about one argument word beyond its value. */
export interface ArgInfo {
  /** Came from a variable, substitution or `$'…'`: not written out literally. */
  readonly computed: boolean;
  readonly ansi: boolean;
  /** Had quoting of any kind. */
  readonly quoted: boolean;
  /** Invocations inside its `$(…)`, backticks or `<(…)`. */
  readonly inner: readonly Invocation[];
  readonly raw: string;
}

/** One argument after expansion; `v` uses the sentinels of values.ts. */
export interface Arg {
  readonly v: string;
  readonly info: ArgInfo;
}

export interface RedirFact {
  readonly op: string;
  readonly fd: string;
  readonly target: Arg | null;
  /** The text a heredoc or here-string feeds, when static. */
  readonly text: string | null;
  readonly inner: readonly Invocation[];
  readonly cwd: Canon | null;
}

/** A command after unwrapping, with the context rules need. */
export interface Invocation {
  /** Lower-case basename of the program. */
  readonly program: string;
  readonly args: readonly Arg[];
  readonly cwd: Canon | null;
  readonly redirs: readonly RedirFact[];
  /** Static text on stdin (heredoc, here-string, `echo … |`). */
  readonly stdinText: string | null;
  /** Commands of earlier pipeline stages that feed this one. */
  readonly upstream: readonly Invocation[];
  /** xargs and find -exec add operands the guard cannot see. */
  readonly appendsArgs: boolean;
  /** find and fd runs whose listed names its arguments are (`find T | while read f; do cat "$f"; done`). */
  readonly listedBy?: readonly Invocation[];
  readonly depth: number;
  /** The normalised command text, for findings. */
  readonly text: string;
}

export type Emit = (rule: string, matched: string) => void;
