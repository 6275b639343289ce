import type { RpcClient } from '@homing/platform';
import type { GatewayConfig } from '../config/gateway.config';
import { PublicItemCache } from '../items/public-item-cache';
import { PublicItemsService } from '../items/public-items.service';
import { QrImages } from './qr-images';
import { QrService } from './qr.service';

const CODE = 'ABCD-EFGH-JKMN-PQRS';

describe('QrService', () => {
  function service() {
    // items' get-public-many: the one code asked about is known.
    const request = jest.fn(async () => [
      {
        item: { code: CODE, name: 'Keys', claimed_at: '2026-11-23T10:00:00.000Z', activated: false, is_owner: false, lost: false },
        ownerUserId: null,
      },
    ]);
    const cache = new PublicItemCache();
    cache.enable();
    const config = { PUBLIC_URL: 'https://homing.example', RELAY_DOMAIN: 'relay.homing.example' } as GatewayConfig;
    const publicItems = new PublicItemsService({ request } as unknown as RpcClient, cache, config);
    return { qr: new QrService(new QrImages(config), publicItems), request };
  }

  it('has no image at hand until the code was looked up and the image rendered', async () => {
    const { qr, request } = service();
    expect(qr.knownPublicImage(CODE, undefined, false)).toBeUndefined();
    expect(request).not.toHaveBeenCalled();

    const rendered = await qr.publicImage(CODE, undefined, false);
    const known = qr.knownPublicImage(CODE.toLowerCase(), undefined, false);
    expect(known).toMatchObject({ etag: rendered.etag, headers: rendered.headers });
    // The image's answer is made once.
    expect(qr.knownPublicImage(CODE, undefined, false)).toBe(known);
    expect(known?.headers).toEqual({ 'cache-control': 'public, max-age=604800', 'content-type': 'image/svg+xml; charset=utf-8' });
    expect(request).toHaveBeenCalledTimes(1);
  });

  it('renders each size and form of its own', async () => {
    const { qr } = service();
    await qr.publicImage(CODE, undefined, false);
    expect(qr.knownPublicImage(CODE, 200, false)).toBeUndefined();
    expect(qr.knownPublicImage(CODE, undefined, true)).toBeUndefined();
    const base64 = await qr.publicImage(CODE, undefined, true);
    expect(qr.knownPublicImage(CODE, undefined, true)).toMatchObject({ etag: base64.etag, headers: base64.headers });
    expect(base64.etag).not.toBe((await qr.publicImage(CODE, undefined, false)).etag);
    expect(base64.headers['content-type']).toBe('text/plain; charset=utf-8');
  });

  it('has nothing for a code that cannot be one', () => {
    expect(service().qr.knownPublicImage('not a code', undefined, false)).toBeUndefined();
  });
});
