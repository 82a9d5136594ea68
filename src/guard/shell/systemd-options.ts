import type { OptionSpec } from './flags.ts';

/**
 * The options of systemd's command-line tools (systemctl.c, loginctl.c, machinectl.c; getopt_long, so options may
 * come anywhere), as one table for every check that finds their verb. A value-taking option missing here would
 * shift the verb onto its value (`systemctl --legend no stop sshd` read as the verb `no`); one listed that a tool
 * does not have only makes that tool refuse the line, so the union of the three is safe.
 */
export const SYSTEMD_OPTIONS: OptionSpec = {
  short: 'tspPHMnoCE',
  long: [
    'type', 'state', 'signal', 'property', 'host', 'machine', 'lines', 'output', 'root', 'image', 'image-policy', 'capsule',
    // `--kill-who` is `--kill-whom` before v252
    'kill-whom', 'kill-who', 'kill-value', 'job-mode', 'check-inhibitors', 'legend', 'preset-mode', 'what', 'timestamp', 'message',
    'boot-loader-menu', 'boot-loader-entry', 'reboot-argument', 'drop-in', 'when',
    // loginctl's and machinectl's own
    'uid', 'setenv', 'format', 'max-addresses', 'verify',
  ],
  flags: [
    'help', 'version', 'all', 'reverse', 'after', 'before', 'show-types', 'failed', 'full', 'fail', 'irreversible', 'ignore-dependencies', 'ignore-inhibitors',
    'value', 'user', 'system', 'global', 'wait', 'no-block', 'no-legend', 'no-pager', 'no-wall', 'dry-run', 'quiet', 'no-warn', 'force', 'no-reload',
    'no-ask-password', 'runtime', 'plain', 'recursive', 'with-dependencies', 'firmware-setup', 'now', 'show-transaction', 'read-only', 'mkdir', 'marked', 'stdin',
  ],
};
