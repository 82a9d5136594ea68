import { randomBytes } from 'node:crypto';

export type IdPrefix = 'job' | 'run' | 'grt' | 'apr' | 'alw' | 'spl' | 'kno' | 'tdo' | 'trn' | 'prc' | 'arc';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';

/**
 * `job_…`, `run_…`: 128 random bits in lowercase base32. Never integer-like and
 * never containing ':', so a run id is usable as a BullMQ job id as it is.
 */
export function newId(prefix: IdPrefix): string {
  const bytes = randomId();
  let bits = 0;
  let acc = 0;
  let out = '';
  for (const b of bytes) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(acc >>> (bits - 5)) & 31];
      bits -= 5;
    }
    acc &= (1 << bits) - 1;
  }
  if (bits > 0) out += ALPHABET[(acc << (5 - bits)) & 31];
  return `${prefix}_${out}`;
}

// one draw from the system RNG serves 256 ids: a firing pass makes a thousand at a time
let pool = Buffer.alloc(0);
let offset = 0;
function randomId(): Buffer {
  if (offset + 16 > pool.length) {
    pool = randomBytes(16 * 256);
    offset = 0;
  }
  offset += 16;
  return pool.subarray(offset - 16, offset);
}
