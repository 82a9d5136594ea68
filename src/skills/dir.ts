import { join, resolve } from 'node:path';
import type { Config } from '../config/schema.ts';

/** Where installed skills live: skills.dir, or `<daemon.data_dir>/skills` when it is empty. Absolute. */
export function skillsDir(config: Config): string {
  return resolve(config.skills.dir !== '' ? config.skills.dir : join(config.daemon.data_dir, 'skills'));
}
