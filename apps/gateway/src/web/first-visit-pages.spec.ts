import type { PublicItem } from '@homing/contracts';
import { FirstVisitPages } from './first-visit-pages';

const itemNamed = (name: string): PublicItem => ({ code: 'ABCDEFGHJKMNPQRS', name, activated: true, is_owner: false, lost: false }) as PublicItem;

describe('first visits’ finder pages', () => {
  let renders: string[];
  const renderOf = (html: string) => () => (renders.push(html), html);

  beforeEach(() => {
    renders = [];
  });

  it('renders a page once while the scan cache answers the same item object, per language and code as spelled', () => {
    const pages = new FirstVisitPages();
    const item = itemNamed('Keys');
    expect(pages.pageOf('ABCD-EFGH-JKMN-PQRS', 'en', item, renderOf('keys en'))).toBe('keys en');
    expect(pages.pageOf('ABCD-EFGH-JKMN-PQRS', 'en', item, renderOf('again'))).toBe('keys en');
    expect(pages.pageOf('ABCD-EFGH-JKMN-PQRS', 'nl', item, renderOf('keys nl'))).toBe('keys nl');
    expect(pages.pageOf('abcdefghjkmnpqrs', 'en', item, renderOf('keys en, lower case'))).toBe('keys en, lower case');
    expect(renders).toEqual(['keys en', 'keys nl', 'keys en, lower case']);
  });

  it('renders again for another item object, though equal: the scan cache replaced it, so the item may have changed', () => {
    const pages = new FirstVisitPages();
    pages.pageOf('ABCD-EFGH-JKMN-PQRS', 'en', itemNamed('Keys'), renderOf('keys'));
    const renamed = itemNamed('House keys');
    expect(pages.pageOf('ABCD-EFGH-JKMN-PQRS', 'en', renamed, renderOf('house keys'))).toBe('house keys');
    expect(pages.pageOf('ABCD-EFGH-JKMN-PQRS', 'en', renamed, renderOf('again'))).toBe('house keys');
    expect(pages.pageOf('ABCD-EFGH-JKMN-PQRS', 'en', itemNamed('House keys'), renderOf('equal, not the same'))).toBe('equal, not the same');
    expect(renders).toEqual(['keys', 'house keys', 'equal, not the same']);
    expect(pages.size).toBe(1);
  });

  it('keeps at most its bound of pages, dropping one not used lately', () => {
    const pages = new FirstVisitPages(2);
    const [a, b, c] = [itemNamed('a'), itemNamed('b'), itemNamed('c')];
    pages.pageOf('A', 'en', a, renderOf('a'));
    pages.pageOf('B', 'en', b, renderOf('b'));
    pages.pageOf('A', 'en', a, renderOf('a again'));
    pages.pageOf('C', 'en', c, renderOf('c'));
    expect(pages.size).toBe(2);
    expect(pages.pageOf('A', 'en', a, renderOf('a again'))).toBe('a');
    expect(pages.pageOf('B', 'en', b, renderOf('b again'))).toBe('b again');
  });

  it('keeps nothing with a bound of 0 (no scan cache: every item is a new object)', () => {
    const pages = new FirstVisitPages(0);
    const item = itemNamed('Keys');
    pages.pageOf('A', 'en', item, renderOf('one'));
    pages.pageOf('A', 'en', item, renderOf('two'));
    expect(renders).toEqual(['one', 'two']);
    expect(pages.size).toBe(0);
  });
});
