import type { Config } from '../../config/schema.ts';
import { defineTool } from '../define.ts';
import { callService, unready, type NetDeps } from '../net-deps.ts';
import { fail, ok } from '../types.ts';
import { confineGenerated, generatedPath, writeGenerated } from './image-generate.ts';

const TIMEOUT_MS = 60_000;
export const DEFAULT_VOICE = 'alloy';

/** Speaks the text with the speech service and saves it as `generated/<uuid>.mp3` in the workspace. */
export function textToSpeechTool(config: Config, net: NetDeps = {}) {
  return defineTool('text_to_speech', config, {
    timeoutSeconds: TIMEOUT_MS / 1000 + 5,
    async execute(params, _ctx, { signal }) {
      const missing = unready('text_to_speech', config);
      if (missing) return missing;
      const path = generatedPath('mp3');
      const refused = await confineGenerated(config, 'text_to_speech', path);
      if (refused) return refused;
      const voice = typeof params.voice === 'string' && params.voice !== '' ? params.voice : DEFAULT_VOICE;
      const reply = await callService(config, net, { tool: 'text_to_speech', service: 'speech', timeoutMs: TIMEOUT_MS, signal }, async (client, model) => {
        const res = await client.audio.speech.create({ model, voice, input: String(params.text), response_format: 'mp3' }, { signal });
        return Buffer.from(await res.arrayBuffer());
      });
      if ('failure' in reply) return reply.failure;
      if (reply.value.length === 0) return fail('internal', 'text_to_speech: the speech service returned no audio');
      const unwritable = await writeGenerated(config, 'text_to_speech', path, reply.value, signal);
      if (unwritable) return unwritable;
      return ok({ path, bytes: reply.value.length });
    },
  });
}
