/**
 * The transcript player: the video (YouTube's embed, driven through the IFrame API's postMessage
 * commands; other platforms: a link), its chapters, and the transcript with the current line
 * followed. A click on a line or a chapter seeks there and tells the host where the person is
 * (ui/update-model-context), so the model knows what they are watching. Search filters the lines.
 */
import type { AppParts } from './bridge.js';

/** The origin the player embeds (named in the app's CSP frame domains). */
export const YOUTUBE_EMBED_ORIGIN = 'https://www.youtube.com';

const CSS = `
#video iframe { width: 100%; aspect-ratio: 16 / 9; border: 0; }
#now { font-variant-numeric: tabular-nums; }
#chapters { display: flex; flex-wrap: wrap; gap: 4px; margin: 8px 0; padding: 0; list-style: none; }
#chapters button { border: 1px solid #8884; border-radius: 12px; padding: 2px 10px; background: none; color: inherit; }
#search { width: 100%; box-sizing: border-box; padding: 4px 8px; margin: 4px 0; }
#lines { max-height: 360px; overflow-y: auto; margin: 0; padding: 0; list-style: none; }
#lines li { padding: 2px 4px; cursor: pointer; border-radius: 4px; }
#lines li.current { background: #8883; }
#lines li[hidden] { display: none; }
.time { opacity: 0.6; margin-right: 6px; font-variant-numeric: tabular-nums; }
.speaker { font-weight: 600; margin-right: 4px; }
`;

const BODY = `<h1 id="title">Transcript</h1><div id="source" class="muted"></div><div id="video"></div>
<div>Now at <span id="now">00:00</span></div><ul id="chapters" aria-label="Chapters"></ul>
<input id="search" type="search" placeholder="Search the transcript" aria-label="Search the transcript"><ul id="lines"></ul>`;

const SCRIPT = String.raw`
const clock = (s) => { s = Math.floor(s); const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = String(s % 60).padStart(2, '0'); return h ? h + ':' + String(m).padStart(2, '0') + ':' + r : String(m).padStart(2, '0') + ':' + r; };
const state = { lines: [], chapters: [], videoId: undefined, frame: undefined, time: 0, title: '' };

function showVideo(platform, videoId, url, facts) {
  const box = document.getElementById('video');
  box.replaceChildren();
  if (platform === 'youtube' && /^[\w-]{11}$/.test(videoId || '')) {
    state.videoId = videoId;
    state.frame = el('iframe', { title: 'Video', src: 'https://www.youtube.com/embed/' + videoId + '?enablejsapi=1', allow: 'autoplay; encrypted-media' });
    // As the IFrame API does: "listening" makes the embed report its time (infoDelivery).
    state.frame.addEventListener('load', () => state.frame.contentWindow.postMessage(JSON.stringify({ event: 'listening', id: 1 }), 'https://www.youtube.com'));
    box.append(state.frame);
  } else if (url) {
    const link = el('a', { href: url, textContent: (facts && facts.title) || url });
    link.addEventListener('click', (e) => { e.preventDefault(); bridge.openLink(url); });
    box.append(el('p', {}, 'Watch on ' + (platform || 'its site') + ': ', link));
  }
}

/** The IFrame API's own messages to the embed (what its loader script sends). */
function command(func, args) {
  if (state.frame && state.frame.contentWindow) state.frame.contentWindow.postMessage(JSON.stringify({ event: 'command', func, args }), 'https://www.youtube.com');
}

window.addEventListener('message', (event) => {
  if (!state.frame || event.source !== state.frame.contentWindow || typeof event.data !== 'string') return;
  try {
    const data = JSON.parse(event.data);
    if (data.event === 'infoDelivery' && data.info && typeof data.info.currentTime === 'number') follow(data.info.currentTime);
  } catch {}
});

function chapterAt(seconds) {
  let found;
  state.chapters.forEach((c, i) => { if (c.start <= seconds) found = { ...c, number: i + 1 }; });
  return found;
}

/** The current line is the last one starting at or before the time; it is kept in view. */
function follow(seconds) {
  state.time = seconds;
  document.getElementById('now').textContent = clock(seconds);
  let current;
  for (const line of state.lines) if (line.start !== undefined && line.start <= seconds) current = line;
  for (const line of state.lines) line.node.classList.toggle('current', line === current);
  if (current) current.node.scrollIntoView({ block: 'nearest' });
}

function seek(seconds) {
  command('seekTo', [seconds, true]);
  follow(seconds);
  const chapter = chapterAt(seconds);
  const where = clock(seconds) + (chapter ? ' (chapter ' + chapter.number + ': ' + chapter.title + ')' : '');
  bridge.request('ui/update-model-context', { content: [{ type: 'text', text: 'The user moved the player of ' + state.title + ' to ' + where + '.' }] }).catch(() => undefined);
}

function speakerNames(segments) {
  const numbers = new Map();
  return segments.map((s, i) => {
    if (!s.speaker || (segments[i - 1] && segments[i - 1].speaker === s.speaker)) return '';
    if (!numbers.has(s.speaker)) numbers.set(s.speaker, numbers.size + 1);
    return 'Speaker ' + numbers.get(s.speaker) + ':';
  });
}

function showTranscript(transcript) {
  const list = document.getElementById('lines');
  const segments = Array.isArray(transcript.content) ? transcript.content : String(transcript.content || '').split('\n').filter(Boolean).map((text) => ({ text }));
  const speakers = speakerNames(segments);
  state.lines = segments.map((s, i) => {
    const start = typeof s.offset === 'number' ? s.offset / 1000 : undefined;
    const node = el('li', { tabIndex: 0 }, start === undefined ? undefined : el('span', { className: 'time', textContent: clock(start) }), speakers[i] ? el('span', { className: 'speaker', textContent: speakers[i] }) : undefined, s.text);
    if (start !== undefined) node.addEventListener('click', () => seek(start));
    return { node, start, text: s.text.toLowerCase() };
  });
  list.replaceChildren(...state.lines.map((line) => line.node));
  state.chapters = (transcript.chapters || []).slice().sort((a, b) => a.start - b.start);
  const chapters = document.getElementById('chapters');
  chapters.replaceChildren(...state.chapters.map((c, i) => {
    const button = el('button', { type: 'button', textContent: (i + 1) + '. ' + c.title + ' ' + clock(c.start) });
    button.addEventListener('click', () => seek(c.start));
    return el('li', {}, button);
  }));
}

document.getElementById('search').addEventListener('input', (event) => {
  const wanted = event.target.value.trim().toLowerCase();
  for (const line of state.lines) line.node.hidden = wanted !== '' && !line.text.includes(wanted);
});

function showTranscriptResult(result) {
  const page = bridge.pageOf(result);
  const transcript = page.result || page;
  const facts = page.video || {};
  state.title = page.title || facts.title || (transcript.videoId ? transcript.platform + ' video ' + transcript.videoId : 'the video');
  document.getElementById('title').textContent = state.title;
  document.getElementById('source').textContent = [transcript.lang, transcript.durationMinutes ? Number(transcript.durationMinutes).toFixed(1) + ' min' : '', transcript.aiGenerated ? 'speech to text' : 'captions'].filter(Boolean).join(' · ');
  showVideo(transcript.platform || facts.platform, transcript.videoId || facts.id, page.url || facts.url, facts);
  showTranscript(transcript);
  // A long transcript comes in pages: the player shows them all, fetched after the first.
  if (Array.isArray(transcript.content)) {
    let segments = transcript.content;
    bridge.nextPages(result, (next) => {
      segments = segments.concat((next.result || next).content || []);
      showTranscript({ ...transcript, content: segments });
      follow(state.time);
    });
  }
}
`;

/** The player's parts; its script defines showTranscriptResult(result). */
export const PLAYER: AppParts = { css: CSS, body: `<section id="player">${BODY}</section>`, script: SCRIPT };
