import { crc32 } from 'node:zlib';
import sharp from 'sharp';

/**
 * A decompression bomb: a tiny, valid PNG whose header says `side` × `side` pixels (60,000 by default), so that
 * decoding it would take gigabytes. A photo upload must refuse it from the header.
 */
export async function decompressionBombPng(side = 60_000): Promise<Buffer> {
  const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: 'white' } }).png().toBuffer();
  // IHDR is the first chunk: length (4) and type (4) at offset 8, then width and height, then its CRC.
  png.writeUInt32BE(side, 16);
  png.writeUInt32BE(side, 20);
  png.writeUInt32BE(crc32(png.subarray(12, 29)), 29);
  return png;
}

