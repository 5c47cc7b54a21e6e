/**
 * A fetched page → Markdown for a model: the main content (Readability over a linkedom
 * document; the whole body when Readability finds no article), with every link and
 * image made absolute against the page's final URL, or its `<base href>`. Neither
 * library does that for us on a linkedom document, and relative links are useless
 * once the text is read away from the page.
 */
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';

export interface PageText {
  /** The page's title, '' when it has none. */
  title: string;
  markdown: string;
}

/** Elements whose content is never text for the reader. */
const DROPPED = 'script, style, noscript, template, iframe, object, embed';

/** Attributes holding one URL, by the elements that carry them. */
const URL_ATTRIBUTES: Array<[selector: string, attribute: string]> = [
  ['a[href], area[href]', 'href'],
  ['img[src], source[src], video[src], audio[src], track[src]', 'src'],
  ['video[poster]', 'poster'],
  ['blockquote[cite], q[cite], ins[cite], del[cite]', 'cite'],
];

/** The little of linkedom's DOM used here (the project compiles without the DOM lib). */
interface DomElement {
  readonly nodeName: string;
  readonly innerHTML: string;
  readonly textContent: string | null;
  getAttribute(name: string): string | null;
  setAttribute(name: string, value: string): void;
  removeAttribute(name: string): void;
  remove(): void;
}

interface DomDocument {
  readonly body: DomElement | null;
  readonly documentElement: DomElement | null;
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): Iterable<DomElement>;
}

function httpUrl(raw: string, base: string): URL | undefined {
  try {
    return new URL(raw.trim(), base);
  } catch {
    return undefined;
  }
}

function baseUrl(doc: DomDocument, pageUrl: string): string {
  const href = doc.querySelector('base[href]')?.getAttribute('href');
  const base = href === null || href === undefined ? undefined : httpUrl(href, pageUrl);
  return base !== undefined && (base.protocol === 'http:' || base.protocol === 'https:') ? base.href : pageUrl;
}

function absolutize(root: DomDocument, base: string): void {
  for (const [selector, attribute] of URL_ATTRIBUTES) {
    for (const el of Array.from(root.querySelectorAll(selector))) {
      const abs = httpUrl(el.getAttribute(attribute) ?? '', base);
      // A javascript: link does nothing outside a browser; keep its text only.
      if (abs === undefined || abs.protocol === 'javascript:') el.removeAttribute(attribute);
      else el.setAttribute(attribute, abs.href);
    }
  }
  for (const el of Array.from(root.querySelectorAll('img[srcset], source[srcset]'))) {
    const candidates = (el.getAttribute('srcset') ?? '').split(',').map((c) => c.trim()).filter((c) => c !== '');
    el.setAttribute('srcset', candidates.map((c) => {
      const [url = '', ...descriptor] = c.split(/\s+/);
      return [httpUrl(url, base)?.href ?? url, ...descriptor].join(' ');
    }).join(', '));
  }
}

/** linkedom builds no html/body around a bare fragment (Readability then finds nothing), as a browser would. */
function parseDocument(html: string): DomDocument {
  const { document } = parseHTML(html) as { document: DomDocument };
  if (document.documentElement?.nodeName === 'HTML') return document;
  return (parseHTML(`<!doctype html><html><head></head><body>${html}</body></html>`) as { document: DomDocument }).document;
}

/** HTML of a page fetched from `pageUrl` (its final URL) → its title and main content as Markdown. */
export function htmlToMarkdown(html: string, pageUrl: string): PageText {
  const document = parseDocument(html);
  const base = baseUrl(document, pageUrl);
  for (const el of Array.from(document.querySelectorAll(DROPPED))) el.remove();
  // Not document.title: a <title> in a bare fragment ends up in the body.
  const pageTitle = (document.querySelector('title')?.textContent ?? '').trim();
  const bodyHtml = document.body?.innerHTML ?? html;
  let article: ReturnType<Readability['parse']> = null;
  try {
    article = new Readability(document).parse();
  } catch {
    // Readability gives up on some malformed documents; the body is still worth reading.
  }
  const articleText = article?.textContent?.trim() ?? '';
  const contentHtml = article !== null && articleText !== '' ? article.content ?? bodyHtml : bodyHtml;
  // Links are fixed on the content actually converted: Readability itself rewrites some (lazy images).
  const content = parseDocument(`<!doctype html><html><head></head><body>${contentHtml}</body></html>`);
  absolutize(content, base);
  const markdown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '_' }).turndown(content.body?.innerHTML ?? '').trim();
  return { title: (article?.title ?? '').trim() || pageTitle, markdown };
}
