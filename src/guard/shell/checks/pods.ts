import { HOST_CAPABILITIES, KUBE_MANIFEST_VERBS, KUBE_NODE, KUBE_OVERRIDES, KUBE_PRIVILEGED_PROFILES, KUBE_PROGRAMS, KUBECTL_OPTIONS, POD_HOST_FLAGS } from '../container-tables.ts';
import { parseOptions, valuesOf } from '../flags.ts';
import type { Arg, Emit } from '../model.ts';
import { showArg } from '../shell-state.ts';
import { CONTAINER_GLOBALS } from '../wrapper-tables.ts';
import { literal, plain } from '../values.ts';
import { record, yamlDocuments } from '../yaml-documents.ts';
import { hostPath } from './host-paths.ts';
import { manifestText, type ManifestInput } from './manifest-files.ts';

/**
 * Kubernetes pods given the host, as `docker run` containers are (see containers.ts): `kubectl run --privileged`, a
 * `--overrides` pod spec (or JSON patch) with a hostPath volume of /, a system directory, secrets or the engine's socket,
 * `privileged`, `hostPID` or host capabilities; `kubectl debug node/NAME` (the node's root at /host, its namespaces) and
 * `--profile=sysadmin`; the same fields in manifests `apply`, `create` and `replace` are given (`-f FILE` this line wrote,
 * `-f -` with a here-document): every YAML document, a List's items, a workload's pod template. Other files stay unread.
 */

const RULE = 'shell.container.host_access';
const FALSE = /^(?:false|0|f)$/i;

/** What a JSON pod spec or patch hands over; each leaf seen with the keys leading to it (a patch's `path` counting as keys). */
function specReach(node: unknown, keys: readonly string[], out: string[]): void {
  if (Array.isArray(node)) { for (const n of node) specReach(n, keys, out); return; }
  if (node !== null && typeof node === 'object') {
    const o = node as Record<string, unknown>;
    // a JSON patch operation: `{"op":"add","path":"/spec/hostPID","value":true}`
    if (typeof o.op === 'string' && typeof o.path === 'string' && 'value' in o) { specReach(o.value, [...keys, ...o.path.split('/').filter((k) => k !== '')], out); return; }
    for (const [k, v] of Object.entries(o)) specReach(v, [...keys, k], out);
    return;
  }
  const last = keys[keys.length - 1] ?? '';
  if (Object.hasOwn(POD_HOST_FLAGS, last) && (node === true || node === 'true')) out.push(POD_HOST_FLAGS[last]!);
  if (last === 'path' && keys.includes('hostPath') && typeof node === 'string') { const why = hostPath(node); if (why) out.push(`mounts ${why}`); }
  if (keys.includes('capabilities') && keys.includes('add') && typeof node === 'string' && HOST_CAPABILITIES.test(node)) out.push(`adds ${node}`);
}

/** `--overrides` text: read as JSON; text that is not (a value not known on the line) is searched for the same fields. */
function overridesReach(text: string): string[] {
  const out: string[] = [];
  try {
    specReach(JSON.parse(text), [], out);
  } catch {
    for (const [key, why] of Object.entries(POD_HOST_FLAGS)) if (new RegExp(`\\b${key}["']?\\s*:\\s*["']?true\\b`).test(text)) out.push(why);
    if (/\bhostPath\b/.test(text)) out.push('a hostPath mount');
  }
  return out;
}

/** Objects that hold data, not pods: a ConfigMap's or Secret's `privileged: "true"` is text. */
const DATA_KINDS: ReadonlySet<string> = new Set(['ConfigMap', 'Secret']);

/** What the objects of a manifest hand over: each document, a List's items; labels and annotations are names, not settings. */
function manifestReach(node: unknown, out: string[]): void {
  const o = record(node);
  if (!o || DATA_KINDS.has(String(o.kind))) return;
  if (Array.isArray(o.items) && /List$/.test(String(o.kind))) { for (const item of o.items) manifestReach(item, out); return; }
  specReach({ ...o, metadata: null }, [], out);
}

/** What the manifests named hand over, those this line wrote or fed on stdin (`-`). */
function manifestsReach(files: readonly Arg[], input: ManifestInput): string[] {
  const out: string[] = [];
  for (const f of files) {
    const text = manifestText(f, input);
    for (const doc of text === null ? [] : yamlDocuments(text) ?? []) manifestReach(doc, out);
  }
  return out;
}

/** The manifests `-f` names (each a comma-separated list). */
const filenames = (p: ReturnType<typeof parseOptions>): Arg[] => valuesOf(p, 'f', 'filename').flatMap((v) => v.v.split(',').map((name) => ({ v: name, info: v.info })));

/**
 * `podman kube play FILE` (`play kube`) runs a Kubernetes manifest's pods on this host. Its operands are read as
 * manifests when this line wrote them: an option's value among them is no manifest it wrote, and a ConfigMap's is data.
 */
function podmanKubeReach(args: readonly Arg[], input: ManifestInput): string[] {
  const ops = parseOptions(args, CONTAINER_GLOBALS).operands;
  const verb = ops.slice(0, 2).map((a) => literal(a.v)).join(' ');
  return verb === 'kube play' || verb === 'play kube' ? manifestsReach(ops.slice(2).filter((a) => !a.v.startsWith('-') || a.v === '-'), input) : [];
}

/** `kubectl run`'s, `debug`'s and the manifest verbs' words that reach the host, or nothing for other verbs. */
function kubectlReach(args: readonly Arg[], input: ManifestInput): string[] {
  const p = parseOptions(args, KUBECTL_OPTIONS);
  const verb = literal(p.operands[0]?.v ?? '');
  const out: string[] = [];
  const privileged = p.opts.filter((o) => o.name === 'privileged').pop();
  if (verb === 'run' && privileged && !FALSE.test(literal(privileged.value?.v ?? '') ?? '')) out.push('--privileged');
  if (verb === 'run') for (const v of valuesOf(p, KUBE_OVERRIDES)) out.push(...overridesReach(plain(v.v)));
  if (verb !== null && KUBE_MANIFEST_VERBS.includes(verb)) out.push(...manifestsReach(filenames(p), input));
  if (verb === 'debug') {
    if (p.operands.slice(1).some((a) => KUBE_NODE.test(literal(a.v) ?? ''))) out.push("the node's root file system and namespaces");
    if (valuesOf(p, 'profile').some((v) => KUBE_PRIVILEGED_PROFILES.includes(literal(v.v) ?? ''))) out.push('--profile=sysadmin (privileged)');
  }
  return out;
}

/** Flags a kubectl, oc or `podman kube play` line starting a pod with the host given to it (see above). */
export function checkPodHost(name: string, args: readonly Arg[], emit: Emit, input: ManifestInput): void {
  const reach = KUBE_PROGRAMS.has(name) ? kubectlReach(args, input) : name === 'podman' ? podmanKubeReach(args, input) : [];
  if (reach.length > 0) emit(RULE, `${[name, ...args.map((a) => showArg(a.v))].join(' ').slice(0, 160)} (${[...new Set(reach)].join(', ')})`);
}

export const POD_PROGRAMS: readonly string[] = [...KUBE_PROGRAMS];
