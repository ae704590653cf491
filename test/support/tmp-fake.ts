import { startFakeApi } from './fake-api.ts';
import { memoryReply } from './memory-reply.ts';
import { digestReply } from './digest-reply.ts';
const fake = await startFakeApi({ port: 47111, respond: ({ prompt }) => memoryReply(prompt) ?? digestReply({ prompt }) ?? 'Nothing.' });
console.log(fake.openaiBaseUrl);
