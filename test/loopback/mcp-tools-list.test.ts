/**
 * The MCP tool list (issue 19.2): it travels in every conversation, so it must be small, readable by
 * strict clients, free of REST-only synonyms, and an operator picks what it lists.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { connectMcp } from '../support/mcp.js';
import { modernDispatch } from '../support/mcp-v2.js';
import { looseningProblems, portabilityProblems } from '../support/schema-portability.js';
import { OPERATIONS } from '../../src/operations/table.js';
import { replyJsonSchema } from '../../src/surfaces/schema.js';
import { openApiDocument } from '../../src/surfaces/rest/openapi.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { createApp } from '../../src/app.js';
import { createToolSet, type ToolDescriptor } from '../../src/surfaces/mcp/toolset.js';
import { silentLogger } from '../../src/log.js';

/**
 * What the whole default list may take, names to annotations, in its larger form (2026-07-28, below): 20,000 until
 * cursor and maxChars were described and bounded (issue 41, +1,400), with room for the MCP Apps' `_meta.ui`.
 */
const LIST_BUDGET = 22_000;
/** Room kept under the budget for the next round's inputs: a list that only just fits is one parameter from failing. */
const HEADROOM = 500;

let server: TestServer;
let key: string;
beforeAll(async () => {
  server = await startTestServer();
  key = await server.createKey('Free');
});
afterAll(() => server.close());

/** The tools/list result exactly as it goes over the wire, in the 2026-07-28 form (the larger: it names its cache policy). */
async function listOverTheWire(baseUrl: string, apiKey: string): Promise<{ json: string; tools: ToolDescriptor[] }> {
  const message = await modernDispatch(baseUrl, apiKey, {})({ method: 'tools/list', params: {} });
  return { json: JSON.stringify(message.result), tools: message.result.tools };
}

/** The tools an app lists with this GLEANER_MCP_TOOLS (undefined: unset). */
async function toolsWith(setting: string | undefined): Promise<ToolDescriptor[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-tools-'));
  const app = await createApp(loadConfig({ GLEANER_DATA_DIR: dir, ...(setting === undefined ? {} : { GLEANER_MCP_TOOLS: setting }) }), { logger: silentLogger });
  try {
    return createToolSet(app).list();
  } finally {
    await app.close();
  }
}

describe('the default tool list', () => {
  it("is what the bundle's manifest.json declares: the same tools, none that the server would call unknown (npm run docs)", async () => {
    const manifest = JSON.parse(fs.readFileSync('manifest.json', 'utf8')) as { tools: Array<{ name: string }>; server: { mcp_config: { env: Record<string, string> } } };
    // The bundle's server runs with GLEANER_MCP_TOOLS unset: the default list.
    expect(manifest.server.mcp_config.env).not.toHaveProperty('GLEANER_MCP_TOOLS');
    const listed = (await toolsWith(undefined)).map((tool) => tool.name);
    expect(manifest.tools.map((tool) => tool.name)).toEqual(listed);
    const { tools } = await listOverTheWire(server.baseUrl, key);
    expect(tools.map((tool) => tool.name)).toEqual(listed);
  });

  it(`is at most ${LIST_BUDGET} characters of JSON (with ${HEADROOM} to spare), names, descriptions, schemas and annotations all in`, async () => {
    const { json, tools } = await listOverTheWire(server.baseUrl, key);
    expect(tools.length).toBeGreaterThan(15);
    expect(json.length).toBeLessThanOrEqual(LIST_BUDGET - HEADROOM);
    // Recorded where a reader looks for it: the figure this test measured.
    console.info(`tools/list: ${tools.length} tools, ${json.length} characters`);
  });

  it('tells a model what cursor and maxChars are and their bounds, and what a job tool gives a Tasks client and others', async () => {
    const { tools } = await listOverTheWire(server.baseUrl, key);
    const paged = tools.filter((tool) => 'maxChars' in (tool.inputSchema.properties as object));
    expect(paged.length).toBeGreaterThan(10);
    for (const tool of paged) {
      const { cursor, maxChars } = tool.inputSchema.properties as Record<string, any>;
      expect(cursor.description, tool.name).toMatch(/nextCursor/);
      expect(maxChars, tool.name).toMatchObject({ type: 'integer', minimum: 1_000, maximum: 100_000, description: expect.any(String) });
    }
    const jobs = tools.filter((tool) => tool.outputSchema.anyOf === undefined && 'jobId' in ((tool.outputSchema.properties as object) ?? {}) && !tool.name.startsWith('job_'));
    expect(jobs.length).toBeGreaterThan(1);
    for (const tool of jobs) expect(tool.description, tool.name).toMatch(/Tasks clients get a task; others the result in \d+ s or a jobId for job_status\.$/);
    expect(tools.find((tool) => tool.name === 'web_scrape')!.description).toMatch(/1 credit; \+1 if rendered in a browser, \+2 summary or answer, \+3 json\.$/);
  });

  it('every input and output schema keeps the strict portability rules, listing every tool there is', async () => {
    const problems = (await toolsWith('all')).flatMap((tool) => [
      ...portabilityProblems(tool.inputSchema).map((p) => `${tool.name} input ${p}`),
      ...portabilityProblems(tool.outputSchema).map((p) => `${tool.name} output ${p}`),
      ...(tool.outputSchema.type === 'object' ? [] : [`${tool.name}: outputSchema is not an object`]),
    ]);
    expect(problems).toEqual([]);
  });

  it('the rules catch what the REST schemas do (nullable unions, empty schemas, schema-valued additionalProperties)', () => {
    const problems = OPERATIONS.flatMap((operation) => portabilityProblems(replyJsonSchema(operation)));
    expect(problems.some((p) => p.includes('a null schema'))).toBe(true);
    expect(problems.some((p) => p.includes('an empty schema'))).toBe(true);
    expect(problems.some((p) => p.includes('additionalProperties is a schema'))).toBe(true);
    expect(portabilityProblems({ type: ['string', 'null'] })).toEqual(['/: type is an array (["string","null"])']);
  });

  it('every output schema accepts every reply the REST reply schema accepts', async () => {
    const byName = new Map(OPERATIONS.map((operation) => [operation.name, operation]));
    const problems = (await toolsWith('all')).flatMap((tool) =>
      looseningProblems(tool.outputSchema, replyJsonSchema(byName.get(tool.name)!)).map((p) => `${tool.name} ${p}`),
    );
    expect(problems).toEqual([]);
  });

  it('lists no REST-only synonym and no note for the Supadata SDK; REST keeps the synonyms', async () => {
    const tools = await toolsWith('all');
    const properties = (name: string) => Object.keys((tools.find((t) => t.name === name)!.inputSchema.properties ?? {}) as object);
    expect(properties('youtube_transcript')).toEqual(expect.arrayContaining(['url']));
    expect(properties('youtube_transcript')).not.toEqual(expect.arrayContaining(['video_id']));
    expect(properties('youtube_transcript')).not.toContain('videoId');
    expect(properties('youtube_transcript_translate')).not.toContain('video_id');
    expect(properties('youtube_search')).toContain('pageToken');
    expect(properties('youtube_search')).not.toContain('nextPageToken');
    expect(properties('web_crawl')).toContain('maxPages');
    expect(properties('web_crawl')).not.toContain('limit');
    expect(JSON.stringify(tools)).not.toMatch(/Supadata|SDK/);
    for (const tool of tools) expect(tool.description.length, tool.name).toBeLessThanOrEqual(300);
    // The REST document still takes them.
    const document = openApiDocument(OPERATIONS) as any;
    const queryNames = (p: string) => (document.paths[p].get.parameters as Array<{ name: string }>).map((parameter) => parameter.name);
    expect(queryNames('/v1/youtube/transcript')).toEqual(expect.arrayContaining(['video_id', 'videoId']));
    expect(queryNames('/v1/youtube/search')).toContain('nextPageToken');
  });
});

describe('GLEANER_MCP_TOOLS', () => {
  it('lists groups and tool names; unset lists every tool but those listed on request; `all` lists every tool', async () => {
    const names = async (setting: string | undefined) => (await toolsWith(setting)).map((t) => t.name).sort();
    const defaults = await names(undefined);
    expect(defaults).not.toContain('tiktok_transcript');
    expect(defaults).not.toContain('youtube_batch_results');
    expect(defaults).toEqual(expect.arrayContaining(['transcript', 'web_scrape', 'youtube_search', 'account', 'video_analysis']));
    expect(await names('all')).toEqual(expect.arrayContaining([...defaults, 'tiktok_transcript', 'x_transcript']));
    // A group with a job tool lists the tools that follow a job too.
    expect(await names('web')).toEqual(['job_cancel', 'job_status', 'metadata', 'read', 'web_crawl', 'web_map', 'web_scrape', 'web_scrape_batch']);
    // video: the tools that take any video link (the per-platform transcripts only by name).
    expect(await names('video')).toEqual(['metadata', 'read', 'transcript', 'video_transcript']);
    expect(await names('analysis')).toEqual(['job_cancel', 'job_status', 'video_analysis']);
    expect(await names('video,analysis')).toEqual(['job_cancel', 'job_status', 'metadata', 'read', 'transcript', 'video_analysis', 'video_transcript']);
    expect(await names('video, tiktok_transcript')).toEqual(['metadata', 'read', 'tiktok_transcript', 'transcript', 'video_transcript']);
    expect(await names('account, tiktok_transcript')).toEqual(['account', 'job_cancel', 'job_list', 'job_status', 'tiktok_transcript']);
    const youtube = await names('youtube');
    expect(youtube.every((name) => name.startsWith('youtube_') || ['read', 'transcript', 'transcript_search', 'job_status', 'job_cancel'].includes(name))).toBe(true);
    expect(youtube).toContain('youtube_transcript');
  });

  it('a listed-out tool is an unknown tool over MCP', async () => {
    const narrow = await startTestServer({ env: { GLEANER_MCP_TOOLS: 'web' } });
    try {
      const client = await connectMcp(narrow.baseUrl, await narrow.createKey('Free'));
      expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('account');
      await expect(client.callTool({ name: 'account', arguments: {} })).rejects.toMatchObject({ code: -32602 });
      await client.close();
    } finally {
      await narrow.close();
    }
  });

  it('an unknown group or name stops the start with a message naming the variable', async () => {
    await expect(startTestServer({ env: { GLEANER_MCP_TOOLS: 'web,vidoe' } })).rejects.toThrow(/GLEANER_MCP_TOOLS: "vidoe" is neither a tool group/);
    expect(() => loadConfig({ GLEANER_MCP_TOOLS: 'web;video' })).toThrow(ConfigError);
    expect(() => loadConfig({ GLEANER_MCP_TOOLS: 'web;video' })).toThrow(/GLEANER_MCP_TOOLS/);
  });
});
