/** What the database says after a pass: its clock, and the earliest instant a job falls due (null: none). */
export interface DueReading {
  readonly now: Date;
  readonly next: Date | null;
}

/** After the instant, by this much: the database clock counts whole milliseconds, and a wake just before finds nothing due. */
const WAKE_AFTER_MS = 1;
/**
 * The shortest sleep between passes. Bounds the passes a second when many jobs fall due a few
 * milliseconds apart (`every` schedules keep their creation's milliseconds), and when an instant
 * stays due because another replica's pass holds it (SKIP LOCKED) and is firing it now.
 */
export const MIN_PASS_GAP_MS = 25;

/**
 * How long the firing loop sleeps after a pass: until the next instant falls due, and a tick at most,
 * so a job created or edited meanwhile (here or on another replica) is seen within a tick.
 * Waking on a fixed tick instead would add up to a whole tick to every run's lateness.
 */
export function sleepAfterPass(reading: DueReading | null, tickMs: number): number {
  if (!reading?.next) return tickMs;
  const until = reading.next.getTime() - reading.now.getTime() + WAKE_AFTER_MS;
  return Math.min(tickMs, Math.max(MIN_PASS_GAP_MS, until));
}

export interface FiringLoopDeps {
  readonly tickMs: number;
  /** One firing burst (fireUntilDone); a failure is reported and the loop goes on at the next tick. */
  readonly pass: () => Promise<unknown>;
  readonly nextDue: () => Promise<DueReading>;
  readonly onError: (err: unknown) => void;
}

/** The firing loop: a pass, a sleep until the next due instant (a tick at most), again; until stopped. */
export function startFiringLoop(deps: FiringLoopDeps): { stop(): Promise<void> } {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | null = null;
  const cycle = async (): Promise<void> => {
    let reading: DueReading | null = null;
    try {
      await deps.pass();
      reading = await deps.nextDue();
    } catch (err) {
      deps.onError(err);
    }
    if (!stopped) timer = setTimeout(() => { running = cycle(); }, sleepAfterPass(reading, deps.tickMs));
  };
  // the first pass at once: what fell due while no replica ran is fired at start, not a tick later
  running = cycle();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
