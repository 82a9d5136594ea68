/**
 * BullMQ prints what it finds at connect as plain text on the console (`IMPORTANT! Eviction policy is allkeys-lru.
 * It should be "noeviction"`, once per connection), which breaks a log read as JSON lines. Its skipVersionCheck
 * option would silence it, but also the Redis version check that lets a worker block for fractions of a second
 * (delayed runs would be up to a second late). So the lines are held back here while a Redis queue is open: the
 * eviction policy is checked and logged by checkEvictionPolicy, and the version advice goes to the queue's onWarning.
 */
const EVICTION = /^IMPORTANT! Eviction policy is \S+\. It should be "noeviction"$/;
const VERSION_ADVICE = /^It is highly recommended to use a minimum Redis version of (\S+)\s+Current: (\S+)\s*$/;

type Advice = (message: string, detail: Record<string, unknown>) => void;
const listeners = new Set<{ advice?: Advice }>();
let original: typeof console.warn | null = null;

function filtered(...args: unknown[]): void {
  const text = typeof args[0] === 'string' && args.length === 1 ? args[0] : null;
  if (text !== null && EVICTION.test(text)) return;
  const version = text === null ? null : VERSION_ADVICE.exec(text);
  const told = version ? [...listeners].filter((l) => l.advice) : [];
  if (version && told.length > 0) {
    for (const l of told) l.advice!(`Redis ${version[2]} is older than BullMQ recommends (${version[1]}): upgrade Redis`, { redis_version: version[2] });
    return;
  }
  original!(...args);
}

/** Holds BullMQ's console lines back until the returned function is called (once per queue; counted). */
export function quietBullmqConsole(advice?: Advice): () => void {
  const me = advice ? { advice } : {};
  listeners.add(me);
  if (console.warn !== filtered) {
    original = console.warn;
    console.warn = filtered;
  }
  return () => {
    listeners.delete(me);
    // another module that replaced console.warn since keeps its own; only ours is taken back
    if (listeners.size === 0 && original !== null && console.warn === filtered) console.warn = original;
  };
}
