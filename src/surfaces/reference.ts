/**
 * GET /docs: the API reference, rendered in the browser by Swagger UI from GET /v1/openapi.json.
 * Swagger UI comes from the swagger-ui-dist package in node_modules and is served by Gleaner itself:
 * no CDN, nothing fetched from elsewhere at run time, which a strict Content-Security-Policy enforces
 * (scripts, styles, images and requests from this origin only; no inline script).
 *
 * Only the few files named below are served (no path from the request reaches the file system).
 * The Claude Desktop bundle leaves Swagger UI's big files out (.mcpbignore: the bundle serves no
 * HTTP), so where they are missing /docs answers a clear 404 instead of a broken page.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { GleanerError } from '../errors.js';

export const REFERENCE_PATH = '/docs';

/**
 * Styles allow 'unsafe-inline': Swagger UI (React) sets style attributes on elements it draws. Scripts
 * do not: the page's own start-up is a file of this origin too. Images allow data: (its icons).
 */
export const REFERENCE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The page's start-up: Swagger UI on this server's OpenAPI document, with nothing that calls out (no validator badge). */
const INIT_SCRIPT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/v1/openapi.json',
    dom_id: '#reference',
    deepLinking: true,
    validatorUrl: null,
    docExpansion: 'list',
    defaultModelsExpandDepth: -1,
    tryItOutEnabled: false,
    persistAuthorization: false,
  });
});
`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Gleaner API reference</title>
<link rel="stylesheet" href="${REFERENCE_PATH}/swagger-ui.css">
<link rel="icon" type="image/png" href="${REFERENCE_PATH}/favicon-32x32.png">
</head>
<body>
<noscript>The reference needs JavaScript; the document itself is at <a href="/v1/openapi.json">/v1/openapi.json</a>.</noscript>
<div id="reference"></div>
<script src="${REFERENCE_PATH}/swagger-ui-bundle.js"></script>
<script src="${REFERENCE_PATH}/init.js"></script>
</body>
</html>
`;

/** The files of swagger-ui-dist this page uses, and their types. */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

/** swagger-ui-dist's folder, found the way Node resolves the package (undefined when it is not installed). */
function assetFolder(): string | undefined {
  try {
    return path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  } catch {
    return undefined;
  }
}

/** Read once, on first use; a missing file stays missing until restart. */
const cache = new Map<string, Buffer | null>();
function asset(name: string): Buffer | null {
  if (!cache.has(name)) {
    const folder = assetFolder();
    const file = folder ? path.join(folder, name) : undefined;
    cache.set(name, file && fs.existsSync(file) ? fs.readFileSync(file) : null);
  }
  return cache.get(name)!;
}

export function isReferencePath(pathname: string): boolean {
  return pathname === REFERENCE_PATH || pathname === `${REFERENCE_PATH}/` || pathname.startsWith(`${REFERENCE_PATH}/`);
}

export function serveReference(req: IncomingMessage, res: ServerResponse, pathname: string): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    throw new GleanerError('METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${pathname}; use GET.`, { headers: { Allow: 'GET' } });
  }
  const name = pathname === REFERENCE_PATH || pathname === `${REFERENCE_PATH}/` ? 'index.html' : pathname.slice(REFERENCE_PATH.length + 1);
  let body: Buffer | string | null;
  let type: string;
  if (name === 'index.html') {
    // Without Swagger UI's script (a bundle install), no page that would stay blank.
    if (!asset('swagger-ui-bundle.js')) {
      throw new GleanerError('NOT_FOUND', 'The API reference page is not installed here (swagger-ui-dist is missing); the OpenAPI document is at GET /v1/openapi.json.');
    }
    [body, type] = [PAGE, 'text/html; charset=utf-8'];
  } else if (name === 'init.js') {
    [body, type] = [INIT_SCRIPT, 'text/javascript; charset=utf-8'];
  } else if (Object.hasOwn(ASSETS, name)) {
    [body, type] = [asset(name), ASSETS[name]];
  } else {
    body = null;
    type = '';
  }
  if (body === null) throw new GleanerError('NOT_FOUND', `No file ${pathname}. The API reference is at GET ${REFERENCE_PATH}.`);
  res.statusCode = 200;
  res.setHeader('Content-Type', type);
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.setHeader('Content-Security-Policy', REFERENCE_CSP);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  // The page follows the document (served fresh); Swagger UI's files change only with the package.
  res.setHeader('Cache-Control', name === 'index.html' || name === 'init.js' ? 'no-cache' : 'public, max-age=86400');
  res.end(req.method === 'HEAD' ? undefined : body);
}
