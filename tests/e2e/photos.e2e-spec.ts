import sharp from 'sharp';
import type { HttpErrorBody, PhotoUrls, PublicItem } from '@homing/contracts';
import { decompressionBombPng } from '@homing/testing';
import { testAccessToken } from '../support/access-tokens';
import { startStack, type Stack } from '../support/stack';

// Item photos with the whole stack: the owner uploads, the gateway decodes and re-encodes, items stores, anyone
// who scans the tag sees it.
describe('item photos through the gateway', () => {
  let stack: Stack;
  const owner = testAccessToken();
  let code: string;

  beforeAll(async () => {
    stack = await startStack();
    const created = await fetch(`${stack.api}/items`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${owner.token}` },
      body: JSON.stringify({ name: 'Green bike' }),
    });
    code = ((await created.json()) as PublicItem).code;
  });

  afterAll(() => stack?.stop());

  const upload = (file: Buffer, options: { type?: string; token?: string; itemCode?: string } = {}) => {
    const form = new FormData();
    form.append('code', options.itemCode ?? code);
    form.append('file', new Blob([file], { type: options.type ?? 'image/jpeg' }), 'photo');
    return fetch(`${stack.api}/images/upload`, { method: 'POST', body: form, headers: options.token === '' ? {} : { authorization: `Bearer ${options.token ?? owner.token}` } });
  };

  /** A phone photo: 1600×1200 JPEG, with the camera's EXIF and where it was taken. */
  const phonePhoto = () =>
    sharp({ create: { width: 1600, height: 1200, channels: 3, background: { r: 20, g: 140, b: 60 } } })
      .withExif({ IFD0: { Copyright: 'Home address', Artist: 'The owner' }, IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '52/1 22/1 0/1' } })
      .jpeg()
      .toBuffer();

  it('keeps a 100 px thumbnail and a 400 px photo without metadata, shown to whoever scans the tag', async () => {
    const original = await phonePhoto();
    expect((await sharp(original).metadata()).exif).toBeDefined();
    const response = await upload(original);
    expect(response.status).toBe(200);
    const urls = (await response.json()) as PhotoUrls;

    const scanned = (await (await fetch(`${stack.api}/items/${code}`)).json()) as PublicItem;
    expect(scanned.photo).toEqual(urls);
    for (const [size, url, expected] of [['thumbnail', urls.thumbnail, { width: 100, height: 100 }], ['normal', urls.normal, { width: 400, height: 300 }]] as const) {
      const image = await fetch(`${stack.base}${url}`);
      expect({ size, status: image.status, type: image.headers.get('content-type') }).toEqual({ size, status: 200, type: 'image/webp' });
      // The viewer's browser keeps it; no shared cache does, so a deleted photo is gone everywhere but there.
      expect(image.headers.get('cache-control')).toBe('private, max-age=31536000, immutable');
      const metadata = await sharp(Buffer.from(await image.arrayBuffer())).metadata();
      expect({ size, width: metadata.width, height: metadata.height, exif: metadata.exif }).toEqual({ size, ...expected, exif: undefined });
      // Revalidation by ETag.
      const again = await fetch(`${stack.base}${url}`, { headers: { 'if-none-match': image.headers.get('etag') ?? '' } });
      expect(again.status).toBe(304);
    }

    // A new upload gets new URLs; the old ones no longer promise forever.
    const second = (await (await upload(await phonePhoto())).json()) as PhotoUrls;
    expect(second.normal).not.toBe(urls.normal);
    expect((await fetch(`${stack.base}${urls.normal}`)).headers.get('cache-control')).toBe('private, max-age=60');
  });

  it("refuses anyone but the item's owner with the 404 of a missing item, and anyone anonymous with 401", async () => {
    const photo = await phonePhoto();
    expect((await upload(photo, { token: testAccessToken().token })).status).toBe(404);
    expect((await upload(photo, { itemCode: 'ZZZZ-ZZZZ-ZZZZ-ZZZZ' })).status).toBe(404);
    expect((await upload(photo, { token: '' })).status).toBe(401);
  });

  it('refuses a file that is not an image, a decompression bomb and an oversize file, storing nothing', async () => {
    const before = (await (await fetch(`${stack.api}/items/${code}`)).json()) as PublicItem;
    const refusals: Array<[string, Response, number]> = [
      ['text sent as a JPEG', await upload(Buffer.from('just some text, not a photo')), 422],
      ['a GIF', await upload(await sharp({ create: { width: 10, height: 10, channels: 3, background: 'red' } }).gif().toBuffer(), { type: 'image/gif' }), 422],
      ['a decompression bomb', await upload(await decompressionBombPng(), { type: 'image/png' }), 422],
      ['6 MB', await upload(Buffer.alloc(6 * 1024 * 1024, 7)), 413],
      // Found by fuzzing (B1): a body that is not the multipart its content type says, once a 500.
      [
        'a malformed multipart body',
        await fetch(`${stack.api}/images/upload`, {
          method: 'POST',
          headers: { 'content-type': 'multipart/form-data; boundary=x', authorization: `Bearer ${owner.token}` },
          body: '{"code":"x"}',
        }),
        400,
      ],
    ];
    for (const [name, response, status] of refusals) {
      const body = (await response.json()) as HttpErrorBody;
      expect({ name, status: response.status, message: typeof body.message }).toEqual({ name, status, message: 'string' });
    }
    const after = (await (await fetch(`${stack.api}/items/${code}`)).json()) as PublicItem;
    expect(after.photo).toEqual(before.photo);
  });

  it('answers 404 for a photo that does not exist', async () => {
    expect((await fetch(`${stack.api}/items/ZZZZ-ZZZZ-ZZZZ-ZZZZ/photo/normal`)).status).toBe(404);
    expect((await fetch(`${stack.api}/items/${code}/photo/huge`)).status).toBe(404);
  });
});

