import { nearestName } from './nearest-name.ts';

let zones: readonly string[] | undefined;

/**
 * The IANA time zone a misspelt one most likely meant (`Europe/Berln`: Europe/Berlin), as a hint.
 * Compared without case, as the runtime accepts zones; a bare city (`Berlin`) finds its zone too.
 */
export function nearestTimeZone(written: string): string | undefined {
  // UTC is accepted everywhere but is not among the runtime's canonical zones
  zones ??= ['UTC', ...Intl.supportedValuesOf('timeZone')];
  const lower = zones.map((z) => z.toLowerCase());
  const near = nearestName(written, lower);
  if (near !== undefined) return zones[lower.indexOf(near)];
  if (written.includes('/')) return undefined;
  const cities = lower.map((z) => z.slice(z.lastIndexOf('/') + 1));
  const city = nearestName(written, cities);
  return city === undefined ? undefined : zones[cities.indexOf(city)];
}
