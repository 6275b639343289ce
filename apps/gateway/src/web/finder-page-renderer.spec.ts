import { FinderPageRenderer } from './finder-page-renderer';

const TEMPLATE = '<!doctype html><html lang="en"><head><title>Homing</title></head><body><div id="root"></div></body></html>';

describe('the finder page renderer', () => {
  it('puts the rendered markup in the root, with the page’s language and its title escaped', () => {
    const renderer = FinderPageRenderer.of({ renderFinderPage: () => ({ root: '<p>$& costs $1</p>', title: 'You found <someone>’s item', language: 'nl' }) }, TEMPLATE);
    expect(renderer.render({ code: 'ABCD', language: 'nl', item: null })).toBe(
      '<!doctype html><html lang="nl"><head><title>You found &#60;someone&#62;’s item</title></head><body><div id="root"><p>$& costs $1</p></div></body></html>',
    );
  });

  it('refuses a template it cannot render into', () => {
    expect(() => FinderPageRenderer.of({ renderFinderPage: () => ({ root: '', title: '', language: 'en' }) }, '<html><body></body></html>')).toThrow(/template/);
  });
});
