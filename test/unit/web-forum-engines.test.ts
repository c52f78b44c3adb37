/**
 * Threads of forum engines whose markup the earlier thread rules did not read (docs/web-extraction.md,
 * round 6), through the whole extraction: a thread declared only in JSON-LD beside og:type "article",
 * posts numbered under their class's word with no discussion markup (Invision), an opening post built like
 * the replies but outside their list (Vanilla), a thread sent in <noscript> whose posts quote markup.
 * Synthetic pages in the structure of each engine; no real page is copied.
 */
import { describe, expect, it } from 'vitest';
import { extractPage } from '../../src/web/extract.js';
import { parseDocument, type DomElement } from '../../src/web/dom.js';
import { isDiscussionPage, isThreadPage } from '../../src/web/discussion.js';

const mainText = (html: string, url = 'https://forum.example/topic/42-the-harbour-wall/') => extractPage(html, { url, format: 'text', onlyMainContent: true }).content;
const bodyOf = (html: string) => parseDocument(html).body as DomElement;

/** An opening post of over 500 characters: on its own block, the earlier rules read it as an article body. */
const OPENING =
  'We are restoring the north wall of the harbour this summer and want to repoint it the way it was done in 1954. Does anyone know whether the masons used lime mortar or cement, and where the granite came from? The trust has a small grant for the work, and the contractor we spoke to wants to use a modern mix, which I doubt will last. Any photographs of the old joints, close enough to see the width and the finish, would help us argue the case at the next meeting of the harbour committee in August. Thanks in advance.';
const REPLIES = [
  'My grandfather worked on that repair; he said the granite blocks were hauled up from the beach by a team of horses, and that the mortar was lime from the kiln at the point.',
  'The trust minutes of 1953 are in the library and name the quarry: the old one near the lighthouse, closed in 1971 and now a nature reserve with nesting seabirds in spring.',
  'Lime, certainly. Cement was tried on the east pier in the sixties and it cracked within ten winters, which is why the council went back to lime for every repair since then.',
  'There is a photo of the 1953 breach in the museum at Kirkwall, with the lifeboat crew standing in the gap; the courses above the breach show the old pointing very clearly.',
  'If you can, talk to the conservation officer before you start: the wall is listed, and the consent for the work will name the mortar mix and the size of the joints you may use.',
];
/** A reply longer than the opening post: the opening post is a post among posts, not an article body. */
const LONG_REPLY =
  'I have the harbour master’s log of both summers of the work. It records the weather, the tides and the number of blocks laid each day, and on the ninth of June 1954 it notes that the masons refused cement sent from the mainland and mixed their own lime mortar, burnt at the kiln on the point, as their fathers had for the pier in 1890. The joints were struck flush and brushed, about a finger wide, and the log says the foreman checked every course with a straight edge before the next was laid. I can scan the pages for the committee if that would help, and there are two photographs of the masons at work pasted into the back of the second volume.';

/**
 * An Invision Community topic without microdata: the whole topic in one `div#comments`, each post an
 * `article#elComment_N.ipsComment` with its author pane (an <aside>), a date line, the post's body and its
 * controls; the page's <main> around it all.
 */
function invisionTopic(posts: string[]): string {
  const articles = posts
    .map(
      (text, i) =>
        `<a id="comment-${9100 + i}"></a><article id="elComment_${9100 + i}" class="cPost ipsBox ipsComment ipsComment_parent ipsClearfix ipsColumns"><aside class="ipsComment_author cAuthorPane ipsColumn"><h3 class="cAuthorPane_author"><a href="/profile/${i}-member${i}/">member${i}</a></h3><ul class="cAuthorPane_info"><li>Members</li><li><a href="/profile/${i}-member${i}/content/">${1200 + i * 311} posts</a></li><li>Location: Orkney</li></ul></aside><div class="ipsColumn ipsColumn_fluid"><div id="comment-${9100 + i}_wrap" class="ipsComment_content ipsType_medium"><div class="ipsComment_meta ipsType_light">Posted <time datetime="2024-06-0${i + 1}T10:00:00Z">June ${i + 1}, 2024</time></div><div class="cPost_contentWrap"><div class="ipsType_normal ipsType_richText ipsContained"><p>${text}</p></div></div><ul class="ipsComment_controls ipsList_reset"><li><a href="#" class="ipsButton_link">Quote</a></li></ul></div></div></article>`,
    )
    .join('');
  return `<html><head><title>The harbour wall repointing - Island Forum</title><meta property="og:type" content="website"></head><body><div id="ipsLayout_header"><header><a href="/">Island Forum</a></header><nav><ul><li><a href="/forums/">Browse</a></li><li><a href="/discover/">Activity</a></li><li><a href="/search/">Search</a></li></ul></nav></div><main id="ipsLayout_body" class="ipsLayout_container"><nav class="ipsBreadcrumb"><a href="/">Home</a> › <a href="/forums/3-history/">History</a></nav><div class="ipsPageHeader"><h1 class="ipsType_pageTitle">The harbour wall repointing</h1><p>By member0, June 1, 2024 in History</p></div><div id="comments" class="cTopic ipsClear ipsSpacer_top">${articles}</div><div class="ipsBox"><h2>Create an account or sign in to comment</h2><p>You need to be a member in order to leave a comment</p></div></main><footer><a href="/privacy/">Privacy Policy</a> <a href="/contact/">Contact Us</a></footer></body></html>`;
}

/**
 * A Vanilla Forums discussion: the title in a page heading box, the opening post in a `div.Discussion`
 * before the comments' list (`li#Comment_N.ItemComment > div.Comment`), each post's body a
 * `div.Message.userContent` inside the same wrappers; og:type "article" and no other markup.
 */
function vanillaDiscussion(opening: string, comments: string[]): string {
  const item = (text: string) =>
    `<div class="Item-Header"><a href="/profile/x" class="PhotoWrap"><img src="/u.png" alt=""></a><span class="Author"><a href="/profile/x" class="Username">member</a></span><span class="AuthorInfo"><span class="MItem PostCount">Posts: <b>412</b></span></span><div class="Meta"><span class="MItem DateCreated"><time datetime="2024-06-01T10:00:00+00:00">June 2024</time></span></div></div><div class="Item-BodyWrap"><div class="Item-Body"><div class="Message userContent">${text}</div><div class="Reactions"><a href="/react/like">Like</a> <a href="/react/flag">Flag</a></div></div></div>`;
  const list = comments.map((text, i) => `<li class="Item Alt ItemComment" id="Comment_${52000 + i}"><div class="Comment">${item(text)}</div></li>`).join('');
  return `<html><head><title>Repointing the harbour wall — Island Forum</title><meta property="og:type" content="article"></head><body><div class="Frame"><header class="Header"><a href="/">Island Forum</a> <a href="/categories">Categories</a> <a href="/discussions">Recent Discussions</a> <a href="/activity">Activity</a></header><main class="Frame-body"><section class="Content MainContent"><nav class="BreadcrumbsBox"><a href="/">Home</a> › <a href="/categories/history">History</a></nav><div id="Item_0" class="PageTitle pageHeadingBox"><h1>Repointing the harbour wall</h1></div><section class="pageBox"><div class="MessageList Discussion"><div id="Discussion_4242" class="Item ItemDiscussion"><div class="Discussion">${item(opening)}</div></div></div><div class="pageHeadingBox"><h2 class="CommentHeading">Comments</h2></div><ul class="MessageList DataList Comments pageBox">${list}</ul></section><div class="P PagerWrap"><a href="/discussion/4242/p2">Next</a></div></section><aside class="Panel"><h4>In this Discussion</h4><ul><li><a href="/profile/a">member</a></li></ul></aside></main><footer class="Footer"><a href="/terms">Terms of Service</a></footer></div></body></html>`;
}

describe('a forum thread declared only in JSON-LD', () => {
  const thread = (types: string) =>
    `<html><head><meta property="og:type" content="article"><script type="application/ld+json">${JSON.stringify({ '@context': 'https://schema.org', '@graph': types.split(',').map((type) => ({ '@type': type, headline: 'The harbour wall' })) })}</script></head><body><h1>The harbour wall</h1><p>${OPENING}</p></body></html>`;

  it('is a discussion though the page says og:type "article" (forum engines set it on every topic)', () => {
    const html = thread('DiscussionForumPosting');
    expect(isDiscussionPage(html, bodyOf(html))).toBe(true);
    const question = thread('QAPage');
    expect(isDiscussionPage(question, bodyOf(question))).toBe(true);
  });

  it('a page whose JSON-LD also types it as an article is not', () => {
    const html = thread('NewsArticle,DiscussionForumPosting');
    expect(isDiscussionPage(html, bodyOf(html))).toBe(false);
  });
});

describe('an Invision Community topic without discussion markup', () => {
  it('keeps every post in page order, not the topic dropped as a comment box, and leaves the author panes out', () => {
    const html = invisionTopic([OPENING, ...REPLIES]);
    expect(isThreadPage(bodyOf(html))).toBe(true);
    const text = mainText(html);
    const at = [OPENING, ...REPLIES].map((post) => text.indexOf(post));
    for (const position of at) expect(position).toBeGreaterThanOrEqual(0);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    expect(text).not.toContain('Location: Orkney');
    expect(text).not.toContain('Privacy Policy');
  });
});

describe('a Vanilla discussion: the opening post built like the replies, outside their list', () => {
  it('is a thread, and the main text is the opening post and every comment in page order', () => {
    const comments = [REPLIES[0]!, LONG_REPLY, ...REPLIES.slice(1)];
    const html = vanillaDiscussion(OPENING, comments);
    expect(isThreadPage(bodyOf(html))).toBe(true);
    const text = mainText(html, 'https://forum.example/discussion/4242/repointing-the-harbour-wall');
    const at = [OPENING, ...comments].map((post) => text.indexOf(post));
    for (const position of at) expect(position).toBeGreaterThanOrEqual(0);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    for (const furniture of ['Recent Discussions', 'Terms of Service', 'In this Discussion']) expect(text).not.toContain(furniture);
  });

  it('an opening post longer than every reply stays an article above its comments (a guide with replies below)', () => {
    const guide = [OPENING, ...REPLIES.map((reply) => reply.replace('the', 'our'))].map((p) => `<p>${p}</p>`).join('');
    const html = vanillaDiscussion(guide, REPLIES);
    expect(isThreadPage(bodyOf(html))).toBe(false);
  });
});

describe('a thread sent in <noscript> whose posts quote markup', () => {
  it('is read: a tag written in a post (a build log, a code sample) does not make the block markup as text', () => {
    // As Discourse sends it: the replies marked up as schema.org Comments, the opening post not.
    const posts = [OPENING, ...REPLIES]
      .map((text, i) => `<div id="post_${i + 1}"${i ? ' itemprop="comment" itemscope itemtype="http://schema.org/Comment"' : ''} class="topic-body crawler-post"><div class="crawler-post-meta"><span class="creator"><a href="/u/m${i}">member${i}</a></span></div><div class="post"><p>${text}</p>${i === 1 ? '<pre><code>&lt;div class="wall"&gt;granite&lt;/div&gt;</code></pre>' : ''}</div></div>`)
      .join('');
    const html = `<html><head><title>The harbour wall - Island Forum</title></head><body><main id="app-shell"><a href="/">Island Forum</a> <span>Loading…</span></main><noscript data-path="/t/the-harbour-wall/42"><div id="main-outlet" class="wrap" role="main"><h1>The harbour wall</h1>${posts}</div></noscript></body></html>`;
    const text = mainText(html, 'https://forum.example/t/the-harbour-wall/42');
    for (const post of [OPENING, ...REPLIES]) expect(text).toContain(post);
  });

  it('a <noscript> holding markup written as text (a page saved after its scripts ran) is still no content', () => {
    const pixels = Array.from({ length: 6 }, (_, i) => `&lt;div style="position:absolute;"&gt;&lt;img width=1 height=1 alt="" src="https://beacon.example/b?P=${i}&amp;T=1489053188"&gt;&lt;/div&gt;`).join('');
    const html = `<html><body><main><h1>The harbour wall</h1><p>${OPENING}</p></main><noscript>${pixels}</noscript><noscript>${pixels}</noscript></body></html>`;
    const text = mainText(html, 'https://news.example/the-harbour-wall');
    expect(text).toContain(OPENING);
    expect(text).not.toContain('beacon.example');
  });
});

/**
 * A forum built with generated class names (styled-components under a React UI kit): JSON-LD declares the
 * thread, each post is a `div` of one generated make whose id is a random key, with an avatar, the
 * author's name and a date in its header, then its body; nothing names a post, a comment or a reply.
 */
function generatedNamesThread(posts: string[], declared = true): string {
  const ids = ['01KB5XS8BFGPR5KXABFMBEEYXT', '01KB5YANQENXP5EE0EZ14JY0A2', '01KB5YNA47AEJ1PZ6JD0EXK4K8', '01KB5Z0G3BBM1HE4WHJD2BRQ41', '01KB5ZWQQ1KR4VZ7MF0GCMPZGF', '01KB60J2PEQAK88JZ0YR9KKVK3', '01KB60TGPXWQWP7TG47MK1M6H8'];
  const blocks = posts
    .map(
      (text, i) =>
        `<div><div class="sc-dYdCZC bTdWbN"><div id="${ids[i]}" class="sc-ksPmiX kKPaZQ"><div class="sc-erkanz ebwSBp"><div class="sc-ezredP hhAPeI"><img src="/avatars/${i}.webp" alt="member ${i}"></div><div class="sc-eTLXjT hjQIOA"><div class="sc-jQbJRc kdFqjr">Member ${i}</div><div class="sc-fcmNWj hBxASz">0${i + 1}/06/2024 at 7:0${i} pm</div></div></div></div><div class="sc-tYqdw bgQbev"><div>${text
          .split(/(?<=\.) /)
          .map((sentence) => `<p><span>${sentence}</span></p>`)
          .join('')}</div></div><div class="sc-iMeepW dfGDqq"><button type="button" aria-label="Like">${i}</button><button type="button" aria-label="Reply to post">Reply</button></div></div></div>`,
    )
    .join('');
  const jsonLd = declared
    ? `<script type="application/ld+json">${JSON.stringify({ '@context': 'https://schema.org', '@type': 'DiscussionForumPosting', headline: 'The harbour wall repointing', author: { '@type': 'Person', name: 'Member 0' } })}</script>`
    : '';
  return `<html><head><title>The harbour wall repointing | Island Forum</title>${jsonLd}</head><body><div id="__next"><header class="sc-hKgILt kqzHbD"><a href="/">Island Forum</a> <a href="/chat/">Chat</a> <a href="/local/">Local</a></header><div class="sc-jMScHd aYbQd"><nav class="sc-bdfBwQ"><a href="/">Forum</a> / <a href="/history/">History</a></nav><div class="sc-dWrMgH gxbfxk"><h1 class="sc-dQoVA kA-DqeZ">The harbour wall repointing</h1><p class="sc-jSgvzq eZBNAi">${posts.length - 1} answers</p></div><div class="sc-bgJKwL kujYvF">${blocks}</div></div><aside class="sc-gsTCUz bhdLno"><h3>Popular threads</h3><a href="/t/1">School run parking</a> <a href="/t/2">Ferry timetable changes</a></aside><footer class="sc-bqyKva"><a href="/privacy/">Privacy Policy</a></footer></div></body></html>`;
}

describe('a declared thread whose posts are known by their make alone (generated class names, random ids)', () => {
  const posts = [OPENING, ...REPLIES.slice(0, 3), LONG_REPLY, REPLIES[3]!];

  it('keeps every post in page order, not the one long reply Readability picks', () => {
    const html = generatedNamesThread(posts);
    const text = mainText(html, 'https://forum.example/history/the-harbour-wall.html');
    // Each post's body is one paragraph per sentence: every post is looked for by its last sentence.
    const at = posts.map((post) => text.indexOf(post.split(/(?<=\.) /).at(-1)!));
    for (const position of at) expect(position).toBeGreaterThanOrEqual(0);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    expect(text).toContain('Member 4');
    for (const furniture of ['Popular threads', 'Privacy Policy', 'Ferry timetable']) expect(text).not.toContain(furniture);
  });

  it('the same blocks on a page that declares no thread are no discussion', () => {
    const html = generatedNamesThread(posts, false);
    expect(isDiscussionPage(html, bodyOf(html))).toBe(false);
  });
});
