/**
 * A loopback YouTube that answers with the recorded replies in test/fixtures/youtube.
 *
 * InnerTube POSTs are matched as the fixtures README describes: by endpoint and the request's key
 * field (videoId; continuation; browseId + params; query + the result type inside the search
 * params; url). Two leniencies, both because the recordings came from another client:
 *   - a browse without params (youtubei.js's first channel request) is answered with the recorded
 *     page of that browseId when there is exactly one; a playlist browse (VL...) matches on its id;
 *   - a search matches on its query and the type filter decoded from its params, since NewPipe
 *     and youtubei.js spell the same filter differently.
 * Caption URLs (/api/timedtext) get the one recorded caption body unless a test supplies its own.
 * Everything else is a 404. Every request is counted; a latency can be added to each.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { setTimeout as delay } from 'node:timers/promises';

export const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'youtube');

interface Recorded {
  request: { httpMethod: string; url: string; dataToSend?: number[] | null };
  response: { responseCode: number; responseBody: string };
}

export interface ReplayRequest {
  method: string;
  path: string;
  key: string;
  /** Path and query as asked (caption URLs: to see tokens and tlang). */
  url: string;
  /** The InnerTube client of a POST (upper case: VISIONOS, ANDROID, IOS, WEB), else ''. */
  client: string;
  /** The request body as sent (InnerTube JSON: the context and client identity Gleaner sent). */
  body: string;
  headers: http.IncomingHttpHeaders;
}

/** A reply a test makes up for one request (see YoutubeReplay.intercept). */
export interface ReplayAnswer {
  status?: number;
  type?: string;
  body: string;
}

export interface YoutubeReplay {
  origin: string;
  requests: ReplayRequest[];
  /** Added before every answer (to measure concurrency). */
  latencyMs: number;
  /** Most requests being answered at once since the last reset (set it to 0 to reset). */
  maxInFlight: number;
  /** Serves `body` for an InnerTube request with this key (see keyOf), e.g. a test-built page. */
  add(key: string, body: string): void;
  /** Serves the recorded player reply of `from` for video `id` too (timing tests need many distinct videos). */
  alias(id: string, from: string): void;
  /** A caption body of the test's own for the caption URLs of one video (else the recorded one). */
  captionBodies: Map<string, string>;
  /**
   * Answers a request before the recordings do (per InnerTube client, or per caption URL), e.g. a
   * WEB player reply in the 2026 shape or an empty caption body; undefined leaves it to them.
   */
  intercept?: (request: ReplayRequest) => ReplayAnswer | undefined;
  /** Holds a request's answer until the returned promise settles (a test that must catch a caller mid-way); undefined answers at once. */
  hold?: (request: ReplayRequest) => Promise<void> | undefined;
  /** The key of a recorded InnerTube request body. */
  keyOf(endpoint: string, body: string): string;
  close(): Promise<void>;
}

/** The result type a SearchFilter params value asks for (0: any), decoded from its protobuf. */
function searchType(params: string | undefined): number {
  if (!params) return 0;
  const bytes = Buffer.from(decodeURIComponent(params).replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  const read = (buf: Buffer, want: number[]): number => {
    let i = 0;
    const varint = () => {
      let value = 0;
      let shift = 0;
      for (;;) {
        const b = buf[i++];
        value += (b & 0x7f) * 2 ** shift;
        shift += 7;
        if (!(b & 0x80) || i >= buf.length) return value;
      }
    };
    while (i < buf.length) {
      const tag = varint();
      const field = Math.floor(tag / 8);
      const wire = tag & 7;
      if (wire === 0) {
        const value = varint();
        if (want.length === 1 && field === want[0]) return value;
      } else if (wire === 2) {
        const length = varint();
        const inner = buf.subarray(i, i + length);
        i += length;
        if (want.length > 1 && field === want[0]) return read(inner, want.slice(1));
      } else return 0;
    }
    return 0;
  };
  return read(bytes, [2, 2]);
}

function keyOf(endpoint: string, body: string): string {
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(body || '{}') as Record<string, unknown>;
  } catch {
    /* not JSON */
  }
  if (typeof json.videoId === 'string') return `${endpoint} videoId=${json.videoId}`;
  if (typeof json.continuation === 'string') return `${endpoint} continuation=${json.continuation}`;
  if (typeof json.browseId === 'string') return `${endpoint} browseId=${json.browseId} params=${decodeURIComponent(String(json.params ?? ''))}`;
  if (typeof json.query === 'string') return `${endpoint} query=${json.query} type=${searchType(json.params as string | undefined)}`;
  if (typeof json.url === 'string') return `${endpoint} url=${json.url}`;
  return endpoint;
}

function clientOf(body: string): string {
  try {
    return String((JSON.parse(body) as { context?: { client?: { clientName?: string } } }).context?.client?.clientName ?? '').toUpperCase();
  } catch {
    return '';
  }
}

function endpointOf(pathname: string): string {
  return pathname.replace(/^\/youtubei\/v1\//, '');
}

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(full) : [full];
  });
}

/** Player replies of the transcript-api set, which carry no request: the video each belongs to. */
const TRANSCRIPT_API_PLAYERS: Record<string, string> = {
  GJLlxj_dtq8: 'youtube.innertube.json.static',
  F1xioXWb8CY: 'youtube_ww1_nl_en.innertube.json.static',
  dsMFmonKDD4: 'youtube_transcripts_disabled.innertube.json.static',
};

function loadIndex(): Map<string, string> {
  const index = new Map<string, string>();
  const partial = new Set<string>();
  for (const file of filesUnder(FIXTURES).filter((f) => f.endsWith('.json'))) {
    const recorded = JSON.parse(fs.readFileSync(file, 'utf8')) as Recorded;
    // Other sets (caption bodies, bare player replies) are not NewPipe exchanges.
    if (!recorded.request || !recorded.response) continue;
    const body = recorded.request.dataToSend ? Buffer.from(recorded.request.dataToSend.map((b) => b & 0xff)).toString('utf8') : '';
    const url = new URL(recorded.request.url);
    const key = keyOf(endpointOf(url.pathname), body);
    // A `$fields` request got a subset of the reply: the full recording of the same request wins.
    const subset = url.search.includes('$fields');
    if (index.has(key) && (subset || !partial.has(key))) continue;
    index.set(key, recorded.response.responseBody);
    if (subset) partial.add(key);
    else partial.delete(key);
  }
  for (const [id, file] of Object.entries(TRANSCRIPT_API_PLAYERS)) {
    index.set(`player videoId=${id}`, fs.readFileSync(path.join(FIXTURES, 'transcript-api', file), 'utf8'));
  }
  return index;
}

export async function startYoutubeReplay(): Promise<YoutubeReplay> {
  const index = loadIndex();
  const captionXml = fs.readFileSync(path.join(FIXTURES, 'transcript-api', 'transcript.xml.static'), 'utf8');
  const requests: ReplayRequest[] = [];
  const captionBodies = new Map<string, string>();
  let inFlight = 0;

  const find = (key: string): string | undefined => {
    const exact = index.get(key);
    if (exact !== undefined) return exact;
    const browse = /^browse browseId=(\S+) params=(.*)$/.exec(key);
    if (browse) {
      const [, id, params] = browse;
      const same = [...index.keys()].filter((k) => k.startsWith(`browse browseId=${id} params=`));
      if (id.startsWith('VL') && same.length === 1) return index.get(same[0]);
      if (params === '' && same.length === 1) return index.get(same[0]);
    }
    return undefined;
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const url = new URL(req.url ?? '/', 'http://replay.local');
      const body = Buffer.concat(chunks).toString('utf8');
      let key: string;
      let answer: { status: number; type: string; body: string };
      if (url.pathname === '/api/timedtext') {
        key = `timedtext v=${url.searchParams.get('v')} lang=${url.searchParams.get('lang')} kind=${url.searchParams.get('kind') ?? ''} tlang=${url.searchParams.get('tlang') ?? ''}`;
        answer = { status: 200, type: 'text/xml; charset=UTF-8', body: captionBodies.get(url.searchParams.get('v') ?? '') ?? captionXml };
      } else if (url.pathname.startsWith('/youtubei/v1/') && req.method === 'POST') {
        key = keyOf(endpointOf(url.pathname), body);
        const found = find(key);
        answer = found === undefined
          ? { status: 404, type: 'application/json', body: JSON.stringify({ error: { code: 404, message: 'not recorded', status: 'NOT_FOUND' } }) }
          : { status: 200, type: 'application/json; charset=UTF-8', body: found };
      } else {
        key = `${req.method} ${url.pathname}`;
        answer = { status: 404, type: 'text/plain', body: 'not recorded' };
      }
      const recorded: ReplayRequest = { method: req.method ?? 'GET', path: url.pathname, key, url: `${url.pathname}${url.search}`, client: req.method === 'POST' ? clientOf(body) : '', body, headers: req.headers };
      const made = replay.intercept?.(recorded);
      if (made) answer = { status: made.status ?? 200, type: made.type ?? 'application/json; charset=UTF-8', body: made.body };
      requests.push(recorded);
      await replay.hold?.(recorded);
      inFlight++;
      replay.maxInFlight = Math.max(replay.maxInFlight, inFlight);
      if (replay.latencyMs > 0) await delay(replay.latencyMs);
      inFlight--;
      res.writeHead(answer.status, { 'content-type': answer.type });
      res.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const replay: YoutubeReplay = {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    latencyMs: 0,
    maxInFlight: 0,
    captionBodies,
    keyOf,
    add: (key, body) => void index.set(key, body),
    alias(id, from) {
      const body = index.get(`player videoId=${from}`);
      if (body === undefined) throw new Error(`no recorded player reply for ${from}`);
      index.set(`player videoId=${id}`, body);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return replay;
}
