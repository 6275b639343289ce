import { type PipeTransform } from '@nestjs/common';
import type { z } from 'zod';
import { ResponseCode, toValidationMap, unknownFieldsOf } from '@homing/contracts';
import { ApiError } from './http-error';

/**
 * Validates a JSON body against a contract schema. A body that is not an object, or has fields the schema does
 * not know (mass assignment), is malformed: 400. A well-formed body with bad values is a validation error: 422.
 */
export class ZodBodyPipe<S extends z.ZodType> implements PipeTransform<unknown, z.infer<S>> {
  constructor(private readonly schema: S) {}

  transform(value: unknown): z.infer<S> {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new ApiError(400, ResponseCode.MALFORMED_REQUEST, 'The request body must be a JSON object.');
    }
    const result = this.schema.safeParse(value);
    if (result.success) return result.data;
    const unknown = unknownFieldsOf(result.error);
    if (unknown) throw new ApiError(400, ResponseCode.MALFORMED_REQUEST, `Unknown fields: ${unknown.join(', ').slice(0, 200)}.`);
    throw new ApiError(422, ResponseCode.VALIDATION_ERROR, undefined, toValidationMap(result.error, value));
  }
}
