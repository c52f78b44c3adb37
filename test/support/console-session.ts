/** Signing in to the console over plain HTTP, the way its sign-in form does (for tests without a browser). */

const FORM = 'application/x-www-form-urlencoded';

/** Gets the sign-in form (its cookie and token) and posts `key` with them; the raw reply. */
export async function postSignIn(baseUrl: string, key: string): Promise<Response> {
  const blank = await fetch(`${baseUrl}/console/sign-in`);
  const formCookie = blank.headers.getSetCookie()[0].split(';')[0];
  const formToken = /name="csrf" value="([^"]+)"/.exec(await blank.text())![1];
  return fetch(`${baseUrl}/console/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: formCookie, origin: baseUrl, 'content-type': FORM },
    body: new URLSearchParams({ csrf: formToken, key }),
  });
}

/** The session cookie (`name=value`) of a successful sign-in. */
export async function consoleSession(baseUrl: string, key: string): Promise<string> {
  const posted = await postSignIn(baseUrl, key);
  const cookie = posted.headers.getSetCookie().find((c) => c.startsWith('gleaner_console=') && !c.startsWith('gleaner_console=;'));
  if (posted.status !== 303 || !cookie) throw new Error(`sign-in failed with ${posted.status}`);
  return cookie.split(';')[0];
}

/** The form token of a session, read from one of its pages. */
export async function formToken(baseUrl: string, cookie: string, page = '/console'): Promise<string> {
  const text = await (await fetch(`${baseUrl}${page}`, { headers: { cookie } })).text();
  const found = /name="csrf" value="([^"]+)"/.exec(text);
  if (!found) throw new Error(`no form on ${page}: ${text.slice(0, 2000)}`);
  return found[1];
}

/** Posts a console form from the console's own origin. */
export function postForm(baseUrl: string, path: string, cookie: string, fields: Record<string, string>, headers: Record<string, string> = { origin: baseUrl }): Promise<Response> {
  return fetch(`${baseUrl}${path}`, { method: 'POST', redirect: 'manual', headers: { 'content-type': FORM, cookie, ...headers }, body: new URLSearchParams(fields) });
}
