import { BadRequestException, NotFoundException } from '@nestjs/common';
import { ResponseCode } from '@homing/contracts';
import { RpcError, RpcTimeoutError, RpcUnavailableError } from '@homing/platform';
import { ApiError, toHttpError } from './http-error';

describe('toHttpError', () => {
  it('answers a service refusal with its own status and body, without the status field', () => {
    const answer = toHttpError(RpcError.notFound(ResponseCode.ITEM_NOT_FOUND, 'Item not found.'));
    expect(answer).toEqual({ status: 404, body: { response_code: 'ITEM_NOT_FOUND', message: 'Item not found.' } });
  });

  it('turns a service that is down into 503 and one that is slow into 504, both with Retry-After', () => {
    expect(toHttpError(new RpcUnavailableError('items.rpc.get-by-code'))).toMatchObject({ status: 503, body: { response_code: 'SERVICE_UNAVAILABLE' }, headers: { 'Retry-After': '5' } });
    expect(toHttpError(new RpcTimeoutError('items.rpc.get-by-code'))).toMatchObject({ status: 504, body: { response_code: 'SERVICE_TIMEOUT' }, headers: { 'Retry-After': '5' } });
  });

  it('answers a service shedding load with 503 SERVICE_BUSY and Retry-After', () => {
    const busy = new RpcError({ status: 503, response_code: ResponseCode.SERVICE_BUSY, message: 'The service is busy. Try again shortly.' });
    expect(toHttpError(busy)).toEqual({
      status: 503,
      body: { response_code: 'SERVICE_BUSY', message: 'The service is busy. Try again shortly.' },
      headers: { 'Retry-After': '5' },
    });
    expect(toHttpError(new ApiError(503, ResponseCode.SERVICE_BUSY))?.body.message).toBe('The service is busy. Try again shortly.');
  });

  it('adds Retry-After to a 504 a service answers itself (a call it made ran out of time)', () => {
    const late = new RpcError({ status: 504, response_code: ResponseCode.SERVICE_TIMEOUT, message: 'A service took too long to answer. Try again shortly.' });
    expect(toHttpError(late)).toMatchObject({ status: 504, body: { response_code: 'SERVICE_TIMEOUT' }, headers: { 'Retry-After': '5' } });
  });

  it('answers 503 with Retry-After when Redis (rate limits, revoked sessions) is away, not a 500', () => {
    const redisAway = new Error("Stream isn't writeable and enableOfflineQueue options is false");
    expect(toHttpError(redisAway)).toMatchObject({ status: 503, body: { response_code: 'SERVICE_UNAVAILABLE' }, headers: { 'Retry-After': '5' } });
    expect(toHttpError(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' }))).toMatchObject({ status: 503 });
  });

  it("maps Fastify's own refusals (size, content type, broken JSON)", () => {
    expect(toHttpError(Object.assign(new Error('too large'), { code: 'FST_ERR_CTP_BODY_TOO_LARGE', statusCode: 413 }))?.status).toBe(413);
    expect(toHttpError(Object.assign(new Error('media'), { code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE', statusCode: 415 }))?.body.response_code).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect(toHttpError(Object.assign(new SyntaxError('Unexpected end of JSON input'), { statusCode: 400 }))?.body.response_code).toBe('MALFORMED_REQUEST');
  });

  it("keeps the gateway's own contract errors and names Nest's", () => {
    expect(toHttpError(new ApiError(422, ResponseCode.VALIDATION_ERROR, undefined, { name: 'max=100' }))).toEqual({
      status: 422,
      body: { response_code: 'VALIDATION_ERROR', message: 'Input data contains errors.', validation: { name: 'max=100' } },
    });
    expect(toHttpError(new NotFoundException())?.body.response_code).toBe('NOT_FOUND');
    expect(toHttpError(new BadRequestException())?.body.response_code).toBe('MALFORMED_REQUEST');
  });

  it('leaves bugs to the caller, who answers a bare 500', () => {
    expect(toHttpError(new TypeError('undefined is not a function'))).toBeNull();
  });
});
