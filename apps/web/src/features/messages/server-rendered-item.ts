import { parseTagCode, type PublicItem } from '@homing/contracts';

/** The element the gateway's finder page carries its item in (apps/web/src/prerender/finder-page.server.tsx). */
export const SERVER_RENDERED_ITEM_ID = 'homing-found-item';

let kept: PublicItem | null = null;

/**
 * Keeps the item the gateway rendered the finder page with, read before the app replaces the page: the app then
 * starts from the page it replaces (the lost banner, the relay address and all) rather than from a loading state that
 * would move them, and asks the gateway again in the background.
 */
export function keepServerRenderedItem(container: ParentNode): void {
  const text = container.querySelector(`script#${SERVER_RENDERED_ITEM_ID}`)?.textContent;
  if (!text) return;
  try {
    const value: unknown = JSON.parse(text);
    if (isPublicItem(value)) kept = value;
  } catch {
    // A page without a readable item: the app loads it, as on any other page.
  }
}

/** The server-rendered item when it is this code's (as a visitor who is not logged in sees it), else undefined. */
export function serverRenderedItem(code: string): PublicItem | undefined {
  return kept && parseTagCode(kept.code) === parseTagCode(code) ? kept : undefined;
}

function isPublicItem(value: unknown): value is PublicItem {
  if (typeof value !== 'object' || value === null) return false;
  const item = value as Partial<Record<keyof PublicItem, unknown>>;
  return typeof item.code === 'string' && typeof item.activated === 'boolean' && item.is_owner === false && typeof item.lost === 'boolean';
}

/** The item as the page carries it: JSON that no `</script>` in a name or note can end early. */
export function serverRenderedItemScript(item: PublicItem): string {
  const json = JSON.stringify(item).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
  return `<script type="application/json" id="${SERVER_RENDERED_ITEM_ID}">${json}</script>`;
}
