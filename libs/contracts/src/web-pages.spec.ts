import { isWebPagePath } from './web-pages';

describe('isWebPagePath', () => {
  it('knows the app’s pages, with any parameter, a trailing slash or another letter case', () => {
    for (const path of ['/', '/about', '/about/', '/About', '/found/ABCD-EFGH-JKMN-PQRS', '/found/abcd/preview', '/login/nl', '/login/code', '/item/ABCD-EFGH-JKMN-PQRS/print', '/reset-password/a.b_c-d', '/admin/tag-batches', '/login?ec=ABCD-EFGH-JKMN-PQRS', '/found/ABCD?resume=x/y', '/?lang=nl']) {
      expect({ path, page: isWebPagePath(path) }).toEqual({ path, page: true });
    }
  });

  it('knows no other path, nor a page with a segment more or less', () => {
    for (const path of ['/nope', '/favicon.ico', '/robots.txt', '/found', '/found/', '/found/ABCD/preview/x', '/item', '/login/nl/x', '/aboutx', '/admin', '/wp-login.php', '/.env', '/account/../x', '/nope?next=/items']) {
      expect({ path, page: isWebPagePath(path) }).toEqual({ path, page: false });
    }
  });
});
