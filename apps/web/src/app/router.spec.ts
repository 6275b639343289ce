import { WEB_PAGE_PATHS } from '@homing/contracts';
import type { RouteObject } from 'react-router';
import { describe, expect, it } from 'vitest';

import { routes } from './router';

/** Every page path the router matches, its parents' paths joined; the catch-all `*` is no page. */
function pagePaths(children: RouteObject[], parent = ''): string[] {
  return children.flatMap((route) => {
    const path = route.path === undefined ? parent : `${parent.replace(/\/$/, '')}/${route.path.replace(/^\//, '')}`;
    const own = route.index || (route.path !== undefined && !route.children) ? [path || '/'] : [];
    return [...own, ...pagePaths(route.children ?? [], path)].filter((page) => !page.endsWith('*'));
  });
}

describe('the router’s pages', () => {
  // The gateway and nginx answer any other path 404 (libs/contracts/src/web-pages.ts): a page added here and not there
  // would be answered "not found" when loaded from its address.
  it('are exactly the pages the gateway knows', () => {
    expect(pagePaths(routes).sort()).toEqual([...WEB_PAGE_PATHS].sort());
  });
});
