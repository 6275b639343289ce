import type { PublicItem } from '@homing/contracts';
import { RecentlyUsedMap } from '../caching/recently-used-map';

/** Pages kept at the most: a page is 3–4 KB of markup, so some 8 MB in all at the worst. */
export const FIRST_VISIT_PAGES_MAX = 2_000;

interface KeptPage {
  /** The scan cache's item object the page was rendered from: the page holds while the cache still answers it. */
  item: PublicItem;
  html: string;
}

/**
 * The finder page as a first visit gets it (no conversation of theirs, no refused form: the page depends on the item,
 * the language and the code as the path spells it, and on nothing else), kept so that a tag scanned again is not
 * rendered again: React's render of the page costs 1.6–2.2 ms of CPU, ten times the rest of the request
 * (docs/benchmarks.md, "Stop 77"), and every scan of a tag's QR code lands on this page.
 *
 * A kept page is used only while the scan cache answers the very item object it was rendered from. The scan cache
 * replaces an item's object whenever the item changes (items' events) or its entry expires, so a page is never staler
 * than a scan of the same replica, and nothing here needs telling of a change. Bounded by count, dropping pages not
 * used lately (RecentlyUsedMap); a page whose item has changed is rendered again at its next visit.
 */
export class FirstVisitPages {
  private readonly pages = new RecentlyUsedMap<string, KeptPage>();

  constructor(private readonly maxPages = FIRST_VISIT_PAGES_MAX) {}

  /** The page of `item` for `language` at `/found/{code}`, rendered by `render` unless kept for that item object. */
  pageOf(code: string, language: string, item: PublicItem, render: () => string): string {
    if (this.maxPages === 0) return render();
    const key = `${language} ${code}`;
    const kept = this.pages.get(key);
    if (kept?.item === item) return kept.html;
    const html = render();
    if (!kept && this.pages.size >= this.maxPages) this.pages.dropNext();
    this.pages.set(key, { item, html });
    return html;
  }

  get size(): number {
    return this.pages.size;
  }
}
