import type { ChatClient } from '../../agent/model-client.ts';
import type { SmartReviewer } from '../ports.ts';
import { reviewMessages } from './prompt.ts';
import { parseVerdict } from './verdict.ts';

/** Room for one word and nothing else. */
export const SMART_MAX_TOKENS = 8;

/**
 * Step 10's reviewer over a chat model. Temperature 0; the gate enforces the
 * hard deadline and escalates on any error. Nothing it answers is stored.
 */
export function modelSmartReviewer(chat: ChatClient, model: string): SmartReviewer {
  return {
    async review(req, signal) {
      const res = await chat.complete({ model, messages: reviewMessages(req), temperature: 0, max_tokens: SMART_MAX_TOKENS, signal });
      // a reviewer that wants to call tools is not answering
      return res.tool_calls.length > 0 ? 'ESCALATE' : parseVerdict(res.content);
    },
  };
}
