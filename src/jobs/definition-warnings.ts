import { parseSchedule, nextInstant, type Schedule } from '../scheduler/schedule.ts';
import type { JobDefinition } from './definition.ts';
import { isInside } from '../guard/paths/real-path.ts';
import { stepPaths } from './step-paths.ts';

/** Something a valid definition does that its writer most likely did not mean, with the field it is about. */
export interface DefinitionWarning {
  readonly path: readonly PropertyKey[];
  readonly text: string;
}

/** What the warnings need besides the definition: where this configuration's file tools work, and whether they stay there. */
export interface WarningContext {
  readonly workspace: string;
  readonly restrictToWorkspace: boolean;
  /** tools.safe_write_root resolved against the workspace, or '' when none is set: writes outside it are refused. */
  readonly safeWriteRoot?: string;
  /** The clock the gaps between instants are measured from (the next few instants). */
  readonly now: Date;
}

/** Instants looked at to find the shortest gap of a cron schedule: enough for every-N patterns and weekday lists. */
const GAP_SAMPLES = 8;

/** The shortest gap between the schedule's next instants, in ms; null for a schedule with fewer than two. */
function shortestGap(schedule: Schedule, now: Date): number | null {
  if (schedule.kind === 'every') return schedule.intervalMs;
  let gap: number | null = null;
  let at = nextInstant(schedule, now);
  for (let i = 0; at && i < GAP_SAMPLES; i++) {
    const next = nextInstant(schedule, at);
    if (next) gap = Math.min(gap ?? Infinity, next.getTime() - at.getTime());
    at = next;
  }
  return gap;
}

const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;

/**
 * The warnings for a definition that passed its checks: a time zone an `every` schedule ignores, jitter past the
 * gap between instants, a 6-field cron that fires every second, and file steps that reach outside the workspace.
 * Pure: said before the approval is asked, since each bites only in the runs.
 */
export function definitionWarnings(def: JobDefinition, ctx: WarningContext): DefinitionWarning[] {
  const out: DefinitionWarning[] = [];
  let schedule: Schedule | null = null;
  try {
    schedule = parseSchedule(def.schedule, def.timezone);
  } catch {
    // a schedule that does not parse is refused elsewhere, with its reason
  }
  if (schedule?.kind === 'every' && !/^(?:Etc\/)?(?:UTC|GMT)$/i.test(def.timezone)) {
    out.push({ path: ['timezone'], text: `has no effect on an "every" schedule, which counts its intervals from the Unix epoch whatever the zone; leave it out, or write a cron schedule for times of day in ${def.timezone}` });
  }
  const gap = schedule ? shortestGap(schedule, ctx.now) : null;
  if (schedule?.kind === 'cron' && def.schedule.trim().split(/\s+/).length === 6 && gap !== null && gap < 60_000) {
    out.push({ path: ['schedule'], text: `"${def.schedule}" has 6 fields, the first of them seconds: it fires every ${seconds(gap)} (${Math.round(86_400_000 / gap)} runs a day); for minutes, write 5 fields` });
  }
  if (gap !== null && def.jitter_seconds > 0 && def.jitter_seconds * 1000 >= gap) {
    out.push({ path: ['jitter_seconds'], text: `${def.jitter_seconds} s is ${def.jitter_seconds * 1000 > gap ? 'longer than' : 'as long as'} the ${seconds(gap)} between the schedule's instants: a run may start after the next instant is due, and overlap_policy ${def.overlap_policy} then decides that instant's run` });
  }
  if (def.payload.kind === 'steps') {
    def.payload.steps.forEach((s, i) => {
      for (const p of stepPaths(s.tool, s.args, ctx.workspace)) {
        if (p.access === 'writes' && ctx.safeWriteRoot && !isInside(p.resolved, ctx.safeWriteRoot)) {
          out.push({
            path: ['payload', 'steps', i, 'args', p.arg],
            text: `payload.steps[${i}] (${s.tool}) writes ${p.resolved}, outside tools.safe_write_root ${ctx.safeWriteRoot}: every run refuses this write; write below it`,
          });
          continue;
        }
        if (p.inside || ctx.restrictToWorkspace) continue;
        out.push({
          path: ['payload', 'steps', i, 'args', p.arg],
          text: `payload.steps[${i}] (${s.tool}) ${p.access} ${p.resolved}, outside the workspace ${ctx.workspace}: tools.restrict_to_workspace is off, so its runs ${p.access === 'writes' ? 'write' : 'read'} there; set it to keep file steps in the workspace`,
        });
      }
    });
  }
  return out.map((w) => (w.text.startsWith('payload.') ? w : { ...w, text: `${String(w.path[0])}: ${w.text}` }));
}
