export { DurationError, describeDuration, formatDuration, parseDuration, type DurationLimits } from './duration.ts';
export { jitterMs, jitteredStart } from './jitter.ts';
export {
  DEFAULT_GRACE_SECONDS, DEFAULT_SKIP_BATCH, MISFIRE_CAP, MISFIRE_RULES, fireRule, planFiring,
  type FiringInput, type FiringPlan, type MisfirePolicy, type MisfireRuleId, type SkippedInstant,
} from './misfire.ts';
export {
  OVERLAP_POLICIES, OVERLAP_RULES, decideOverlap,
  type OverlapAction, type OverlapDecision, type OverlapPolicy, type OverlapRule, type OverlapState,
} from './overlap.ts';
export { EVERY_EPOCH_ANCHOR, ScheduleError, instantsBetween, nextInstant, parseSchedule, type Schedule } from './schedule.ts';
