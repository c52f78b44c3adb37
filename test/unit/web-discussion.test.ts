/**
 * Main text of discussion pages and of short posts beside a headline widget, through the whole
 * extraction (Readability and the cleaning): a thread without any discussion markup keeps its
 * replies, an article with a long comment section still loses it, a thread sent inside <noscript>
 * (Discourse) is read, and a widget of headlines does not win over a two-sentence post.
 */
import { describe, expect, it } from 'vitest';
import { extractPage } from '../../src/web/extract.js';
import { parseDocument, type DomElement } from '../../src/web/dom.js';
import { isThreadPage } from '../../src/web/discussion.js';
import { isNavigationLike, removeNavigationBlocks } from '../../src/web/navigation.js';

const mainText = (html: string, url = 'https://site.example/page') => extractPage(html, { url, format: 'text', onlyMainContent: true }).content;
const bodyOf = (html: string) => parseDocument(html).body as DomElement;

const REPLIES = [
  'The north wall was rebuilt in 1954 with stone from the old quarry near the lighthouse, and it has held since.',
  'My grandfather worked on that repair; he said the granite blocks were hauled up from the beach by a team of horses.',
  'Is the quarry still open? I walked past it last summer and the gate was chained, with a sign about falling rocks.',
  'It closed in 1971. The council bought the land and it is a nature reserve now, mostly nesting seabirds in spring.',
  'There is a photo of the 1953 breach in the museum at Kirkwall, with the lifeboat crew standing in the gap.',
  'The breach was forty feet wide at high water, according to the harbour master’s log that the museum keeps.',
];

/** A comment page in the manner of a link aggregator: a table layout, no discussion markup, each reply a "comment". */
function aggregatorThread(replies: string[]): string {
  const rows = replies
    .map(
      (text, i) =>
        `<tr class="athing comtr" id="${100 + i}"><td><table><tr><td class="ind" indent="${i % 2}"></td><td class="default"><div><span class="comhead"><a href="/user?id=u${i}" class="hnuser">reader${i}</a> <span class="age"><a href="/item?id=${100 + i}">3 hours ago</a></span></span></div><div class="comment"><div class="commtext c00">${text}</div><div class="reply"><p><a href="/reply?id=${100 + i}">reply</a></p></div></div></td></tr></table></td></tr>`,
    )
    .join('');
  return `<html><head><title>The harbour wall of 1820 | Links</title></head><body><center><table id="main"><tr><td><table><tr><td><span class="pagetop"><b><a href="/news">Links</a></b> <a href="/newest">new</a> | <a href="/past">past</a> | <a href="/comments">comments</a> | <a href="/ask">ask</a></span></td></tr></table></td></tr><tr><td><table class="fatitem"><tr class="athing submission"><td class="title"><span class="titleline"><a href="https://history.example/wall">The harbour wall of 1820 and the gale that broke it</a></span></td></tr><tr><td class="subtext"><span class="score">212 points</span> by <a href="/user?id=op">op</a> <span class="age"><a href="/item?id=99">5 hours ago</a></span> | <a href="/item?id=99">${replies.length} comments</a></td></tr></table><br><table class="comment-tree">${rows}</table></td></tr></table></center></body></html>`;
}

const ARTICLE_PARAGRAPHS = [
  'The harbour wall, built in 1820 from granite quarried on the island, held through every winter storm until the great gale of 1953 broke it in two places.',
  'Engineers from the mainland arrived a week later and found the foundations sound; it was the upper courses, laid in a hurry in the last summer of the works, that had given way.',
  'The repair took two summers and most of the island’s men, and the cost was met in the end by a fund raised in the fishing ports of the north.',
  'Today the wall carries a walkway and a plaque naming the men who rebuilt it, and the lifeboat station at its end is the busiest on the coast.',
];

describe('discussion pages without discussion markup keep their replies', () => {
  it('a comment page whose content is its replies (a title link, a points line, "comment" boxes) keeps them', () => {
    const html = aggregatorThread(REPLIES);
    expect(isThreadPage(bodyOf(html))).toBe(true);
    const text = mainText(html);
    for (const reply of REPLIES) expect(text).toContain(reply);
  });

  it('a news article with a longer comment section below it still drops the comments', () => {
    const comments = [...REPLIES, ...REPLIES, ...REPLIES]
      .map((text, i) => `<li class="comment" id="comment-${i}"><article class="comment-body"><footer class="comment-meta"><b class="fn">reader${i}</b> <time>June ${i + 1}, 2019</time></footer><div class="comment-content"><p>${text}</p></div><div class="reply"><a href="#respond">Reply</a></div></article></li>`)
      .join('');
    const html = `<html><head><title>The harbour wall</title></head><body><header><nav><a href="/">Home</a> <a href="/news">News</a></nav></header><main><article class="post"><h1>The harbour wall</h1><div class="entry-content">${ARTICLE_PARAGRAPHS.map((p) => `<p>${p}</p>`).join('')}</div></article><div id="comments" class="comments-area"><h2 class="comments-title">18 thoughts on “The harbour wall”</h2><ol class="comment-list">${comments}</ol></div></main><footer><p>© The Island Paper</p></footer></body></html>`;
    expect(isThreadPage(bodyOf(html))).toBe(false);
    const text = mainText(html);
    for (const paragraph of ARTICLE_PARAGRAPHS) expect(text).toContain(paragraph);
    for (const reply of REPLIES) expect(text).not.toContain(reply);
  });

  it('a short blog post with a declared body (entry-content) and many comments is still an article', () => {
    const comments = [...REPLIES, ...REPLIES].map((text, i) => `<li class="comment" id="comment-${i}"><div class="comment-author">reader${i}</div><p>${text}</p></li>`).join('');
    const post = 'Our open thread is a place to ask us anything about the harbour trust; we answer within the week.';
    const html = `<html><body><article class="post hentry"><h1>Open thread</h1><div class="entry-content"><p>${post}</p></div></article><div id="comments"><ol class="comment-list">${comments}</ol></div></body></html>`;
    expect(isThreadPage(bodyOf(html))).toBe(false);
    const withoutDeclaredBody = html.replace('entry-content', 'text');
    expect(isThreadPage(bodyOf(withoutDeclaredBody))).toBe(true);
  });

  it('a short comment section beside a page with little text is not a thread (too few posts)', () => {
    const html = aggregatorThread(REPLIES.slice(0, 1));
    expect(isThreadPage(bodyOf(html))).toBe(false);
  });
});

/**
 * A link-aggregator story page in the manner of lobste.rs: the submission (its title a heading of
 * level 1), then nested lists of replies, each a "comment" box with a byline; no discussion markup.
 */
function nestedThread(replies: string[]): string {
  const reply = (text: string, i: number, nested = '') =>
    `<li class="comments_subtree"><input id="fold_${i}" class="comment_folder_button" type="checkbox"><div id="c_${i}" class="comment"><div class="voters"><label for="fold_${i}" class="comment_folder"></label><a class="upvoter" href="/login">${i + 3}</a></div><div class="details"><div class="byline"><a href="/~reader${i}">reader${i}</a> <a href="/c/${i}"><time datetime="2024-08-12 11:00:23">1 year ago</time></a></div><div class="comment_text"><p>${text}</p></div></div></div><ol class="comments">${nested}</ol></li>`;
  const [first, second, ...rest] = replies;
  const tree = [reply(first!, 0, reply(second!, 1)), ...rest.map((text, i) => reply(text, i + 2))].join('');
  return `<html><head><title>The harbour wall of 1820 | Links</title></head><body><header id="nav"><nav class="links"><a href="/active">Active</a> <a href="/recent">Recent</a> <a href="/comments">Comments</a> <a href="/search">Search</a></nav></header><div id="inside"><ol class="stories"><li class="story"><div class="story_liner"><span role="heading" aria-level="1" class="link"><a href="https://history.example/wall">The harbour wall of 1820 and the gale that broke it</a></span> <span class="tags"><a href="/t/history">history</a></span><div class="byline">via <a href="/~op">op</a> <time>1 year ago</time> | <a href="#comments">${replies.length} comments</a></div></div></li></ol><ol class="comments comments1"><li class="comments_subtree" id="story_comments"><ol class="comments">${tree}</ol></li></ol></div><footer><a href="/about">About</a> <a href="/privacy">Privacy</a></footer></body></html>`;
}

/** One reply of four paragraphs, five times as long as any other (and less than half of all the replies' text). */
const LONG_REPLY = ARTICLE_PARAGRAPHS.join('</p><p>');

describe('a thread where one reply is much longer than the others', () => {
  it('keeps every reply, not the long one alone (the container of all the replies is the main text)', () => {
    const replies = [REPLIES[0]!, REPLIES[1]!, LONG_REPLY, ...REPLIES.slice(2), ...REPLIES.map((reply) => reply.replace('.', ', I think.'))];
    const html = nestedThread(replies);
    expect(isThreadPage(bodyOf(html))).toBe(true);
    const text = mainText(html, 'https://links.example/s/abc/the_harbour_wall');
    for (const reply of REPLIES) expect(text).toContain(reply);
    expect(text).toContain(ARTICLE_PARAGRAPHS[2]);
    // The container holds the discussion, not the site's navigation, nor the controls of the replies.
    expect(text).not.toContain('Privacy');
    expect(text).not.toContain('Recent');
  });
});

describe('a thread sent inside <noscript> (an app shell outside it)', () => {
  it('is read as the content of the page when it holds more text than the rest of the body', () => {
    const posts = REPLIES.map((text, i) => `<div id="post_${i + 1}" class="topic-body crawler-post"><div class="crawler-post-meta"><span class="creator"><a href="/u/u${i}">reader${i}</a></span> <time class="post-time">June ${i + 1}, 2024</time></div><div class="post"><p>${text}</p></div></div>`).join('');
    const html = `<html><head><title>The harbour wall - Island Forum</title></head><body><section id="main"></section><div id="app-shell"><a href="/">Island Forum</a> <a href="/latest">Latest</a></div><noscript data-path="/t/the-harbour-wall/42"><header><a href="/">Island Forum</a></header><div id="main-outlet" class="wrap" role="main"><h1>The harbour wall</h1>${posts}</div><footer><a href="/tos">Terms</a></footer></noscript><noscript><img src="/pixel.gif"></noscript></body></html>`;
    const text = mainText(html);
    for (const reply of REPLIES) expect(text).toContain(reply);
  });

  it('a <noscript> notice beside a page with its text outside stays out', () => {
    const html = `<html><body><article><h1>The wall</h1>${ARTICLE_PARAGRAPHS.map((p) => `<p>${p}</p>`).join('')}</article><noscript><p>This site works best with JavaScript turned on. Please enable it in your browser settings to see comments, maps, and the photo gallery of the harbour and its lifeboat station.</p></noscript></body></html>`;
    const text = mainText(html);
    expect(text).toContain(ARTICLE_PARAGRAPHS[3]);
    expect(text).not.toContain('enable it in your browser');
  });
});

const HEADLINES = Array.from({ length: 20 }, (_, i) => `Island news ${i + 1}: ferry timetable and harbour dues`);
const POST = 'The harbour wall reopens to walkers on Saturday after the winter repairs. The lifeboat station at its end will be open to visitors from ten until four.';

describe('a widget of headlines does not win over a short post', () => {
  it('a block of many short links is navigation-like; a post with a link in it is not', () => {
    const widget = bodyOf(`<html><body><div id="w"><h3>Latest</h3>${HEADLINES.map((h, i) => `<div class="headline"><a href="/n/${i}">${h}</a></div>`).join('')}</div></body></html>`);
    expect(isNavigationLike(widget.querySelector('#w') as DomElement)).toBe(true);
    const post = bodyOf(`<html><body><div id="p"><p>${POST} <a href="/wall">More on the wall</a>.</p></div></body></html>`);
    expect(isNavigationLike(post.querySelector('#p') as DomElement)).toBe(false);
  });

  it('removing navigation blocks keeps a post that shares a wrapper with the widget', () => {
    const body = bodyOf(`<html><body><div id="wrap"><div class="post"><p>${POST}</p></div><div class="widget"><h3>Latest</h3><ul>${HEADLINES.map((h, i) => `<li><a href="/n/${i}">${h}</a></li>`).join('')}</ul></div></div></body></html>`);
    removeNavigationBlocks(body);
    expect(body.textContent).toContain(POST);
    expect(body.textContent).not.toContain(HEADLINES[5]);
  });

  it('a two-sentence post beside a widget of 20 headlines: the post is the main text, not the headlines', () => {
    const widget = `<div class="sidebar-box"><h3>Latest from the island</h3>${HEADLINES.map((h, i) => `<div class="headline"><a href="/n/${i}">${h}</a> <span>${i + 2} hours ago, Kirkwall</span></div>`).join('')}</div>`;
    const html = `<html><head><title>Wall reopens</title></head><body><div class="layout"><div class="content"><h1>Wall reopens</h1><div class="entry"><p>${POST}</p></div></div>${widget}</div></body></html>`;
    const text = mainText(html);
    expect(text).toContain(POST);
    expect(text).not.toContain(HEADLINES[10]);
  });
});

/**
 * A forum thread in the manner of several forum engines: the opening post sits in its own block
 * before the replies' list, long enough (over 500 characters) to read as an article body, and the
 * page carries article markup (og:type article); each reply is marked up as a schema.org Comment.
 */
function forumThread(opening: string, replies: string[], replyMarkup = ' itemscope itemtype="http://schema.org/Comment"'): string {
  const posts = replies
    .map((text, i) => `<li class="board-item"><div class="board-content"${replyMarkup}><div class="board-meta"><a href="/members/u${i}">reader${i}</a> <span>${i + 1} replies</span> <time>June ${i + 2}, 2024</time></div><div class="board-text">${text}</div></div></li>`)
    .join('');
  return `<html><head><title>The harbour wall - Island Forum</title><meta property="og:type" content="article"></head><body><header><nav><a href="/">Forum</a> <a href="/new">New posts</a> <a href="/members">Members</a></nav></header><main><article class="thread card"><header class="thread-header"><h1>The harbour wall: was the 1953 repair done right?</h1><div class="thread-author"><a href="/members/op">islander</a> <time>June 1, 2024</time></div></header><div class="thread-content"><div id="main-post" class="thread-post">${opening}</div><section id="comments" class="board"><ul class="board-list">${posts}</ul></section></div></article></main><footer><a href="/terms">Terms</a></footer></body></html>`;
}

const OPENING_POST = ARTICLE_PARAGRAPHS.map((p) => `<p>${p}</p>`).join('');
/** A reply longer than the opening post (a post among posts, not an article above its comments). */
const LONGER_REPLY = `${ARTICLE_PARAGRAPHS.join(' ')} ${REPLIES[0]} ${REPLIES[1]}`;

describe('a forum thread whose opening post sits outside the replies', () => {
  it('keeps the opening post and every reply when the replies are marked up as posts and the opening post is no longer than one of them', () => {
    const replies = [...REPLIES, LONGER_REPLY];
    const html = forumThread(OPENING_POST, replies);
    expect(isThreadPage(bodyOf(html))).toBe(true);
    const text = mainText(html, 'https://forum.example/threads/the-harbour-wall.42/');
    for (const reply of REPLIES) expect(text).toContain(reply);
    expect(text).toContain(ARTICLE_PARAGRAPHS[0]);
    expect(text).not.toContain('Members');
  });

  it('an article longer than each of its comments stays an article, marked up comments or not', () => {
    const html = forumThread(OPENING_POST, REPLIES);
    expect(isThreadPage(bodyOf(html))).toBe(false);
    const text = mainText(html, 'https://news.example/the-harbour-wall');
    expect(text).toContain(ARTICLE_PARAGRAPHS[3]);
    for (const reply of REPLIES) expect(text).not.toContain(reply);
  });

  it('replies named as comments but not marked up as posts do not make the page a thread (a blog post with long comments)', () => {
    const html = forumThread(OPENING_POST, [...REPLIES, LONGER_REPLY], '');
    expect(isThreadPage(bodyOf(html))).toBe(false);
  });
});

describe('a thread where Readability keeps only some of the replies', () => {
  it('takes the whole thread when the article holds less than most of the replies, even when it is long', () => {
    // One reply longer than all the others together: Readability's article is that reply, more than half of the replies' text.
    const longest = [...ARTICLE_PARAGRAPHS, ...ARTICLE_PARAGRAPHS.map((p) => p.replace('The ', 'Then the '))].join('</p><p>');
    const replies = [REPLIES[0]!, REPLIES[1]!, longest, ...REPLIES.slice(2)];
    const html = nestedThread(replies);
    expect(isThreadPage(bodyOf(html))).toBe(true);
    const text = mainText(html, 'https://links.example/s/abc/the_harbour_wall');
    for (const reply of REPLIES) expect(text).toContain(reply);
    expect(text).toContain(ARTICLE_PARAGRAPHS[1]);
    expect(text).not.toContain('Privacy');
  });
});

/** A thread in the manner of phpBB: no discussion markup, each post a `div.post` with the post's number as its id, a profile beside it. */
function namedPostsThread(posts: string[], { wordpress = false } = {}): string {
  const body = posts
    .map(
      (text, i) =>
        `<div id="${wordpress ? 'post-' : 'p'}${5501 + i}" class="post has-profile bg${(i % 2) + 1}${wordpress ? ' type-post hentry' : ''}"><div class="inner"><dl class="postprofile"><dt><a href="/member/${i}">member${i}</a></dt><dd><strong>Posts:</strong> ${100 + i * 37}</dd><dd><strong>Joined:</strong> 4. Jul 2012</dd></dl><div class="postbody"><h3><a href="#p${5501 + i}">Re: The harbour wall</a></h3><p class="author"><a href="/member/${i}">member${i}</a> » 11. Sep 2024, 18:${10 + i}</p><div class="content">${text}</div></div></div></div><hr class="divider">`,
    )
    .join('');
  return `<html><head><title>The harbour wall - Island Forum</title></head><body><div id="wrap"><div class="headerbar"><a href="/">Island Forum</a> <a href="/faq">FAQ</a> <a href="/search">Search</a> <a href="/login">Login</a></div><ul class="navlinks"><li><a href="/">Board index</a> ‹ <a href="/f/3">History</a></li></ul><div id="page-body"><h2 class="topic-title"><a href="/t/12">The harbour wall</a></h2><div class="action-bar"><a href="/post?t=12">Post Reply</a> <span>${posts.length} posts • Page 1 of 1</span></div>${body}<div class="action-bar"><a href="/post?t=12">Post Reply</a></div><p><a href="/f/3">Return to “History”</a></p><div class="stat-block"><h3>Who is online</h3><p>Users browsing this forum: no registered users and 12 guests</p></div></div><div class="copyright">Powered by phpBB® Forum Software © phpBB Limited</div></div></body></html>`;
}

const LONG_POST = [
  'I have been reading the harbour trust minutes from 1952 to 1955, which the library has now put online, and they tell a fuller story than the plaque does.',
  'The trust had asked for money to repoint the upper courses as early as 1949, and the request was turned down twice, once for want of funds and once because the engineer thought the work could wait.',
  'When the gale came, the breach opened exactly where the repointing had been asked for, and the minutes of the meeting after it are short and rather bitter about it.',
  'The rebuilding itself was planned by a young engineer from Aberdeen who had worked on the Scapa barriers during the war, and he insisted on granite from the old quarry rather than concrete.',
  'His letters are in the same archive, and they are worth reading for the detail: he counted the blocks, named the men, and kept a diary of the weather for both summers of the work.',
];

describe('a forum thread without any markup, its posts named as such (phpBB)', () => {
  it('keeps every post, the opening one and the short replies, when one post is far longer than the others', () => {
    const posts = [REPLIES[0], LONG_POST.map((p) => `${p}<br><br>`).join(''), ...REPLIES.slice(1)];
    const html = namedPostsThread(posts);
    expect(isThreadPage(bodyOf(html))).toBe(true);
    const text = mainText(html);
    for (const reply of REPLIES) expect(text).toContain(reply);
    for (const paragraph of LONG_POST) expect(text).toContain(paragraph);
    for (const furniture of ['Board index', 'Powered by phpBB']) expect(text).not.toContain(furniture);
  });

  it("a blog's article previews named like posts (WordPress: type-post, hentry) are not a thread", () => {
    const html = namedPostsThread([...REPLIES], { wordpress: true });
    expect(isThreadPage(bodyOf(html))).toBe(false);
  });
});
