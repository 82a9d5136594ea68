import { KUBE_MANIFEST_VERBS, KUBE_PROGRAMS, KUBECTL_OPTIONS } from '../container-tables.ts';
import { parseOptions, valuesOf } from '../flags.ts';
import type { Emit, Invocation } from '../model.ts';
import { display, literal } from '../values.ts';

/**
 * `kubectl apply -f https://…`, `create -f URL`, `apply -k github.com/…`: objects fetched at run time go to the cluster
 * unseen (a privileged pod, a hostPath of /, a cluster-admin binding), as downloaded code runs unseen: a person decides
 * (shell.download.exec). Local manifests are read like `bash script.sh` (those the line wrote are judged in pods.ts).
 */
const URL = /^(?!file:)[A-Za-z][A-Za-z0-9+.-]*:\/\//i;
/** kustomize's remote targets: a URL, `git@host:…`, or a bare hosting site's path (`github.com/org/repo//dir?ref=v1`). */
const REMOTE_KUSTOMIZATION = /^(?:(?!file:)[A-Za-z][A-Za-z0-9+.-]*:\/\/|git@|(?:github\.com|gitlab\.com|bitbucket\.org|dev\.azure\.com)\/)/;

export function checkRemoteManifests(inv: Invocation, emit: Emit): void {
  if (!KUBE_PROGRAMS.has(inv.program)) return;
  const p = parseOptions(inv.args, KUBECTL_OPTIONS);
  const verb = literal(p.operands[0]?.v ?? '');
  if (verb === null || !KUBE_MANIFEST_VERBS.includes(verb)) return;
  const files = valuesOf(p, 'f', 'filename').flatMap((v) => v.v.split(','));
  const remote = [...files.filter((f) => URL.test(f)), ...valuesOf(p, 'k', 'kustomize').map((v) => v.v).filter((k) => REMOTE_KUSTOMIZATION.test(k))];
  if (remote.length > 0) emit('shell.download.exec', `${inv.text} (manifests fetched from ${display(remote[0]!)})`);
}
