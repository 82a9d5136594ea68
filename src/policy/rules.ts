import type { PathRule } from '../guard/paths/check-paths.ts';

/**
 * Every rule id a decision can carry, with the sentence shown to people.
 * An audit line's `rule` is a key of this table; grep for it to find the code.
 */
export const RULES = {
  // tool availability (SPEC §4)
  'tools.profile': 'The tool is not part of the configured tool profile.',
  'tools.allow': 'A non-empty tools.allow list replaces the profile and does not name this tool.',
  'tools.deny': 'The tool is named in tools.deny.',
  'tools.reserved': 'The tool name is reserved and not implemented.',
  'tools.not_ready': 'The tool is missing a configured dependency.',
  'tools.unknown': 'No tool by this name exists.',
  'security.daemon.capability': 'The daemon security profile removes tools that run processes or code or install skills.',
  'security.public_gateway.risk': 'The public_gateway security profile keeps only read-only tools.',
  'network.deny': 'The network policy is deny: no tool may reach the network, and tools that need it (network.outbound, webhooks, the vision service) are removed.',
  'context.allowed_tools': 'The tool is not in this execution\'s allowed tool subset.',
  // gate (SPEC §5)
  'args.invalid': 'The arguments do not match the tool\'s parameter schema.',
  'model.max_tool_calls_per_turn': 'One model response asked for more tool calls than model.max_tool_calls_per_turn; the calls past it were not run.',
  'network.restricted': 'The network policy is restricted and the target host is not in execution.network_allowlist.',
  'elevation.required': 'This tool needs elevation and the sender is not elevated.',
  'unattended.read_only': 'Read-only calls are allowed unattended.',
  'unattended.dangerous': 'Dangerous tools are never run unattended.',
  'unattended.flagged': 'A flagged call cannot run unattended because nobody can approve it.',
  'unattended.cron_authorized': 'The job was authorised by a human, which covers the write calls its tools list allows (the daemon never offers exec).',
  'unattended.grant_withdrawn': 'The human authorisation this run started with was revoked or replaced while it ran; without it the unattended policy refuses this call.',
  'unattended.grant_withdrawn.allow_safe': 'The human authorisation this run started with was revoked or replaced while it ran; the unattended policy allow_safe still permits this write inside the workspace.',
  'unattended.outside_grant': 'The human approval behind the job\'s grant did not list this tool, so the grant does not cover it; without it the unattended policy refuses this call.',
  'unattended.outside_grant.allow_safe': 'The human approval behind the job\'s grant did not list this tool, so the grant does not cover it; the unattended policy allow_safe still permits this write inside the workspace.',
  'unattended.policy_deny': 'The unattended policy is deny and the job holds no human authorisation.',
  'unattended.allow_safe.write': 'The unattended policy allow_safe permits writes inside the workspace policy.',
  'unattended.allow_safe.path': 'The unattended policy allow_safe permits writes only inside the workspace policy.',
  'unattended.allow_safe.exec': 'The unattended policy allow_safe never permits exec calls.',
  'unattended.allow_safe.not_file': 'The unattended policy allow_safe permits only file writes inside the workspace, and this tool writes something else (a message, a job, memory).',
  'attended.low_risk': 'Read-only and write calls are allowed in an attended session.',
  'approval.auto_approve': 'The tool is listed in permissions.approval.auto_approve.',
  'approval.cli_auto_approve': 'cli_auto_approve allows this call on the attended command line.',
  'approval.trusted_channel': 'The channel is trusted for exec calls.',
  'approval.allowlist': 'A persistent approval record made by a human covers this call.',
  'approval.smart.approve': 'The smart reviewer approved this single call.',
  'approval.smart.deny': 'The smart reviewer refused this call.',
  'approval.mode_off': 'Approval mode is off, which allows non-dangerous, unflagged calls.',
  'approval.nested': 'A nested execution cannot ask a human, so a call that needs one is refused.',
  'approval.human.once': 'A human approved this call once.',
  'approval.human.always': 'A human approved this call and recorded a persistent approval.',
  'approval.human.deny': 'A human refused this call.',
  'approval.human.timeout': 'Nobody answered the approval request in time.',
  'approval.human.cancelled': 'The session was stopped (interrupted or out of time) while it waited for the answer, so the call was not approved.',
  'approval.human.unavailable': 'No human approver is reachable for this channel.',
  'approval.human.unverified': 'The answer stored for this request was not given with the code shown where the request was asked, so it was not given through echo-agent approvals by someone shown the request, and it does not count (I3).',
  'approval.human.mismatch': 'The approval answer belongs to another request or another call than this one, so it does not count.',
  'approval.unshowable': 'The call holds text that the approval screen would hide as a credential although it is more than one (several words, shell syntax, or a host and path), so no reviewer could see what they would approve; pass credentials through the configuration or the environment, not inside instructions or commands.',
  'approval.would_ask': 'This call would be sent to a human for approval.',
  'approval.would_ask_smart': 'This call would be sent to the smart reviewer, then possibly to a human.',
  'tools.needs_a_person': 'The tool asks the person at the session (clarify), and an unattended run has nobody to answer, so its model is never offered it.',
  'run.max_denials': 'The run collected too many refusals and was stopped.',
  'run.step_refused': 'A step of the steps run was refused, so the run stopped there and ended denied; data.rule names the refusal.',
  'run.retry_after_interruption': 'The run was cancelled by a daemon stop or a lost lease and had retries left, so it runs again after its backoff, as a run whose worker died would.',
} as const;

export type RuleId = keyof typeof RULES;

const GET_A_GRANT = 'have a person approve the job (echo-agent jobs update JOB … goes through the gate and asks), so that it holds a grant; echo-agent grants show JOB says what it may do now';

/** What the builder of a job can do about a refusal of one of its runs' calls: the run's error ends with it. */
export const RULE_REMEDIES: Partial<Record<RuleId, string>> = {
  'unattended.policy_deny': GET_A_GRANT,
  'unattended.allow_safe.exec': GET_A_GRANT,
  'unattended.allow_safe.path': `keep its writes inside the workspace, or ${GET_A_GRANT}`,
  'unattended.allow_safe.not_file': GET_A_GRANT,
  'unattended.outside_grant': 'name the tool in the job (jobs update JOB --tools …) and have a person approve the change: the new grant lists it',
  'unattended.grant_withdrawn': 'its grant was revoked or replaced while it ran (echo-agent grants show JOB says by whom and why)',
  'unattended.dangerous': 'dangerous tools (exec, cronjob, skill_install, …) never run unattended: do that part attended',
  'unattended.flagged': 'the guard flagged the call and nobody can approve it unattended: change the step (echo-agent check call --job JOB … shows the finding), or run it attended',
  'security.daemon.capability': 'the daemon never offers tools that run processes or code: use file, web and notify tools, or run that part attended',
  'network.restricted': 'add the host to execution.network_allowlist, or use a host already in it',
};

/**
 * Remedies for refusals at step 1, where the decision carries the guard's own rule (shell.*, path.*, ssrf.*):
 * the few with advice of their own; any other gets GUARD_REMEDY.
 */
const GUARD_REMEDIES: Readonly<Record<string, string>> = {
  'path.outside_workspace': 'use a path inside tools.workspace',
  'path.outside_safe_write_root': 'write inside tools.safe_write_root',
  // the URL guard's own refusal under execution.network_policy deny: not a hard block, the policy can change
  'network.deny': 'this step reaches the network and execution.network_policy is deny: drop the step, or allow the network',
} satisfies Partial<Record<PathRule | 'network.deny', string>>;

/**
 * The static guard's finding, a hard block (I9) or one that asks a person (refused unattended, I12): no grant or
 * policy lets it through in a run, so only the call itself can change.
 */
export const GUARD_REMEDY = 'the static guard refuses this call in unattended runs, whatever the grant or policy: change what the step does';

/** What a job's builder can do about a refused call, if anything: by the rule, and for a guard refusal (step 1) by its family. */
export function remedyFor(decision: { readonly step: number; readonly rule: string }): string | undefined {
  const own = Object.hasOwn(RULE_REMEDIES, decision.rule) ? RULE_REMEDIES[decision.rule as RuleId] : undefined;
  if (own) return own;
  return decision.step === 1 ? GUARD_REMEDIES[decision.rule] ?? GUARD_REMEDY : undefined;
}

export function ruleReason(rule: RuleId): string {
  return RULES[rule];
}

/** The configuration key a policy pass answers to: an admin reading an allow finds what to change (SPEC §5 steps 4, 6–8, 10). */
export const RULE_CONFIG_KEYS: Readonly<Partial<Record<RuleId, string>>> = {
  'approval.auto_approve': 'permissions.approval.auto_approve',
  'approval.cli_auto_approve': 'permissions.approval.cli_auto_approve',
  'approval.trusted_channel': 'permissions.approval.trusted_channels',
  'approval.mode_off': 'permissions.approval.mode (off)',
  'approval.smart.approve': 'permissions.approval.smart_model (smart reviewer)',
  'unattended.allow_safe.write': 'permissions.approval.unattended_policy (allow_safe)',
  'unattended.grant_withdrawn.allow_safe': 'permissions.approval.unattended_policy (allow_safe)',
  'unattended.outside_grant.allow_safe': 'permissions.approval.unattended_policy (allow_safe)',
};

/** Allows no one had to authorise: the call's risk alone lets it through. */
export const NEEDS_NO_AUTHORITY: ReadonlySet<RuleId> = new Set<RuleId>(['unattended.read_only', 'attended.low_risk']);
