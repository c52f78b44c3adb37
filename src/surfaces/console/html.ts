/**
 * HTML for the console, written as tagged templates: every interpolated value is escaped unless it
 * is already Html (built by this same tag), so no caller-supplied text (a key's name, a job's error)
 * can become markup. No inline script or style anywhere: the Content-Security-Policy forbids both.
 */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Part = Html | string | number | boolean | null | undefined | Part[];

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return '';
  if (Array.isArray(part)) return part.map(render).join('');
  if (part instanceof Html) return part.text;
  return escapeHtml(String(part));
}

export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1];
  return new Html(out);
}

export interface Layout {
  title: string;
  body: Html;
  /** Present when signed in: the navigation and the sign-out form. */
  nav?: {
    current: string;
    keyLabel: string;
    owner: boolean;
    oauthClients: boolean;
    csrf: string;
  };
}

const LINKS: Array<{ path: string; label: string; show: (nav: NonNullable<Layout['nav']>) => boolean }> = [
  { path: '/console', label: 'Overview', show: () => true },
  { path: '/console/usage', label: 'Usage', show: () => true },
  { path: '/console/jobs', label: 'Jobs', show: () => true },
  { path: '/console/oauth-clients', label: 'OAuth clients', show: (nav) => nav.oauthClients },
  { path: '/console/keys', label: 'Keys', show: (nav) => nav.owner },
];

export function page(layout: Layout): string {
  const nav = layout.nav;
  return (
    '<!doctype html>\n' +
    html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${layout.title} · Gleaner console</title>
<link rel="stylesheet" href="/console/console.css">
</head>
<body>
<header class="top">
<a class="brand" href="/console">Gleaner console</a>
${
  nav
    ? html`<nav aria-label="Console">${LINKS.filter((link) => link.show(nav)).map(
        (link) => html`<a href="${link.path}"${link.path === nav.current ? html` aria-current="page"` : ''}>${link.label}</a>`,
      )}</nav>
<form class="signout" method="post" action="/console/sign-out"><span class="who">${nav.keyLabel}</span><input type="hidden" name="csrf" value="${nav.csrf}"><button type="submit">Sign out</button></form>`
    : ''
}
</header>
<main>
<h1>${layout.title}</h1>
${layout.body}
</main>
</body>
</html>
`.text
  );
}

/** A whole number with thousands separators, or "unlimited". */
export function amount(value: number | null): string {
  return value === null ? 'unlimited' : value.toLocaleString('en-US');
}

/** An ISO time as "2026-11-27 01:59 UTC" (no client-side formatting: there is no script). */
export function when(iso: string | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? '' : `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
