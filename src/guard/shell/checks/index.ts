import type { Emit, Invocation, RedirFact } from '../model.ts';
import { DOWNLOADERS, INTERPRETERS, READERS, SQL_CLIENTS } from '../program-tables.ts';
import { WRAPPERS } from '../wrapper-tables.ts';
import type { Checks } from '../walk-support.ts';
import { checkFind, checkMove, checkRm } from './delete.ts';
import { checkSourceDeletes } from './source-deletes.ts';
import { checkDevices } from './devices.ts';
import { checkGit, checkPermissions, checkSql } from './data.ts';
import { checkExec } from './exec.ts';
import { checkNetworkTarget } from './network.ts';
import { checkCredentialWrite, checkRedirect, checkSecretRead, checkWrapperOutputs } from './files.ts';
import { checkSystem } from './system.ts';
import { checkGitConfigWrite } from './git-dirs.ts';
import { checkKillAll } from './kill-all.ts';
import { checkControlPlane } from './control-plane.ts';
import { PROCESS_READER_PROGRAMS, checkProcessSecrets } from './processes.ts';
import { checkAttach } from './attach.ts';
import { ATTACH_PROGRAMS } from '../attach-tables.ts';
import { CONTAINER_PROGRAMS, checkContainerHost } from './containers.ts';
import { POD_PROGRAMS, checkPodHost } from './pods.ts';
import { checkExtraction } from './extract.ts';
import { checkRemoteManifests } from './remote-manifests.ts';
import { checkHistory, checkHistoryRedirect, checkHistoryVariable } from './history.ts';

const INVOCATION_CHECKS: readonly ((inv: Invocation, emit: Emit) => void)[] = [
  checkRm, checkFind, checkMove, checkSourceDeletes, checkDevices, checkSystem, checkKillAll, checkSecretRead, checkProcessSecrets, checkCredentialWrite, checkGitConfigWrite, checkExec, checkSql, checkGit, checkPermissions, checkNetworkTarget, checkControlPlane, checkHistory, checkExtraction, checkRemoteManifests,
];

/** Programs some rule looks at: a glob in program position (`/bin/r?`) is matched against these. */
const RULE_PROGRAMS: readonly string[] = [...new Set([
  'rm', 'find', 'dd', 'mkfs', 'mke2fs', 'mkswap', 'wipefs', 'blkdiscard', 'shred', 'sgdisk', 'fdisk', 'parted', 'shutdown', 'reboot', 'halt',
  'poweroff', 'init', 'telinit', 'systemctl', 'service', 'kill', 'killall5', 'pkill', 'killall', 'chmod', 'chown', 'chgrp', 'git', 'tee', 'eval', 'source', 'echo-agent', 'history', 'unset', ...PROCESS_READER_PROGRAMS, ...ATTACH_PROGRAMS, ...CONTAINER_PROGRAMS, ...POD_PROGRAMS,
  ...READERS, ...SQL_CLIENTS, ...DOWNLOADERS, ...Object.keys(WRAPPERS), ...Object.keys(INTERPRETERS),
])];

export const shellChecks: Checks = {
  invocation(inv, emit) {
    for (const check of INVOCATION_CHECKS) check(inv, emit);
  },
  redirect(r: RedirFact, emit) {
    checkRedirect(r, emit);
    checkHistoryRedirect(r, emit);
  },
  assignment(name, value, emit) {
    checkHistoryVariable(name, value, emit);
  },
  program(name, args, emit, read, stdin, context) {
    checkAttach(name, args, emit, read, stdin ?? null);
    checkWrapperOutputs(name, args, emit);
    const input = { read, stdin: stdin ?? null, vars: context?.vars ?? new Map<string, string>(), stdinFile: context?.stdinFile ?? null };
    checkContainerHost(name, args, emit, input);
    checkPodHost(name, args, emit, input);
  },
  programsMatching(glob) {
    return RULE_PROGRAMS.filter((p) => glob.test(p));
  },
};
