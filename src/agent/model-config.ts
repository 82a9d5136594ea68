import type { SmartReviewer } from '../approval/ports.ts';
import { modelSmartReviewer } from '../approval/smart/reviewer.ts';
import type { Config } from '../config/schema.ts';
import { openAiChatClient, type ChatClient } from './model-client.ts';

/** The agent's model endpoint, or null when model.base_url is not set. */
export function agentChatClient(config: Config): ChatClient | null {
  if (!config.model.base_url) return null;
  return openAiChatClient({
    baseURL: config.model.base_url, timeoutMs: config.model.timeout_seconds * 1000, maxRetries: config.model.max_retries,
    ...(config.model.api_key ? { apiKey: config.model.api_key } : {}),
  });
}

/**
 * Smart approval needs permissions.approval.smart_model and model.base_url;
 * without them step 10 is skipped and calls go to a human.
 */
export function smartReviewerFromConfig(config: Config, chat?: ChatClient): SmartReviewer | null {
  const model = config.permissions.approval.smart_model;
  if (config.permissions.approval.mode !== 'smart' || !model) return null;
  const client = chat ?? (config.model.base_url
    ? openAiChatClient({
      baseURL: config.model.base_url, maxRetries: 0, timeoutMs: config.permissions.approval.smart_timeout_seconds * 1000,
      ...(config.model.api_key ? { apiKey: config.model.api_key } : {}),
    })
    : null);
  return client ? modelSmartReviewer(client, model) : null;
}
