import type { Config } from '../../config/schema.ts';
import { defineTool } from '../define.ts';
import type { NetDeps } from '../net-deps.ts';
import { postToTarget } from './notify.ts';

/**
 * A reply into the conversation the call came from: posted to a configured target (as notify) with the
 * context's channel, chat and reply ids so the receiver can route it.
 */
export function messageTool(config: Config, net: NetDeps = {}) {
  return defineTool('message', config, {
    maxRetries: 2,
    execute: (params, ctx, { signal }) => postToTarget(config, 'message', String(params.target), {
      text: params.text,
      channel: ctx?.channel ?? '',
      chat_id: ctx?.chat_id ?? '',
      reply_to_id: ctx?.reply_to_id ?? '',
      session_key: ctx?.session_key ?? '',
    }, signal, net),
  });
}
