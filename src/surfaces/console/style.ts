/**
 * The console's one stylesheet, served at /console/console.css (the policy allows style only from
 * this origin's files: no inline style). The chart's series colours are classes s0..s9.
 */
import { createHash } from 'node:crypto';

export const STYLESHEET = `
:root { color-scheme: light dark; --fg: #1b1f24; --bg: #fbfbfa; --muted: #5b6570; --line: #d6d9dd; --accent: #1f5fbf; --bad: #b3261e; --ok: #1e7b34; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6e8eb; --bg: #16181b; --muted: #9aa4ae; --line: #353a40; --accent: #7fb0ff; --bad: #ff8a80; --ok: #7bd88f; } }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
header.top { display: flex; flex-wrap: wrap; gap: 1rem; align-items: center; padding: .6rem 1.2rem; border-bottom: 1px solid var(--line); }
header.top .brand { font-weight: 600; color: var(--fg); text-decoration: none; }
header.top nav { display: flex; gap: .9rem; flex: 1; }
header.top nav a { color: var(--accent); text-decoration: none; }
header.top nav a[aria-current=page] { color: var(--fg); font-weight: 600; }
form.signout { display: flex; gap: .6rem; align-items: center; margin: 0; }
.who { color: var(--muted); font-family: ui-monospace, monospace; font-size: .9em; }
main { max-width: 70rem; padding: 1rem 1.2rem 3rem; }
h1 { font-size: 1.4rem; margin: .4rem 0 1rem; }
h2 { font-size: 1.1rem; margin: 1.6rem 0 .6rem; }
table { border-collapse: collapse; width: 100%; margin: .4rem 0 1rem; }
th, td { text-align: left; padding: .35rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { color: var(--muted); font-weight: 500; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
code, .mono { font-family: ui-monospace, monospace; font-size: .92em; }
dl.figures { display: grid; grid-template-columns: repeat(auto-fill, minmax(13rem, 1fr)); gap: .8rem; margin: 0 0 1rem; }
dl.figures div { border: 1px solid var(--line); border-radius: 6px; padding: .6rem .8rem; }
dl.figures dt { color: var(--muted); font-size: .85em; }
dl.figures dd { margin: 0; font-size: 1.3rem; font-weight: 600; }
.note { color: var(--muted); }
.error { color: var(--bad); border: 1px solid var(--bad); border-radius: 6px; padding: .5rem .8rem; }
.success { color: var(--ok); border: 1px solid var(--ok); border-radius: 6px; padding: .5rem .8rem; }
.secret { font-family: ui-monospace, monospace; font-size: 1.05rem; padding: .6rem .8rem; border: 1px dashed var(--fg); border-radius: 6px; word-break: break-all; user-select: all; }
form.inline { display: inline; margin: 0; }
form.stack { display: grid; gap: .6rem; max-width: 28rem; }
label { display: grid; gap: .2rem; }
input, select, button { font: inherit; padding: .35rem .55rem; border: 1px solid var(--line); border-radius: 5px; background: var(--bg); color: var(--fg); }
button { cursor: pointer; border-color: var(--accent); color: var(--accent); }
button.danger { border-color: var(--bad); color: var(--bad); }
.status-completed { color: var(--ok); }
.status-failed, .status-cancelled { color: var(--bad); }
.status-processing, .status-queued { color: var(--accent); }
pre { white-space: pre-wrap; overflow-wrap: anywhere; border: 1px solid var(--line); border-radius: 6px; padding: .6rem; }
svg.chart { width: 100%; max-width: 56rem; height: auto; }
svg.chart text { fill: var(--muted); font: 11px system-ui, sans-serif; }
svg.chart line.grid { stroke: var(--line); }
ul.legend { list-style: none; display: flex; flex-wrap: wrap; gap: .4rem 1rem; padding: 0; margin: .2rem 0 1rem; }
ul.legend li::before { content: ""; display: inline-block; width: .8em; height: .8em; margin-right: .35em; border-radius: 2px; vertical-align: -1px; background: currentColor; }
.s0 { fill: #4e79a7; color: #4e79a7; } .s1 { fill: #f28e2b; color: #f28e2b; } .s2 { fill: #59a14f; color: #59a14f; }
.s3 { fill: #e15759; color: #e15759; } .s4 { fill: #76b7b2; color: #76b7b2; } .s5 { fill: #edc948; color: #edc948; }
.s6 { fill: #b07aa1; color: #b07aa1; } .s7 { fill: #ff9da7; color: #ff9da7; } .s8 { fill: #9c755f; color: #9c755f; }
.s9 { fill: #bab0ac; color: #bab0ac; }
ul.legend li span { color: var(--fg); }
.switch a { margin-right: .8rem; }
.switch a[aria-current=page] { font-weight: 600; color: var(--fg); text-decoration: none; }
`;

/** A validator for the stylesheet, so a browser asks again after an upgrade changed it. */
export const STYLESHEET_ETAG = `"${createHash('sha256').update(STYLESHEET).digest('base64url').slice(0, 16)}"`;
