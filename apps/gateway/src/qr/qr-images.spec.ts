import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import { foundPageUrl } from '@homing/contracts';
import { QrImages, RenderCache, renderPng, renderSvg } from './qr-images';
import { matchesEtag } from '../http/etag';

const URL_OF_TAG = 'http://localhost:8080/found/ABCD-EFGH-JKMN-PQRS';

function decodePng(png: Buffer): { text: string | undefined; width: number } {
  const image = PNG.sync.read(png);
  return { text: jsQR(new Uint8ClampedArray(image.data), image.width, image.height)?.data, width: image.width };
}

describe('QR images', () => {
  it('points at the finder page with the code as people read it', () => {
    expect(foundPageUrl('https://homing.example/', 'ABCDEFGHJKMNPQRS')).toBe('https://homing.example/found/ABCD-EFGH-JKMN-PQRS');
  });

  it.each([64, 400, 2048])('renders a %i px PNG that a decoder reads back', (size) => {
    expect(decodePng(renderPng(URL_OF_TAG, size))).toEqual({ text: URL_OF_TAG, width: size });
  });

  it('grows the image rather than drawing modules smaller than a pixel', () => {
    const long = `https://${'x'.repeat(200)}.example/found/ABCD-EFGH-JKMN-PQRS`;
    const { text, width } = decodePng(renderPng(long, 64));
    expect(text).toBe(long);
    expect(width).toBeGreaterThan(64);
  });

  it('renders an SVG of the asked size', async () => {
    const svg = renderSvg(URL_OF_TAG, 300);
    expect(svg).toMatch(/^<svg [^>]*width="300" height="300"/);
  });

  it('renders each code and size once, the same image with the same ETag every time', async () => {
    const images = new QrImages({ PUBLIC_URL: 'http://localhost:8080' });
    const first = await images.render('ABCDEFGHJKMNPQRS', 'svg', 400);
    const again = await images.render('ABCDEFGHJKMNPQRS', 'svg', 400);
    expect(again).toBe(first);
    const base64 = await images.render('ABCDEFGHJKMNPQRS', 'svg-base64', 400);
    expect(Buffer.from(base64.body.toString(), 'base64')).toEqual(first.body);
    expect(base64.etag).not.toBe(first.etag);
    expect((await new QrImages({ PUBLIC_URL: 'http://localhost:8080' }).render('ABCDEFGHJKMNPQRS', 'svg', 400)).etag).toBe(first.etag);
  });

  it('keeps each format and size of a code apart, the default SVG too (keyed by the code alone)', async () => {
    const images = new QrImages({ PUBLIC_URL: 'http://localhost:8080' });
    const code = 'ABCDEFGHJKMNPQRS';
    const variants = await Promise.all([images.render(code, 'svg', 400), images.render(code, 'svg', 300), images.render(code, 'svg-base64', 400), images.render(code, 'png', 400)]);
    const etags = variants.map((image) => image.etag);
    expect(new Set(etags).size).toBe(4);
    expect([images.rendered(code, 'svg', 400), images.rendered(code, 'svg', 300), images.rendered(code, 'svg-base64', 400), images.rendered(code, 'png', 400)]).toEqual(variants);
    expect(images.rendered(code, 'svg', 500)).toBeUndefined();
  });
});

describe('RenderCache', () => {
  const image = (bytes: number) => ({ body: Buffer.alloc(bytes), etag: '"x"' });

  it('drops a render not used lately once past its byte budget', () => {
    const cache = new RenderCache(100);
    cache.set('a', image(40));
    cache.set('b', image(40));
    cache.get('a');
    cache.set('c', image(40));
    expect([cache.get('a'), cache.get('b'), cache.get('c')].map(Boolean)).toEqual([true, false, true]);
    expect(cache.size).toBe(2);
  });
});

describe('matchesEtag', () => {
  it.each([
    ['"abc"', true],
    ['W/"abc"', true],
    ['"x", "abc"', true],
    ['*', true],
    ['"abd"', false],
    ['abc', false],
  ])('If-None-Match %s → %s', (header, expected) => {
    expect(matchesEtag(header, '"abc"')).toBe(expected);
  });
});
