import { renderSheetPage, sheetPages, TAGS_PER_PAGE } from './tag-sheet';

describe('tag sheets', () => {
  it('fits 24 tags on an A4 page', () => {
    expect(TAGS_PER_PAGE).toBe(24);
    expect([sheetPages(1), sheetPages(24), sheetPages(25), sheetPages(10_000)]).toEqual([1, 1, 2, 417]);
  });

  it('prints each code readably under its QR code, and escapes the label', async () => {
    const svg = await renderSheetPage({
      publicUrl: 'https://homing.example/',
      relayDomain: 'relay.homing.example',
      label: 'Stickers <March> & co',
      codes: ['ABCDEFGHJKMNPQRS', '0123456789ABCDEF'],
      page: 1,
      pages: 3,
    });
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" width="210mm" height="297mm"/);
    expect(svg).toContain('>ABCD-EFGH-JKMN-PQRS</text>');
    expect(svg).toContain('>0123-4567-89AB-CDEF</text>');
    expect(svg).toContain('>tag-abcdefghjkmnpqrs@relay.homing.example</text>');
    expect(svg).toContain('Stickers &#60;March&#62; &#38; co · page 1 of 3');
    expect(svg.match(/<svg x=/g)).toHaveLength(2);
  });

  it('leaves out of the label what XML does not allow, so the sheet stays an SVG document', async () => {
    const svg = await renderSheetPage({ publicUrl: 'https://homing.example/', relayDomain: 'relay.homing.example', label: 'Keys\uFFFF\uFFFE \uD800March', codes: ['ABCDEFGHJKMNPQRS'], page: 1, pages: 1 });
    expect(svg).toContain('>Keys March · page 1 of 1<');
    expect(svg).not.toMatch(/[\uFFFE\uFFFF\uD800]/);
  });
});
