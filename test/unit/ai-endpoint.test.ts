/** The operations of an OpenAI-compatible endpoint joined to the operator's base URL (issue 28). */
import { describe, expect, it } from 'vitest';
import { endpointUrl } from '../../src/ai/endpoint.js';

describe('endpointUrl', () => {
  it.each([
    ['https://api.openai.com/v1', 'chat/completions', 'https://api.openai.com/v1/chat/completions'],
    ['https://api.openai.com/v1/', 'audio/transcriptions', 'https://api.openai.com/v1/audio/transcriptions'],
    ['https://api.openai.com/v1//', '/models', 'https://api.openai.com/v1/models'],
    ['http://127.0.0.1:8080', 'models', 'http://127.0.0.1:8080/models'],
    // Azure OpenAI and gateways that want a query on every call: the path goes before it, the query is kept.
    ['https://gw.example/openai/v1?api-version=2024-10-21', 'chat/completions', 'https://gw.example/openai/v1/chat/completions?api-version=2024-10-21'],
    ['https://gw.example/v1/?a=1&b=two%20words', 'audio/transcriptions', 'https://gw.example/v1/audio/transcriptions?a=1&b=two%20words'],
    ['https://gw.example?token=abc', 'models', 'https://gw.example/models?token=abc'],
    ['https://user:secret@gw.example/v1?x=1', 'models', 'https://user:secret@gw.example/v1/models?x=1'],
    // A fragment is never sent: dropped rather than kept in front of the path.
    ['https://gw.example/v1#notes', 'models', 'https://gw.example/v1/models'],
  ])('%s + %s = %s', (base, operation, expected) => {
    expect(endpointUrl(base, operation)).toBe(expected);
  });
});
