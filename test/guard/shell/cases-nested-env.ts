import type { ShellCase } from './cases-deny.ts';
import { REC, RH, RR, SEC, UNSEEN } from './rule-ids.ts';

/**
 * A shell started by the command (`bash -c`, `sh script`, `watch`, `find -exec`) gets the exported variables and the
 * command's own assignments (review: `HOME=/x bash -c 'git log'` was not judged like `HOME=/x git log`).
 * HOME is exported from the environment already, so a plain assignment reaches children too.
 */
export const NESTED_ENV: readonly ShellCase[] = [
  ["export HOME=/x; bash -c 'git log'", 'ask', UNSEEN],
  ["HOME=/x bash -c 'git log'", 'ask', UNSEEN],
  ["env HOME=/x sh -c 'git log'", 'ask', UNSEEN],
  ["HOME=/x; bash -c 'git log'", 'ask', UNSEEN],
  ["sudo HOME=/x bash -c 'git log'", 'ask', UNSEEN],
  ["export XDG_CONFIG_HOME=/tmp/c; sh -c 'git status'", 'ask', UNSEEN],
  ["HOME=/tmp/h timeout 5 bash -c 'git pull'", 'ask', UNSEEN],
  ["export HOME=$(mktemp -d); bash -c 'git log'", 'ask', UNSEEN],
  ["export HOME=/x; bash -c \"bash -c 'git log'\"", 'ask', UNSEEN],
  ["export HOME=/x; echo 'git log' | bash", 'ask', UNSEEN],
  ["echo 'git log' > r.sh; HOME=/x bash r.sh", 'ask', UNSEEN],
  ['HOME=/x watch git log', 'ask', UNSEEN],
  ["export HOME=/tmp/h; flock /tmp/l -c 'git fetch'", 'ask', UNSEEN],
  ['HOME=/x find . -name x -exec git log \\;', 'ask', UNSEEN],
  ["export HOME=/x; echo 'git log' | at now", 'ask', UNSEEN],
  // exported variables are expanded by the nested shell
  ["export X=/; bash -c 'rm -rf $X'", 'deny', RR],
  ["X=/ bash -c 'rm -rf $X'", 'deny', RR],
  ["env X=$HOME sh -c 'rm -rf $X'", 'deny', RH],
  ["X=/; export X; bash -c 'rm -rf $X'", 'deny', RR],
  ["declare -x X=/; sh -c 'rm -rf $X'", 'deny', RR],
  ["set -a; X=/; bash -c 'rm -rf $X'", 'deny', RR],
  ["sudo X=/ sh -c 'rm -rf $X'", 'deny', RR],
  ["export D=/etc; sh -c 'cat $D/shadow'", 'deny', SEC],
  ["export P='rm -rf /'; bash -c 'git --config-env=core.pager=P log'", 'deny', RR],
  // a variable that is not exported (or no longer is) does not reach the nested shell
  ["X=/; bash -c 'rm -rf $X'", 'ask', REC],
  ["export X=/; export -n X; bash -c 'rm -rf $X'", 'ask', REC],
  ["export X=/; unset X; bash -c 'rm -rf $X'", 'ask', REC],
  ["export X=/; env -i bash -c 'rm -rf $X'", 'ask', REC],
  ["export X=/; env -u X bash -c 'rm -rf $X'", 'ask', REC],
  ["set -a; set +a; X=/; bash -c 'rm -rf $X'", 'ask', REC],
];

/** Look-alikes: variables set for programs that are not git, or for git in the same place as before. */
export const NESTED_ENV_ALLOWED: readonly ShellCase[] = ([
  'HOME=/tmp/h npm test', 'X=1; watch git status', 'export X=1; watch git status', 'export HOME=/tmp/h; watch npm test', 'HOME=$HOME watch git log',
  'HOME=/dev/null watch git log', 'env -i PATH=/bin watch git status', 'export GIT_DIR=.git; watch git status',
] as const).map((c): ShellCase => [c, 'allow']);
