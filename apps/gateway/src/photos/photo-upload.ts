import Busboy, { type BusboyFileStream, type BusboyInstance } from '@fastify/busboy';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { PHOTO_MAX_BYTES, ResponseCode } from '@homing/contracts';
import { ApiError } from '../http/http-error';
import { ACCEPTED_IMAGE_TYPES } from './photo-renditions';

/** The parts of an upload: the item's code and the photo, one file of at most 5 MB. */
const LIMITS = { fileSize: PHOTO_MAX_BYTES, files: 1, fields: 4, fieldSize: 200, parts: 5 };

const MULTIPART = /^\s*multipart\/form-data\s*(;|$)/i;

/**
 * Lets a multipart body reach its route unread: the photo upload reads it as it streams in (`readPhotoUpload`), and
 * any other route gets no body from it (and answers as for a missing one). This is all @fastify/multipart did for us;
 * its plugin also added two async hooks to every request of the gateway (B2).
 */
export function passMultipartBodiesUnread(fastify: FastifyInstance): void {
  fastify.addContentTypeParser('multipart/form-data', (_request, _body, done) => done(null));
}

export interface PhotoUpload {
  code: string;
  file: Buffer;
}

/**
 * The multipart fields `code` and `file` (JPEG, PNG or WebP): 415 for another body, 413 past 5 MB or past the parts
 * allowed, 400 for a body that is not the multipart it says, else 422 for a field missing or of the wrong type.
 */
export function readPhotoUpload(request: FastifyRequest): Promise<PhotoUpload> {
  const contentType = request.headers['content-type'];
  if (typeof contentType !== 'string' || !MULTIPART.test(contentType)) {
    return Promise.reject(new ApiError(415, ResponseCode.UNSUPPORTED_MEDIA_TYPE, 'Send the photo as multipart/form-data with the fields code and file.'));
  }
  return new Promise((resolve, reject) => {
    const body = request.raw;
    let parser: BusboyInstance;
    try {
      parser = new Busboy({ headers: { ...request.headers, 'content-type': contentType }, limits: LIMITS });
    } catch {
      // No boundary, or one busboy cannot use.
      reject(malformed());
      return;
    }
    let code: string | undefined;
    let file: Buffer | undefined;
    let sawData = false;
    let settled = false;
    const settle = (error?: ApiError) => {
      if (settled) return;
      settled = true;
      body.unpipe(parser);
      body.off('close', cutOff);
      // What is left of a refused body is read and dropped: a client still sending it would otherwise have its
      // connection reset before it reads the answer (Node's requestTimeout bounds a body that never ends).
      if (error) {
        body.resume();
        reject(error);
      } else if (code && file) resolve({ code, file });
      else reject(new ApiError(422, ResponseCode.VALIDATION_ERROR, undefined, { ...(code ? {} : { code: 'required' }), ...(file ? {} : { file: 'required' }) }));
    };
    // Busboy never finishes a body the client stopped sending.
    const cutOff = () => {
      if (!body.readableEnded) settle(malformed());
    };

    parser.on('field', (name: string, value: string) => {
      if (name === 'code') code = value;
    });
    parser.on('file', (name: string, stream: BusboyFileStream, _filename: string, _encoding: string, mimeType: string) => {
      if (settled || name !== 'file' || !ACCEPTED_IMAGE_TYPES.has(mimeType)) {
        stream.resume();
        settle(new ApiError(422, ResponseCode.VALIDATION_ERROR, 'Send a JPEG, PNG or WebP photo as the field file.', { file: 'invalid' }));
        return;
      }
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      // Over 5 MB the answer is given at once; nothing more of the file is kept.
      stream.on('limit', () => settle(tooLarge(`The photo is larger than ${PHOTO_MAX_BYTES / (1024 * 1024)} MB.`)));
      // A part cut off by the end of the body: busboy errs on the file as well as on the whole.
      stream.on('error', () => settle(malformed()));
      stream.on('end', () => {
        if (!stream.truncated) file = Buffer.concat(chunks);
      });
    });
    for (const limit of ['partsLimit', 'filesLimit', 'fieldsLimit'] as const) parser.on(limit, () => settle(tooLarge('Send one photo with its code, and nothing else.')));
    // An empty body is an empty form (422 for both fields), as with any other form; anything else busboy cannot read is 400.
    parser.on('error', () => (sawData ? settle(malformed()) : settle()));
    parser.on('finish', () => settle());
    body.once('data', () => (sawData = true));
    body.once('close', cutOff);
    body.pipe(parser);
  });
}

function malformed(): ApiError {
  return new ApiError(400, ResponseCode.MALFORMED_REQUEST, 'The multipart/form-data body is malformed.');
}

function tooLarge(message: string): ApiError {
  return new ApiError(413, ResponseCode.PAYLOAD_TOO_LARGE, message);
}
