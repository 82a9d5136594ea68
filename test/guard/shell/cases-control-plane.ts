import type { ShellCase } from './cases-deny.ts';
import { CP } from './rule-ids.ts';

/** A tool call answering or changing echo-agent's own approvals, grants or jobs goes to a person (review: a model approved its own cronjob call). */
export const CONTROL_PLANE: readonly ShellCase[] = [
  ['echo-agent approvals approve apr_1', 'ask', CP],
  ['echo-agent approvals deny apr_1', 'ask', CP],
  ['node bin/echo-agent.js approvals approve apr_1 --as alice', 'ask', CP],
  ['node /opt/echo/bin/echo-agent.js --config c.yaml approvals approve apr_1', 'ask', CP],
  ['npx echo-agent grants revoke nightly --why x', 'ask', CP],
  ['echo-agent --config c.yaml jobs --json remove nightly', 'ask', CP],
  ['echo-agent jobs create --file jobs/nightly-report.yaml', 'ask', CP],
  ['while sleep 1; do for id in $(node bin/echo-agent.js approvals list --json); do node bin/echo-agent.js approvals approve "$id"; done; done', 'ask', CP],
];

/** Reading the product's state, or using other commands of the CLI, is no answer. */
export const CONTROL_PLANE_READS: readonly ShellCase[] = [
  ['echo-agent jobs list', 'allow'],
  ['node /opt/echo/bin/echo-agent.js jobs show nightly', 'allow'],
  ['echo-agent approvals list --json', 'allow'],
  ['echo-agent grants show nightly', 'allow'],
  ['echo-agent check call --tool read_file --args {}', 'allow'],
  ['node server.js approvals approve', 'allow'],
];
