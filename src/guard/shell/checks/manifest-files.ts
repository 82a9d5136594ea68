import { COMPOSE_DEFAULT_FILES, COMPOSE_STARTS, HOST_CAPABILITIES } from '../container-tables.ts';
import type { FileReader } from '../embedded-code.ts';
import { valuesOf, type ParsedOptions } from '../flags.ts';
import type { Arg } from '../model.ts';
import { UNKNOWN, isKnown, literal } from '../values.ts';
import { record, yamlDocuments } from '../yaml-documents.ts';
import { hostDevice, hostPath } from './host-paths.ts';

/**
 * Manifests a command line writes and then hands to a program that starts what they describe: their text (a file this
 * line wrote, a process substitution's static output, or stdin for `-f -`), and a compose file's services read as
 * `docker run`'s options are (containers.ts). A file not written on the line (or downloaded) stays unread, like
 * `bash script.sh`.
 */

/** What a program may read a manifest from: files this line wrote, static stdin and its redirect, the variables it runs with. */
export interface ManifestInput {
  readonly read: FileReader;
  readonly stdin: string | null;
  readonly stdinFile: Arg | null;
  readonly vars: ReadonlyMap<string, string>;
}

const pathArg = (v: string): Arg => ({ v, info: { computed: false, ansi: false, quoted: true, inner: [], raw: v } });

/** The text a manifest named `file` holds when this line wrote it (`-` is stdin); null when it cannot be seen. */
export function manifestText(file: Arg, input: ManifestInput): string | null {
  const from = literal(file.v) === '-' ? input.stdin ?? (input.stdinFile ? input.read(input.stdinFile) : undefined) : input.read(file);
  return typeof from === 'string' ? from : null;
}

/** `${VAR}`, `${VAR:-x}`, `$VAR` from the variables set on the line, else unknown (the environment or a .env file may set it); `$$` is `$`. */
const interpolate = (s: string, vars: ReadonlyMap<string, string>): string =>
  s.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)[^}]*\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (all, a?: string, b?: string) => (all === '$$' ? '$' : vars.get(a ?? b ?? '') ?? UNKNOWN));
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const objects = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? v.map(record).filter((x): x is Record<string, unknown> => x !== null) : []);

/** What one service is given: privileged, the host's PIDs, host capabilities, a disk, a bind mount of a host path that hands it over. */
function serviceReach(name: string, svc: Record<string, unknown>, vars: ReadonlyMap<string, string>): string[] {
  const out: string[] = [];
  const str = (v: string): string => interpolate(v, vars);
  if (svc.privileged === true) out.push('privileged');
  if (typeof svc.pid === 'string' && str(svc.pid) === 'host') out.push('pid: host');
  for (const cap of strings(svc.cap_add)) if (HOST_CAPABILITIES.test(str(cap).trim())) out.push(`cap_add ${cap}`);
  const devices = [...strings(svc.devices), ...objects(svc.devices).flatMap((d) => strings([d.source]))];
  for (const d of devices) { const dev = hostDevice(str(d)); if (dev) out.push(`the device ${dev}`); }
  // short syntax `SRC:DST[:MODE]` (no source: an anonymous volume); long syntax's `source` (a named volume's is no path)
  const sources = [...strings(svc.volumes).map((v) => (v.includes(':') ? v.slice(0, v.indexOf(':')) : null)), ...objects(svc.volumes).flatMap((v) => strings([v.source]))];
  for (const src of sources) { const why = src === null ? null : hostPath(str(src)); if (why) out.push(`mounts ${why}`); }
  return out.map((r) => `service ${name}: ${r}`);
}

/** A compose document's services, and its named volumes bound to a host path (`driver_opts: {o: bind, device: /}`). */
function composeReach(doc: unknown, vars: ReadonlyMap<string, string>): string[] {
  const out: string[] = [];
  for (const [name, svc] of Object.entries(record(record(doc)?.services) ?? {})) { const s = record(svc); if (s) out.push(...serviceReach(name, s, vars)); }
  for (const [name, vol] of Object.entries(record(record(doc)?.volumes) ?? {})) {
    const opts = record(record(vol)?.driver_opts);
    const device = typeof opts?.device === 'string' ? interpolate(opts.device, vars) : null;
    const why = device !== null && /\bbind\b/.test(String(opts?.o ?? '')) ? hostPath(device) : null;
    if (why) out.push(`volume ${name} binds ${why}`);
  }
  return out;
}

/**
 * compose's verbs that start its services (`up`, `run`, `create`, `watch`), given the parsed options before the verb:
 * what the compose files (`-f`, else COMPOSE_FILE, else the default names in --project-directory or here) give them.
 */
export function composeFileReach(g: ParsedOptions, verb: string | null, input: ManifestInput): string[] {
  if (verb === null || !COMPOSE_STARTS.includes(verb)) return [];
  const given = valuesOf(g, 'f', 'file');
  const env = input.vars.get('COMPOSE_FILE');
  const dir = valuesOf(g, 'project-directory').pop();
  const prefix = dir && isKnown(dir.v) ? `${dir.v.replace(/\/+$/, '')}/` : '';
  const files = given.length > 0 ? given : env !== undefined && env !== '' ? env.split(':').map(pathArg) : COMPOSE_DEFAULT_FILES.map((f) => pathArg(prefix + f));
  return files.flatMap((f) => {
    const text = manifestText(f, input);
    return text === null ? [] : (yamlDocuments(text) ?? []).flatMap((doc) => composeReach(doc, input.vars));
  });
}
