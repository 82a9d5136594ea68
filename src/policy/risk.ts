/** The four risk levels of the seed, least to most severe. */
export const RISK_LEVELS = ['read_only', 'write', 'exec', 'dangerous'] as const;
export type RiskLevel = (typeof RISK_LEVELS)[number];

export function severity(level: RiskLevel): number {
  return RISK_LEVELS.indexOf(level);
}

export function isRiskLevel(value: unknown): value is RiskLevel {
  return typeof value === 'string' && (RISK_LEVELS as readonly string[]).includes(value);
}

/** The stricter of the given levels; an empty list is `read_only`. */
export function strictest(...levels: readonly RiskLevel[]): RiskLevel {
  let worst: RiskLevel = 'read_only';
  for (const level of levels) if (severity(level) > severity(worst)) worst = level;
  return worst;
}
