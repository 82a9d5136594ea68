import {
  COMPOSE_GLOBALS, COMPOSE_PROGRAMS, COMPOSE_RUN_ARGS, COMPOSE_VERBS, CONTAINER_ENGINES, CONTAINER_LONG_FLAGS, CONTAINER_SHORT_VALUES, CONTAINER_VERBS,
  DEVICE_OPTIONS, HOST_CAPABILITIES, HOST_NAMESPACE_FILE, HOST_NAMESPACE_OPTIONS, HOST_PID, MOUNT_OPTIONS, MOUNT_SOURCE, NSPAWN_BINDS, NSPAWN_IMAGES,
  NSPAWN_LONG_FLAGS, NSPAWN_ROOTS, NSPAWN_SHORT_VALUES, VOLUME_OPTIONS,
} from '../container-tables.ts';
import { parseOptions, valueOf, valuesOf } from '../flags.ts';
import type { Arg, Emit } from '../model.ts';
import { canonical, isBlockDevice, showCanon } from '../paths.ts';
import { showArg } from '../shell-state.ts';
import { isKnown, literal, plain } from '../values.ts';
import { CONTAINER_GLOBALS, WRAPPERS } from '../wrapper-tables.ts';
import { hostDevice, hostPath } from './host-paths.ts';
import { composeFileReach, type ManifestInput } from './manifest-files.ts';

const RULE = 'shell.container.host_access';

interface Scanned {
  readonly opts: readonly { readonly name: string; readonly value: Arg | null }[];
  readonly operands: readonly Arg[];
}

/**
 * Options up to the first operand, read as cobra and getopt_long read them when only the flags that take no value are
 * listed: `--x=v`, `--x v` (unless x is a flag), `-v SRC:DST`, `-itv SRC:DST`, `-vSRC:DST`.
 */
function scan(args: readonly Arg[], shortValues: string, longFlags: ReadonlySet<string>): Scanned {
  const opts: { name: string; value: Arg | null }[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a.v === '--') return { opts, operands: args.slice(i + 1) };
    if (!a.v.startsWith('-') || a.v === '-') return { opts, operands: args.slice(i) };
    if (a.v.startsWith('--')) {
      const eq = a.v.indexOf('=');
      const name = a.v.slice(2, eq < 0 ? undefined : eq);
      if (eq >= 0) opts.push({ name, value: { v: a.v.slice(eq + 1), info: a.info } });
      else if (longFlags.has(name) || i + 1 >= args.length) opts.push({ name, value: null });
      else opts.push({ name, value: args[++i]! });
      continue;
    }
    for (let k = 1; k < a.v.length; k++) {
      const c = a.v[k]!;
      if (!shortValues.includes(c)) { opts.push({ name: c, value: null }); continue; }
      // pflag reads `-v=SRC:DST` as `-v SRC:DST`
      const tail = a.v.slice(k + 1).replace(/^=/, '');
      opts.push({ name: c, value: tail !== '' ? { v: tail, info: a.info } : args[i + 1] ? args[++i]! : null });
      break;
    }
  }
  return { opts, operands: [] };
}

const values = (s: Scanned, names: readonly string[]): Arg[] => s.opts.filter((o) => names.includes(o.name) && o.value).map((o) => o.value!);
const has = (s: Scanned, name: string): boolean => s.opts.some((o) => o.name === name && (o.value === null || literal(o.value.v) !== 'false'));

/** `SRC:DST[:OPTS]` (no source: an anonymous volume) and `type=bind,source=SRC,…`. */
const volumeSource = (v: string): string | null => (v.includes(':') ? v.slice(0, v.indexOf(':')) : null);
const mountSource = (v: string): string | null => v.split(',').map((f) => MOUNT_SOURCE.exec(f)?.[1]).find((s) => s !== undefined) ?? null;

/** What among a container's options reaches the host: privileges, host namespaces, capabilities, devices, mounts. */
function containerReach(s: Scanned, verb: 'start' | 'exec', rootfs: Arg | null): string[] {
  const out: string[] = [];
  if (has(s, 'privileged')) out.push('--privileged');
  if (verb === 'exec') return out;
  for (const o of HOST_NAMESPACE_OPTIONS) for (const v of values(s, [o])) if (literal(v.v) === 'host') out.push(`--${o}=host`);
  for (const v of values(s, ['cap-add'])) for (const cap of (literal(v.v) ?? '').split(',')) if (HOST_CAPABILITIES.test(cap.trim())) out.push(`--cap-add=${cap.trim()}`);
  for (const v of values(s, DEVICE_OPTIONS)) { const dev = hostDevice(v.v); if (dev) out.push(`--device=${dev}`); }
  const sources = [...values(s, VOLUME_OPTIONS).map((v) => volumeSource(v.v)), ...values(s, MOUNT_OPTIONS).map((v) => mountSource(v.v)), rootfs?.v ?? null];
  for (const src of sources) { const why = src === null ? null : hostPath(src); if (why) out.push(`mounts ${why}`); }
  return out;
}

/**
 * `docker compose [GLOBALS] run|exec OPTIONS SERVICE …`, `docker-compose …`, `podman-compose …`: what its options give
 * the container (a `-v` mount, `--cap-add`, exec's `--privileged`, podman-compose's `--podman-run-args` for any verb),
 * and what a compose file this line wrote gives the services `up`, `run` and `create` start (see manifest-files.ts).
 */
function composeReach(args: readonly Arg[], input: ManifestInput): string[] {
  const g = parseOptions(args, COMPOSE_GLOBALS);
  const key = literal(g.operands[0]?.v ?? '');
  const verb = key !== null && Object.hasOwn(COMPOSE_VERBS, key) ? COMPOSE_VERBS[key]! : null;
  // `--podman-run-args` go to each container `up` or `run` starts
  const more = valuesOf(g, ...COMPOSE_RUN_ARGS).flatMap((v) => plain(v.v).split(/\s+/).filter((w) => w !== '').map((w): Arg => ({ v: w, info: v.info })));
  const given = [...containerReach(scan(more, CONTAINER_SHORT_VALUES, CONTAINER_LONG_FLAGS), 'start', null), ...composeFileReach(g, key, input)];
  return verb === null ? given : [...given, ...containerReach(scan(g.operands.slice(1), verb.short, verb.flags), verb.verb, null)];
}

/** `docker [GLOBALS] run|create|exec OPTIONS IMAGE …` (and `compose …`): what reaches the host, or nothing for other verbs. */
function engineReach(name: string, args: readonly Arg[], input: ManifestInput): string[] {
  const ops = parseOptions(args, CONTAINER_GLOBALS).operands;
  const one = literal(ops[0]?.v ?? '');
  if (one === 'compose') return composeReach(ops.slice(1), input);
  const two = one === 'container' ? `container ${literal(ops[1]?.v ?? '')}` : null;
  const key = two !== null && Object.hasOwn(CONTAINER_VERBS, two) ? two : one !== null && Object.hasOwn(CONTAINER_VERBS, one) ? one : null;
  if (key === null) return [];
  const s = scan(ops.slice(key.split(' ').length), CONTAINER_SHORT_VALUES, CONTAINER_LONG_FLAGS);
  // podman's --rootfs: the first operand is a directory the container runs in as its root
  const rootfs = name === 'podman' && has(s, 'rootfs') ? s.operands[0] ?? null : null;
  return containerReach(s, CONTAINER_VERBS[key]!, rootfs);
}

/** systemd-nspawn with the host's root (or a system directory) as the container's, a disk as its image, or host paths bound in. */
function nspawnReach(args: readonly Arg[]): string[] {
  const s = scan(args, NSPAWN_SHORT_VALUES, NSPAWN_LONG_FLAGS);
  const out: string[] = [];
  for (const v of values(s, NSPAWN_ROOTS)) { const why = hostPath(v.v); if (why) out.push(`runs in ${why}`); }
  for (const v of values(s, NSPAWN_IMAGES)) { const c = canonical(v.v, null); if (c && isBlockDevice(c)) out.push(`boots the device ${showCanon(c)}`); }
  for (const v of values(s, NSPAWN_BINDS)) { const why = hostPath(v.v.split(':')[0]!); if (why) out.push(`binds ${why}`); }
  return out;
}

/** nsenter into PID 1's namespaces (the host's, seen from a container), by `-t 1`, a target not known, or `/proc/1/ns/…` files. */
function nsenterReach(args: readonly Arg[]): string[] {
  const p = parseOptions(args, WRAPPERS.nsenter!);
  const target = valueOf(p, 't', 'target');
  const out: string[] = [];
  if (target && (!isKnown(target.v) || literal(target.v) === HOST_PID)) out.push(`enters the namespaces of process ${showArg(target.v)}`);
  if (args.slice(0, p.rest).some((a) => HOST_NAMESPACE_FILE.test(a.v.replace(/^-[A-Za-z]/, '=')))) out.push("enters PID 1's namespaces");
  return out;
}

/**
 * A container or namespace given the host: docker/podman/nerdctl `run` with --privileged, --pid=host, host capabilities
 * or devices, or the host's root, a system directory, secrets or the engine's socket mounted; `exec --privileged`;
 * compose's options and the compose files this line wrote; systemd-nspawn on the host's root; nsenter into PID 1.
 * Called for every program of a line, wrappers included.
 */
export function checkContainerHost(name: string, args: readonly Arg[], emit: Emit, input: ManifestInput): void {
  const reach = CONTAINER_ENGINES.has(name) ? engineReach(name, args, input) : COMPOSE_PROGRAMS.has(name) ? composeReach(args, input)
    : name === 'systemd-nspawn' ? nspawnReach(args) : name === 'nsenter' ? nsenterReach(args) : [];
  if (reach.length === 0) return;
  emit(RULE, `${[name, ...args.map((a) => showArg(a.v))].join(' ').slice(0, 160)} (${[...new Set(reach)].join(', ')})`);
}

export const CONTAINER_PROGRAMS: readonly string[] = [...CONTAINER_ENGINES, ...COMPOSE_PROGRAMS, 'systemd-nspawn', 'nsenter'];
