/**
 * Question-and-answer pages (schema.org QAPage microdata, in the manner of a StackExchange site): the
 * main text is the question and every answer, without the comments under them, vote counts, user cards,
 * the answer form or the sidebar; an FAQ section (several questions with only a name) is not such a page.
 */
import { describe, expect, it } from 'vitest';
import { extractPage } from '../../src/web/extract.js';
import { parseDocument } from '../../src/web/dom.js';
import { questionAndAnswers } from '../../src/web/questions.js';

const mainText = (html: string) => extractPage(html, { url: 'https://answers.example/q/12', format: 'text', onlyMainContent: true }).content;

const QUESTION = [
  'I am moving from Zurich to Singapore in the autumn and want to book the flight in the cheapest way.',
  'Is a one-way ticket cheaper than a return whose second leg I never use, and can the unused leg be refunded at all?',
];
const ANSWERS = [
  ['On long-haul routes a return is often cheaper than a one-way ticket, sometimes by a third.', 'A refund of the unused leg needs a flexible fare, which costs more than the saving.'],
  ['I have moved countries four times and always bought one-way tickets; the difference was small and I was free to stay.'],
  [
    'Compare both in a spreadsheet before you book. One of the airlines I looked at charged half of the return price for a one-way ticket, while the others charged nearly the full return price.',
    'Check the baggage allowance as well: a move needs more than a holiday, and an extra bag bought at the airport costs more than the ticket difference.',
    'Last, a one-way ticket can make the airline ask for proof that you may stay, so keep the work permit letter at hand when you check in.',
  ],
];
const COMMENTS = ['Which airline was that, out of interest?', 'This depends a lot on the season; in December everything is dearer.', 'Good point about the permit letter.'];

const comment = (text: string, i: number) =>
  `<li class="comment" itemprop="comment" itemscope itemtype="https://schema.org/Comment"><span class="comment-score">${i}</span><div class="comment-body"><span class="comment-copy" itemprop="text">${text}</span> – <a class="comment-user" href="/users/${i}">user${i}</a> <span class="relativetime">Jun ${i + 1}, 2014 at 9:0${i}</span></div></li>`;
const userCard = (i: number) =>
  `<div class="user-info"><div class="user-action-time">answered <span class="relativetime">Jun ${i + 2}, 2014</span></div><div class="user-details" itemprop="author" itemscope itemtype="http://schema.org/Person"><a href="/users/${i}">member${i}</a> <span class="reputation-score">${i * 1234}</span> <span class="badge">${i} gold badges</span></div></div>`;

function qaPage(): string {
  const answers = ANSWERS.map(
    (paragraphs, i) =>
      `<div id="answer-${i}" class="answer" itemprop="suggestedAnswer" itemscope itemtype="https://schema.org/Answer"><div class="post-layout"><div class="votecell"><button>Up vote</button><div class="vote-count" itemprop="upvoteCount">${7 - i}</div><button>Down vote</button></div><div class="answercell"><div class="s-prose js-post-body" itemprop="text">${paragraphs.map((p) => `<p>${p}</p>`).join('')}</div><div class="post-menu"><a href="/a/${i}">Share</a> <a href="/posts/${i}/edit">Improve this answer</a> <button>Follow</button></div>${userCard(i + 2)}</div><div class="comments"><ul class="comments-list">${i === 0 ? COMMENTS.map(comment).join('') : ''}</ul><a href="#">Add a comment</a></div></div></div>`,
  ).join('');
  return `<!doctype html><html itemscope itemtype="https://schema.org/QAPage"><head><title>How to book flights when moving to another country? - Expatriates Answers</title></head><body>
<header class="top-bar"><nav><a href="/">Answers</a> <a href="/questions">Questions</a> <a href="/tags">Tags</a> <a href="/users">Users</a></nav><form><input name="q" placeholder="Search…"></form></header>
<div id="content"><div itemprop="mainEntity" itemscope itemtype="https://schema.org/Question">
<div id="question-header"><h1 itemprop="name"><a href="/q/12">How to book flights when moving to another country?</a></h1></div>
<div id="mainbar" role="main" aria-label="question and answers">
<div class="question" id="question"><div class="post-layout"><div class="votecell"><button>Up vote</button><div class="vote-count" itemprop="upvoteCount">9</div><button>Down vote</button></div>
<div class="postcell"><div class="s-prose js-post-body" itemprop="text">${QUESTION.map((p) => `<p>${p}</p>`).join('')}</div>
<div class="post-taglist"><a class="post-tag" href="/tags/flights">flights</a> <a class="post-tag" href="/tags/moving">moving</a></div>
<div class="post-menu"><a href="/q/12">Share</a> <a href="/posts/12/edit">Improve this question</a> <button>Follow</button></div>${userCard(1)}</div>
<div class="comments"><ul class="comments-list">${COMMENTS.map(comment).join('')}</ul><a href="#">Add a comment</a></div></div></div>
<div id="answers"><div id="answers-header"><h2>${ANSWERS.length} Answers</h2><label>Sorted by:</label><select><option>Highest score (default)</option><option>Date modified (newest first)</option></select></div>${answers}</div>
<form id="post-form" class="post-form"><h2 class="space">Your Answer</h2><textarea name="post-text"></textarea><button>Post Your Answer</button><p>By clicking "Post Your Answer", you agree to our terms of service and acknowledge you have read our privacy policy.</p></form>
<h2 class="bottom-notice">Not the answer you're looking for? Browse other questions tagged <a href="/tags/flights">flights</a> or ask your own question.</h2>
</div>
<div id="sidebar"><div class="module"><h4>Linked</h4><a href="/q/1">Cheapest way to fly to Asia with a lot of luggage</a></div><div class="module"><h4>Related</h4><a href="/q/2">Can I enter Singapore on a one-way ticket?</a> <a href="/q/3">Do I need a return ticket to get a work visa?</a> <a href="/q/4">Shipping household goods from Switzerland</a></div><div class="module"><h4>Hot Network Questions</h4><a href="/q/5">Why do trains in Japan run on time?</a> <a href="/q/6">Is it rude to tip in Korea?</a></div></div>
</div></div>
<footer><p>Site design / logo © 2024 Answers Inc; user contributions licensed under CC BY-SA.</p></footer></body></html>`;
}

describe('question-and-answer pages', () => {
  it('the main text is the question and all its answers, without comments, votes, user cards, form or sidebar', () => {
    const text = mainText(qaPage());
    for (const paragraph of [...QUESTION, ...ANSWERS.flat()]) expect(text).toContain(paragraph);
    for (const remark of COMMENTS) expect(text).not.toContain(remark);
    for (const furniture of ['gold badges', 'Improve this answer', 'Post Your Answer', 'Hot Network Questions', 'Can I enter Singapore', 'Sorted by']) expect(text).not.toContain(furniture);
    // In page order: the question first, then the answers as the page lists them.
    const at = [QUESTION[0], ...ANSWERS.map((answer) => answer[0])].map((paragraph) => text.indexOf(paragraph));
    expect([...at].sort((a, b) => a - b)).toEqual(at);
  });

  it('markdown keeps the posts as well', () => {
    const markdown = extractPage(qaPage(), { url: 'https://answers.example/q/12', format: 'markdown', onlyMainContent: true }).content;
    for (const paragraph of [...QUESTION, ...ANSWERS.flat()]) expect(markdown).toContain(paragraph);
    expect(markdown).not.toContain(COMMENTS[0]);
  });

  it('an FAQ section (several questions, each a name and an answer) is not a question page', () => {
    const faq = [1, 2, 3]
      .map((i) => `<div itemprop="mainEntity" itemscope itemtype="https://schema.org/Question"><h3 itemprop="name">Question ${i}?</h3><div itemprop="acceptedAnswer" itemscope itemtype="https://schema.org/Answer"><div itemprop="text"><p>Answer number ${i} to the question.</p></div></div></div>`)
      .join('');
    const html = `<html><body><article><h1>Our services</h1><p>${QUESTION.join(' ')}</p></article><section itemscope itemtype="https://schema.org/FAQPage">${faq}</section></body></html>`;
    expect(questionAndAnswers(parseDocument(html))).toBeNull();
  });

  it('a question without a body of its own, or without an answer, is not one either', () => {
    const noBody = `<html><body><div itemscope itemtype="https://schema.org/Question"><h1 itemprop="name">Why?</h1><div itemscope itemtype="https://schema.org/Answer"><p itemprop="text">Because.</p></div></div></body></html>`;
    const noAnswer = `<html><body><div itemscope itemtype="https://schema.org/Question"><h1 itemprop="name">Why?</h1><div itemprop="text"><p>${QUESTION[0]}</p></div></div></body></html>`;
    expect(questionAndAnswers(parseDocument(noBody))).toBeNull();
    expect(questionAndAnswers(parseDocument(noAnswer))).toBeNull();
  });
});
